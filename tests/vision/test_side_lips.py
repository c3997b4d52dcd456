"""A ball resting in a side pocket's mouth (its centre past the cushion line) is detected
with `DetectorConfig.side_lip_radii` (off by default, see its docstring):
top_lip_late_tv_grey's 10 hangs there from frame 576 to its late drop at frame 701, and was
coasted into the pocket by the tracker unseen."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from calibration.io import load_calibration
from vision.detector import BallDetector
from vision.detector_config import DetectorConfig
from vision.sources import VideoFileSource

CLIP = Path(__file__).resolve().parents[2] / "sample_videos" / "top_lip_late_tv_grey"
FRAME = 620
TRUTH_PX = np.array([633.28, 621.42])
"""Where the clip's truth (truth/tracks.csv) puts the 10 at FRAME, pixels."""


def _frame() -> object:
    source = VideoFileSource(str(CLIP / "video.mp4"))
    try:
        frame = None
        for _ in range(FRAME + 1):
            frame = source.read()
    finally:
        source.close()
    assert frame is not None
    return frame


@pytest.fixture(scope="module")
def frame() -> object:
    return _frame()


def _nearest_px(config: DetectorConfig, frame: object) -> float:
    detector = BallDetector(load_calibration(CLIP / "calibration.json"), config)
    found = detector.detect(frame).xy_px  # type: ignore[arg-type]
    return float(np.min(np.linalg.norm(found - TRUTH_PX, axis=1))) if len(found) else np.inf


def test_a_ball_hanging_in_a_side_pockets_mouth_is_found(frame: object) -> None:
    assert _nearest_px(replace(DetectorConfig(), side_lip_radii=0.5), frame) < 3.0


def test_without_the_side_lips_it_is_not(frame: object) -> None:
    assert _nearest_px(replace(DetectorConfig(), side_lip_radii=None), frame) > 10.0
