"""One ball seen twice, or two touching balls: judged on the table (`vision.duplicates`)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.scenes import TABLE, calibration_for
from vision.detector import BallDetector, DetectorConfig
from vision.duplicates import BALL_RADIUS_MM, dedupe_on_table, duplicate_pairs
from vision.synthetic.cameras import preset_camera

CORNER = preset_camera("corner", TABLE, (1280, 720))
FAR_END = (TABLE.length_mm - 100.0, 100.0)


def _pixels(xy_mm: list[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    xy = np.array(xy_mm, np.float64)
    return CORNER.project(xy, BALL_RADIUS_MM), CORNER.ball_radius_px(xy, BALL_RADIUS_MM)


def test_touching_balls_at_the_far_end_of_a_corner_view_are_both_kept() -> None:
    x, y = FAR_END
    px, radius = _pixels([(x, y), (x - 2.0 * BALL_RADIUS_MM - 0.5, y)])
    # The premise: foreshortened, their centres are under one apparent radius apart.
    assert np.linalg.norm(px[0] - px[1]) < radius[0]
    assert dedupe_on_table(px, np.array([0.9, 0.8]), radius, CORNER).tolist() == [True, True]
    # Without the camera (an uncalibrated view) the image rule alone drops one.
    assert dedupe_on_table(px, np.array([0.9, 0.8]), radius, None).tolist() == [True, False]


@pytest.mark.parametrize("offset_px", [1.0, 2.5], ids=["1px", "2.5px"])
def test_one_ball_seen_twice_is_one_ball(offset_px: float) -> None:
    px, radius = _pixels([FAR_END, (TABLE.length_mm / 2, TABLE.width_mm / 2)])
    shifted = px[:1] + np.array([offset_px, 0.0])
    twice = np.vstack([px[:1], shifted, px[1:]])
    radii = np.append(radius[:1], radius)
    keep = dedupe_on_table(twice, np.array([0.7, 0.9, 0.8]), radii, CORNER)
    assert keep.tolist() == [False, True, True]


def test_pairs_between_two_sets_and_empty_input() -> None:
    px, radius = _pixels([FAR_END])
    same = duplicate_pairs(px, px + 0.5, radius, CORNER)
    assert same.shape == (1, 1) and bool(same[0, 0])
    assert duplicate_pairs(px, np.zeros((0, 2)), radius, CORNER).shape == (1, 0)
    assert dedupe_on_table(np.zeros((0, 2)), np.zeros(0), np.zeros(0), CORNER).shape == (0,)


def test_off_by_default_the_detector_judges_duplicates_in_the_image() -> None:
    detector = BallDetector(calibration_for(CORNER))
    assert not detector.config.duplicates_on_table
    assert detector._plane() is None
    on = BallDetector(calibration_for(CORNER), DetectorConfig(duplicates_on_table=True))
    assert on._plane() is CORNER
