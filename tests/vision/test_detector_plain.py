"""`BallDetector.plain_cloth`: whether the window at a place shows plain cloth (a ball there
is gone) or anything that may hide one (a ball, a hand) (`vision.plain`)."""

from __future__ import annotations

import numpy as np

from calibration.camera import BALL_CENTRE_HEIGHT_MM
from tests.vision.scenes import hand_overlay, render_scene
from vision.detector import BallDetector


def test_plain_cloth_is_told_from_balls_and_hands() -> None:
    xy = np.array([[400.0, 300.0], [1500.0, 640.0], [2000.0, 300.0]])
    scene = render_scene(xy, [3, 0, 7], seed=11, overlays=(hand_overlay(1200.0, 900.0),))
    detector = BallDetector(scene.calibration)
    assert not detector.plain_cloth(scene.frame, scene.uv_px).any()  # before the cloth
    detector.detect(scene.frame)
    camera = scene.calibration.camera
    cloth_mm = np.array([[800.0, 600.0], [1800.0, 1000.0], [600.0, 1000.0]])
    places = np.vstack([cloth_mm, [[1200.0, 900.0]]])
    places_px = camera.project(places, BALL_CENTRE_HEIGHT_MM)
    assert detector.plain_cloth(scene.frame, scene.uv_px).tolist() == [False] * 3
    assert detector.plain_cloth(scene.frame, places_px).tolist() == [True] * 3 + [False]
    # Off the frame, or unknown: never plain.
    nowhere = np.array([[-500.0, -500.0], [np.nan, np.nan]])
    assert detector.plain_cloth(scene.frame, nowhere).tolist() == [False, False]
    assert detector.plain_cloth(scene.frame, np.zeros((0, 2))).shape == (0,)
