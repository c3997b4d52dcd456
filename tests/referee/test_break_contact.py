"""The break's first contact checked against the standing rack (`referee.break_contact`)."""

from __future__ import annotations

import numpy as np

from calibration.table import TableSpec
from referee.break_contact import BreakWatch
from referee.pipeline import shot_input
from referee.shots import ShotConfig, ShotSegmenter
from tracking.types import Event, EventKind, TrackSet, TrackStatus

TABLE = TableSpec()
D = TABLE.ball_diameter_mm
RACK = TABLE.rack_positions_mm()
CUE_SPOT = (500.0, TABLE.foot_spot_mm[1])
"""Behind the head string, straight in line with the apex (the 1)."""


def _tracks(frame: int, positions: dict[int, tuple[float, float]]) -> TrackSet:
    balls = np.array(sorted(positions), np.int64)
    xy = np.array([positions[b] for b in balls], float)
    status = np.array([TrackStatus.ON_TABLE] * len(balls), object)
    return TrackSet(
        frame, frame / 60, balls, xy, np.zeros_like(xy), np.full_like(xy, np.nan), status, xy
    )


def _hit(frame: int, ball: int, confidence: float = 0.6) -> Event:
    return Event(frame, frame / 60, EventKind.BALL_BALL, (0, ball), confidence=confidence)


def _watch(positions: dict[int, tuple[float, float]]) -> BreakWatch:
    watch = BreakWatch.at_strike(
        Event(60, 1.0, EventKind.STRIKE, (0,)), _tracks(59, positions), TABLE, 240.0
    )
    assert watch is not None
    return watch


def _second_row() -> tuple[int, int]:
    """The two balls of the rack's second row (behind the apex)."""
    apex = np.asarray(RACK[1])
    row = [b for b, xy in RACK.items() if 0.5 * D < np.linalg.norm(np.asarray(xy) - apex) < 1.5 * D]
    row = [b for b in row if RACK[b][0] > apex[0] + 0.5 * D]
    assert len(row) == 2
    return row[0], row[1]


def test_a_ball_that_stood_beside_the_cue_ball_is_not_the_breaks_first_contact() -> None:
    # The blurred cue ball read as the 6 right in front of it; the real 6 unseen in the rack.
    positions = {0: CUE_SPOT, **{b: xy for b, xy in RACK.items() if b != 6}}
    positions[6] = (CUE_SPOT[0] + 70.0, CUE_SPOT[1])
    watch = _watch(positions)
    events = watch.checked([_hit(64, 6), Event(64, 64 / 60, EventKind.BALL_BALL, (6, 1))])
    assert events[0].balls == (0, 1)
    assert events[0].confidence <= 0.6 and "not in the rack" in str(events[0].reason)
    assert events[1].balls == (6, 1)  # only the first contact is the check's business
    # A ball seen far from the cue ball (a stray ball of a loose rack) is no blur of it.
    positions[6] = (1200.0, 300.0)
    assert _watch(positions).first_in_way(6) is None


def test_a_racked_ball_far_off_the_seen_way_gives_the_contact_to_the_ball_in_it() -> None:
    near, _ = _second_row()
    positions = {0: CUE_SPOT, **RACK}
    # Its centre found 60 mm off to the side (a dim ball of the cloth's hue).
    positions[near] = (
        RACK[near][0] - 10.0,
        RACK[near][1] + np.sign(RACK[near][1] - RACK[1][1]) * 60,
    )
    watch = _watch(positions)
    for frame, x in ((62, 900.0), (63, 1200.0)):  # twice on its way, before the rack
        watch.see(_tracks(frame, {0: (x, CUE_SPOT[1])}))
    events = watch.checked([_hit(66, near)])
    assert events[0].balls == (0, 1)
    assert "off the cue ball's way" in str(events[0].reason)


def test_a_second_row_ball_in_the_way_of_a_slanted_break_stands() -> None:
    near, _ = _second_row()
    positions = {0: CUE_SPOT, **RACK}
    watch = _watch(positions)
    # The cue ball aimed a ball's width beside the apex, straight at the second-row ball.
    way = np.asarray(RACK[near]) - np.asarray(CUE_SPOT)
    for frame, part in ((62, 0.4), (63, 0.6)):
        seen = np.asarray(CUE_SPOT) + part * way
        watch.see(_tracks(frame, {0: (float(seen[0]), float(seen[1]))}))
    assert watch.first_in_way(near) is None
    events = [_hit(66, near, 0.9)]
    assert watch.checked(events) == events


