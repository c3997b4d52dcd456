"""Candidate finding (vision.candidates): motion-blur streaks on constructed search regions,
and touching balls that an angled camera overlaps (vision.cloth.TableView.separation)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.vision.scenes import TABLE, calibration_for, rack_xy, render_scene
from tests.vision.test_detector import match
from vision.candidates import (
    TOUCHING_SHARE,
    SearchRegion,
    _merge_one_by_one,
    _suppress_one_by_one,
    median_radius,
    merge_candidates,
    suppress,
    touching_gap,
)
from vision.cloth import TableView
from vision.confidence import visible_share
from vision.detector import BallDetector
from vision.streaks import streaks
from vision.synthetic.cameras import preset_camera

RADIUS = 10.0
THRESHOLD = 16.0


def _region(distance: np.ndarray) -> SearchRegion:
    height, width = distance.shape
    image = np.zeros((height, width, 3), np.uint8)
    image[distance > 0] = (200, 200, 200)
    return SearchRegion(
        image=image,
        distance=distance.astype(np.float32),
        foreground=(distance > THRESHOLD).astype(np.uint8),
        radius=np.full((height, width), RADIUS, np.float32),
        gradient=np.zeros((height, width, 2), np.float32),
        centre_valid=np.ones((height, width), np.uint8),
        threshold=THRESHOLD,
    )


def _smear(length_radii: float, contrast: float, angle_deg: float) -> np.ndarray:
    """A (200, 300) distance map of a ball of `contrast` whose disc sweeps a streak
    `length_radii` long centred at (150, 100) during the exposure: each pixel's distance is
    the contrast times the share of the exposure the ball covered it."""
    distance = np.zeros((200, 300), np.float32)
    travel = (length_radii - 2.0) * RADIUS
    direction = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))])
    ys, xs = np.mgrid[:200, :300]
    steps = np.linspace(-0.5, 0.5, 41)
    for step in steps:
        centre = np.array([150.0, 100.0]) + step * travel * direction
        distance += np.hypot(xs - centre[0], ys - centre[1]) <= RADIUS
    smeared: np.ndarray = distance * np.float32(contrast / len(steps))
    return smeared


@pytest.mark.parametrize("length", [4.0, 6.0, 8.0], ids=["4r", "6r", "8r"])
@pytest.mark.parametrize("angle", [0.0, 35.0, 90.0], ids=["0deg", "35deg", "90deg"])
def test_a_ball_wide_streak_is_one_ball_at_its_middle(length: float, angle: float) -> None:
    region = _region(_smear(length, 6.0 * THRESHOLD, angle))
    centres, scores, pixels = streaks(region, np.zeros((0, 2)), 0.5 * THRESHOLD)
    assert len(centres) == 1 and scores[0] > 0.5, scores
    assert np.hypot(*(centres[0] - [150.0, 100.0])) < 1.0
    assert len(pixels[0]) > np.pi * RADIUS**2


def test_a_faint_band_is_no_streak() -> None:
    """Where the cloth model is a little off (along a cushion) a ball-wide band sits between
    the streak threshold and the foreground one: a ball's streak has a core that stands out."""
    band = np.zeros((200, 300), np.float32)
    band[90:110, 100:200] = 0.7 * THRESHOLD
    region = _region(band)
    centres, _, _ = streaks(region, np.zeros((0, 2)), 0.5 * THRESHOLD)
    assert len(centres) == 0


def test_a_streak_through_a_found_ball_is_not_found_again() -> None:
    region = _region(_smear(3.0, 6.0 * THRESHOLD, 0.0))
    centres, _, _ = streaks(region, np.array([[150.0, 100.0]]), 0.5 * THRESHOLD)
    assert len(centres) == 0


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
    hand (measured before the separation map: 2-4 of the 10 racked balls found)."""
    xy, balls = rack_xy(seed=1)
    scene = render_scene(xy, balls, seed=1, preset=preset)
    found = BallDetector(scene.calibration).detect(scene.frame)
    rows, _ = match(scene, found)
    assert len(rows) >= 6, f"{len(rows)} of {len(balls)} racked balls found"
    assert len(rows) == len(found), "a detection that is no ball"


def test_a_ball_half_hidden_behind_a_nearer_one_shows_the_rest() -> None:
    xy = np.array([[0.0, 0.0], [0.0, 10.0], [0.0, 100.0]])
    share = visible_share(xy, np.array([10.0, 10.2, 10.0]))
    # Equal circles one radius apart overlap by 39 % of a disc; the nearer (larger) ball
    # and the lone one are whole.
    assert share[0] == pytest.approx(0.61, abs=0.02)
    assert share[1] == 1.0 and share[2] == 1.0
    apart = visible_share(xy * 2.5, np.array([10.0, 10.2, 10.0]))
    assert np.all(apart == 1.0)


@pytest.mark.parametrize("seed", [0, 1, 2], ids=["seed0", "seed1", "seed2"])
@pytest.mark.parametrize("count", [0, 1, 40, 1100], ids=["none", "one", "some", "many"])
def test_suppression_keeps_the_same_points_whichever_way_it_counts(seed: int, count: int) -> None:
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0.0, 200.0, (count, 2))
    gaps = rng.uniform(5.0, 30.0, count)
    kept = suppress(xy, gaps)
    assert np.array_equal(kept, _suppress_one_by_one(xy, gaps))
    # No kept point lies within its own gap of one kept before it.
    for later, index in enumerate(kept):
        earlier = xy[kept[:later]]
        assert np.all(np.hypot(*(earlier - xy[index]).T) >= gaps[index])


@pytest.mark.parametrize("count", [1, 2, 7, 8], ids=["1", "2", "7", "8"])
def test_median_radius_is_numpys_median(count: int) -> None:
    radius = np.zeros((4, 4), np.float32)
    radius.flat[:count] = np.random.default_rng(count).uniform(5.0, 20.0, count)
    region = _region(np.zeros((4, 4)))
    region = dataclasses.replace(region, radius=radius)
    assert median_radius(region) == float(np.median(radius[radius > 0]))


@pytest.mark.parametrize("seed", [0, 1, 2, 3], ids=["seed0", "seed1", "seed2", "seed3"])
def test_merging_keeps_the_same_candidates_whichever_way_it_counts(seed: int) -> None:
    rng = np.random.default_rng(seed)
    distance = np.zeros((120, 160), np.float32)
    ys, xs = np.mgrid[:120, :160]
    for u, v in rng.uniform([10.0, 10.0], [150.0, 110.0], (12, 2)):
        distance[np.hypot(xs - u, ys - v) <= RADIUS] = 40.0
    # An angled view: touching balls' centres 1.5 radii apart, so near pairs are judged by
    # their far sides.
    separation = np.full(distance.shape, 1.5, np.float32)
    region = dataclasses.replace(_region(distance), separation=separation)
    first = rng.uniform([0.0, 0.0], [160.0, 120.0], (8, 2))
    second = rng.uniform([0.0, 0.0], [160.0, 120.0], (60, 2))
    both = np.vstack([first, second])
    radius = np.full(len(both), RADIUS)
    min_gap = TOUCHING_SHARE * np.minimum(touching_gap(region, both), 2.0 * radius)
    expected = both[_merge_one_by_one(region, both, len(first), radius, min_gap)]
    merged = merge_candidates(region, first, second)
    assert np.array_equal(merged, expected)
    assert len(first) < len(merged) < len(both)  # some of `second` kept, some dropped
