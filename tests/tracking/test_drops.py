"""Drops the tracker reports (`tracking.drops`): a ball given up in a pocket's mouth dropped
only if it could reach the hole, and the geometry and roll fit that tell."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from tests.tracking.builders import TABLE, Noise, run_tracking, simulate
from tracking.drops import _roll_fit
from tracking.event_config import EventConfig
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


def _late_track_run(
    path: list[tuple[float, float]], fps: float = 30.0, given_up: bool = True
) -> list[EventKind]:
    """The cue ball rests mid-table and is struck at 1 s toward the head (1.5 m/s, stopping
    within a second); from 1.3 s a track that was not in play at the strike (the 8) is seen
    along ``path`` (one point a frame, within reach of the near side pocket at the end),
    then lost: a third of a second later given up as pocketed (``given_up``), or else kept
    unseen to the end, the shot over. The kinds of the 8's removals."""
    detector = EventDetector(TABLE)
    events = []
    born = round(1.3 * fps)
    gone = born + len(path) + round(fps / 3)
    last = gone + 1 if given_up else born + len(path) + round(4.0 * fps)
    for frame in range(last + 1):
        t = frame / fps
        rolled = min(max(0.0, t - 1.0), 1.0)
        cue_x = 1500.0 - 1500.0 * rolled + 750.0 * rolled**2
        rows: list[tuple[int, tuple[float, float], str]] = [(0, (cue_x, 600.0), "on_table")]
        rows.append((1, (600.0, 300.0), "on_table"))
        if born <= frame < born + len(path):
            rows.append((8, path[frame - born], "on_table"))
        elif born + len(path) <= frame and (frame < gone or not given_up):
            rows.append((8, path[-1], "occluded"))
        elif frame == gone:
            rows.append((8, path[-1], "pocketed"))
        events += detector.update(_trackset(frame, fps, rows))
    assert any(e.kind == EventKind.STRIKE for e in events)
    assert given_up or any(e.kind == EventKind.SHOT_END for e in events)
    return [e.kind for e in events if e.kind.removes_ball() and 8 in e.balls]


_ARM = [200.0, 170.0, 140.0, 175.0, 210.0, 245.0, 205.0, 165.0, 125.0, 160.0, 195.0, 150.0]
_ARM += [110.0, 70.0, 30.0]


@pytest.mark.parametrize("given_up", [True, False], ids=["given-up", "unseen-to-the-end"])
def test_a_track_born_in_the_shot_going_back_and_forth_never_drops(given_up: bool) -> None:
    """A false ball on a player's arm by the near side pocket appears after the strike and
    moves with the arm, back and forth across the rail (four turns, 30-40 mm a frame),
    until it is lost in the pocket's mouth: it was never a ball, so nothing dropped,
    whether the tracker gives it up as pocketed or it stays lost to the shot's end (a real
    top-down clip's ghost "dropped" in a side pocket this way)."""
    path = [(L / 2 + 60.0, y) for y in _ARM]
    assert _late_track_run(path, given_up=given_up) == []


@pytest.mark.parametrize("given_up", [True, False], ids=["given-up", "unseen-to-the-end"])
def test_a_track_born_in_the_shot_rolling_into_a_pocket_drops(given_up: bool) -> None:
    """The same late track rolling straight into the side pocket at 1.2 m/s (a ball never
    found at rest, seen only on its way in) is still dropped."""
    path = [(L / 2 + 60.0, 300.0 - 40.0 * k) for k in range(7)]
    assert _late_track_run(path, given_up=given_up) == [EventKind.BALL_POCKET]


def test_a_ball_hidden_as_a_slow_ball_stops_beside_it_is_not_gone() -> None:
    """The cue ball is struck at 1 s toward the 5, far from every pocket (800 mm and more),
    and creeps up to it (240 mm/s, stopping 5 mm short of touching); the 5 is hidden from
    then on (a player leaning over it) until well after the table is quiet. A ball coming
    near at some 40 mm/s cannot have sent it anywhere near a pocket: it is hidden where it
    lay, not gone into the nearest pocket (a fresh corner clip's break: a ball hidden by a
    player's body this way was taken as pocketed)."""
    fps = 30.0
    rest = np.array([0.7 * L, W / 2])
    start = rest - np.array([400.0, 0.0])
    speed0, way = 240.0, 400.0 - TABLE.ball_diameter_mm - 5.0
    decel = speed0**2 / (2.0 * way)
    stop_s = speed0 / decel
    detector = EventDetector(TABLE)
    events = []
    hidden_from = None
    for frame in range(round((1.0 + stop_s + 3.0) * fps)):
        t = frame / fps
        rolled = min(max(0.0, t - 1.0), stop_s)
        cue = start + np.array([speed0 * rolled - 0.5 * decel * rolled**2, 0.0])
        speed = speed0 - decel * rolled if 0.0 < t - 1.0 < stop_s else 0.0
        near = float(np.linalg.norm(cue - rest)) <= TABLE.ball_diameter_mm + 15.0
        if near and hidden_from is None:
            hidden_from = frame
        five = "occluded" if hidden_from is not None else "on_table"
        xy = np.array([cue, rest, [300.0, 300.0]])
        seen = np.where(np.array([True, five == "on_table", True])[:, None], xy, np.nan)
        status = np.array([TrackStatus.ON_TABLE, TrackStatus(five), TrackStatus.ON_TABLE], object)
        velocity = np.array([[speed, 0.0], [0.0, 0.0], [0.0, 0.0]])
        balls = np.array([0, 5, 1], np.int64)
        events += detector.update(TrackSet(frame, t, balls, xy, velocity, seen, status, seen))
    kinds = [e.kind for e in events]
    assert EventKind.STRIKE in kinds and EventKind.SHOT_END in kinds
    assert [e for e in events if e.kind.removes_ball()] == []


