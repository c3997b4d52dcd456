"""Cushion contacts the kink threshold alone misses: slow bounces and balls struck into a rail."""

from __future__ import annotations

import numpy as np
import pytest

from referee.shots import facts_from_events
from tests.tracking.builders import TABLE, Noise, run_tracking, simulate
from tracking.event_config import EventConfig
from tracking.types import EventKind

RADIUS = TABLE.ball_radius_mm
DIAMETER = TABLE.ball_diameter_mm


def _cushions(events: list, ball: int) -> list:  # type: ignore[type-arg]
    return [e for e in events if e.kind == EventKind.BALL_CUSHION and e.balls == (ball,)]


@pytest.mark.parametrize("seed", [1, 2, 3], ids=["seed1", "seed2", "seed3"])
def test_a_slow_ball_turned_back_by_a_rail_touched_it(seed: int) -> None:
    """fresh f1_corner shot 4: a ball crawling into a rail (30 mm/s across it) comes back at
    24 mm/s: a change of velocity under the kink floor, but a reversal right at the rail."""
    start = (1000.0, RADIUS + 30.0 * 0.45)
    truth = simulate(
        {0: start, 5: (2200.0, 900.0)}, [(0.1, 0, (100.0, -30.0))], 1.4, decel_mm_s2=20
    )
    want = _cushions(truth.events, 0)
    assert len(want) == 1
    quiet = Noise(position_std_mm=0.3)
    run = run_tracking(truth, quiet, seed=seed, configs=(None, EventConfig(position_noise_mm=0.3)))
    got = _cushions(run.events, 0)
    assert [e.cushion for e in got] == [want[0].cushion]
    assert abs(got[0].time_s - want[0].time_s) < 2.0 / truth.fps


@pytest.mark.parametrize("gap_mm", [0.5, 2.0], ids=["touching", "near"])
def test_a_ball_rolling_along_a_rail_does_not_bounce_off_it(gap_mm: float) -> None:
    """Noise on a ball rolling beside a rail (no normal motion) must not pass for a reversal."""
    truth = simulate({0: (300.0, RADIUS + gap_mm)}, [(0.1, 0, (700.0, 0.0))], 2.5, decel_mm_s2=200)
    assert not _cushions(truth.events, 0)
    for seed in range(6):
        run = run_tracking(truth, Noise(position_std_mm=1.5), seed=seed)
        assert not _cushions(run.events, 0), seed


@pytest.mark.parametrize("gap_mm", [1.0, 6.0, 15.0], ids=["1mm", "6mm", "15mm"])
def test_a_resting_ball_struck_into_the_rail_beside_it_touches_it(gap_mm: float) -> None:
    """fresh f1_corner shot 2: the 2 lay 6 mm off a rail; the cue ball drove it in, and it
    moved 5 mm and back within two frames: no kink, no start, but a cushion contact."""
    object_xy = (1500.0, RADIUS + gap_mm)
    cue_xy = (1500.0, object_xy[1] + DIAMETER + 150.0)
    truth = simulate({0: cue_xy, 2: object_xy}, [(0.1, 0, (0.0, -700.0))], 1.2, decel_mm_s2=300)
    assert _cushions(truth.events, 2)
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=4)
    facts = facts_from_events(run.events, [2], is_break=False)
    assert facts["first_object_ball_contacted"] == 2
    assert 2 in facts["cushion_after_first_contact"]
    assert all(e.cushion == "left_foot" for e in _cushions(run.events, 2))


def test_a_ball_struck_along_the_rail_beside_it_does_not_touch_it() -> None:
    """The same ball hit along the rail leaves parallel to it: no cushion is inferred."""
    object_xy = (1500.0, RADIUS + 3.0)
    cue_xy = (1200.0, object_xy[1])
    truth = simulate({0: cue_xy, 2: object_xy}, [(0.1, 0, (900.0, 0.0))], 1.2, decel_mm_s2=300)
    assert not _cushions(truth.events, 2)
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=4)
    assert not _cushions(run.events, 2)
    assert np.isfinite(truth.xy_mm[-1, 2, 0])


