"""A ball resting on a pocket lip keeps the shot open for the 5-second rule (rules.md I-20)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.tracking.builders import TABLE, simulate
from tracking.event_config import EventConfig
from tracking.events import EventDetector
from tracking.types import Event, EventKind, TrackSet, TrackStatus

LIP_XY = (TABLE.length_mm / 2.0 - 15.0, TABLE.width_mm + 3.0)
"""A centre in the right side pocket's mouth, just beyond the cushion line."""
CORNER_XY = (0.6 * TABLE.ball_radius_mm, 0.6 * TABLE.ball_radius_mm)
"""A centre past a corner pocket's jaws, over the hole: over half a radius from both
cushion lines (a scripted late drop rests there)."""


def _trackset(frame: int, time_s: float, xy: np.ndarray, status: list[TrackStatus]) -> TrackSet:
    """The cue ball then the 10 (as many as ``xy`` rows) at rest, with these statuses."""
    balls = len(xy)
    return TrackSet(
        frame,
        time_s,
        np.array([0, 10])[:balls],
        xy,
        np.zeros((balls, 2)),
        np.full((balls, 2), np.nan),
        np.array(status, dtype=object),
        xy,
    )


def _events(
    drop_s: float | None, lip_xy: tuple[float, float], arrive_s: float = 1.0
) -> list[Event]:
    """A cue ball stroke at 0.2 s that dies by 2 s, with ball 10 resting at ``lip_xy`` from
    ``arrive_s`` (unseen before: it came to rest there in the shot; 0.0: it rested there
    before the stroke) until it drops at ``drop_s`` (never when None)."""
    truth = simulate({0: (700.0, 400.0)}, [(0.2, 0, (1200.0, 0.0))], 9.0, decel_mm_s2=800.0)
    rng = np.random.default_rng(1)
    detector, events = EventDetector(TABLE), []
    for f, time_s in enumerate(truth.time_s):
        dropped = drop_s is not None and time_s >= drop_s
        xy = np.array([truth.xy_mm[f, 0], lip_xy]) + rng.normal(0.0, 0.7, (2, 2))
        status = [TrackStatus.ON_TABLE, TrackStatus.POCKETED if dropped else TrackStatus.ON_TABLE]
        balls = 2 if time_s >= arrive_s else 1
        events += detector.update(_trackset(f, float(time_s), xy[:balls], status[:balls]))
    return events


def test_late_drop_from_the_lip_belongs_to_the_shot() -> None:
    events = _events(4.0, LIP_XY)
    kinds = [e.kind for e in events]
    assert kinds.count(EventKind.SHOT_END) == 1, kinds
    drop = next(e for e in events if e.kind == EventKind.BALL_POCKET)
    end = next(e for e in events if e.kind == EventKind.SHOT_END)
    assert drop.balls == (10,) and drop.pocket == "side_right"
    assert drop.time_s <= end.time_s < drop.time_s + 0.2


@pytest.mark.parametrize(
    ("lip_xy", "wait_s"),
    [
        (LIP_XY, 5.0),
        (CORNER_XY, 5.0),
        ((1000.0, TABLE.width_mm - TABLE.ball_radius_mm), 0.5),
        ((TABLE.ball_radius_mm, 3.0 * TABLE.ball_radius_mm + 60.0), 0.5),
    ],
    ids=["on-lip-waits-5s", "deep-in-a-corner-waits-5s", "on-rail-settles", "by-a-corner-settles"],
)
def test_shot_end_waits_only_for_a_ball_on_a_lip(
    lip_xy: tuple[float, float], wait_s: float
) -> None:
    events = _events(None, lip_xy)
    end = next(e for e in events if e.kind == EventKind.SHOT_END)
    # The cue ball stops at 0.2 + 1200 / 800 = 1.7 s; rest is declared a rest window later.
    assert 1.7 + wait_s <= end.time_s <= 1.7 + wait_s + 0.6, end


def test_ball_left_on_the_lip_by_an_earlier_shot_does_not_hold_the_next_open() -> None:
    """The 10 rests on the lip since before the stroke and is not touched: it stopped there
    long before (an earlier shot), so the shot ends once every ball settles."""
    events = _events(None, LIP_XY, arrive_s=0.0)
    end = next(e for e in events if e.kind == EventKind.SHOT_END)
    assert 1.7 <= end.time_s <= 1.7 + 0.5 + 0.6, end


