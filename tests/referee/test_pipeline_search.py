"""Where the detector searches: the reach of unseen balls that may be moving."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from calibration.table import TableSpec
from referee.pipeline_search import Reach, reach_centres, struck_ball_lost
from tracking.types import TrackSet, TrackStatus

TABLE = TableSpec()
R = TABLE.ball_radius_mm
REACH = Reach(speed_mm_s=6000.0, max_radii=10.0, window_radii=2.5)


def _tracks(
    ball: int, xy: tuple[float, float], velocity: tuple[float, float], status: TrackStatus
) -> TrackSet:
    return TrackSet(
        10,
        1.0,
        np.array([ball]),
        np.array([xy], np.float64),
        np.array([velocity], np.float64),
        np.full((1, 2), np.nan),
        np.array([status], dtype=object),
    )


def _covered(centres: np.ndarray, point: np.ndarray) -> bool:
    """Whether ``point`` lies inside one window (a square of half-size window_radii; the
    windows overlap, so their union holds a ball whose centre is in one of them)."""
    half = REACH.window_radii * R
    return bool(np.any(np.all(np.abs(centres - point) <= half, axis=1)))


@pytest.mark.parametrize(
    ("ball", "velocity", "status", "unseen_s", "grows"),
    [
        (0, (0.0, 0.0), TrackStatus.OCCLUDED, 1 / 30, True),
        (0, (0.0, 0.0), TrackStatus.ON_TABLE, 0.0, False),
        (0, (0.0, 0.0), TrackStatus.OCCLUDED, 0.0, False),
        (3, (0.0, 0.0), TrackStatus.OCCLUDED, 1 / 30, False),
        (3, (2000.0, 0.0), TrackStatus.OCCLUDED, 1 / 30, False),
        (0, (2000.0, 0.0), TrackStatus.OCCLUDED, 1 / 30, True),
        (0, (650.0, 0.0), TrackStatus.OCCLUDED, 1 / 30, False),
    ],
    ids=[
        "struck-cue-ball-unseen",
        "cue-ball-seen",
        "cue-ball-just-hidden",
        "object-ball-hidden-at-rest",
        "fast-object-ball-left-to-the-tracker",
        "fast-cue-ball-unseen",
        "slow-cue-ball-stays-in-its-window",
    ],
)
def test_only_unseen_balls_that_may_have_left_their_window_reach_further(
    ball: int,
    velocity: tuple[float, float],
    status: TrackStatus,
    unseen_s: float,
    grows: bool,
) -> None:
    tracks = _tracks(ball, (1000.0, 600.0), velocity, status)
    centres = reach_centres(tracks, np.array([unseen_s]), 1 / 30, TABLE, REACH)
    assert (len(centres) > 0) == grows


@given(
    st.floats(0.0, 2 * np.pi),
    st.floats(0.0, 1.0),
    st.sampled_from([1 / 30, 1 / 50, 1 / 60]),
    st.integers(1, 6),
)
def test_a_struck_cue_ball_lies_in_a_window_wherever_it_went(
    angle: float, fraction: float, step_s: float, frames_unseen: int
) -> None:
    # Struck from rest at up to the reach speed, in any direction, the cue ball is inside
    # one of the windows on the next frame, unless it went beyond the cap.
    rest = np.array([1117.0, 559.0])
    tracks = _tracks(0, (rest[0], rest[1]), (0.0, 0.0), TrackStatus.OCCLUDED)
    unseen_s = frames_unseen * step_s
    centres = reach_centres(tracks, np.array([unseen_s]), step_s, TABLE, REACH)
    travelled = fraction * REACH.speed_mm_s * (unseen_s + step_s)
    if travelled > REACH.max_radii * R:
        return
    at = rest + travelled * np.array([np.cos(angle), np.sin(angle)])
    assert _covered(centres, at)


def test_the_reach_stops_growing_at_its_cap_and_stays_on_the_table() -> None:
    tracks = _tracks(0, (40.0, 40.0), (0.0, 0.0), TrackStatus.OCCLUDED)
    near = reach_centres(tracks, np.array([0.5]), 1 / 30, TABLE, REACH)
    far = reach_centres(tracks, np.array([5.0]), 1 / 30, TABLE, REACH)
    np.testing.assert_array_equal(near, far)
    assert np.all(near > -R)
    assert np.max(np.hypot(*(near - 40.0).T)) <= (REACH.max_radii + 2 * REACH.window_radii) * R


def test_a_moving_ball_reaches_around_where_its_filter_puts_it() -> None:
    tracks = _tracks(0, (1000.0, 600.0), (3000.0, 0.0), TrackStatus.OCCLUDED)
    centres = reach_centres(tracks, np.array([1 / 30]), 1 / 30, TABLE, REACH)
    np.testing.assert_allclose(centres.mean(axis=0), [1100.0, 600.0], atol=1e-6)


def test_unseen_times_must_match_the_balls() -> None:
    tracks = _tracks(0, (1000.0, 600.0), (0.0, 0.0), TrackStatus.OCCLUDED)
    with pytest.raises(ValueError, match="unseen_s"):
        reach_centres(tracks, np.zeros(2), 1 / 30, TABLE, REACH)


def _table_of(
    rows: list[tuple[int, tuple[float, float], tuple[float, float], TrackStatus]],
) -> TrackSet:
    return TrackSet(
        10,
        1.0,
        np.array([r[0] for r in rows]),
        np.array([r[1] for r in rows], np.float64),
        np.array([r[2] for r in rows], np.float64),
        np.full((len(rows), 2), np.nan),
        np.array([r[3] for r in rows], dtype=object),
    )


MIDDLE = (0.5 * TABLE.length_mm, 0.5 * TABLE.width_mm)


@pytest.mark.parametrize(
    ("mover_xy", "mover_speed", "lost_xy", "unseen_s", "struck"),
    [
        ((MIDDLE[0] - 6 * R, MIDDLE[1]), 3000.0, MIDDLE, 1 / 30, True),
        ((MIDDLE[0] - 6 * R, MIDDLE[1]), 3000.0, MIDDLE, 0.5, False),
        ((MIDDLE[0] - 6 * R, MIDDLE[1]), 50.0, MIDDLE, 1 / 30, False),
        ((200.0, 200.0), 1000.0, MIDDLE, 1 / 30, False),
        ((MIDDLE[0] - 6 * R, MIDDLE[1]), 3000.0, MIDDLE, 0.0, False),
        ((6 * R, 0.0), 3000.0, (0.0, 0.0), 1 / 30, False),
    ],
    ids=[
        "resting-ball-lost-beside-a-fast-one",
        "lost-too-long-ago",
        "neighbour-barely-moving",
        "mover-far-away",
        "not-yet-unseen",
        "lost-in-a-pocket-mouth",
    ],
)
def test_struck_ball_lost(
    mover_xy: tuple[float, float],
    mover_speed: float,
    lost_xy: tuple[float, float],
    unseen_s: float,
    struck: bool,
) -> None:
    tracks = _table_of(
        [
            (0, mover_xy, (mover_speed, 0.0), TrackStatus.ON_TABLE),
            (5, lost_xy, (0.0, 0.0), TrackStatus.OCCLUDED),
        ]
    )
    unseen = np.array([0.0, unseen_s])
    assert struck_ball_lost(tracks, unseen, 0.3, 100.0, TABLE) is struck


@pytest.mark.parametrize(
    ("lost_ball", "struck"),
    [(5, True), (0, False)],
    ids=["object-ball-lost-with-the-cue-ball", "cue-ball-alone-waits-for-its-own-search"],
)
def test_struck_ball_lost_with_the_cue_ball(lost_ball: int, struck: bool) -> None:
    rows = [(0, (200.0, 200.0), (0.0, 0.0), TrackStatus.OCCLUDED)]
    if lost_ball != 0:
        rows.append((lost_ball, MIDDLE, (0.0, 0.0), TrackStatus.OCCLUDED))
    tracks = _table_of(rows)
    unseen = np.full(len(rows), 0.1)
    assert struck_ball_lost(tracks, unseen, 0.3, 100.0, TABLE) is struck


def test_struck_ball_lost_needs_one_entry_per_ball() -> None:
    tracks = _table_of([(0, MIDDLE, (0.0, 0.0), TrackStatus.ON_TABLE)])
    with pytest.raises(ValueError, match="one entry per ball"):
        struck_ball_lost(tracks, np.zeros(2), 0.3, 100.0, TABLE)