@pytest.mark.parametrize("hidden_s", [0.1, 0.25], ids=["100ms", "250ms"])
@pytest.mark.parametrize("seed", [1, 2], ids=["seed1", "seed2"])
def test_a_bounce_while_the_ball_was_hidden_is_found(hidden_s: float, seed: int) -> None:
    """fresh f1_corner shot 2: the 5 went unseen through its bounce off the head rail; its
    path in and its path out meet at the rail."""
    truth = simulate({0: (700.0, 300.0)}, [(0.1, 0, (-700.0, 500.0))], 1.6, decel_mm_s2=150)
    want = _cushions(truth.events, 0)
    assert [e.cushion for e in want][:1] == ["head"]
    hide = (0, want[0].time_s - 0.4 * hidden_s, want[0].time_s + 0.6 * hidden_s)
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=(hide,)), seed=seed)
    got = [e for e in _cushions(run.events, 0) if e.cushion == "head"]
    assert len(got) == 1
    assert abs(got[0].time_s - want[0].time_s) < 0.5 * hidden_s + 2.0 / truth.fps


def test_a_ball_turned_by_another_while_hidden_near_a_rail_is_no_bounce() -> None:
    """Hidden near a rail, a ball kissed off another: a contact, not a cushion, turned it."""
    truth = simulate(
        {0: (700.0, 300.0), 4: (700.0 - 480.0 + 30.0, 300.0 + 360.0 + 30.0)},
        [(0.1, 0, (-800.0, 600.0))],
        1.4,
        decel_mm_s2=150,
    )
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    hide = (0, contact.time_s - 0.08, contact.time_s + 0.12)
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=(hide,)), seed=3)
    near = [e for e in _cushions(run.events, 0) if abs(e.time_s - contact.time_s) < 0.2]
    assert not near


@pytest.mark.parametrize("seed", [1, 2, 3], ids=["seed1", "seed2", "seed3"])
def test_a_ball_seen_leaving_once_then_hidden_was_hit(seed: int) -> None:
    """fresh f3_top shot 3: the 3 was seen displaced once as the cue ball hit it, then hidden
    for four frames: the cue ball's kink is still its contact with the 3."""
    truth = simulate(
        {0: (1000.0, 300.0), 3: (1600.0, 330.0), 9: (2200.0, 1000.0)},
        [(0.1, 0, (4000.0, 200.0))],
        1.2,
    )
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    frame = 1.0 / truth.fps
    hide = (3, contact.time_s + 1.2 * frame, contact.time_s + 5.0 * frame)
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=(hide,)), seed=seed)
    facts = facts_from_events(run.events, [3, 9], is_break=False)
    assert facts["first_object_ball_contacted"] == 3


@pytest.mark.parametrize("fps", [30.0, 60.0], ids=["30fps", "60fps"])
@pytest.mark.parametrize("seed", [1, 2], ids=["seed1", "seed2"])
def test_a_rack_ball_driven_into_the_foot_cushion_unseen_touched_it(fps: float, seed: int) -> None:
    """b01 (7ft broadcast, 30 fps): the 4 left the rack straight for the foot cushion, was
    lost in its blur until it came back, and was first seen heading for its rest spot: its
    first path, traced back, passes through that spot, yet it can only come back that way
    off the cushion. Its resting neighbour in the rack (beside it, within reach of the way
    back) is not what turned it."""
    rest = (TABLE.length_mm - RADIUS - 260.0, 635.0)
    truth = simulate(
        {0: (700.0, 300.0), 4: rest, 7: (rest[0], 635.0 - DIAMETER - 0.5)},
        [(0.1, 4, (3000.0, 40.0))],
        0.7,
        fps=fps,
        decel_mm_s2=300,
    )
    want = _cushions(truth.events, 4)
    assert [e.cushion for e in want][:1] == ["foot"]
    hide = (4, 0.1 + 0.5 / fps, want[0].time_s + 0.05)
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=(hide,)), seed=seed)
    got = [e for e in _cushions(run.events, 4) if e.cushion == "foot"]
    assert len(got) == 1
    assert abs(got[0].time_s - want[0].time_s) < 3.0 / fps
    assert not _cushions(run.events, 7)


def test_a_ball_sent_back_by_a_ball_coming_at_it_while_unseen_met_no_cushion() -> None:
    """Hidden from its start, a ball met a ball coming the other way head-on and came back
    along its own line: the turn was that contact, not the foot cushion."""
    truth = simulate(
        {0: (500.0, 300.0), 5: (1500.0, 635.0), 8: (2000.0, 635.0)},
        [(0.1, 5, (1500.0, 0.0)), (0.1, 8, (-2500.0, 0.0))],
        0.9,
        decel_mm_s2=300,
    )
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    hide = (5, 0.11, contact.time_s + 0.1)
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=(hide,)), seed=4)
    assert not _cushions(run.events, 5)


