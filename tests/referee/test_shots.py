"""Shot facts from events (rules.md §4) and the shot segmenter."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.table import TableSpec
from referee.rules.shot import ShotFacts
from referee.shots import (
    ShotConfig,
    ShotRecord,
    ShotSegmenter,
    facts_from_events,
    facts_with_confidence,
)
from tracking.types import Event, EventKind, TrackSet, TrackStatus

TABLE = TableSpec()
ALL = list(range(1, 11))


def strike(t: float = 1.0) -> Event:
    return Event(round(t * 60), t, EventKind.STRIKE, (0,))


def hit(t: float, a: int, b: int, confidence: float = 1.0) -> Event:
    return Event(round(t * 60), t, EventKind.BALL_BALL, (a, b), confidence=confidence)


def rail(t: float, ball: int, cushion: str = "foot") -> Event:
    return Event(round(t * 60), t, EventKind.BALL_CUSHION, (ball,), cushion=cushion)


def drop(t: float, ball: int, pocket: str = "foot_left") -> Event:
    return Event(round(t * 60), t, EventKind.BALL_POCKET, (ball,), pocket=pocket)


def off(t: float, ball: int) -> Event:
    return Event(round(t * 60), t, EventKind.BALL_OFF_TABLE, (ball,))


def disturbed(t: float, ball: int) -> Event:
    return Event(round(t * 60), t, EventKind.BALL_DISTURBED, (ball,))


CASES: dict[str, tuple[list[Event], bool, dict[str, Any]]] = {
    "clean-pot": (
        [strike(), hit(1.2, 0, 3), rail(1.5, 0, "head"), drop(1.6, 3)],
        False,
        {
            "first_object_ball_contacted": 3,
            "cushion_after_first_contact": ["cue"],
            "pocketed": [{"ball": 3, "pocket": "foot_left", "frame": 96}],
            "cue_ball_pocketed": False,
        },
    ),
    "total-miss": (
        [strike(), rail(1.3, 0), rail(1.8, 0, "head")],
        False,
        {
            "first_object_ball_contacted": None,
            "cue_ball_cushion_before_first_contact": True,
            "cushion_after_first_contact": [],
        },
    ),
    "cushion-first-then-ball": (
        [strike(), rail(1.1, 0, "left_foot"), hit(1.3, 0, 2), rail(1.4, 2, "right_foot")],
        False,
        {
            "first_object_ball_contacted": 2,
            "cue_ball_cushion_before_first_contact": True,
            "cushion_after_first_contact": [2],
        },
    ),
    "object-ball-kiss-is-not-first-contact": (
        [strike(), hit(1.2, 4, 5), hit(1.3, 0, 6)],
        False,
        {"first_object_ball_contacted": 6},
    ),
    "simultaneous": (
        [strike(), hit(1.2, 0, 1), hit(1.201, 0, 2), rail(1.5, 1)],
        False,
        {"first_object_ball_contacted": 1, "simultaneous_first_contact": [1, 2]},
    ),
    "break-count": (
        [strike(), hit(1.1, 0, 1), *(rail(1.3 + 0.01 * b, b) for b in (2, 3, 4, 5)), rail(1.6, 2)],
        True,
        {"object_balls_to_cushion_on_break": 4, "cushion_after_first_contact": [2, 3, 4, 5]},
    ),
    "scratch-and-off-table": (
        [strike(), hit(1.2, 0, 7), drop(1.5, 0, "side_left"), off(1.6, 7)],
        False,
        {
            "cue_ball_pocketed": True,
            "cue_ball_pocket": "side_left",
            "off_table": [7],
            "pocketed": [],
            "object_balls_to_cushion_on_break": None,
        },
    ),
    "disturbed": (
        [strike(), hit(1.2, 0, 1), disturbed(1.4, 9)],
        False,
        {"balls_disturbed": [9]},
    ),
    "events-before-strike-ignored": (
        [rail(0.5, 0), drop(0.6, 4), strike(), hit(1.2, 0, 1)],
        False,
        {"cue_ball_cushion_before_first_contact": False, "pocketed": []},
    ),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_facts_from_events(case: str) -> None:
    events, is_break, expected = CASES[case]
    facts = facts_from_events(events, ALL, is_break)
    for key, value in expected.items():
        assert facts[key] == value, key
    ShotFacts.from_json(facts, tuple(ALL))  # the rules engine accepts the dict


def test_balls_not_on_the_table_are_ignored() -> None:
    facts = facts_from_events([strike(), hit(1.2, 0, 4), hit(1.3, 0, 1)], [1, 2, 3], False)
    assert facts["first_object_ball_contacted"] == 1


def test_confidence_follows_the_events() -> None:
    _, confidence = facts_with_confidence([strike(), hit(1.2, 0, 1, confidence=0.6)], ALL, False)
    assert confidence["first_object_ball_contacted"] == pytest.approx(0.6)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0.0, 5.0),
            st.sampled_from(["hit", "rail", "drop"]),
            st.integers(0, 10),
            st.integers(0, 10),
        ),
        max_size=25,
    )
)
def test_facts_are_always_valid_rules_input(raw: list[tuple[float, str, int, int]]) -> None:
    events = [strike(0.0)]
    for t, kind, a, b in raw:
        if kind == "hit" and a != b:
            events.append(hit(t, a, b))
        elif kind == "rail":
            events.append(rail(t, a))
        elif kind == "drop":
            events.append(drop(t, a))
    facts = facts_from_events(events, ALL, is_break=True)
    parsed = ShotFacts.from_json(facts, tuple(ALL))
    assert parsed.object_balls_to_cushion_on_break == len(
        {b for b in parsed.cushion_after_first_contact if b != "cue"}
        | {e.balls[0] for e in events if e.kind == EventKind.BALL_CUSHION and e.balls[0] != 0}
    )


def _tracks(
    frame: int, positions: dict[int, tuple[float, float]], moving: tuple[int, ...] = ()
) -> TrackSet:
    balls = np.array(sorted(positions), np.int64)
    xy = np.array([positions[b] for b in balls], float)
    velocity = np.array([[300.0, 0.0] if b in moving else [0.0, 0.0] for b in balls])
    status = np.array([TrackStatus.ON_TABLE] * len(balls), object)
    return TrackSet(
        frame, frame / 60, balls, xy, velocity, np.full((len(balls), 2), np.nan), status
    )


def test_segmenter_makes_one_record_per_shot_and_spots_the_break() -> None:
    rack = {**TABLE.rack_positions_mm(), 0: (600.0, 640.0)}
    segmenter = ShotSegmenter(TABLE)
    records = []
    stream = {
        60: [],
        65: [strike(61 / 60)],
        70: [hit(68 / 60, 0, 1)],
        90: [rail(85 / 60, 2), rail(86 / 60, 3), rail(87 / 60, 4), rail(88 / 60, 5)],
        200: [Event(200, 200 / 60, EventKind.SHOT_END)],
    }
    for frame in range(55, 205):
        records += segmenter.update(stream.get(frame, []), _tracks(frame, rack))
    assert len(records) == 1
    record = records[0]
    assert record.is_break and record.shot == 1
    assert record.frame_strike == 61 and record.frame_end == 200
    assert record.facts_json()["object_balls_to_cushion_on_break"] == 4
    assert record.to_json()["facts"] == record.facts_json()
    assert record.facts_json() is not record.facts


def _shot_with_ball_8_fast(fast_frames: range | tuple[int, ...] = ()) -> ShotRecord:
    """One shot struck at frame 21 (seen on frame 25), ended on frame 39; the 8 rolls at
    300 mm/s (5 mm a frame) on `fast_frames` and rests otherwise."""
    positions = {0: (600.0, 640.0), 3: (1500.0, 300.0), 8: (1800.0, 900.0)}
    segmenter = ShotSegmenter(TABLE)
    records = []
    for frame in range(10, 40):
        if frame in fast_frames:
            positions[8] = (positions[8][0] + 5.0, 900.0)
        events = [strike(21 / 60)] if frame == 25 else []
        if frame == 39:
            events = [Event(39, 39 / 60, EventKind.SHOT_END)]
        moving = (8,) if frame in fast_frames else ()
        records += segmenter.update(events, _tracks(frame, positions, moving=moving))
    assert len(records) == 1
    return records[0]


def test_segmenter_reports_balls_moving_at_the_strike() -> None:
    record = _shot_with_ball_8_fast(range(10, 40))
    assert record.facts["balls_moving_at_strike"] == [8]
    assert not record.is_break
    assert record.balls_on_table_at_start == (3, 8)


@pytest.mark.parametrize(
    ("fast_frames", "expected"),
    [(range(19, 21), []), (range(14, 21), [8])],
    ids=["one-jump-before-strike", "rolling-the-whole-window"],
)
def test_a_ball_moves_at_the_strike_only_if_it_moved_over_the_window_before(
    fast_frames: range, expected: list[int]
) -> None:
    """A re-found ball's centre a few mm off gives its filter a speed for a frame or two
    (broadcast_scratch's 2 at a periodic full search): that is not a ball rolling (F9)."""
    record = _shot_with_ball_8_fast(fast_frames)
    assert record.facts["balls_moving_at_strike"] == expected


@pytest.mark.parametrize(
    ("step_mm", "expected"),
    [(0.0, []), (5.0, [8])],
    ids=["held-on-the-lip", "rolling"],
)
def test_a_ball_whose_centre_stays_put_is_not_moving_at_the_strike(
    step_mm: float, expected: list[int]
) -> None:
    """h81 (top 7 ft 30 fps, exact detections): the 7 resting on a side pocket's lip, its
    centre past the cushion line, kept its place while the tracker's velocity for it grew
    to 6.6 m/s by the next strike; with `ShotConfig.moving_needs_displacement` a ball is
    moving only when its centre went as far as the moving speed takes it (5 mm a frame
    at 300 mm/s and 60 fps)."""
    segmenter = ShotSegmenter(TABLE, ShotConfig(moving_needs_displacement=True))
    records = []
    for frame in range(10, 40):
        events = [strike(21 / 60)] if frame == 25 else []
        if frame == 39:
            events = [Event(39, 39 / 60, EventKind.SHOT_END)]
        positions = {0: (600.0, 640.0), 3: (1500.0, 300.0), 8: (1000.0 + step_mm * frame, 900.0)}
        records += segmenter.update(events, _tracks(frame, positions, moving=(8,)))
    assert len(records) == 1
    assert records[0].facts["balls_moving_at_strike"] == expected


def test_ball_disturbed_between_shots_belongs_to_the_next_shot() -> None:
    positions = {0: (600.0, 640.0), 3: (1500.0, 300.0), 8: (2000.0, 900.0)}
    segmenter = ShotSegmenter(TABLE)
    stream = {
        12: [strike(11 / 60)],
        14: [hit(13 / 60, 0, 3)],
        30: [Event(30, 30 / 60, EventKind.SHOT_END)],
        40: [disturbed(38 / 60, 8)],
        60: [strike(58 / 60)],
        62: [hit(61 / 60, 0, 3)],
        80: [Event(80, 80 / 60, EventKind.SHOT_END)],
    }
    records = []
    for frame in range(5, 85):
        records += segmenter.update(stream.get(frame, []), _tracks(frame, positions))
    assert [r.facts["balls_disturbed"] for r in records] == [[], [8]]
    assert [r.facts["first_object_ball_contacted"] for r in records] == [3, 3]


@pytest.mark.parametrize(
    ("seen_at", "pocketed"),
    [((400.0, 75.0), []), ((40.0, 40.0), [8]), (None, [8])],
    ids=["seen-rolling-on", "seen-in-the-mouth", "never-seen-again"],
)
def test_ball_seen_back_on_the_bed_after_its_drop_was_not_pocketed(
    seen_at: tuple[float, float] | None, pocketed: list[int]
) -> None:
    """A ball lost by a pocket and called pocketed that is seen again on the bed, away from
    every pocket, was not pocketed; seen in the pocket mouth it may be the ball in the net."""
    positions = {0: (600.0, 640.0), 3: (1500.0, 300.0), 8: (300.0, 60.0)}
    segmenter = ShotSegmenter(TABLE)
    stream = {
        12: [strike(11 / 60)],
        14: [hit(13 / 60, 0, 8)],
        30: [drop(29 / 60, 8, "head_left")],
        90: [Event(90, 90 / 60, EventKind.SHOT_END)],
    }
    records = []
    for frame in range(5, 95):
        where = dict(positions)
        if frame >= 29:
            where.pop(8)
            if seen_at is not None and frame >= 50:
                where[8] = seen_at
        records += segmenter.update(stream.get(frame, []), _tracks(frame, where))
    assert [p["ball"] for p in records[0].facts["pocketed"]] == pocketed


@pytest.mark.parametrize(
    ("missing", "is_break"),
    [((), True), ((6,), True), ((2, 6, 9), True), ((1, 2, 3, 5, 6, 9), False)],
)
def test_break_is_recognised_with_a_racked_ball_unseen(
    missing: tuple[int, ...], is_break: bool
) -> None:
    """A detector that misses one or two racked balls still sees a break (all ten balls are
    then on the table); with most of the rack unseen it is not sure."""
    rack = {b: xy for b, xy in TABLE.rack_positions_mm().items() if b not in missing}
    positions = {**rack, 0: (600.0, 640.0)}
    segmenter = ShotSegmenter(TABLE)
    records = []
    for frame in range(10, 40):
        events = [strike(20 / 60)] if frame == 25 else []
        if frame == 39:
            events = [Event(39, 39 / 60, EventKind.SHOT_END)]
        records += segmenter.update(events, _tracks(frame, positions))
    assert records[0].is_break == is_break
    if is_break:
        assert records[0].balls_on_table_at_start == tuple(range(1, 11))


def test_ball_unseen_at_the_strike_but_hit_in_the_shot_is_on_the_table() -> None:
    """A ball the camera missed at the strike takes part in the shot: its contacts count;
    a ball an earlier shot pocketed does not come back by a stray event."""
    positions = {0: (600.0, 640.0), 3: (1500.0, 300.0), 8: (2000.0, 900.0)}
    segmenter = ShotSegmenter(TABLE)
    stream = {
        12: [strike(11 / 60)],
        14: [hit(13 / 60, 0, 8)],
        20: [drop(19 / 60, 8)],
        30: [Event(30, 30 / 60, EventKind.SHOT_END)],
        40: [strike(39 / 60)],
        42: [hit(41 / 60, 0, 8), hit(41.5 / 60, 0, 5)],
        60: [Event(60, 60 / 60, EventKind.SHOT_END)],
    }
    records = []
    for frame in range(5, 65):
        where = {b: xy for b, xy in positions.items() if not (b == 8 and frame >= 20)}
        records += segmenter.update(stream.get(frame, []), _tracks(frame, where))
    assert records[1].facts["first_object_ball_contacted"] == 5
    assert 5 in records[1].balls_on_table_at_start and 8 not in records[1].balls_on_table_at_start


def _hidden(trackset: TrackSet, ball: int) -> TrackSet:
    status = np.where(trackset.ball == ball, TrackStatus.OCCLUDED, trackset.status)
    return TrackSet(
        trackset.frame,
        trackset.time_s,
        trackset.ball,
        trackset.xy_mm,
        trackset.velocity_mm_s,
        trackset.xy_px,
        status.astype(object),
    )


@pytest.mark.parametrize(
    ("lost_at", "moving", "unaccounted", "glimpse"),
    [
        (20, (3,), ((3, 19),), None),
        (20, (), (), None),
        (8, (3,), (), None),
        (8, (3,), (), 30),
        (None, (3,), (), None),
    ],
    ids=["lost-rolling", "hidden-at-rest", "hidden-before-the-strike", "one-glimpse", "seen"],
)
def test_ball_lost_while_moving_and_never_seen_again_is_unaccounted(
    lost_at: int | None,
    moving: tuple[int, ...],
    unaccounted: tuple[tuple[int, int], ...],
    glimpse: int | None,
) -> None:
    """A ball that vanished while rolling in the shot and is neither seen again nor removed
    by any event makes the shot uncertain; a ball hidden at rest (under an arm) does not,
    nor does one seen in a single frame (that may have been another ball)."""
    positions = {0: (600.0, 640.0), 3: (1500.0, 300.0), 8: (2000.0, 900.0)}
    segmenter = ShotSegmenter(TABLE)
    stream = {12: [strike(11 / 60)], 60: [Event(60, 60 / 60, EventKind.SHOT_END)]}
    records = []
    for frame in range(5, 65):
        tracks = _tracks(frame, positions, moving=moving)
        if lost_at is not None and frame >= lost_at and frame != glimpse:
            tracks = _hidden(tracks, 3)
        records += segmenter.update(stream.get(frame, []), tracks)
    record = records[0]
    assert record.unaccounted == unaccounted
    assert (record.confidence <= 0.5) == bool(unaccounted)
    assert len(record.uncertain) == len(unaccounted)
    if unaccounted:
        assert (
            "the 3 was lost from sight while moving (last seen on frame 19)"
            in (record.uncertain[0])
        )


def test_an_uncertain_drop_leaves_the_other_removal_facts_sure() -> None:
    events = [
        strike(),
        hit(1.2, 0, 3),
        Event(80, 1.33, EventKind.BALL_POCKET, (3,), pocket="foot_left", confidence=0.7),
    ]
    _, confidence = facts_with_confidence(events, ALL, False)
    assert confidence["pocketed"] == pytest.approx(0.7)
    assert confidence["off_table"] == confidence["cue_ball_pocketed"] == 1.0


def _first_contacts(
    config: ShotConfig, later_frames: float = 0.48, confidence: float = 1.0, first: int = 6
) -> dict[str, Any]:
    """The facts of a 60 fps shot whose cue ball is timed meeting ``first`` (the 6, or the
    1), then the other of the two ``later_frames`` frame intervals later (0.48: 8 ms, both
    contacts between the same two frames), the first timed at ``confidence``."""
    positions = {0: (600.0, 640.0), 1: (1500.0, 300.0), 6: (1500.0, 360.0)}
    segmenter = ShotSegmenter(TABLE, config)
    records = []
    second = 1 if first == 6 else 6
    stream = {
        25: [strike(21 / 60)],
        34: [
            hit(30.2 / 60, 0, first, confidence=confidence),
            hit((30.2 + later_frames) / 60, 0, second),
        ],
        39: [Event(39, 39 / 60, EventKind.SHOT_END)],
    }
    for frame in range(10, 40):
        records += segmenter.update(stream.get(frame, []), _tracks(frame, positions))
    assert len(records) == 1
    return records[0].facts_json()


def test_first_contacts_within_half_a_frame_cannot_be_ordered() -> None:
    facts = _first_contacts(ShotConfig())
    assert facts["first_object_ball_contacted"] == 6
    assert facts["simultaneous_first_contact"] == [1, 6]
    # Timed to the millisecond only, the 6 would be first: a wrong-ball foul.
    exact = _first_contacts(ShotConfig(simultaneous_contact_frames=0.0))
    assert "simultaneous_first_contact" not in exact


@pytest.mark.parametrize(
    ("confidence", "first", "tied"),
    [(0.6, 6, True), (1.0, 6, False), (0.6, 1, False)],
    ids=["unsure-contact", "sure-contacts", "lowest-ball-timed-first"],
)
def test_an_unsure_contact_two_frames_before_the_lowest_balls_is_a_tie(
    confidence: float, first: int, tied: bool
) -> None:
    """Two frames apart, an unsure contact's time cannot say whether the lowest ball (the 1)
    was hit first; sure contacts can, and with the 1 timed first the order decides nothing."""
    facts = _first_contacts(ShotConfig(), later_frames=2.0, confidence=confidence, first=first)
    assert facts["first_object_ball_contacted"] == first
    assert ("simultaneous_first_contact" in facts) is tied
    loose = ShotConfig(unsure_contact_frames=0.0)
    off = _first_contacts(loose, later_frames=2.0, confidence=confidence, first=first)
    assert "simultaneous_first_contact" not in off
