"""EventDetector on a cue ball struck anew while out of sight, the last shot's balls rolling."""

from __future__ import annotations

import pytest

from tests.tracking.builders import Noise, run_tracking, simulate
from tracking.types import EventKind

_START = {0: (600.0, 700.0), 3: (300.0, 250.0), 8: (2200.0, 1000.0), 5: (1700.0, 700.0)}
"""The cue ball and the 3 set rolling together (the 3 still rolls at the second stroke)."""


@pytest.mark.parametrize(
    ("hidden_until_s", "struck_s", "velocity"),
    [
        (2.6, 2.2, (0.0, -1800.0)),
        (2.4, 2.2, (1500.0, 900.0)),
        (2.5, 2.1, (-1500.0, 0.0)),
        (2.3, 2.1, (1200.0, -1200.0)),
    ],
    ids=["across-the-3s-old-path", "on-ahead", "back-the-way-it-came", "diagonal"],
)
def test_a_cue_ball_struck_again_while_hidden_starts_a_new_shot(
    hidden_until_s: float, struck_s: float, velocity: tuple[float, float]
) -> None:
    """The cue ball rolls behind a player's body, stops there and is struck again while the
    3 still rolls; it is found far away rolling faster than it went. Before, its track
    took that for the same roll going on: no second strike, the two shots merged. Now the
    first shot ends at a strike near the true one (the cue ball's new way back to its old
    one, at its found speed: a little early, as it was faster before)."""
    truth = simulate(
        _START,
        [(0.1, 0, (600.0, 0.0)), (0.1, 3, (1000.0, 0.0)), (struck_s, 0, velocity)],
        5.0,
        decel_mm_s2=300.0,
    )
    hide = ((0, 1.0, hidden_until_s),)
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=hide), seed=3)
    strikes = [e for e in run.events if e.kind == EventKind.STRIKE]
    assert len(strikes) == 2, run.events
    assert abs(strikes[1].time_s - struck_s) <= 0.15, strikes
    ends = [e for e in run.events if e.kind == EventKind.SHOT_END]
    assert ends and ends[0].time_s <= strikes[1].time_s, run.events


def test_a_hidden_cue_ball_hit_by_a_rolling_ball_is_no_stroke() -> None:
    """The cue ball stops out of sight and the 3, sent rolling, hits it there; the cue ball
    is found rolling away faster than it last went, but a ball seen moving reached its way:
    no stroke, one shot."""
    truth = simulate(
        {0: (800.0, 640.0), 3: (1600.0, 640.0), 8: (300.0, 200.0)},
        [(0.1, 0, (500.0, 0.0)), (0.1, 8, (0.0, 300.0)), (1.5, 3, (-1200.0, 0.0))],
        4.0,
        decel_mm_s2=300.0,
    )
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=((0, 0.5, 2.6),)), seed=3)
    assert [e.kind for e in run.events].count(EventKind.STRIKE) == 1, run.events


@pytest.mark.parametrize(
    ("start", "velocity", "hidden"),
    [
        ((400.0, 700.0), (900.0, 0.0), (0.6, 1.4)),
        ((1200.0, 640.0), (1200.0, 0.0), (1.36, 1.8)),
        ((600.0, 640.0), (4000.0, 300.0), (0.15, 0.5)),
    ],
    ids=["straight-on", "just-off-the-foot-cushion", "lost-in-its-blur-at-once"],
)
def test_a_cue_ball_rolling_on_behind_a_body_is_the_same_roll(
    start: tuple[float, float], velocity: tuple[float, float], hidden: tuple[float, float]
) -> None:
    """Hidden as it rolls on (along its way; just off a cushion, its filter's velocity still
    turning through a slow speed; at once in a hard stroke's blur, its filter behind the
    stroke's speed): found where its roll took it, the same shot."""
    truth = simulate({0: start, 5: (300.0, 300.0)}, [(0.1, 0, velocity)], 4.0)
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=((0, *hidden),)), seed=3)
    kinds = [e.kind for e in run.events]
    assert kinds.count(EventKind.STRIKE) == 1, run.events
    assert kinds.count(EventKind.SHOT_END) <= 1, run.events


def test_a_cue_ball_struck_from_rest_while_hidden_is_struck_once() -> None:
    """Seen at rest, hidden, struck and found rolling while the 3 still rolls: the start
    of a resting ball tells that stroke (`tracking.starts`), and it is told once."""
    truth = simulate(
        {0: (600.0, 700.0), 3: (300.0, 250.0), 8: (2200.0, 1000.0)},
        [(0.1, 0, (600.0, 0.0)), (0.1, 3, (1500.0, 0.0)), (2.8, 0, (-1000.0, -1000.0))],
        5.0,
        decel_mm_s2=300.0,
    )
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=((0, 2.4, 3.0),)), seed=3)
    strikes = [e for e in run.events if e.kind == EventKind.STRIKE]
    assert len(strikes) == 2, run.events
    assert abs(strikes[1].time_s - 2.8) <= 0.1, strikes