@pytest.mark.parametrize("corner", ["foot_left", "head_right"], ids=["foot_left", "head_right"])
def test_a_ball_dying_in_a_corner_pocket_mouth_touched_no_rail(corner: str) -> None:
    """sample corner_lip_stay shot 3: the 10 rolled into a corner pocket's mouth and stopped
    on its lip, its centre within a radius of both cushion lines but past the ends of both
    rails: it touched none (a stop beside a rail is a touch only where a rail is)."""
    sign = np.array([1.0, -1.0]) if corner == "foot_left" else np.array([-1.0, 1.0])
    end = (
        np.array([TABLE.length_mm - RADIUS - 1.0, RADIUS + 1.0])
        if corner == "foot_left"
        else np.array([RADIUS + 1.0, TABLE.width_mm - RADIUS - 1.0])
    )
    speed, decel = 400.0, 200.0
    heading = sign / np.sqrt(2.0)
    start = end - heading * speed**2 / (2.0 * decel)
    truth = simulate(
        {0: (float(start[0]), float(start[1])), 3: (1000.0, 600.0)},
        [(0.1, 0, (float(heading[0] * speed), float(heading[1] * speed)))],
        3.0,
        decel_mm_s2=decel,
    )
    assert not _cushions(truth.events, 0)
    for seed in range(3):
        run = run_tracking(truth, Noise(position_std_mm=1.0), seed=seed)
        assert any(e.kind == EventKind.STRIKE for e in run.events)
        assert not _cushions(run.events, 0), seed


@pytest.mark.parametrize("seed", [0, 1, 2, 3], ids=["seed0", "seed1", "seed2", "seed3"])
def test_a_ball_hit_just_before_a_rail_meets_both(seed: int) -> None:
    """p30 break 9 (30 fps): the 4, rolling into the foot rail, was hit from the side by the
    2 a few milliseconds before it met the rail: both in one frame, one kink holding a push
    along the line of centres and one off the rail. The contact explains most of the
    change; the rail's share is still far beyond noise, and the 4 touched the rail."""
    length = TABLE.length_mm
    v4, v2, alpha = 800.0, 2500.0, -0.25
    t_contact = 0.1 + 300.0 / v4 - 0.004
    four_at = np.array([length - RADIUS - 300.0 + v4 * (t_contact - 0.1), 800.0])
    two_at = four_at + DIAMETER * np.array([np.sin(alpha), np.cos(alpha)])
    two_from = two_at + np.array([0.0, v2 * (t_contact - 0.1)])
    truth = simulate(
        {0: (300.0, 300.0), 4: (length - RADIUS - 300.0, 800.0), 2: tuple(two_from)},
        [(0.1, 4, (v4, 0.0)), (0.1, 2, (0.0, -v2))],
        0.8,
        fps=30.0,
        decel_mm_s2=300,
    )
    want = _cushions(truth.events, 4)
    assert [e.cushion for e in want] == ["foot"]
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=seed)
    got = _cushions(run.events, 4)
    assert [e.cushion for e in got] == ["foot"]
    assert abs(got[0].time_s - want[0].time_s) < 1.0 / truth.fps


@pytest.mark.parametrize("noise_mm", [1.5, 2.5], ids=["1.5mm", "2.5mm"])
@pytest.mark.parametrize("seed", [0, 2, 3], ids=["seed0", "seed2", "seed3"])
def test_a_ball_resting_beside_a_rail_does_not_bounce_off_it(noise_mm: float, seed: int) -> None:
    """p30 break 4 (30 fps): the 10 rested 5 mm off the head rail while other balls still
    rolled, and the noise of its 3-frame fits turned in and out across the rail: a ball at
    rest since before the fits began meets nothing."""
    truth = simulate(
        {0: (300.0, 600.0), 3: (1500.0, RADIUS + 5.0)},
        [(0.1, 0, (300.0, 40.0))],
        6.0,
        fps=30.0,
        decel_mm_s2=40,
    )
    assert not _cushions(truth.events, 3)
    run = run_tracking(truth, Noise(position_std_mm=noise_mm), seed=seed)
    assert not _cushions(run.events, 3)