def test_the_apex_ball_and_unchecked_shots_stand() -> None:
    positions = {0: CUE_SPOT, **RACK}
    watch = _watch(positions)
    for frame, x in ((62, 900.0), (63, 1200.0)):
        watch.see(_tracks(frame, {0: (x, CUE_SPOT[1])}))
    assert watch.first_in_way(1) is None
    # A ball of the rack that the way reaches only behind the apex, by more than a diameter.
    assert watch.first_in_way(10) is not None
    # No rack: most balls away from the foot spot; the cue ball in the kitchen is not enough.
    scattered = {0: CUE_SPOT, **{b: (900.0 + 100 * b, 300.0) for b in range(1, 11)}}
    assert (
        BreakWatch.at_strike(
            Event(60, 1.0, EventKind.STRIKE, (0,)), _tracks(59, scattered), TABLE, 240.0
        )
        is None
    )
    # A cue ball beyond the head string is not breaking.
    ahead = {**RACK, 0: (1500.0, 300.0)}
    assert (
        BreakWatch.at_strike(
            Event(60, 1.0, EventKind.STRIKE, (0,)), _tracks(59, ahead), TABLE, 240.0
        )
        is None
    )


def test_the_segmenter_corrects_the_break_only_when_asked() -> None:
    ghost = {0: CUE_SPOT, **{b: xy for b, xy in RACK.items() if b != 6}}
    ghost[6] = (CUE_SPOT[0] + 70.0, CUE_SPOT[1])
    stream = {
        62: [Event(61, 61 / 60, EventKind.STRIKE, (0,))],
        70: [_hit(66, 6)],
        200: [Event(200, 200 / 60, EventKind.SHOT_END)],
    }
    firsts = []
    for check in (False, True):
        segmenter = ShotSegmenter(TABLE, ShotConfig(break_way_check=check))
        records = []
        for frame in range(50, 205):
            records += segmenter.update(stream.get(frame, []), _tracks(frame, ghost))
        assert len(records) == 1
        firsts.append(records[0].facts["first_object_ball_contacted"])
        # The report says why the contact is not the events' (the call is flagged anyway).
        noted = shot_input(records[0]).uncertain
        assert bool(records[0].corrected) == check
        assert any("first ball in the cue ball's way" in n for n in noted) == check
    assert firsts == [6, 1]


def test_a_cushion_first_or_an_unseen_ball_is_left_to_the_events() -> None:
    # Cue ball off a cushion before its first contact: its way was not a straight line.
    near, _ = _second_row()
    positions = {0: CUE_SPOT, **RACK}
    positions[near] = (RACK[near][0], RACK[near][1] + np.sign(RACK[near][1] - RACK[1][1]) * 60)
    watch = _watch(positions)
    for frame, x in ((62, 900.0), (63, 1200.0)):
        watch.see(_tracks(frame, {0: (x, CUE_SPOT[1])}))
    cushion = Event(64, 64 / 60, EventKind.BALL_CUSHION, (0,), cushion="left_foot")
    events = [cushion, _hit(66, near)]
    assert watch.checked(events) == events
    # A racked ball the camera never saw (hidden behind the rack) may have been hit first.
    hidden = {0: CUE_SPOT, **{b: xy for b, xy in RACK.items() if b != near}}
    assert _watch(hidden).first_in_way(near) is None


def test_a_ball_first_seen_on_the_cue_balls_way_before_it_could_reach_the_rack_is_its_blur() -> (
    None
):
    # The 6 was hidden in the rack at the strike; one frame later the blurred cue ball reads
    # as the 6 a few centimetres from its spot.
    positions = {0: CUE_SPOT, **{b: xy for b, xy in RACK.items() if b != 6}}
    watch = _watch(positions)
    watch.see(_tracks(61, {0: CUE_SPOT, 6: (CUE_SPOT[0] + 80.0, CUE_SPOT[1])}))
    assert watch.first_in_way(6) == (
        1,
        "the 6 was seen on the cue ball's way, not in the rack (its blur)",
    )
    # Half a second later a ball seen that far out was sent there by the break: no evidence.
    late = _watch(positions)
    late.see(_tracks(88, {0: CUE_SPOT, 6: (CUE_SPOT[0] + 80.0, CUE_SPOT[1])}))
    assert late.first_in_way(6) is None


def test_a_cue_ball_seen_coming_back_from_the_rack_gives_no_way() -> None:
    positions = {0: CUE_SPOT, **RACK}
    watch = _watch(positions)
    # Straight in along the foot spot's line, then back off the rack and away to the side.
    for frame, xy in ((63, (1200.0, 0.0)), (65, (1700.0, 0.0)), (67, (1500.0, 200.0))):
        watch.see(_tracks(frame, {0: (xy[0], CUE_SPOT[1] + xy[1])}))
    way = watch._way()
    assert way is not None and abs(way[1]) < 1e-9  # from the 1700 mm sighting only


def test_one_sighting_beside_the_rack_gives_no_way() -> None:
    # The cue ball first seen a frame after it glanced off the 1, two diameters aside: the way
    # from its spot through there meets the rack beside the 1, and would call the 1 missed.
    positions = {0: CUE_SPOT, **RACK}
    watch = _watch(positions)
    watch.see(_tracks(66, {0: (RACK[1][0] - 30.0, RACK[1][1] + 2.0 * D)}))
    assert watch._way() is None
    assert watch.first_in_way(1) is None
