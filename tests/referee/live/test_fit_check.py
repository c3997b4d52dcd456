"""A calibration checked against the camera's picture: the clip's own fits, another camera's
does not, and a moved camera is told once after two failed checks running."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.live.fit_check import FitWatch, check_fit

SAMPLES = Path(__file__).resolve().parents[3] / "sample_videos"
CLIPS = ("top_break_green", "broadcast_nudge_safety_8ft_blue", "corner_lip_stay_8ft_green")
pytestmark = pytest.mark.skipif(
    not all((SAMPLES / c / "video.mp4").is_file() for c in CLIPS), reason="no sample clips"
)


@cache
def _frame(clip: str) -> np.ndarray[Any, Any]:
    capture = cv2.VideoCapture(str(SAMPLES / clip / "video.mp4"))
    ok, image = capture.read()
    capture.release()
    assert ok
    return image


@cache
def _calibration(clip: str) -> Any:
    from calibration.io import load_calibration

    return load_calibration(SAMPLES / clip / "calibration.json")


@pytest.mark.parametrize("clip", CLIPS)
def test_a_clips_own_calibration_fits(clip: str) -> None:
    check = check_fit(_frame(clip), _calibration(clip))
    assert check.fits(), check
    assert check.cloth_inside > 0.9 and check.cloth_outside < 0.05


@pytest.mark.parametrize(
    ("picture", "calibration"),
    [(a, b) for a in CLIPS for b in CLIPS if a != b],
    ids=[f"{a[:6]}-with-{b[:6]}" for a in CLIPS for b in CLIPS if a != b],
)
def test_another_cameras_calibration_does_not(picture: str, calibration: str) -> None:
    check = check_fit(_frame(picture), _calibration(calibration))
    assert not check.fits(), check
    assert "cloth" in check.why_not()


def test_a_picture_of_another_size_does_not_fit() -> None:
    small = cv2.resize(_frame(CLIPS[0]), (640, 360)).astype(np.uint8)
    check = check_fit(small, _calibration(CLIPS[0]))
    assert not check.fits()
    assert "the camera gives 640x360" in check.why_not()


def test_a_moved_camera_is_told_after_two_checks_and_when_it_is_back() -> None:
    watch = FitWatch(_calibration(CLIPS[0]), period_s=10.0)
    good, moved = _frame(CLIPS[0]), _frame(CLIPS[2])
    said = [watch.update(image, now_s) for image, now_s in [
        (good, 0.0), (moved, 10.0), (moved, 11.0), (moved, 13.0), (moved, 20.0), (good, 30.0),
    ]]  # fmt: skip
    assert said[:2] == [None, None]  # one failed check: maybe a player over the table
    assert said[2] is None  # not due yet: confirmed a quarter period later
    assert said[3] is not None and "did not move" in said[3]
    assert said[4] is None  # said once
    assert said[5] == ""  # fits again
