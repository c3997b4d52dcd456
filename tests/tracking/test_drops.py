"""Drops the tracker reports (`tracking.drops`): a ball given up in a pocket's mouth dropped
only if it could reach the hole, and the geometry and roll fit that tell."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.tracking.builders import TABLE, Noise, run_tracking, simulate
from tracking.drops import _roll_fit
from tracking.events import EventDetector
from tracking.geometry import CORNER_SHELF_MM, SIDE_SHELF_MM
from tracking.jaws import hole_gap_mm, in_jaws
from tracking.types import EventKind, TrackSet, TrackStatus

L, W = TABLE.length_mm, TABLE.width_mm
CORNER_EDGE = math.sqrt(2.0) * (0.5 * TABLE.corner_mouth_mm - CORNER_SHELF_MM)


@pytest.mark.parametrize(
    ("xy", "pocket", "gap"),
    [
        ((100.0, 100.0), (0.0, 0.0), (200.0 - CORNER_EDGE) / math.sqrt(2.0)),
        ((L - 100.0, W - 100.0), (L, W), (200.0 - CORNER_EDGE) / math.sqrt(2.0)),
        ((5.0, 5.0), (0.0, 0.0), 0.0),
        ((L / 2 + 30.0, 60.0), (L / 2, 0.0), 60.0 + SIDE_SHELF_MM),
        ((L / 2, W - 40.0), (L / 2, W), 40.0 + SIDE_SHELF_MM),
        ((L / 2, W + 10.0), (L / 2, W), 0.0),
    ],
    ids=["corner", "far-corner", "over-corner-hole", "side", "far-side", "over-side-hole"],
)
def test_hole_gap_is_the_distance_still_to_roll_to_the_hole(
    xy: tuple[float, float], pocket: tuple[float, float], gap: float
) -> None:
    assert hole_gap_mm(TABLE, np.array(xy), pocket) == pytest.approx(gap)


@pytest.mark.parametrize(
    ("speed", "decel"), [(300.0, 100.0), (80.0, 60.0), (1200.0, 400.0)], ids=["mid", "slow", "fast"]
)
def test_roll_fit_recovers_speed_and_deceleration_within_its_margins(
    speed: float, decel: float
) -> None:
    rng = np.random.default_rng(3)
    t = np.asarray(np.arange(-0.5, 1e-9, 1.0 / 60.0), dtype=np.float64)
    direction = np.array([0.6, -0.8])
    # Speed `speed` at t = 0 (the last sighting), decelerating at `decel` since.
    along = speed * t - 0.5 * decel * t**2
    xy = np.array([500.0, 400.0]) + along[:, None] * direction + rng.normal(0, 1.5, (len(t), 2))
    fit = _roll_fit(t, xy, 1.5)
    assert fit is not None
    at, fast, slow = fit
    assert np.linalg.norm(at - [500.0, 400.0]) < 3.0
    assert speed <= fast < speed + 60.0  # speed plus its margin
    assert decel - 250.0 < slow <= decel  # deceleration less its margin


def test_roll_fit_refuses_a_bent_path_and_too_few_sightings() -> None:
    t = np.asarray(np.arange(-0.5, 1e-9, 1.0 / 60.0), dtype=np.float64)
    xy = np.asarray(np.stack([800.0 * t, -800.0 * np.abs(t + 0.25)], axis=1), dtype=np.float64)
    assert _roll_fit(t, xy, 1.5) is None  # a cushion turned it back
    assert _roll_fit(t[-5:], xy[-5:], 1.5) is None


def _drop_run(speed: float, lost_from_mm: float, decel: float) -> list[EventKind]:
    """The 7 rolls straight at the foot-left corner from 300 mm out at ``speed``, and the
    detector stops seeing it ``lost_from_mm`` from the corner point (in the dark of the
    jaws): the event kinds of the 7."""
    start = np.array([L - 300.0, 300.0])
    aim = np.array([L, 0.0]) - start
    velocity = speed * aim / np.linalg.norm(aim)
    truth = simulate(
        {0: (500.0, 500.0), 7: (float(start[0]), float(start[1]))},
        [(0.1, 7, (float(velocity[0]), float(velocity[1])))],
        4.0,
        decel_mm_s2=decel,
    )
    corner = np.array([L, 0.0])
    near = np.linalg.norm(truth.xy_mm[:, 7] - corner, axis=1) < lost_from_mm
    lost_s = float(truth.time_s[int(np.argmax(near))]) if near.any() else 10.0
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=((7, lost_s, 10.0),)))
    return [e.kind for e in run.events if 7 in e.balls]


def test_ball_that_stops_on_the_lip_out_of_sight_is_not_pocketed() -> None:
    """Rolling at 0.6 m/s and slowing at 0.5 m/s^2 it stops 354 mm on, on the corner's lip
    70 mm from the corner point (its hole begins 53 mm nearer), where the detector has lost
    it for the last 15 mm: the tracker gives it up in the mouth, but it was far too slow to
    reach the hole, so no drop is reported."""
    kinds = _drop_run(speed=595.0, lost_from_mm=85.0, decel=500.0)
    assert EventKind.BALL_POCKET not in kinds


def test_ball_lost_in_the_mouth_rolling_fast_enough_still_dropped() -> None:
    """The same ball sent at 1.2 m/s reaches the hole: lost in the jaws, it dropped."""
    kinds = _drop_run(speed=1200.0, lost_from_mm=85.0, decel=500.0)
    assert kinds.count(EventKind.BALL_POCKET) == 1


def _jaw_drop_s(lag: float) -> tuple[float, float]:
    """The 7 rolls at 0.3 m/s into the foot-left corner and is lost after three sightings in
    its jaws, before it drops; there the detector's centres cover only ``lag`` of its steps
    (a jaw hides its far side). (When its drop is reported, frame time), s."""
    start = np.array([L - 300.0, 300.0])
    aim = np.array([L, 0.0]) - start
    velocity = 300.0 * aim / np.linalg.norm(aim)
    truth = simulate(
        {0: (500.0, 500.0), 7: (float(start[0]), float(start[1]))},
        [(0.1, 7, (float(velocity[0]), float(velocity[1])))],
        3.0,
        decel_mm_s2=50.0,
    )
    path = truth.xy_mm[:, 7]
    inside = in_jaws(TABLE, np.nan_to_num(path, nan=-1e6))
    entered = int(np.argmax(inside))
    path[inside] = path[entered] + lag * (path[inside] - path[entered])
    lost_s = float(truth.time_s[entered + 3])
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=((7, lost_s, 10.0),)))
    drops = [e for e in run.events if e.kind == EventKind.BALL_POCKET and 7 in e.balls]
    assert len(drops) == 1
    return drops[0].time_s, 1.0 / truth.fps


def test_drop_time_of_a_ball_whose_centres_lag_in_the_jaws() -> None:
    """A ball whose centres lag in the jaws before it is lost is put in the hole when the
    same ball seen true would be (within two frames): its drop is timed from its path
    before the jaws, not from the slow-looking steps in them."""
    true_s, frame_s = _jaw_drop_s(1.0)
    lagging_s, _ = _jaw_drop_s(0.2)
    assert abs(lagging_s - true_s) <= 2.0 * frame_s


def _trackset(frame: int, fps: float, rows: list[tuple[int, tuple[float, float], str]]) -> TrackSet:
    balls = np.array([ball for ball, _, _ in rows], np.int64)
    xy = np.array([xy for _, xy, _ in rows], np.float64).reshape(-1, 2)
    status = np.array([TrackStatus(s) for _, _, s in rows], dtype=object)
    seen = np.where((status == TrackStatus.ON_TABLE)[:, None], xy, np.nan)
    zeros = np.zeros((len(rows), 2))
    return TrackSet(frame, frame / fps, balls, xy, zeros, seen, status, seen)


def test_a_ball_struck_from_rest_and_lost_after_one_sighting_drops_at_its_pace() -> None:
    """The 1 rests 500 mm from the foot-left corner; struck at 6 m/s between two frames, it
    is seen once 53 mm on and lost, and the tracker later confirms it dropped. Its pace is
    at least that one step from its spot (3.2 m/s), not a fit over its rest: it dropped
    within the next 0.17 s, not at the latest time allowed."""
    fps = 60.0
    spot = np.array([L - 400.0, 300.0])
    unit = np.array([0.8, -0.6])
    detector = EventDetector(TABLE)
    events = []
    seen_s = 1.0
    for frame in range(round(1.8 * fps)):
        t = frame / fps
        rows: list[tuple[int, tuple[float, float], str]] = [(0, (600.0, 600.0), "on_table")]
        where = spot + unit * 53.0 * (t >= seen_s - 1e-9)
        if t <= seen_s + 1e-9:
            rows.append((1, (float(where[0]), float(where[1])), "on_table"))
        elif t < seen_s + 0.5:
            rows.append((1, (float(where[0]), float(where[1])), "occluded"))
        elif t < seen_s + 0.5 + 0.5 / fps:
            rows.append((1, (float(where[0]), float(where[1])), "pocketed"))
        events += detector.update(_trackset(frame, fps, rows))
    drops = [e for e in events if e.kind.removes_ball()]
    assert [(e.balls, e.pocket) for e in drops] == [((1,), "foot_left")], events
    assert seen_s < drops[0].time_s < seen_s + 0.17