def test_a_ball_hit_into_a_side_pocket_by_a_blurred_cue_ball_names_it_the_striker() -> None:
    """A 30 fps top view (the real detector's tracks, rounded): the cue ball, struck at some
    4 m/s, is seen once 12 mm off its spot (17 degrees off its way: too loose to aim it at
    the 1), is lost in its blur for a frame and is found beside where the 1 rested; the 1,
    seen once 63 mm off its spot, drops in the side pocket unseen. Where the 1 went says
    where the cue ball met it, and the cue ball's sightings before and after lie on that
    way: the contact is the cue ball's, so the shot's first ball is the 1."""
    cue_rest, one_rest, one_off = (1516.0, 721.3), (1320.2, 958.5), (1302.3, 1018.6)
    first_seen = (1506.1, 727.6)
    cue_way = [first_seen, None, (1288.7, 890.7), (1179.7, 872.4), (1070.8, 855.2)]
    cue_way += [(1064.5 - 50.0 * k, 842.0 - 12.0 * k) for k in range(1, 40)]
    # The 1 after the stroke: at rest, seen once off its spot, hidden, given up, gone.
    one_status = ["on_table", "on_table", "on_table", "occluded", "occluded", "occluded"]
    one_status += ["pocketed"]
    detector = EventDetector(TABLE)
    events = []
    for frame in range(60):
        step = frame - 40
        cue = cue_rest if step < 0 else cue_way[min(step, len(cue_way) - 1)]
        rows = [
            (0, cue or first_seen, "on_table" if cue else "occluded"),
            (5, (600.0, 300.0), "on_table"),
        ]
        if step < len(one_status):
            one = one_rest if step < 2 else one_off
            rows.append((1, one, "on_table" if step < 0 else one_status[step]))
        events += detector.update(_trackset(frame, 30.0, rows))
    contacts = [e for e in events if e.kind == EventKind.BALL_BALL]
    assert [e.balls for e in contacts] == [(0, 1)], events
    assert [e.balls for e in events if e.kind == EventKind.BALL_POCKET] == [(1,)], events


@pytest.mark.parametrize(
    ("climbed_off_table", "kind"),
    [(True, EventKind.BALL_OFF_TABLE), (False, EventKind.BALL_POCKET)],
    ids=["on", "off"],
)
def test_a_ball_given_up_as_pocketed_while_seen_on_the_rail_left_the_table(
    climbed_off_table: bool, kind: EventKind
) -> None:
    """The 2, driven at the foot-left rail 95 mm short of the corner pocket's point at 1.4
    m/s, is last seen 13.5 mm into the cushion (no ball on the bed lies there, and the rail
    runs there: it was climbing it) and the tracker gives it up as pocketed. With
    `EventConfig.climbed_off_table` it left the table over the rail."""
    last = np.array([L - 95.0, 15.0])
    velocity = np.array([700.0, -1200.0])
    fps = 30.0
    config = replace(EventConfig(), climbed_off_table=climbed_off_table)
    detector = EventDetector(TABLE, config)
    events = []
    for frame in range(40):
        step = frame - 30
        xy = last + velocity * min(step, 0) / fps
        status = "on_table" if step <= 0 else ("occluded" if step < 4 else "pocketed")
        rows = [(2, (float(xy[0]), float(xy[1])), status), (5, (600.0, 300.0), "on_table")]
        if step <= 4:
            events += detector.update(_trackset(frame, fps, rows))
    gone = [e for e in events if e.kind.removes_ball()]
    assert [(e.kind, e.balls) for e in gone] == [(kind, (2,))], events
