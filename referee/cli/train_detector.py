"""`tenball train-detector --out DIR`: render a training set, train the learned ball detector,
export it to ONNX and compare it with the classical detector.

Needs the `train` extra (ultralytics, torch): `pip install -e '.[train]'`. Writes
`DIR/data/` (the data set), `DIR/detector.pt`, `DIR/detector.onnx`, `DIR/train.json` and
`DIR/metrics.json` (training settings, validation and the side-by-side comparison). With
`--model FILE.onnx` it only compares an existing model. See docs/learned-detector.md.

Exit status: 0 done; 2 bad arguments or inputs; 3 the training extra is not installed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

EXIT_BAD_INPUT = 2
EXIT_NO_TRAINING = 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "train-detector",
        help="train the learned (ONNX) ball detector and compare it with the classical one",
        description=(
            "Render labelled frames (varied cameras, cloths, lights, table sizes, ball sets, "
            "blur, hands and cues), add real labelled images, train a small YOLO-style "
            "network from this package's model yaml, export it to ONNX and compare it with "
            "the classical detector. Needs the train extra."
        ),
    )
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="output folder")
    parser.add_argument(
        "--real",
        type=Path,
        metavar="DATASET",
        help="real YOLO-format data set (train/, valid/, test/ with images/ and labels/; "
        "classes 0 cue, 1 other ball): train/ is trained on, valid/ validates, test/ is "
        "only evaluated",
    )
    parser.add_argument("--rendered", type=int, default=450, help="rendered training frames")
    parser.add_argument("--rendered-val", type=int, default=60, help="rendered validation frames")
    parser.add_argument("--epochs", type=int, default=5, help="training epochs (default 5)")
    parser.add_argument("--imgsz", type=int, default=512, help="training image size (512)")
    parser.add_argument("--batch", type=int, default=16, help="images per step (16)")
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads (2)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument(
        "--eval-scenes", type=int, default=20, help="rendered evaluation scenes, 3 frames each"
    )
    parser.add_argument(
        "--init",
        type=Path,
        metavar="WEIGHTS",
        help="go on from this earlier run's detector.pt instead of random weights",
    )
    parser.add_argument(
        "--data",
        type=Path,
        metavar="DATA_YAML",
        help="train on this existing data set (a data.yaml written before) instead of "
        "rendering a new one",
    )
    parser.add_argument(
        "--model", type=Path, metavar="FILE", help="compare this .onnx model only (no training)"
    )


def _check(args: argparse.Namespace) -> str | None:
    positive = ("epochs", "imgsz", "batch", "threads", "eval_scenes")
    for name in positive:
        if getattr(args, name) < 1:
            return f"--{name.replace('_', '-')} must be at least 1"
    if args.rendered < 0 or args.rendered_val < 0:
        return "--rendered and --rendered-val must be >= 0"
    if args.real is not None and not (args.real / "train" / "images").is_dir():
        return f"--real {args.real} has no train/images folder"
    if args.init is not None and not args.init.is_file():
        return f"--init {args.init} does not exist"
    if args.data is not None and not args.data.is_file():
        return f"--data {args.data} does not exist"
    if args.model is not None and not args.model.is_file():
        return f"--model {args.model} does not exist"
    return None


def _build_data(args: argparse.Namespace) -> Path:
    from tqdm import tqdm

    from vision.learned.dataset import DatasetSpec, build_dataset

    real: tuple[Path, ...] = ()
    splits: tuple[str, ...] = ()
    if args.real is not None:
        real, splits = (args.real / "train",), ("train",)
        if (args.real / "valid" / "images").is_dir():
            real, splits = (*real, args.real / "valid"), (*splits, "val")
    spec = DatasetSpec(
        args.rendered, args.rendered_val, seed=args.seed, real=real, real_splits=splits
    )
    with tqdm(desc="data set", unit="image") as bar:
        return build_dataset(args.out / "data", spec, bar.update)


def run(args: argparse.Namespace) -> int:
    problem = _check(args)
    if problem is not None:
        print(f"tenball train-detector: {problem}", file=sys.stderr)
        return EXIT_BAD_INPUT
    from vision.learned.compare import compare, format_table
    from vision.learned.train import (
        TrainingUnavailableError,
        TrainSpec,
        check_available,
        train_detector,
        write_json,
    )

    args.out.mkdir(parents=True, exist_ok=True)
    metrics: dict[str, Any] = {}
    model = args.model
    if model is None:
        spec = TrainSpec(
            epochs=args.epochs,
            imgsz=args.imgsz,
            batch=args.batch,
            threads=args.threads,
            seed=args.seed,
            init=args.init,
        )
        try:
            check_available()
            data = args.data if args.data is not None else _build_data(args)
            metrics["train"] = train_detector(data, args.out, spec)
        except TrainingUnavailableError as error:
            print(f"tenball train-detector: {error}", file=sys.stderr)
            return EXIT_NO_TRAINING
        model = args.out / "detector.onnx"
    test = args.real / "test" if args.real is not None else None
    if test is not None and not (test / "images").is_dir():
        test = None
    print("comparing with the classical detector ...", file=sys.stderr)
    metrics["model"] = str(model)
    metrics["comparison"] = compare(model, args.eval_scenes, test)
    write_json(args.out / "metrics.json", metrics)
    print(format_table(metrics["comparison"]))
    print(f"-> {args.out / 'metrics.json'}")
    return 0
