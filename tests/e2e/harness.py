"""Shared by the end-to-end tests and the baseline refresh script.

`review_clip` runs the real review (the same code as `tenball review`) over a sample clip,
with the real detector or with the truth detector, and scores it with `tenball eval`;
`compare` holds a result against a stored baseline.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import BALL_CENTRE_HEIGHT_MM
from calibration.io import Calibration, load_calibration
from referee.declarations import load_declarations
from referee.evaluate import HEADLINE, evaluate, headline
from referee.evaluate_io import read_tracks
from referee.review.session import Review, ReviewOptions
from vision.sources import open_source
from vision.types import NUM_CLASSES, Detections, Frame

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_videos"
BASELINES = ROOT / "tests" / "baselines"
DETECTORS = ("real", "truth")

SLACK_RATE = 0.01
"""A rate may fall this much (absolute) below its baseline before a test fails."""
SLACK_RELATIVE = 0.25
"""An error measure (mm, frames, switches) may grow this much (relative) above its baseline..."""
SLACK_ABSOLUTE = 1.0
"""...plus this much (absolute), so a baseline of 0 tolerates tiny noise."""


class TruthDetector:
    """Detections exactly where a clip's truth/tracks.csv puts the visible balls.

    Isolates tracking, events, shots and rules from the detector: any error left is theirs.
    """

    def __init__(self, tracks_csv: Path, calibration: Calibration) -> None:
        rows = read_tracks(tracks_csv)
        visible = rows.status == 0  # on_table only: occluded balls are not seen
        self._by_frame: dict[int, np.ndarray[Any, Any]] = {}
        index = np.flatnonzero(visible)
        frames = rows.frame[index]
        for frame in np.unique(frames):
            self._by_frame[int(frame)] = index[frames == frame]
        self._rows = rows
        self._camera = calibration.camera
        self._radius_mm = calibration.table.ball_radius_mm

    def detect(self, frame: Frame, hint_xy_px: Any = None) -> Detections:
        index = self._by_frame.get(frame.index)
        if index is None or len(index) == 0:
            return Detections.empty()
        xy_mm = self._rows.xy_mm[index]
        xy_px = self._rows.uv_px[index]
        missing = ~np.isfinite(xy_px).all(axis=1)
        if missing.any():
            xy_px[missing] = self._camera.project(xy_mm[missing], BALL_CENTRE_HEIGHT_MM)
        class_prob = np.zeros((len(index), NUM_CLASSES), np.float32)
        class_prob[np.arange(len(index)), self._rows.ball[index]] = 1.0
        return Detections(
            xy_px=xy_px.astype(np.float32),
            xy_mm=xy_mm.astype(np.float32),
            radius_px=self._camera.ball_radius_px(xy_mm, self._radius_mm).astype(np.float32),
            confidence=np.ones(len(index), np.float32),
            class_prob=class_prob,
        )


def clips() -> list[Path]:
    """Sample clips that have a video, a calibration and truth, by name."""
    if not SAMPLES.is_dir():
        return []
    return sorted(
        p
        for p in SAMPLES.iterdir()
        if (p / "video.mp4").exists() and (p / "truth" / "shots.jsonl").exists()
    )


def review_clip(clip: Path, out_dir: Path, detector: str) -> dict[str, Any]:
    """Review a clip into `out_dir` and return `tenball eval`'s result."""
    calibration = load_calibration(clip / "calibration.json")
    declarations_file = clip / "declarations.jsonl"
    declarations = load_declarations(declarations_file) if declarations_file.exists() else None
    fake = (
        TruthDetector(clip / "truth" / "tracks.csv", calibration) if detector == "truth" else None
    )
    source = open_source(clip / "video.mp4")
    try:
        review = Review(
            source, calibration, declarations, ReviewOptions(out_dir, progress=False), fake
        )
        summary = review.execute()
    finally:
        source.close()
    result = evaluate(clip, out_dir)
    result["review_summary"] = summary
    return result


def baseline_path(clip: Path, detector: str) -> Path:
    return BASELINES / f"{clip.name}.{detector}.json"


def _higher_is_better() -> dict[str, bool]:
    return {label: better for label, _, better in HEADLINE}


def compare(result: dict[str, Any], baseline: dict[str, Any]) -> list[str]:
    """Headline numbers of `result` that are worse than the baseline beyond the slack."""
    numbers = headline(result)
    better = _higher_is_better()
    failures = []
    for label, floor in baseline["metrics"].items():
        value = numbers.get(label)
        if floor is None:
            continue
        if value is None:
            failures.append(f"{label}: no value (baseline {floor})")
        elif better[label] and value < floor - SLACK_RATE:
            failures.append(f"{label}: {value:.4f} < baseline {floor:.4f}")
        elif not better[label] and value > floor * (1 + SLACK_RELATIVE) + SLACK_ABSOLUTE:
            failures.append(f"{label}: {value:.3f} > baseline {floor:.3f}")
    return failures


def write_baseline(clip: Path, detector: str, result: dict[str, Any]) -> Path:
    path = baseline_path(clip, detector)
    data = {
        "clip": clip.name,
        "detector": detector,
        "made_with": "python tests/e2e/refresh_baselines.py",
        "metrics": headline(result),
        "review_frames_per_s": result["review_summary"]["frames_per_s"],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path
