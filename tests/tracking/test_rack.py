"""The rack as identity evidence: a racked ball is not the cue ball, the 1 stands at the apex
and the 10 in the middle; no rack, no prior."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.table import TableSpec
from tests.tracking.builders import class_probabilities, track_sightings
from tracking.rack import (
    APEX,
    CENTRE,
    RackArea,
    RackConfig,
    RackPrior,
    match_places,
    rack_places,
    unlifted,
)
from vision.assignment import exclusive_probabilities
from vision.types import CUE, NUM_CLASSES, Detections

TABLE = TableSpec()
PLACES = rack_places(TABLE)
DIAMETER = float(TABLE.ball_diameter_mm)
CUE_XY = (TABLE.head_spot_mm[0], TABLE.head_spot_mm[1])


def _detections(xy: np.ndarray, prob: np.ndarray) -> Detections:
    ones = np.ones(len(xy), np.float32)
    return Detections(xy.astype(np.float32), xy.astype(np.float32), ones, ones, prob)


def _racked_frame(
    shift_mm: tuple[float, float] = (0.0, 0.0), keep: int = 10
) -> tuple[np.ndarray, np.ndarray]:
    """A rack (balls 1, 2, 3, 4, 10, 5..9 on places 0..9) whose back-row 9 reads as the cue
    ball with certainty, plus the real cue ball at the head spot, also read as the cue."""
    balls = [1, 2, 3, 4, 10, 5, 6, 7, 8, 9][:keep]
    xy = np.vstack([PLACES[:keep] + np.array(shift_mm), [CUE_XY]])
    prob = np.array(
        [class_probabilities({ball: 0.9}) for ball in balls] + [class_probabilities({})]
    )
    prob[:, CUE] = 0.0
    prob[-1] = np.eye(NUM_CLASSES)[CUE]
    if keep == 10:
        prob[9] = np.eye(NUM_CLASSES)[CUE]  # the 9's white caps read as the cue ball
    return xy, (prob / prob.sum(axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize(
    "shift_mm", [(0.0, 0.0), (25.0, -15.0), (-30.0, 20.0)], ids=["on_spot", "off", "further_off"]
)
def test_places_are_matched_wherever_the_rack_was_put_down(shift_mm: tuple[float, float]) -> None:
    xy = np.vstack([PLACES[[0, 2, 4, 5, 7, 9]] + np.array(shift_mm), [CUE_XY]])
    place = match_places(xy, PLACES, DIAMETER, RackConfig())
    assert place.tolist() == [0, 2, 4, 5, 7, 9, -1]


def test_a_racked_ball_read_as_the_cue_gives_the_cue_to_the_white_ball_outside() -> None:
    xy, prob = _racked_frame()
    weighed = RackPrior(TABLE).apply(_detections(xy, prob))
    labels = np.argmax(weighed.class_prob, axis=1)
    assert labels[-1] == CUE
    assert labels[9] != CUE
    assert weighed.class_prob[-1, CUE] > 0.8


def test_the_apex_is_the_1_and_the_centre_the_10() -> None:
    xy, prob = _racked_frame()
    prob[APEX] = class_probabilities({1: 0.45, 9: 0.55})  # the yellow at the apex
    prob[CENTRE] = class_probabilities({10: 0.45, 2: 0.55})  # the blue in the middle
    prob[1] = class_probabilities({2: 0.5, 10: 0.5})  # the 2, beside it
    weighed = RackPrior(TABLE).apply(_detections(xy, prob.astype(np.float32))).class_prob
    assert np.argmax(weighed[APEX]) == 1
    assert np.argmax(weighed[CENTRE]) == 10
    assert np.argmax(weighed[1]) == 2


@pytest.mark.parametrize("place", [APEX, CENTRE], ids=["apex", "centre"])
def test_the_apex_and_centre_are_named_against_a_neighbours_colour(place: int) -> None:
    # A far end's racked ball is a few pixels wide and takes in its neighbours' pixels: the
    # apex reads as the red 3 behind it, or the centre as the 3 beside it, with the 3 itself
    # (a merged blob) not found. The rack says which balls they are.
    xy, prob = _racked_frame()
    hidden = 2  # the 3's place
    prob[place] = class_probabilities({3: 0.99})
    keep = np.arange(len(xy)) != hidden
    weighed = RackPrior(TABLE).apply(_detections(xy[keep], prob[keep].astype(np.float32)))
    labels = np.argmax(weighed.class_prob, axis=1)
    assert labels[place - int(place > hidden)] == (1 if place == APEX else 10)


@pytest.mark.parametrize("keep", [5, 0], ids=["five_balls", "none"])
def test_no_rack_standing_leaves_the_probabilities_alone(keep: int) -> None:
    xy, prob = _racked_frame(keep=keep)
    detections = _detections(xy, prob)
    assert RackPrior(TABLE).apply(detections) is detections


def test_a_scattered_table_is_no_rack() -> None:
    rng = np.random.default_rng(5)
    xy = rng.uniform((100.0, 100.0), (TABLE.length_mm - 100.0, TABLE.width_mm - 100.0), (11, 2))
    prob = np.eye(NUM_CLASSES, dtype=np.float32)
    detections = _detections(xy, prob)
    assert RackPrior(TABLE).apply(detections) is detections


@settings(max_examples=40, deadline=None)
@given(st.floats(-30.0, 30.0), st.floats(-30.0, 30.0), st.integers(6, 10), st.integers(0, 1000))
def test_weighed_probabilities_stay_probabilities(
    dx: float, dy: float, keep: int, seed: int
) -> None:
    xy, _ = _racked_frame((dx, dy), keep)
    prob = np.random.default_rng(seed).dirichlet(np.full(NUM_CLASSES, 0.3), len(xy))
    weighed = RackPrior(TABLE).apply(_detections(xy, prob.astype(np.float32))).class_prob
    assert np.all(weighed >= 0.0)
    assert np.allclose(weighed.sum(axis=1), 1.0, atol=1e-4)


def test_the_tracker_starts_the_cue_ball_outside_the_rack() -> None:
    xy, prob = _racked_frame()
    weights = [dict(enumerate(row.tolist())) for row in prob]
    frames = [[(float(x), float(y), w) for (x, y), w in zip(xy, weights, strict=True)]] * 10
    tracks = track_sightings(frames)
    cue = tracks.xy_mm[tracks.ball.tolist().index(CUE)]
    assert np.allclose(cue, CUE_XY, atol=5.0)


def test_a_broken_rack_weighs_nothing_and_a_new_rack_is_believed_again() -> None:
    prior = RackPrior(TABLE)
    xy, prob = _racked_frame()
    standing = _detections(xy, prob)
    assert not prior.intact  # no rack seen yet: none to hide a ball
    assert prior.apply(standing, 0.0) is not standing
    assert prior.intact
    # The break: the 1 leaves the apex, the cue ball arrives where it was.
    moved = xy.copy()
    moved[APEX] += (3.0 * DIAMETER, 1.0 * DIAMETER)
    moved[-1] = PLACES[APEX] - (1.1 * DIAMETER, 0.0)
    broken = _detections(moved, prob)
    assert prior.apply(broken, 0.1) is broken
    assert not prior.intact
    # A soft break leaves most balls in place and the cue ball stopped on the apex: no rack.
    stopped = xy.copy()
    stopped[APEX] += (3.0 * DIAMETER, 1.0 * DIAMETER)
    stopped[-1] = PLACES[APEX]
    still = _detections(stopped, prob)
    assert prior.apply(still, 1.0) is still
    # The balls are collected (an empty rack area for longer than rearm_s), then racked.
    empty = _detections(xy[-1:], prob[-1:])
    for time_s in (2.0, 3.0, 4.5):
        prior.apply(empty, time_s)
    racked = _detections(xy, prob)
    assert prior.apply(racked, 5.0) is not racked
    assert prior.intact


def test_jitter_of_resting_rack_balls_keeps_the_rack() -> None:
    prior = RackPrior(TABLE)
    xy, prob = _racked_frame()
    rng = np.random.default_rng(3)
    for frame in range(30):
        jittered = xy + rng.normal(0.0, 0.05 * DIAMETER, xy.shape)
        detections = _detections(jittered, prob)
        assert prior.apply(detections, frame / 60.0) is not detections


def test_the_rack_area_rearms_only_after_standing_nearly_empty_for_long_enough() -> None:
    area = RackArea(PLACES, DIAMETER, rearm_s=2.0, start_s=0.0)
    racked = PLACES + 1.0
    two = PLACES[:2]
    away = np.array([CUE_XY, CUE_XY, CUE_XY, CUE_XY])  # balls far from the rack
    assert not area.follow(racked, 0.5)
    assert not area.follow(two, 1.0)  # two balls: nearly empty, but not for long
    assert not area.follow(away, 2.4)
    assert area.follow(away, 2.6)  # empty since 0.5 s for 2.1 s: a new rack may stand
    assert not area.follow(racked, 3.0)
    assert RackArea(PLACES, DIAMETER, 2.0, start_s=-np.inf).follow(away, 0.0)


def _full_rack_with_a_misread_7() -> Detections:
    """Every ball in view (the rack's ten and the cue ball), read as the detector read
    broadcast_nudge's far rack: the 7 as the 4, the 10 or the 2 and nothing like a 7; the
    8 as the 8 with a trace of 7; the others surely, none of them as the 7."""
    balls = [1, 2, 3, 4, 10, 5, 6, 7, 8, 9, CUE]
    prob = 0.97 * np.eye(NUM_CLASSES)[balls] + 0.003
    prob[:, 7] = 0.0
    prob[7] = 0.0
    prob[7, [4, 10, 2, 3]] = [0.43, 0.25, 0.24, 0.08]
    prob[8] = 0.0
    prob[8, [8, 7]] = [0.94, 0.06]
    prob /= prob.sum(axis=1, keepdims=True)
    return _detections(np.vstack([PLACES, [CUE_XY]]), prob.astype(np.float32))


@pytest.mark.parametrize("least", [0.25, 0.0], ids=["unlifted", "off"])
def test_a_ball_read_as_no_class_left_does_not_take_its_neighbours_name(least: float) -> None:
    """All eleven balls in view, the frame made one-ball-per-class unfloored (the rack
    filler's): the 7, read as none, leaves the 7 to the 8's trace of it; unlifted, nobody
    is named the 7 (the 8 is left unnamed for the frame)."""
    own = _full_rack_with_a_misread_7().class_prob
    named = unlifted(own, exclusive_probabilities(own), least)
    labels = np.argmax(named, axis=1)
    swapped = labels[8] == 7 and named[8, 7] >= 0.5
    assert swapped == (least == 0.0), (labels.tolist(), named[:, 7].round(2))
    if least > 0:
        assert np.all(named[:, 7] < 0.5)  # no track starts as the 7 from this frame


@pytest.mark.parametrize("least_lifted", [0.25, 0.0], ids=["unlifted", "off"])
def test_the_rack_prior_leaves_a_ball_read_as_no_class_left_unnamed(least_lifted: float) -> None:
    weighed = RackPrior(TABLE, RackConfig(least_lifted=least_lifted)).apply(
        _full_rack_with_a_misread_7()
    )
    assert (np.ptp(weighed.class_prob[7]) < 1e-6) == (least_lifted > 0)
    assert np.argmax(weighed.class_prob[8]) == 8


def test_an_unnamed_detection_stays_unnamed_under_the_rack() -> None:
    detections = _full_rack_with_a_misread_7()
    prob = detections.class_prob.copy()
    prob[7] = 1.0 / NUM_CLASSES
    weighed = RackPrior(TABLE).apply(replace(detections, class_prob=prob)).class_prob
    assert np.ptp(weighed[7]) < 1e-6
    assert np.argmax(weighed[8]) == 8
