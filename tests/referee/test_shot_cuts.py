"""Shots cut short by the next strike (struck while balls still rolled): the events that
happened before the cut but are reported after it belong to the cut shot."""

from __future__ import annotations

import numpy as np

from calibration.table import TableSpec
from referee.shots import ShotConfig, ShotRecord, ShotSegmenter
from tracking.types import Event, EventKind, TrackSet, TrackStatus

TABLE = TableSpec()
FPS = 60.0
REST = {0: (600.0, 640.0), 3: (1500.0, 300.0), 5: (1800.0, 900.0)}


def _event(t: float, kind: EventKind, balls: tuple[int, ...] = (), **kw: str) -> Event:
    return Event(round(t * FPS), t, kind, balls, **kw)  # type: ignore[arg-type]


def _tracks(frame: int, rolling_8: bool) -> TrackSet:
    """The cue ball, 3 and 5 at rest; the 8 rolling to the foot-left pocket until frame 55
    (hidden in the pocket after, the tracker still coasting it, on along its way, until it
    gives it up)."""
    where = dict(REST)
    where[8] = (100.0 + 4.0 * frame, 60.0) if rolling_8 else (320.0, 60.0)
    balls = np.array(sorted(where), np.int64)
    xy = np.array([where[b] for b in balls], float)
    velocity = np.array([[240.0, 0.0] if b == 8 and rolling_8 else [0.0, 0.0] for b in balls])
    hidden = TrackStatus.OCCLUDED
    status = np.array([hidden if b == 8 and frame >= 55 else TrackStatus.ON_TABLE for b in balls])
    return TrackSet(
        frame, frame / FPS, balls, xy, velocity, np.full((len(balls), 2), np.nan), status
    )


def _two_shots(config: ShotConfig | None = None, end_frame: int | None = 200) -> list[ShotRecord]:
    """Shot 1 struck at frame 12 sends the 8 rolling; it drops at frame 55. Shot 2 is struck
    at frame 60, cutting shot 1 short; the 8's drop is only reported on frame 90 (the
    tracker coasted it before giving it up)."""
    cut = 60 / FPS
    stream = {
        14: [_event(12 / FPS, EventKind.STRIKE, (0,))],
        18: [_event(16 / FPS, EventKind.BALL_BALL, (0, 8))],
        64: [
            _event(cut - 1e-6, EventKind.SHOT_END),
            _event(cut, EventKind.STRIKE, (0,)),
        ],
        70: [_event(66 / FPS, EventKind.BALL_BALL, (0, 3))],
        90: [_event(55 / FPS, EventKind.BALL_POCKET, (8,), pocket="foot_left")],
        200: [_event(199 / FPS, EventKind.SHOT_END)],
    }
    segmenter = ShotSegmenter(TABLE, config)
    records: list[ShotRecord] = []
    last = end_frame if end_frame is not None else 150
    for frame in range(5, last + 1):
        records += segmenter.update(stream.get(frame, []), _tracks(frame, frame < 90))
    if end_frame is None:
        records += segmenter.finish([])
    return records


def _pocketed(record: ShotRecord) -> list[int]:
    return [p["ball"] for p in record.facts["pocketed"]]


def test_a_drop_reported_after_the_cut_belongs_to_the_cut_shot() -> None:
    first, second = _two_shots()
    assert (first.shot, second.shot) == (1, 2)
    assert _pocketed(first) == [8]
    assert _pocketed(second) == []
    assert 8 not in second.balls_on_table_at_start
    assert second.facts["balls_moving_at_strike"] == []
    assert second.facts["first_object_ball_contacted"] == 3


def test_without_the_hold_the_late_drop_is_lost_from_the_cut_shot() -> None:
    """What the hold is for: handed on at once, the cut shot misses its drop and the next
    shot takes the gone ball as on the table and rolling at its strike (a false F9)."""
    first, second = _two_shots(ShotConfig(cut_hold_s=0.0))
    assert _pocketed(first) == []
    assert 8 in second.balls_on_table_at_start
    assert second.facts["balls_moving_at_strike"] == [8]


def test_a_held_cut_shot_is_handed_on_when_the_input_ends() -> None:
    records = _two_shots(ShotConfig(cut_hold_s=30.0), end_frame=None)
    assert [r.shot for r in records] == [1]
    assert _pocketed(records[0]) == [8]
