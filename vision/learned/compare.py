"""The classical and the learned detector side by side (what `tenball train-detector`
reports and docs/learned-detector.md quotes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.io import Calibration
from vision.cloth import TableView
from vision.detector import BallDetector
from vision.learned.detector import LearnedBallDetector, LearnedDetectorConfig
from vision.learned.evaluate import Detector, cloth_mask, evaluate_real, evaluate_rendered

EVAL_SEED = 5_000_000
"""Rendered evaluation scenes start here: far from the training (0...) and validation
(1_000_000...) seeds of `vision.learned.dataset`."""


def compare(model: Path, scenes: int, real_test: Path | None) -> dict[str, Any]:
    """Recall, precision, identity, centre error and CPU time of both detectors.

    Args:
        model: the learned detector's .onnx file.
        scenes: rendered 1280x720 scenes (3 layouts each) from seeds never trained on.
        real_test: a real labelled YOLO-format folder (`images/`, `labels/`), or None.

    Returns:
        {"rendered": {"classical": {...}, "learned": {...}}, "real": {...}} (no "real"
        without a folder).
    """
    cv2.setNumThreads(1)
    config = LearnedDetectorConfig(threads=1)

    def learned_calibrated(calibration: Calibration) -> Detector:
        return LearnedBallDetector(model, calibration, config)

    rendered = evaluate_rendered(
        {"classical": BallDetector, "learned": learned_calibrated},
        range(EVAL_SEED, EVAL_SEED + scenes),
    )
    result: dict[str, Any] = {"rendered": rendered}
    if real_test is not None:

        def classical_real(image: NDArray[np.uint8], boxes: NDArray[np.float64]) -> Detector:
            radius = float(np.median(boxes[:, 2:] - boxes[:, :2])) / 2.0
            return BallDetector.from_view(TableView.uncalibrated(cloth_mask(image), radius))

        learned = LearnedBallDetector(model, None, config)
        result["real"] = evaluate_real(
            {"classical": classical_real, "learned": lambda _image, _boxes: learned}, real_test
        )
    return result


def format_table(result: dict[str, Any]) -> str:
    """The comparison as a Markdown table."""
    keys = ("recall", "precision", "identity", "median_centre_error_px", "ms_per_frame")
    lines = ["| set | detector | " + " | ".join(keys) + " |", "|---|---|" + "---|" * len(keys)]
    for set_name, by_detector in result.items():
        for name, summary in by_detector.items():
            values = " | ".join(f"{summary[key]}" for key in keys)
            lines.append(f"| {set_name} ({summary['balls']} balls) | {name} | {values} |")
    return "\n".join(lines)