@pytest.mark.parametrize("lip_xy", [LIP_XY, CORNER_XY], ids=["side-lip", "corner-lip"])
def test_the_end_of_the_video_ends_a_shot_waiting_on_a_lip(lip_xy: tuple[float, float]) -> None:
    """The recording stops 1 s after the balls settled, a ball still on a lip: the shot ends
    at the last frame (`EventDetector.finish`), once, and a second finish ends nothing."""
    truth = simulate({0: (700.0, 400.0)}, [(0.2, 0, (1200.0, 0.0))], 2.7, decel_mm_s2=800.0)
    detector, events = EventDetector(TABLE), []
    for f, time_s in enumerate(truth.time_s):
        xy = np.array([truth.xy_mm[f, 0], lip_xy])
        balls = 2 if time_s >= 1.0 else 1
        on = [TrackStatus.ON_TABLE] * balls
        events += detector.update(_trackset(f, float(time_s), xy[:balls], on))
    assert not any(e.kind == EventKind.SHOT_END for e in events)
    ended = detector.finish()
    assert [e.kind for e in ended] == [EventKind.SHOT_END]
    assert ended[0].time_s == pytest.approx(float(truth.time_s[-1]))
    assert detector.finish() == []


def _stroke_while_waiting(yields: bool) -> list[Event]:
    """A stroke sends the cue ball to rest at (1600, 400) by 1.7 s; the 10 rests on the side
    lip from 1.0 s. At 3.0 s, while the shot waits on the lip, the next stroke sends the cue
    ball into the 4 resting 5 mm beside it: the cue ball stops dead within the start
    distance, only the 4 is seen leaving."""
    diameter = TABLE.ball_diameter_mm
    positions = {0: (700.0, 400.0), 4: (1600.0, 400.0 + diameter + 5.0)}
    strikes = [(0.2, 0, (1200.0, 0.0)), (3.0, 0, (0.0, 1500.0))]
    truth = simulate(positions, strikes, 6.0, decel_mm_s2=800.0)
    config = replace(EventConfig(), lip_wait_yields=yields)
    rng = np.random.default_rng(3)
    detector, events = EventDetector(TABLE, config), []
    for f, time_s in enumerate(truth.time_s):
        rows = [0, 4, 10] if time_s >= 1.0 else [0, 4]
        xy = np.array([*truth.xy_mm[f, [0, 4]], LIP_XY])[: len(rows)]
        xy = xy + rng.normal(0.0, 0.7, xy.shape)
        on = np.array([TrackStatus.ON_TABLE] * len(rows), dtype=object)
        still = np.zeros((len(rows), 2))
        trackset = TrackSet(f, float(time_s), np.array(rows), xy, still, still * np.nan, on, xy)
        events += detector.update(trackset)
    return events + detector.finish()


def test_the_next_stroke_ends_a_shot_waiting_on_a_lip() -> None:
    """The stroke at 3.0 s ends the first shot where the table fell quiet and starts the
    second (before `EventConfig.lip_wait_yields`, the 4's start was taken for a contact of
    the first shot and the two strokes merged into one)."""
    events = _stroke_while_waiting(yields=True)
    kinds = [e.kind for e in events]
    assert kinds.count(EventKind.STRIKE) == 2 and kinds.count(EventKind.SHOT_END) == 2, events
    first_end = next(e for e in events if e.kind == EventKind.SHOT_END)
    second = [e for e in events if e.kind == EventKind.STRIKE][1]
    assert 1.7 <= first_end.time_s <= 2.5 and 2.95 <= second.time_s <= 3.1, events
    contacts = [e for e in events if e.kind == EventKind.BALL_BALL]
    assert [e.balls for e in contacts] == [(0, 4)] and contacts[0].time_s >= second.time_s


def test_without_lip_wait_yields_the_strokes_merge() -> None:
    kinds = [e.kind for e in _stroke_while_waiting(yields=False)]
    assert kinds.count(EventKind.STRIKE) == 1 and kinds.count(EventKind.SHOT_END) == 1
