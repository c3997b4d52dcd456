"""`tenball detect IMAGE|VIDEO|FOLDER [--calibration FILE] --out DIR [--max-frames N]`.

Finds and names the balls in each frame and writes annotated frames (a circle per ball, its
most probable number with that probability, and the detection confidence) for a person to
check, plus `detections.csv` with every detection. Without `--calibration` the table is
found in the first frames (calibration.find).

Exit status: 0 on success, 1 when no table is found, 2 when the arguments, the calibration
or the source are unusable.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path
from typing import Any

from referee.cli.review import add_detector_option

CSV_HEADER = (
    "frame",
    "time_s",
    "u_px",
    "v_px",
    "x_mm",
    "y_mm",
    "radius_px",
    "confidence",
    "ball",
    "p_ball",
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "detect",
        help="find and name the balls; write annotated frames to check by eye",
        description=(
            "Find and name the balls in an image, an image folder or a video and write "
            "annotated frames (number, probability, confidence) and detections.csv."
        ),
    )
    parser.add_argument("source", metavar="IMAGE|VIDEO|FOLDER", help="what to look at")
    parser.add_argument("--calibration", type=Path, metavar="FILE", help="calibration file")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="output folder")
    parser.add_argument(
        "--max-frames", type=int, default=300, metavar="N", help="frames to process (default 300)"
    )
    parser.add_argument(
        "--every", type=int, default=1, metavar="K", help="annotate every K-th frame (default 1)"
    )
    parser.add_argument(
        "--table",
        default="auto",
        help="table size when finding the table: auto (measured from the balls; default), "
        "9ft, 8ft, 7ft or LxW in mm",
    )
    parser.add_argument(
        "--palette",
        choices=["auto", "standard", "tv"],
        default="auto",
        help="ball set: standard, tv (4 pink, 7 brown) or auto (default)",
    )
    add_detector_option(parser)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from calibration.io import CalibrationError, load_calibration
    from vision.sources import SourceError, open_source

    if args.max_frames < 1 or args.every < 1:
        print("error: --max-frames and --every must be at least 1", file=sys.stderr)
        return 2
    try:
        source = open_source(args.source)
    except SourceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    with source:
        first = source.read()
        if first is None:
            print(f"error: {args.source} has no frames", file=sys.stderr)
            return 2
        try:
            calibration = (
                load_calibration(args.calibration)
                if args.calibration
                else _find_calibration(first.image, args.table)
            )
        except CalibrationError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2 if args.calibration else 1
        total = min(args.max_frames, source.frame_count or args.max_frames)
        frames = _frames(first, source, args.max_frames)
        return _detect_all(calibration, frames, args, tqdm(total=total, unit="frame"))


def _find_calibration(image: Any, table_name: str) -> Any:
    from calibration.find import TableNotFoundError
    from calibration.io import CalibrationError
    from calibration.scale import find_sized_table, table_choice

    try:
        finding = find_sized_table([image], table_choice(table_name))
    except (TableNotFoundError, ValueError) as error:
        raise CalibrationError(f"no table found ({error}); give --calibration FILE") from None
    for note in finding.notes:
        print(f"table: {note}", file=sys.stderr)
    return finding.calibration


def _frames(first: Any, source: Any, limit: int) -> Any:
    yield first
    for _ in range(limit - 1):
        frame = source.read()
        if frame is None:
            return
        yield frame


def _detect_all(calibration: Any, frames: Any, args: argparse.Namespace, progress: Any) -> int:
    import cv2
    import numpy as np

    from vision.annotate import annotate
    from vision.cloth import surface_outline_mm
    from vision.types import ball_name

    config = single_image_config(args.palette)
    try:
        detector = _make_detector(calibration, config, getattr(args, "detector", "classical"))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    outline = calibration.camera.project(surface_outline_mm(calibration.table, 0.0), 0.0)
    args.out.mkdir(parents=True, exist_ok=True)
    temporary = args.out / "detections.csv.tmp"
    count = 0
    with temporary.open("w", newline="") as handle, progress:
        writer = csv.writer(handle)
        writer.writerow(CSV_HEADER)
        for frame in frames:
            try:
                found = detector.detect(frame)
            except ValueError as error:
                print(f"error: frame {frame.index}: {error}", file=sys.stderr)
                return 2
            for k in range(len(found)):
                label = int(found.label[k])
                writer.writerow(
                    [frame.index, f"{frame.time_s:.4f}"]
                    + [f"{v:.2f}" for v in (*found.xy_px[k], *found.xy_mm[k], found.radius_px[k])]
                    + [
                        f"{found.confidence[k]:.3f}",
                        ball_name(label),
                        f"{found.class_prob[k, label]:.3f}",
                    ]
                )
            if frame.index % args.every == 0:
                image = annotate(frame.image, found, np.asarray(outline))
                _write_image(args.out / f"frame_{frame.index:06d}.png", image, cv2)
            count += 1
            progress.update(1)
    temporary.replace(args.out / "detections.csv")
    print(f"{count} frames; annotated frames and detections.csv in {args.out}")
    return 0


def single_image_config(palette: str) -> Any:
    """The `DetectorConfig` for frames searched each on its own (no tracker), as here.

    Crowded blobs are explained ball by ball, which single images gain from (see
    `DetectorConfig.separate_crowds`); in corner views too, since a single image has no
    tracker to lose a misnamed rack ball to.

    Args:
        palette: the ball set, "auto", "standard" or "tv".
    """
    from vision.detector import DetectorConfig
    from vision.identify import IdentifierConfig

    return DetectorConfig(
        identifier=IdentifierConfig(palette=palette),
        separate_crowds=True,
        crowd_min_separation=0.0,
        crowd_smear_peaks=False,
    )


def _make_detector(calibration: Any, config: Any, choice: str) -> Any:
    """The classical detector, or the learned one for `--detector onnx:PATH` (raises a
    ValueError naming the problem)."""
    from vision.detector import BallDetector
    from vision.learned.detector import (
        LearnedBallDetector,
        LearnedDetectorConfig,
        model_from_choice,
    )

    model = model_from_choice(choice)
    if model is None:
        return BallDetector(calibration, config)
    learned = LearnedDetectorConfig(identifier=config.identifier)
    return LearnedBallDetector(model, calibration, learned)


def _write_image(path: Path, image: Any, cv2: Any) -> None:
    """Write through a temporary file so a crash never leaves half an image."""
    temporary = path.with_name(path.stem + ".tmp" + path.suffix)
    if not cv2.imwrite(str(temporary), image):
        raise OSError(f"cannot write {path}")
    temporary.replace(path)
