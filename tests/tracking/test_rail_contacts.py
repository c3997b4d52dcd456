"""Cushion contacts of balls that show no kink of their own: a resting ball against a rail
struck by a slow, glancing ball, and a ball sent off the table over a cushion."""

from __future__ import annotations

import math

import numpy as np
import pytest

from referee.shots import facts_from_events
from tests.tracking.builders import TABLE, Noise, Truth, run_tracking, simulate
from tracking.types import Event, EventKind

RADIUS = TABLE.ball_radius_mm
DIAMETER = TABLE.ball_diameter_mm


def _cushions(events: list[Event], ball: int) -> list[Event]:
    return [e for e in events if e.kind == EventKind.BALL_CUSHION and e.balls == (ball,)]


def _glancing_hit(gap_mm: float, fps: float) -> Truth:
    """corner_lip_stay_8ft_green shot 3: a ball rolling at 280 mm/s, mostly along the rail,
    meets the 2 lying 1 mm off that rail; the 2 moves 4 mm (no start), the striker turns by
    200 mm/s (under its kink threshold away from rails). Here the striker is the cue ball."""
    object_xy = (1200.0, RADIUS + gap_mm)
    contact = np.array([object_xy[0] + 2.4, object_xy[1] + DIAMETER - 0.1])
    velocity = np.array([-230.0, -150.0])
    striker_xy = contact - velocity * 0.9
    return simulate(
        {0: (float(striker_xy[0]), float(striker_xy[1])), 2: object_xy},
        [(0.1, 0, (float(velocity[0]), float(velocity[1])))],
        2.0,
        fps=fps,
        decel_mm_s2=60.0,
    )


@pytest.mark.parametrize("fps", [30.0, 60.0], ids=["30fps", "60fps"])
@pytest.mark.parametrize("seed", [0, 1], ids=["seed0", "seed1"])
def test_a_ball_against_a_rail_struck_by_a_glancing_ball_touches_the_rail(
    fps: float, seed: int
) -> None:
    truth = _glancing_hit(1.0, fps)
    assert [e.cushion for e in _cushions(truth.events, 2)] == ["left_head"]
    run = run_tracking(truth, Noise(position_std_mm=0.5), seed=seed)
    contacts = [e for e in run.events if e.kind == EventKind.BALL_BALL]
    assert {frozenset(e.balls) for e in contacts} == {frozenset((0, 2))}
    assert [e.cushion for e in _cushions(run.events, 2)] == ["left_head"]


def test_a_ball_passing_a_ball_against_a_rail_does_not_touch_it() -> None:
    """A path along the rail 20 mm off the 2 (inside contact reach, where kinks are softer):
    no contact, and the 2 stays off the cushion list whatever the noise does to the path."""
    object_xy = (1200.0, RADIUS + 1.0)
    contact = np.array([object_xy[0] + 2.4, object_xy[1] + DIAMETER + 20.0])
    velocity = np.array([-280.0, 0.0])
    start = contact - velocity * 0.9
    truth = simulate(
        {0: (float(start[0]), float(start[1])), 2: object_xy},
        [(0.1, 0, (float(velocity[0]), float(velocity[1])))],
        2.0,
        fps=30.0,
        decel_mm_s2=60.0,
    )
    assert not [e for e in truth.events if e.kind != EventKind.STRIKE]
    for seed in range(3):
        run = run_tracking(truth, Noise(position_std_mm=1.5), seed=seed)
        assert not _cushions(run.events, 2), seed
        assert not [e for e in run.events if e.kind == EventKind.BALL_BALL], seed


def test_a_ball_sent_off_the_table_unseen_met_the_cushion_it_left_over() -> None:
    """corner_offtable_grey shot 3: the 2, struck at 7.9 m/s 99 mm from the foot cushion, is
    never seen again and is inferred off the table; it left over the foot cushion, so it met
    that cushion after the first contact (here: sent at 6.6 m/s from 800 mm)."""
    length, width = TABLE.length_mm, TABLE.width_mm
    two = np.array([length - 800.0, width - 500.0])
    normal = np.array([math.cos(math.radians(20.0)), math.sin(math.radians(20.0))])
    cue = two - DIAMETER * normal - np.array([1200.0, 0.0])
    positions = {0: (float(cue[0]), float(cue[1])), 2: (float(two[0]), float(two[1]))}
    truth = simulate(positions, [(0.2, 0, (7000.0, 0.0))], 5.0, decel_mm_s2=900)
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    blur = ((0, 0.2, contact.time_s), (2, contact.time_s, 10.0))  # as in test_lost.py
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=blur), seed=2)
    off = [e for e in run.events if e.kind == EventKind.BALL_OFF_TABLE]
    assert [e.balls for e in off] == [(2,)], run.events
    cushions = _cushions(run.events, 2)
    # Its exit path comes from the cue ball's approach, itself unseen in its blur: the
    # direction is rough, and the cushion is one of the corner's two.
    assert len(cushions) == 1 and cushions[0].cushion in ("foot", "right_foot"), run.events
    assert contact.time_s < cushions[0].time_s <= off[0].time_s
    assert cushions[0].confidence <= off[0].confidence
    facts = facts_from_events(run.events, [2], is_break=False)
    assert 2 in facts["cushion_after_first_contact"]
