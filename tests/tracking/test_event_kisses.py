"""Soft kisses: a contact too soft to start the touched ball or to kink the mover's path."""

from __future__ import annotations

import math

import pytest

from referee.shots import facts_from_events
from tests.tracking.builders import TABLE, Noise, run_tracking, simulate
from tracking.event_config import EventConfig
from tracking.types import EventKind

DIAMETER = TABLE.ball_diameter_mm


def _pass(gap_mm: float, cosine: float = 0.1) -> tuple[dict[int, tuple[float, float]], float]:
    """Positions where the cue ball, rolling along y = 640 mm, passes ball 3 with centres
    ``gap_mm`` beyond touching (negative: a contact whose line of centres makes ``cosine``
    with the cue ball's way), and the cue ball's speed at the ball, mm/s."""
    offset = DIAMETER * math.sqrt(1.0 - cosine**2) if gap_mm < 0 else DIAMETER + gap_mm
    speed = math.sqrt(400.0**2 - 2.0 * 100.0 * 300.0)
    return {0: (700.0, 640.0), 3: (1000.0, 640.0 + offset)}, speed


def test_a_kiss_too_soft_to_start_the_ball_is_a_contact() -> None:
    """The cue ball grazes the 3, which moves some 5 mm (under the start distance) while the
    cue ball's path bends by less than the kink threshold: the first contact is the 3."""
    positions, speed = _pass(-1.0)
    truth = simulate(positions, [(0.1, 0, (400.0, 0.0))], 2.5, decel_mm_s2=100.0)
    kiss = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    pushed = 0.1 * speed
    config = EventConfig()
    assert pushed**2 / (2.0 * 100.0) < config.start_distance_mm
    assert 0.1 * speed < config.kink_min_speed_change_mm_s
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=3)
    found = [e for e in run.events if e.kind == EventKind.BALL_BALL]
    assert [set(e.balls) for e in found] == [{0, 3}], run.events
    assert abs(found[0].time_s - kiss.time_s) < 3.0 / truth.fps
    facts = facts_from_events(run.events, [3], is_break=False)
    assert facts["first_object_ball_contacted"] == 3


@pytest.mark.parametrize("gap_mm", [2.0, 6.0], ids=["2mm", "6mm"])
def test_a_near_miss_is_no_contact(gap_mm: float) -> None:
    """The cue ball passes the 3 a few millimetres clear: the 3, unmoved, was not touched."""
    positions, _ = _pass(gap_mm)
    truth = simulate(positions, [(0.1, 0, (400.0, 0.0))], 2.5, decel_mm_s2=100.0)
    assert not [e for e in truth.events if e.kind == EventKind.BALL_BALL]
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=3)
    assert not [e for e in run.events if e.kind == EventKind.BALL_BALL], run.events
