"""A cue ball struck hard while a slow ball rolls nearby was struck, not touched by it."""

from __future__ import annotations

import pytest

from tests.tracking.builders import simulate
from tracking.events import EventDetector
from tracking.types import EventKind

from .test_starts import TABLE, _tracksets_seen


@pytest.mark.parametrize("fps", [30.0, 60.0])
def test_a_hard_stroke_beside_a_slow_rolling_ball_is_a_strike(fps: float) -> None:
    """The 3 rolls at about 200 mm/s some 190 mm from the resting cue ball when the cue
    ball leaves at 4 m/s, away from it: a ball is never sent off faster than the ball that
    touched it came, so this is a stroke (a 30 fps top view's strike while balls still
    rolled was read as the 3 touching the cue ball, and the shot was lost)."""
    truth = simulate(
        {0: (900.0, 1000.0), 3: (500.0, 900.0)},
        [(0.2, 3, (400.0, 0.0)), (1.0, 0, (0.0, -4000.0))],
        1.6,
        fps=fps,
    )
    detector = EventDetector(TABLE)
    events = [e for ts in _tracksets_seen(truth, {}) for e in detector.update(ts)]
    strikes = [e for e in events if e.kind == EventKind.STRIKE]
    assert len(strikes) == 1, events
    assert strikes[0].time_s == pytest.approx(1.0, abs=1.5 / fps)
    touches = [e for e in events if e.kind == EventKind.BALL_BALL and set(e.balls) == {0, 3}]
    assert not touches, events
