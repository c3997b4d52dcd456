"""Two tracks exchange numbers only if they can have exchanged balls: far apart and each
seen all along, a misread never swaps them; after their gates met, clear evidence does."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.tracking.builders import TABLE, Sighting, track_sightings
from tracking.mixing import Reaches, confirm, mixable, open_all, open_jumps, open_near
from tracking.types import TrackSet
from vision.types import NUM_CLASSES

FPS = 60.0
DIAMETER = TABLE.ball_diameter_mm


def _ball_at(tracks: TrackSet, xy: tuple[float, float]) -> int:
    distance = np.hypot(*(tracks.xy_mm - np.array(xy)).T)
    return int(tracks.ball[int(np.argmin(distance))])


@pytest.mark.parametrize("misread_s", [0.5, 1.0, 3.0], ids=["half-second", "second", "long"])
def test_far_resting_balls_seen_all_along_never_exchange_numbers(misread_s: float) -> None:
    """The cue ball and a far, small 10 both rest in view; for a while the detector reads
    each as the other (a shade, perspective). Their tracks never came near each other, so
    they keep their numbers."""
    cue_xy, ten_xy = (240.0, 440.0), (2160.0, 760.0)
    good = [(*cue_xy, {0: 0.97, 10: 0.03}), (*ten_xy, {10: 0.8, 0: 0.2})]
    misread = [(*cue_xy, {10: 0.6, 0: 0.4}), (*ten_xy, {0: 0.7, 10: 0.05})]
    tracks = track_sightings([good] * 90 + [misread] * int(misread_s * FPS))
    assert _ball_at(tracks, cue_xy) == 0
    assert _ball_at(tracks, ten_xy) == 10


def test_balls_that_met_exchange_numbers_on_clear_evidence() -> None:
    """Two balls roll past each other and the tracks swap at the crossing (both read as
    the other while blurred); once at rest, clear readings swap the numbers back."""
    frames: list[list[Sighting]] = []
    for k in range(40):  # 3 and 7 approach on one line, 8 mm a frame each
        x3, x7 = 800.0 + 8.0 * k, 1440.0 - 8.0 * k
        frames.append([(x3, 400.0, {3: 0.9, 7: 0.1}), (x7, 400.0, {7: 0.9, 3: 0.1})])
    # They meet at 1120 and the detections are swapped from there (the tracks follow them
    # back: position alone cannot tell them apart).
    for _ in range(10):
        frames.append([(1100.0, 400.0, {3: 0.5, 7: 0.5}), (1160.0, 400.0, {7: 0.5, 3: 0.5})])
    frames += [[(1100.0, 400.0, {7: 0.95, 3: 0.05}), (1160.0, 400.0, {3: 0.95, 7: 0.05})]] * 60
    tracks = track_sightings(frames)
    assert _ball_at(tracks, (1100.0, 400.0)) == 7
    assert _ball_at(tracks, (1160.0, 400.0)) == 3


def test_open_near_opens_pairs_whose_gates_meet() -> None:
    mixed = np.full((NUM_CLASSES, NUM_CLASSES), -np.inf)
    idx = np.array([1, 2, 3])
    xy = np.array([[0.0, 0.0], [DIAMETER + 50.0, 0.0], [1000.0, 0.0]])
    open_near(mixed, Reaches(idx, xy, np.array([30.0, 30.0, 30.0])), DIAMETER, 5.0)
    assert mixed[1, 2] == mixed[2, 1] == 5.0
    assert np.isneginf(mixed[1, 3]) and np.isneginf(mixed[2, 3])


def test_a_jump_opens_the_jumper_with_the_tracks_near_the_detection_it_took() -> None:
    mixed = np.full((NUM_CLASSES, NUM_CLASSES), -np.inf)
    idx = np.array([0, 4, 5])
    xy = np.array([[200.0, 200.0], [1500.0, 600.0], [2000.0, 300.0]])
    reach = np.full(3, 30.0)
    jumps = (np.array([0]), np.array([[1520.0, 610.0]]))
    open_jumps(mixed, Reaches(idx, xy, reach), jumps, DIAMETER, 1.0)
    assert mixed[0, 4] == mixed[4, 0] == 1.0
    assert np.isneginf(mixed[0, 5]) and np.isneginf(mixed[4, 5])


@pytest.mark.parametrize(
    ("confirmed_at", "expected"),
    [(1.2, True), (2.0, False)],
    ids=["too-soon-after-opening", "settled-after-opening"],
)
def test_a_clear_own_number_after_the_pair_opened_closes_it(
    confirmed_at: float, expected: bool
) -> None:
    mixed = np.full((NUM_CLASSES, NUM_CLASSES), -np.inf)
    open_all(mixed, np.array([2]), 1.0)
    confirmed = np.full(NUM_CLASSES, -np.inf)
    evidence = np.full((NUM_CLASSES, NUM_CLASSES), np.log(0.01))
    evidence[2, 2] = np.log(0.9)
    confirm(confirmed, evidence, np.array([2]), margin=1.5, time_s=confirmed_at)
    assert confirmed[2] == confirmed_at
    assert mixable(mixed, confirmed, settle_s=0.6)[2, 5] == expected
    assert mixable(mixed, confirmed, settle_s=0.6)[5, 2] == expected


def test_a_weak_lead_does_not_confirm() -> None:
    confirmed = np.full(NUM_CLASSES, -np.inf)
    evidence = np.full((NUM_CLASSES, NUM_CLASSES), np.log(0.01))
    evidence[3, 3], evidence[3, 8] = np.log(0.6), np.log(0.4)
    confirm(confirmed, evidence, np.array([3]), margin=1.5, time_s=1.0)
    assert np.isneginf(confirmed[3])


@given(
    st.lists(st.tuples(st.floats(0.0, 2500.0), st.floats(0.0, 1250.0)), min_size=2, max_size=11),
    st.floats(0.0, 200.0),
)
def test_open_near_is_symmetric_and_never_opens_a_pair_too_far_to_meet(
    points: list[tuple[float, float]], reach: float
) -> None:
    mixed = np.full((NUM_CLASSES, NUM_CLASSES), -np.inf)
    idx = np.arange(len(points))
    xy = np.array(points)
    open_near(mixed, Reaches(idx, xy, np.full(len(points), reach)), DIAMETER, 1.0)
    assert np.array_equal(mixed, mixed.T)
    distance = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
    opened = np.isfinite(mixed[: len(points), : len(points)])
    assert not (opened & (distance >= DIAMETER + 2 * reach)).any()
