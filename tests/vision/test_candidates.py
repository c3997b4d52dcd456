"""Candidate finding: touching balls that an angled camera overlaps, and the geometry of
touching balls' image distance (vision.candidates, vision.cloth.TableView.separation)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.scenes import TABLE, calibration_for, rack_xy, render_scene
from tests.vision.test_detector import match
from vision.cloth import TableView
from vision.detector import BallDetector
from vision.synthetic.cameras import preset_camera


@pytest.mark.parametrize(
    "preset", ["top", "broadcast", "corner"], ids=["top", "broadcast", "corner"]
)
def test_separation_is_two_radii_from_above_and_less_when_angled(preset: str) -> None:
    camera = preset_camera(preset, TABLE, (1280, 720))
    view = TableView.from_calibration(calibration_for(camera))
    separation = view.separation[view.valid > 0]
    assert separation.min() >= 0.5
    assert separation.max() <= 2.0
    if preset == "top":
        assert np.median(separation) > 1.9
    else:
        assert np.median(separation) < 1.6


@pytest.mark.parametrize("preset", ["broadcast", "corner"], ids=["broadcast", "corner"])
def test_racked_balls_seen_at_an_angle_are_found(preset: str) -> None:
    """A ball behind another is partly hidden by it: it is still a ball, not a part of a
    hand (measured recall before the separation map: 0.2-0.4 of the rack)."""
    xy, balls = rack_xy(seed=1)
    scene = render_scene(xy, balls, seed=1, preset=preset)
    found = BallDetector(scene.calibration).detect(scene.frame)
    rows, _ = match(scene, found)
    assert len(rows) >= 6, f"{len(rows)} of {len(balls)} racked balls found"
    assert len(rows) == len(found), "a detection that is no ball"
