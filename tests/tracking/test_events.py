"""EventDetector on exact kinematic sequences: kinds, balls, cushions, pockets, sub-frame times."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.table import TableSpec
from referee.shots import facts_from_events
from tests.tracking.builders import TABLE, Noise, Truth, run_tracking, simulate
from tracking.event_config import EventConfig
from tracking.events import EventDetector
from tracking.geometry import SIDE_SHELF_MM, drop_crossing_s
from tracking.types import Event, EventKind, TrackSet, TrackStatus

DIAMETER = TABLE.ball_diameter_mm
TABLE_8FT = TableSpec(length_mm=2235.0, width_mm=1118.0)


def _key(event: Event) -> tuple[str, frozenset[int], str | None, str | None]:
    return (str(event.kind), frozenset(event.balls), event.cushion, event.pocket)


def _match(
    truth: Truth, found: list[Event], kinds: set[EventKind]
) -> list[tuple[Event, Event | None]]:
    """Each truth event of ``kinds`` with the nearest found event of the same key (or None)."""
    pairs = []
    for want in (e for e in truth.events if e.kind in kinds):
        same = [e for e in found if _key(e) == _key(want)]
        best = min(same, key=lambda e: abs(e.time_s - want.time_s), default=None)
        pairs.append((want, best))
    return pairs


CONTACTS = {EventKind.BALL_BALL, EventKind.BALL_CUSHION, EventKind.BALL_POCKET, EventKind.STRIKE}


def _cases() -> dict[str, Truth]:
    return {
        "cut-then-cushions": simulate(
            {0: (700, 500), 3: (1700, 700)}, [(0.1, 0, (2600, 520))], 2.0
        ),
        "bank-off-side-cushion": simulate(
            {0: (1000, 300), 2: (2000, 900)}, [(0.1, 0, (1800, -1600))], 1.5
        ),
        "head-on-into-foot": simulate({0: (700, 640), 1: (1800, 640)}, [(0.1, 0, (3500, 0))], 1.5),
        "pot-in-side": simulate({0: (900, 900), 4: (1270, 500)}, [(0.1, 0, (740, -800))], 2.0),
        "slow-kiss": simulate(
            {0: (1000, 640), 6: (1300, 645)}, [(0.1, 0, (600, 0))], 1.5, decel_mm_s2=150
        ),
    }


CASES = _cases()


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
@pytest.mark.parametrize("fps", [60.0], ids=["60fps"])
def test_events_found_with_subframe_times(case: str, fps: float) -> None:
    truth = CASES[case]
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=11)
    for want, got in _match(truth, run.events, CONTACTS):
        assert got is not None, f"missed {want}"
        if want.kind == EventKind.BALL_POCKET:
            assert abs(got.frame - want.frame) <= 2
        else:
            assert abs(got.time_s - want.time_s) < 0.5 / truth.fps, (want, got)


@pytest.mark.parametrize("fps", [30.0, 60.0, 120.0], ids=["30fps", "60fps", "120fps"])
def test_first_contact_and_cushion_at_other_frame_rates(fps: float) -> None:
    truth = simulate({0: (700, 640), 1: (1800, 640)}, [(0.1, 0, (3000, 0))], 1.5, fps=fps)
    run = run_tracking(truth, Noise(position_std_mm=1.5, miss_rate=0.02), seed=2)
    for want, got in _match(truth, run.events, {EventKind.BALL_BALL, EventKind.BALL_CUSHION}):
        assert got is not None, f"missed {want} at {fps} fps"
        assert abs(got.time_s - want.time_s) < 1.0 / fps


def test_no_spurious_events_from_resting_balls() -> None:
    truth = simulate({0: (700, 640), 5: (1500, 300), 6: (1560, 300)}, [], 2.0)
    run = run_tracking(truth, Noise(position_std_mm=2.0, miss_rate=0.05), seed=4)
    assert run.events == []


def test_ball_moved_with_nothing_touching_it_is_disturbed() -> None:
    truth = simulate({0: (700, 640), 5: (1500, 300)}, [(0.3, 5, (0, 400))], 1.5)
    run = run_tracking(truth, Noise(), seed=1)
    kinds = [(e.kind, e.balls) for e in run.events]
    assert (EventKind.BALL_DISTURBED, (5,)) in kinds
    assert all(k != EventKind.STRIKE for k, _ in kinds)


def test_shot_end_after_the_settle_time() -> None:
    truth = simulate({0: (700, 640), 1: (1800, 640)}, [(0.1, 0, (1200, 0))], 5.0, decel_mm_s2=800)
    config = EventConfig(settle_s=0.4)
    run = run_tracking(truth, Noise(), seed=1, configs=(None, config))
    ends = [e for e in run.events if e.kind == EventKind.SHOT_END]
    assert len(ends) == 1
    last_motion = max(e.time_s for e in truth.events)
    assert ends[0].time_s >= last_motion + config.settle_s
    strikes = [e for e in run.events if e.kind == EventKind.STRIKE]
    assert len(strikes) == 1 and strikes[0].time_s < ends[0].time_s


def test_nudge_after_all_stopped_ends_the_shot_first() -> None:
    """A ball moved by hand once every ball is at rest (before ``settle_s`` has run out)
    ends the shot; the disturbance and the next stroke are outside it."""
    truth = simulate(
        {0: (700, 640), 5: (1500, 300)},
        [(0.1, 0, (600, 0)), (1.3, 5, (0, 400)), (2.5, 0, (800, 0))],
        4.0,
        decel_mm_s2=800,
    )
    run = run_tracking(truth, Noise(), seed=1)
    kinds = [e.kind for e in run.events if e.kind != EventKind.BALL_CUSHION]
    assert kinds[:4] == [
        EventKind.STRIKE,
        EventKind.SHOT_END,
        EventKind.BALL_DISTURBED,
        EventKind.STRIKE,
    ], kinds
    end, disturbed = run.events[1], run.events[2]
    assert end.time_s <= disturbed.time_s < 1.3 + 0.1


def test_simultaneous_first_contact_is_reported() -> None:
    offset = DIAMETER * 0.6
    truth = simulate(
        {0: (700, 640), 2: (1500, 640 - offset), 3: (1500, 640 + offset)},
        [(0.1, 0, (2500, 0))],
        1.2,
    )
    run = run_tracking(truth, Noise(position_std_mm=0.8), seed=3)
    facts = facts_from_events(run.events, [2, 3], is_break=False)
    assert facts["first_object_ball_contacted"] in (2, 3)
    assert facts["simultaneous_first_contact"] == [2, 3]


def test_break_cushion_count_and_first_contact() -> None:
    positions = {**TABLE.rack_positions_mm(), 0: (600, 650)}
    truth = simulate(positions, [(0.2, 0, (8000, 20))], 3.0, decel_mm_s2=500)
    run = run_tracking(truth, Noise(position_std_mm=1.5, miss_rate=0.02), seed=8)
    want = facts_from_events(truth.events, range(1, 11), is_break=True)
    got = facts_from_events(run.events, range(1, 11), is_break=True)
    assert got["first_object_ball_contacted"] == want["first_object_ball_contacted"] == 1
    assert got["object_balls_to_cushion_on_break"] == want["object_balls_to_cushion_on_break"]
    assert set(got["cushion_after_first_contact"]) == set(want["cushion_after_first_contact"])
    assert [(p["ball"], p["pocket"]) for p in got["pocketed"]] == [
        (p["ball"], p["pocket"]) for p in want["pocketed"]
    ]
    assert np.all(
        np.abs(
            np.array([p["frame"] for p in got["pocketed"]]) - [p["frame"] for p in want["pocketed"]]
        )
        <= 2
    )


@pytest.mark.parametrize("gap_mm", [0.5, 5.0, 30.0], ids=["frozen", "near", "short"])
def test_cue_ball_close_to_its_object_ball(gap_mm: float) -> None:
    truth = simulate(
        {0: (1000.0, 640.0), 4: (1000.0 + DIAMETER + gap_mm, 640.0), 9: (2000.0, 300.0)},
        [(0.2, 0, (2000.0, 0.0))],
        1.5,
    )
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=6)
    facts = facts_from_events(run.events, [4, 9], is_break=False)
    assert facts["first_object_ball_contacted"] == 4
    assert facts["balls_disturbed"] == []


def test_push_through_frozen_balls_reaches_the_far_ball() -> None:
    positions = {0: (800.0, 640.0), 1: (1500.0, 640.0), 2: (1500.0 + DIAMETER, 640.0)}
    truth = simulate(positions, [(0.2, 0, (3000.0, 0.0))], 1.5)
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=2)
    facts = facts_from_events(run.events, [1, 2], is_break=False)
    assert facts["first_object_ball_contacted"] == 1
    assert facts["balls_disturbed"] == []


@pytest.mark.parametrize("fps", [30.0, 60.0], ids=["30fps", "60fps"])
def test_stroke_into_a_near_ball_is_a_strike_then_a_contact(fps: float) -> None:
    """The object ball is seen leaving in the same frame as the cue ball: the cue ball
    starting is still the stroke, not a ball set moving by the object ball."""
    truth = simulate(
        {0: (1000.0, 640.0), 4: (1000.0 + DIAMETER + 30.0, 660.0), 9: (2000.0, 300.0)},
        [(0.2, 0, (1500.0, 0.0))],
        1.5,
        fps=fps,
    )
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=6)
    strikes = [e for e in run.events if e.kind == EventKind.STRIKE]
    contacts = [e for e in run.events if e.kind == EventKind.BALL_BALL]
    assert len(strikes) == 1 and abs(strikes[0].time_s - 0.2) < 2.0 / fps
    assert contacts and contacts[0].balls == (0, 4), contacts


@pytest.mark.parametrize("gap_mm", [2.0, 8.0, 15.0], ids=["2mm", "8mm", "15mm"])
def test_cue_ball_stopped_dead_on_a_near_ball_still_opens_a_shot(gap_mm: float) -> None:
    """A straight stroke into a ball a few mm away: the cue ball stops before it is seen
    moving, yet the shot has a strike and its first contact."""
    truth = simulate(
        {0: (1000.0, 640.0), 4: (1000.0 + DIAMETER + gap_mm, 640.0), 9: (2000.0, 300.0)},
        [(0.2, 0, (2000.0, 0.0))],
        1.5,
    )
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=6)
    kinds = [(e.kind, e.balls) for e in run.events]
    assert kinds[:2] == [(EventKind.STRIKE, (0,)), (EventKind.BALL_BALL, (0, 4))], kinds


def _rolling_into_side_pocket(lost_at_mm: float, fps: float) -> tuple[list[TrackSet], float]:
    """TrackSets of the 6 rolling straight into the side-left pocket at 1 m/s, seen until its
    centre is ``lost_at_mm`` from the cushion line, then hidden until the tracker calls it
    pocketed (its centre 150 mm past the line); and when the centre reached the hole (the
    side pocket's shelf past the line), s."""
    speed, start = 1000.0, 400.0
    crossing_s = 0.5 + (start + SIDE_SHELF_MM) / speed
    out = []
    for frame in range(round(2.0 * fps)):
        time_s = frame / fps
        y = start - speed * max(time_s - 0.5, 0.0)
        status = TrackStatus.ON_TABLE if y > lost_at_mm else TrackStatus.OCCLUDED
        if y < -150.0:
            status = TrackStatus.POCKETED
        seen_y = max(y, lost_at_mm)
        out.append(
            TrackSet(
                frame,
                time_s,
                np.array([0, 6]),
                np.array([[500.0, 700.0], [TABLE.length_mm / 2.0, seen_y]]),
                np.zeros((2, 2)),
                np.full((2, 2), np.nan),
                np.array([TrackStatus.ON_TABLE, status], dtype=object),
            )
        )
        if status == TrackStatus.POCKETED:
            break
    return out, crossing_s


@pytest.mark.parametrize("fps", [30.0, 60.0], ids=["30fps", "60fps"])
@pytest.mark.parametrize(
    "lost_at_mm", [300.0, 100.0, 40.0, -5.0], ids=["too-far", "far", "near", "past-line"]
)
def test_a_drop_is_timed_where_the_path_reaches_the_hole(lost_at_mm: float, fps: float) -> None:
    """The detector loses a ball in the dark of the pocket mouth a few frames before it
    drops: the drop is put where its path reaches the pocket's hole, within a frame, not at
    its last sighting; one seen past the line dropped after that sighting;
    one lost too far from the edge (its path may yet bend) at most 0.2 s after it."""
    tracksets, crossing_s = _rolling_into_side_pocket(lost_at_mm, fps)
    detector = EventDetector(TABLE)
    events = [e for ts in tracksets for e in detector.update(ts)]
    drop = next(e for e in events if e.kind == EventKind.BALL_POCKET)
    assert drop.balls == (6,) and drop.pocket == "side_left"
    last_seen_s = max(ts.time_s for ts in tracksets if ts.status[1] == TrackStatus.ON_TABLE)
    expected = min(max(crossing_s, last_seen_s + 1.0 / fps), last_seen_s + 0.2)
    assert drop.time_s == pytest.approx(expected, abs=1.0 / fps)
    assert drop.frame == math.ceil(drop.time_s * fps - 1e-6)


def test_a_ball_gone_at_rest_with_nothing_near_it_did_not_drop() -> None:
    """Seen only at rest, 400 mm from the pocket, then gone with nothing near it: it cannot
    have reached the hole on its own (a ball lost from sight at rest, as on a pocket's lip,
    is not pocketed; `tracking.drops`), so the tracker's removal reports no drop."""
    tracksets, _ = _rolling_into_side_pocket(399.0, 60.0)
    detector = EventDetector(TABLE)
    events = [e for ts in tracksets for e in detector.update(ts)]
    assert not [e for e in events if e.kind == EventKind.BALL_POCKET]


@pytest.mark.parametrize(
    ("xy", "velocity", "expected_s"),
    [
        ((100.0, 100.0), (-1000.0, -1000.0), (100.0 - 11.8) / 1000.0),  # down the diagonal
        ((100.0, 28.6), (-1000.0, 0.0), 0.105),  # along the rail: past the corner point
        ((1117.5, 100.0), (0.0, -1000.0), 0.1048),  # straight into the side pocket
        ((1117.5, 100.0), (1000.0, 0.0), math.inf),  # along the table: no hole ahead
        ((300.0, 100.0), (0.0, -1000.0), math.inf),  # into a cushion, no pocket there
        ((5.0, 5.0), (0.0, 0.0), 0.0),  # already over the hole
    ],
    ids=["corner-diagonal", "corner-rail", "side", "lengthwise", "cushion", "over-the-hole"],
)
def test_drop_crossing_reaches_the_edge_of_the_hole(
    xy: tuple[float, float], velocity: tuple[float, float], expected_s: float
) -> None:
    got = drop_crossing_s(TABLE_8FT, np.array(xy), np.array(velocity))
    assert got == pytest.approx(expected_s, abs=2e-3)
