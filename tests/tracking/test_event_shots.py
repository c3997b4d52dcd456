"""EventDetector on sequences of strokes: where one shot ends and the next begins."""

from __future__ import annotations

import math

import numpy as np
import pytest

from referee.shots import facts_from_events
from tests.tracking.builders import TABLE, Noise, run_tracking, simulate
from tracking.event_config import EventConfig
from tracking.types import EventKind


def test_stroke_while_the_last_shot_still_rolls_ends_it() -> None:
    """The cue ball at rest is struck while an object ball still rolls: the open shot ends at
    that strike and a new one begins (a stroke with balls moving, not a disturbance)."""
    truth = simulate(
        {0: (700.0, 640.0), 3: (1300.0, 640.0), 8: (700.0, 250.0)},
        [(0.1, 0, (1500.0, 0.0)), (1.4, 0, (0.0, -1500.0))],
        3.0,
        decel_mm_s2=300.0,
    )
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=5)
    kinds = [e.kind for e in run.events if e.kind != EventKind.BALL_CUSHION]
    assert kinds[:4] == [
        EventKind.STRIKE,
        EventKind.BALL_BALL,
        EventKind.SHOT_END,
        EventKind.STRIKE,
    ], kinds
    end, strike = run.events[kinds.index(EventKind.SHOT_END) :][:2]
    assert abs(strike.time_s - 1.4) < 2.0 / truth.fps
    assert end.time_s <= strike.time_s
    assert EventKind.BALL_DISTURBED not in kinds


@pytest.mark.parametrize("speed", [600.0, 900.0, 1400.0], ids=["600", "900", "1400"])
def test_bounce_off_a_cushion_is_not_a_rest(speed: float) -> None:
    """A ball whose rest window straddles a cushion bounce fits a slow line, yet it has not
    stopped: no second stroke or disturbance when it is next seen moving."""
    truth = simulate({0: (1000.0, 1000.0), 5: (2000.0, 300.0)}, [(0.1, 0, (0.0, speed))], 3.0)
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=3)
    kinds = [e.kind for e in run.events]
    assert kinds.count(EventKind.STRIKE) == 1, kinds
    assert EventKind.BALL_DISTURBED not in kinds


@pytest.mark.parametrize("share", [0.15, 0.25], ids=["15pct", "25pct"])
def test_thin_graze_that_barely_moves_the_object_ball(share: float) -> None:
    """A thin cut sends the object ball off at a fraction of the cue ball's speed; it creeps
    a centimetre or two, seen displaced long after the contact, which is still found (at
    its time) and is the first contact."""
    diameter = TABLE.ball_diameter_mm
    offset = diameter * math.sqrt(1.0 - share**2)
    truth = simulate(
        {0: (1000.0, 640.0), 1: (1400.0, 640.0 + offset), 7: (2000.0, 300.0)},
        [(0.1, 0, (400.0, 0.0))],
        3.0,
        decel_mm_s2=100.0,
    )
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=9)
    facts = facts_from_events(run.events, [1, 7], is_break=False)
    assert facts["first_object_ball_contacted"] == 1, run.events
    assert facts["balls_disturbed"] == []
    want = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    got = next(e for e in run.events if e.kind == EventKind.BALL_BALL)
    assert abs(got.time_s - want.time_s) < 2.0 / truth.fps, (want, got)


def test_stroke_with_the_cue_ball_unseen_after_a_scratch() -> None:
    """The cue ball dropped and was put back where the camera does not see it: the next
    ball to leave its spot at stroke speed was hit by it (a low-confidence stroke), not
    moved by hand."""
    truth = simulate(
        {0: (400.0, 400.0), 3: (1500.0, 900.0), 5: (1800.0, 400.0)},
        [(0.1, 0, (-1200.0, -1200.0)), (2.5, 5, (1500.0, 200.0))],
        4.0,
    )
    assert any(e.kind == EventKind.BALL_POCKET and e.balls == (0,) for e in truth.events)
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=4)
    later = [e for e in run.events if e.time_s > 2.0]
    assert [(e.kind, e.balls) for e in later[:2]] == [
        (EventKind.STRIKE, (0,)),
        (EventKind.BALL_BALL, (0, 5)),
    ], later
    assert later[0].confidence < 0.5 and abs(later[0].time_s - 2.5) < 2.0 / truth.fps
    assert all(e.kind != EventKind.BALL_DISTURBED for e in run.events)


def test_object_ball_lost_right_after_the_contact_is_still_the_first_contact() -> None:
    """A hard hit sends the object ball away (off the table, or out of view) after one
    sighting of it moving: the cue ball's deflection is still explained by it."""
    truth = simulate({0: (800.0, 640.0), 2: (1700.0, 660.0)}, [(0.1, 0, (6000.0, 0.0))], 1.5)
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    hidden_from = contact.time_s + 1.2 / truth.fps
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=((2, hidden_from, 9.0),)))
    facts = facts_from_events(run.events, [2], is_break=False)
    assert facts["first_object_ball_contacted"] == 2, run.events


def test_a_shot_ends_a_settle_time_after_its_last_drop_not_after_the_tracker_gives_up() -> None:
    """The tracker coasts a dropped ball a while before it gives it up as pocketed; the
    drop is back-dated to where its path met the hole, and the table has been quiet since
    then: a cue ball put down by hand soon after must find the shot over."""
    truth = simulate({0: (400.0, 400.0), 5: (1800.0, 400.0)}, [(0.1, 0, (-1200.0, -1200.0))], 3.0)
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=4)
    drop = next(e for e in run.events if e.kind == EventKind.BALL_POCKET and e.balls == (0,))
    end = next(e for e in run.events if e.kind == EventKind.SHOT_END)
    settle = EventConfig().settle_s
    assert drop.time_s + settle - 1e-6 <= end.time_s <= drop.time_s + settle + 2.0 / truth.fps


def test_a_ball_hidden_while_it_rolls_keeps_the_shot_open() -> None:
    """An object ball rolls on behind a player's body for 1.5 s: the tracker stops coasting
    it within half a second, yet the shot is not over while it may still roll. It ends
    once, after the ball is seen again and comes to rest; the ball's reappearance rolling
    is no new shot."""
    truth = simulate(
        {0: (500.0, 640.0), 3: (800.0, 640.0)},
        [(0.1, 0, (450.0, 0.0))],
        6.0,
        decel_mm_s2=100.0,
    )
    hide = ((3, 1.3, 2.8),)
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=hide), seed=2)
    ends = [e for e in run.events if e.kind == EventKind.SHOT_END]
    speed = np.linalg.norm(np.diff(truth.xy_mm[:, 3], axis=0), axis=1) * truth.fps
    stopped_s = float(truth.time_s[1:][np.flatnonzero(speed > 1.0)[-1]])
    assert stopped_s > 3.0  # it still rolled when seen again
    assert len(ends) == 1, run.events
    assert ends[0].time_s >= stopped_s, (ends[0], stopped_s)
    strikes = [e for e in run.events if e.kind == EventKind.STRIKE]
    assert len(strikes) == 1, run.events
