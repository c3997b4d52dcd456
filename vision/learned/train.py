"""Training the learned detector with ultralytics (the `train` extra), CPU-friendly.

Ultralytics is prepared to run offline before it is imported: no settings written to the
home folder, no automatic installs, and the font it would otherwise download (for plots)
taken from matplotlib or any TTF on the system. The model is built from this package's yaml
(`models/tenball-yolov8p.yaml`), never from a weight name, so nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

MODEL_YAML = Path(__file__).resolve().parent / "models" / "tenball-yolov8p.yaml"
FONT_NAMES = ("Arial.ttf", "Arial.Unicode.ttf")


class TrainingUnavailableError(RuntimeError):
    """The training extra (ultralytics, torch) is not installed."""


@dataclass(frozen=True, slots=True)
class TrainSpec:
    """How to train.

    Attributes:
        model_yaml: the network layout (ultralytics yaml).
        epochs: passes over the training set.
        imgsz: training image size (square mosaics of this many pixels).
        batch: images per step.
        threads: torch CPU threads (keep it low on a shared machine).
        seed: random seed (initial weights, augmentation order).
        patience: stop after this many epochs without a better validation score.
        init: weights (.pt) of an earlier run to go on from instead of random weights
            (then without the learning-rate warm-up).
    """

    model_yaml: Path = MODEL_YAML
    epochs: int = 5
    imgsz: int = 512
    batch: int = 16
    threads: int = 2
    seed: int = 0
    patience: int = 50
    init: Path | None = None


def _find_font() -> Path | None:
    try:
        import matplotlib

        candidate = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        if candidate.is_file():
            return candidate
    except ImportError:
        pass
    for folder in (Path("/usr/share/fonts"), Path("/usr/local/share/fonts")):
        found = next(iter(sorted(folder.rglob("*.ttf"))), None) if folder.is_dir() else None
        if found is not None:
            return found
    return None


def prepare_offline(config_dir: Path) -> None:
    """Environment for an offline ultralytics: call before importing it."""
    settings = config_dir / "Ultralytics"
    settings.mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "false"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    font = _find_font()
    for name in FONT_NAMES:
        if font is not None and not (settings / name).exists():
            shutil.copyfile(font, settings / name)


def check_available() -> None:
    """Raise TrainingUnavailableError unless ultralytics and torch can be imported."""
    import importlib.util

    for name in ("torch", "ultralytics"):
        if importlib.util.find_spec(name) is None:
            raise TrainingUnavailableError(
                f"training needs the train extra ({name} is missing): pip install -e '.[train]'"
            )


def _ultralytics(threads: int) -> Any:
    prepare_offline(Path(tempfile.mkdtemp(prefix="tenball-yolo-")))
    try:
        import torch
        import ultralytics
    except ImportError as error:
        raise TrainingUnavailableError(
            f"training needs the train extra ({error.name} is missing): pip install -e '.[train]'"
        ) from None
    torch.set_num_threads(threads)
    return ultralytics


def _final_metrics(run_dir: Path) -> dict[str, float]:
    """The last epoch's validation metrics from ultralytics' results.csv."""
    import csv

    path = run_dir / "results.csv"
    if not path.is_file():
        return {}
    rows = list(csv.DictReader(path.open()))
    if not rows:
        return {}
    return {key.strip(): float(value) for key, value in rows[-1].items() if value.strip()}


def train_detector(data_yaml: Path, out: Path, spec: TrainSpec) -> dict[str, Any]:
    """Train, export to ONNX and write `out/detector.pt`, `out/detector.onnx` and
    `out/train.json` (settings, final validation metrics, sizes, time).

    Returns:
        What `train.json` holds.
    """
    ultralytics = _ultralytics(spec.threads)
    started = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    model = ultralytics.YOLO(str(spec.model_yaml))
    model.train(
        data=str(data_yaml),
        epochs=spec.epochs,
        imgsz=spec.imgsz,
        batch=spec.batch,
        device="cpu",
        workers=0,
        seed=spec.seed,
        patience=spec.patience,
        project=str(out.resolve() / "runs"),
        name="train",
        exist_ok=True,
        plots=False,
        amp=False,
        pretrained=str(spec.init) if spec.init is not None else False,
        flipud=0.5,
        close_mosaic=max(1, spec.epochs // 5),
        warmup_epochs=0.0 if spec.init is not None else 3.0,
        verbose=False,
    )
    run_dir = out / "runs" / "train"
    best = run_dir / "weights" / "best.pt"
    if not best.is_file():
        best = run_dir / "weights" / "last.pt"
    shutil.copyfile(best, out / "detector.pt.tmp")
    (out / "detector.pt.tmp").replace(out / "detector.pt")
    onnx = export_onnx(out / "detector.pt", spec.imgsz)
    onnx.replace(out / "detector.onnx")
    result = {
        "spec": {**asdict(spec), "model_yaml": str(spec.model_yaml), "init": str(spec.init)},
        "data": str(data_yaml),
        "validation": _final_metrics(run_dir),
        "onnx_bytes": (out / "detector.onnx").stat().st_size,
        "train_s": round(time.monotonic() - started, 1),
    }
    write_json(out / "train.json", result)
    return result


def export_onnx(weights: Path, imgsz: int) -> Path:
    """Export trained weights to ONNX with dynamic input size (the runtime letterboxes each
    frame to its own shape); returns the .onnx path written beside the weights."""
    ultralytics = _ultralytics(1)
    model = ultralytics.YOLO(str(weights))
    path = model.export(format="onnx", imgsz=imgsz, dynamic=True, simplify=False, opset=17)
    return Path(path)


def write_json(path: Path, value: Any) -> None:
    """Write JSON through a temporary file."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(value, indent=2) + "\n")
    temporary.replace(path)
