"""The round search's seeded candidates (vision.find.find_seeded) through the detector's
hinted windows: a ball of the cloth's hue that no peak or outline proposes is found where the
tracker expects it, and a seed adds nothing where there is no ball or a ball is found, nor on
a bridge hand."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import BALL_CENTRE_HEIGHT_MM
from tests.vision.scenes import R_MM, render_scene, scatter
from tests.vision.test_detector import match
from vision.detector import BallDetector, DetectorConfig
from vision.find import to_mosaic
from vision.mosaic import pack
from vision.synthetic.nuisances import SHAFT_BGR
from vision.synthetic.nuisances import _arm as arm_overlays
from vision.synthetic.nuisances import _quad as quad
from vision.synthetic.render import Overlay
from vision.synthetic.table_image import Lighting

SIDE_LIGHT = Lighting(
    brightness=0.85,
    light_xy_mm=(1200.0, 600.0),
    falloff_mm=2000.0,
    light_dir=(0.2, -0.2, 1.0),
    noise_sigma=2.0,
)
"""A dimmer light from one side: a red ball on red cloth shows a mottled lit side."""


def _hinted(seed: int, seed_hints: bool) -> tuple[int, int]:
    """(balls found within half a radius, detections) of a hinted search of a broadcast
    view of red cloth with eleven scattered balls."""
    rng = np.random.default_rng(seed)
    scene = render_scene(
        scatter(rng, 11),
        list(range(11)),
        seed=seed,
        preset="broadcast",
        cloth="red",
        lighting=SIDE_LIGHT,
    )
    hints = scene.uv_px + rng.normal(0.0, 1.5, scene.uv_px.shape)
    config = DetectorConfig(reuse_still_windows=False, seed_hints=seed_hints)
    detector = BallDetector(scene.calibration, config)
    detector.detect(scene.frame)
    found = detector.detect(scene.frame, hint_xy_px=hints)
    return len(match(scene, found)[0]), len(found)


@pytest.mark.parametrize("seed", [13], ids=["seed13"])
def test_a_hint_finds_the_ball_of_the_cloths_hue_nothing_else_proposes(seed: int) -> None:
    assert _hinted(seed, seed_hints=False) == (10, 10)
    assert _hinted(seed, seed_hints=True) == (11, 11)


def test_seeds_on_bare_cloth_or_at_found_balls_add_nothing() -> None:
    rng = np.random.default_rng(5)
    where = scatter(rng, 11)
    scene = render_scene(where[:6], list(range(6)), seed=5, preset="broadcast", cloth="blue")
    empty = scene.calibration.camera.project(where[6:], BALL_CENTRE_HEIGHT_MM)
    both = np.vstack([scene.uv_px + rng.normal(0.0, 2.0, scene.uv_px.shape), empty])
    found = []
    for seed_hints in (False, True):
        config = DetectorConfig(reuse_still_windows=False, seed_hints=seed_hints)
        detector = BallDetector(scene.calibration, config)
        detector.detect(scene.frame)
        assert len(detector.detect(scene.frame, hint_xy_px=empty)) == 0
        found.append(detector.detect(scene.frame, hint_xy_px=both))
    assert len(found[1]) == len(found[0]) >= 5
    np.testing.assert_allclose(found[1].xy_px, found[0].xy_px)


def test_to_mosaic_places_frame_points_in_their_window_and_drops_the_rest() -> None:
    boxes = [(100, 50, 140, 90), (300, 200, 330, 240)]
    mosaic = pack(boxes, (0, 0, 1280, 720))
    points = np.array([[120.0, 60.0], [310.5, 230.0], [500.0, 500.0]])
    placed = to_mosaic(mosaic, points)
    assert placed.shape == (2, 2)
    np.testing.assert_allclose(mosaic.to_frame(placed), points[:2])


def _on_the_hand(seed_min_hued: float) -> list[float]:
    """Distances, in radii, from the nearest ball of each detection of a hinted search of a
    broadcast view where a bridge hand (`vision.synthetic.nuisances`, with the cue's shaft)
    covers the yellow 1 and the tracker's hint for it lies on the hand."""
    direction = np.array([np.cos(2.8), np.sin(2.8)])
    side = np.array([-direction[1], direction[0]])
    cue = np.array([1400.0, 500.0])
    tip = np.array([*(cue - direction * (R_MM + 60.0)), R_MM])
    joint = np.array([*(cue - direction * 800.0), R_MM + 100.0])
    overlays = (*arm_overlays(cue, direction), Overlay(quad(tip, joint, 13.0, 22.0), SHAFT_BGR))
    hand = cue - direction * 230.0
    balls = np.array([cue, hand + direction * 25.0])
    scene = render_scene(
        balls, [0, 1], seed=3, preset="broadcast", ball_set="tv", overlays=overlays
    )
    camera = scene.calibration.camera
    on_hand = camera.project(hand + direction * 50.0 + side * 15.0, BALL_CENTRE_HEIGHT_MM)
    config = DetectorConfig(reuse_still_windows=False, seed_min_hued=seed_min_hued)
    detector = BallDetector(scene.calibration, config)
    detector.detect(scene.frame)
    found = detector.detect(scene.frame, hint_xy_px=np.vstack([scene.uv_px[:1], on_hand]))
    apart = np.linalg.norm(found.xy_px[:, None, :] - scene.uv_px[None, :, :], axis=2)
    return list(apart.min(axis=1) / found.radius_px)


def test_a_seed_on_a_bridge_hand_is_no_ball_when_seeds_need_the_cloths_hue() -> None:
    # Off: the hand scored as a ball, placed off the hidden 1 by most of a radius.
    assert sorted(_on_the_hand(0.0)) == [
        pytest.approx(0.07, abs=0.05),
        pytest.approx(0.75, abs=0.2),
    ]
    assert _on_the_hand(0.3) == [pytest.approx(0.07, abs=0.05)]  # the cue ball alone
