"""The classical detector on rendered frames: recall, precision, identity and centre error."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from tests.vision.scenes import (
    TABLE,
    Scene,
    chalk_overlay,
    cue_overlay,
    hand_overlay,
    rack_xy,
    render_scene,
    scatter,
)
from vision.detector import BallDetector, DetectorConfig
from vision.types import Detections, Frame

ALL_BALLS = list(range(11))


def match(scene: Scene, found: Detections) -> tuple[np.ndarray, np.ndarray]:
    """Truth and detection indices paired within half a radius."""
    cost = np.linalg.norm(scene.uv_px[:, None, :] - found.xy_px[None, :, :], axis=2)
    rows, cols = linear_sum_assignment(cost)
    close = cost[rows, cols] < 0.5 * found.radius_px[cols]
    return rows[close], cols[close]


def scores(scene: Scene, found: Detections) -> dict[str, float]:
    rows, cols = match(scene, found)
    errors = np.linalg.norm(scene.uv_px[rows] - found.xy_px[cols], axis=1)
    return {
        "recall": len(rows) / len(scene.ball),
        "precision": len(rows) / max(len(found), 1),
        "identity": float(np.mean(found.label[cols] == scene.ball[rows])) if len(rows) else 0.0,
        "median_error_px": float(np.median(errors)) if len(rows) else np.inf,
    }


def _rack(seed: int, ball_set: str) -> Scene:
    xy, balls = rack_xy(seed=seed)
    cue = np.array([[TABLE.length_mm / 4, TABLE.width_mm / 2]])
    return render_scene(np.vstack([xy, cue]), [*balls, 0], seed=seed, ball_set=ball_set)


SCENES = {
    "scatter-standard": lambda: render_scene(
        scatter(np.random.default_rng(1), 11), ALL_BALLS, seed=1
    ),
    "scatter-tv": lambda: render_scene(
        scatter(np.random.default_rng(2), 11), ALL_BALLS, seed=2, ball_set="tv"
    ),
    "rack-standard": lambda: _rack(3, "standard"),
    "rack-tv": lambda: _rack(4, "tv"),
    "blue-cloth": lambda: render_scene(
        scatter(np.random.default_rng(5), 11), ALL_BALLS, seed=5, cloth="blue"
    ),
    "red-cloth": lambda: render_scene(
        scatter(np.random.default_rng(6), 11), ALL_BALLS, seed=6, cloth="red"
    ),
    "grey-cloth": lambda: render_scene(
        scatter(np.random.default_rng(7), 11), ALL_BALLS, seed=7, cloth="grey"
    ),
}


@pytest.mark.parametrize("name", list(SCENES), ids=list(SCENES))
def test_finds_and_names_every_ball_from_above(name: str) -> None:
    scene = SCENES[name]()
    found = BallDetector(scene.calibration).detect(scene.frame)
    result = scores(scene, found)
    assert result["recall"] == 1.0, result
    assert result["precision"] == 1.0, result
    assert result["identity"] == 1.0, result
    assert result["median_error_px"] <= 0.6, result
    assert np.allclose(found.class_prob.sum(axis=1), 1.0, atol=1e-4)
    rows, cols = match(scene, found)
    assert np.all(np.linalg.norm(found.xy_mm[cols] - scene.xy_mm[rows], axis=1) < 3.0)


def test_touching_balls_in_a_rack_are_separated_to_a_pixel() -> None:
    scene = _rack(8, "standard")
    found = BallDetector(scene.calibration).detect(scene.frame)
    rows, cols = match(scene, found)
    assert len(rows) == 11 == len(found)
    errors = np.linalg.norm(scene.uv_px[rows] - found.xy_px[cols], axis=1)
    assert errors.max() < 1.5


def test_hints_search_only_near_them_and_agree_with_the_full_search() -> None:
    scene = render_scene(scatter(np.random.default_rng(9), 11), ALL_BALLS, seed=9)
    # Without the memory, so the hinted search itself runs on the same frame.
    detector = BallDetector(scene.calibration, DetectorConfig(reuse_still_windows=False))
    full = detector.detect(scene.frame)
    rng = np.random.default_rng(0)
    hinted = detector.detect(scene.frame, hint_xy_px=scene.uv_px + rng.normal(0, 3, (11, 2)))
    assert len(hinted) == len(full) == 11
    order = np.argmin(np.linalg.norm(full.xy_px[:, None] - hinted.xy_px[None], axis=2), axis=1)
    assert np.allclose(full.xy_px, hinted.xy_px[order], atol=0.05)
    some = detector.detect(scene.frame, hint_xy_px=scene.uv_px[:3])
    assert len(some) == 3
    assert len(detector.detect(scene.frame, hint_xy_px=np.zeros((0, 2)))) == 0


def test_hand_cue_and_chalk_are_not_balls() -> None:
    xy = np.array([[400.0, 300.0], [1500.0, 640.0], [2000.0, 300.0], [900.0, 1000.0]])
    overlays = (
        hand_overlay(1200.0, 350.0),  # alone on the cloth
        hand_overlay(xy[2, 0] + 80.0, xy[2, 1]),  # beside a ball
        cue_overlay(xy[1, 0] - 30.0, xy[1, 1]),  # tip about to strike the cue ball
        chalk_overlay(1700.0, 950.0),
    )
    scene = render_scene(xy, [3, 0, 7, 9], seed=11, overlays=overlays)
    found = BallDetector(scene.calibration).detect(scene.frame)
    rows, _ = match(scene, found)
    assert len(found) == len(rows), f"false balls at {found.xy_mm.round()}"
    assert {0, 3, 9} <= set(scene.ball[rows].tolist())


@pytest.mark.parametrize("preset", ["broadcast", "corner"], ids=["broadcast", "corner"])
def test_angled_cameras(preset: str) -> None:
    """Angled views: everything but a ball of the cloth's own colour (the green 6 beside
    its shadow) is found and named."""
    scene = render_scene(scatter(np.random.default_rng(12), 11), ALL_BALLS, seed=12, preset=preset)
    found = BallDetector(scene.calibration).detect(scene.frame)
    result = scores(scene, found)
    assert result["recall"] >= 10 / 11, result
    assert result["precision"] >= 10 / 11, result
    assert result["identity"] == 1.0, result


def test_empty_table_has_no_balls() -> None:
    scene = render_scene(np.zeros((0, 2)), [], seed=13)
    assert len(BallDetector(scene.calibration).detect(scene.frame)) == 0


def test_frame_of_the_wrong_size_is_refused() -> None:
    scene = render_scene(scatter(np.random.default_rng(0), 2), [0, 1], seed=0)
    detector = BallDetector(scene.calibration)
    with pytest.raises(ValueError, match="calibration is for 1280x720"):
        detector.detect(Frame(np.zeros((480, 640, 3), np.uint8), 0, 0.0))


CROWDS = DetectorConfig(separate_crowds=True, reuse_still_windows=False)


def test_hinted_racks_are_split_where_the_tracker_expects_more_balls() -> None:
    """Hints at every racked ball of a broadcast view: the fast pass over their windows
    finds fewer balls than hints (touching balls overlap into one blob), so the crowd is
    split ball by ball, as in a full search."""
    xy, balls = rack_xy(seed=1)
    scene = render_scene(xy, balls, seed=1, preset="broadcast")
    hints = scene.uv_px + np.random.default_rng(3).normal(0, 1.5, scene.uv_px.shape)
    plain = BallDetector(
        scene.calibration, DetectorConfig(reuse_still_windows=False, separate_crowds=False)
    )
    crowds = BallDetector(scene.calibration, CROWDS)
    for detector in (plain, crowds):
        detector.detect(scene.frame)  # learns the cloth
    without = len(match(scene, plain.detect(scene.frame, hint_xy_px=hints))[0])
    found = crowds.detect(scene.frame, hint_xy_px=hints)
    rows, _ = match(scene, found)
    assert len(rows) >= 9 > without, (len(rows), without)
    assert len(rows) == len(found), "a detection that is no ball"


def test_reach_windows_find_a_ball_outside_every_hint_window() -> None:
    # The cue ball struck from rest: its own hint (its rest spot) is far from where it is;
    # the reach windows around where it may have gone find it, without seeding phantoms.
    scene = render_scene(scatter(np.random.default_rng(9), 3), [0, 1, 2], seed=9)
    detector = BallDetector(scene.calibration, DetectorConfig(reuse_still_windows=False))
    radius = float(np.median(detector.detect(scene.frame).radius_px))
    rest = scene.uv_px[0] + np.array([9.0 * radius, 0.0])
    hints = np.vstack([rest, scene.uv_px[1:]])
    assert len(detector.detect(scene.frame, hint_xy_px=hints)) == 2
    reach = scene.uv_px[0] + np.array([[2.0 * radius, 1.0 * radius], [-3.0 * radius, 0.0]])
    found = detector.detect_reaching(scene.frame, hints, reach)
    assert len(found) == 3
    assert np.min(np.linalg.norm(found.xy_px - scene.uv_px[0], axis=1)) < 1.0
