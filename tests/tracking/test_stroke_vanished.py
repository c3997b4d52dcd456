"""A stroke the camera did not see whose first ball vanished at once (`tracking.strokes`)."""

from __future__ import annotations

import math

import pytest

from referee.shots import facts_from_events
from tests.tracking.builders import Noise, run_tracking, simulate
from tracking.types import EventKind


@pytest.mark.parametrize("fps", [30.0, 60.0], ids=["30fps", "60fps"])
def test_a_ball_sent_at_once_out_of_sight_was_hit_first(fps: float) -> None:
    """The cue ball is out of sight from its strike until a few frames after it met the 3,
    and the 3 is never seen moving: seen at rest until the contact, then gone (sent at once
    into a pocket at a low frame rate: sample broadcast_pushout shot 4 at 30 frames/s). The
    cue ball found far from its spot still hit the 3, when the 3 vanished."""
    positions = {0: (700.0, 640.0), 3: (1600.0, 640.0), 5: (1000.0, 1100.0)}
    truth = simulate(positions, [(0.2, 0, (4000.0, 0.0))], 1.2, fps=fps)
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    frame = 1.0 / fps
    after = math.ceil(contact.time_s * fps) * frame  # the first frame after the contact
    hidden = [(0, 0.2 + 0.5 * frame, after + 2.5 * frame), (3, after - 0.5 * frame, 10.0)]
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=tuple(hidden)), seed=3)
    facts = facts_from_events(run.events, [3, 5], is_break=False)
    assert facts["first_object_ball_contacted"] == 3, run.events
    met = next(e for e in run.events if e.kind == EventKind.BALL_BALL and 0 in e.balls)
    assert abs(met.time_s - contact.time_s) <= frame, (met, contact)


def test_a_ball_hidden_before_the_stroke_is_not_taken_for_hit() -> None:
    """The 5 is hidden since before the stroke (a player's body): the cue ball found far
    along met nothing the camera could tell, and the 5 is not made its first contact."""
    positions = {0: (700.0, 640.0), 5: (1500.0, 660.0), 7: (300.0, 200.0)}
    truth = simulate(positions, [(0.2, 0, (3000.0, 0.0))], 0.5, fps=30.0)
    hidden = [(0, 0.2 + 0.5 / 30.0, 0.45), (5, 0.1, 10.0)]
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=tuple(hidden)), seed=3)
    assert not any(e.kind == EventKind.BALL_BALL and 5 in e.balls for e in run.events)
    assert not any(e.kind == EventKind.BALL_BALL and 0 in e.balls for e in run.events)
