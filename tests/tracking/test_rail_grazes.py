"""Rail grazes (`EventConfig.rail_graze_check`, `tracking.kinks` `_rail_grazes`): a ball
rolling nearly along a rail that turns off it at a shallow angle touched it."""

from __future__ import annotations

import pytest

from tests.tracking.builders import TABLE, Noise, run_tracking, simulate
from tracking.event_config import EventConfig
from tracking.types import Event, EventKind

RADIUS = TABLE.ball_radius_mm
GRAZE = EventConfig(rail_graze_check=True)


def _cushions(events: list[Event], ball: int) -> list[Event]:
    return [e for e in events if e.kind == EventKind.BALL_CUSHION and e.balls == (ball,)]


@pytest.mark.parametrize("seed", [1, 2, 3, 4], ids=["seed1", "seed2", "seed3", "seed4"])
def test_a_ball_grazing_a_rail_at_speed_touched_it(seed: int) -> None:
    """s2621 shot 5 (7 ft, 60 fps): the 1 ran at 1.8 m/s along the head rail, came in at
    80 mm/s and left at 20: within one fit window's noise of the change, missed even with
    exact centres; two windows either side tell the turn at the rail."""
    truth = simulate({0: (400.0, RADIUS + 20.0)}, [(0.1, 0, (1800.0, -80.0))], 1.0)
    want = _cushions(truth.events, 0)
    assert len(want) == 1
    run = run_tracking(truth, Noise(position_std_mm=1.5), seed=seed, configs=(None, GRAZE))
    got = _cushions(run.events, 0)
    assert [e.cushion for e in got] == [want[0].cushion]
    assert abs(got[0].time_s - want[0].time_s) < 0.1


@pytest.mark.parametrize("gap_mm", [0.5, 2.0, 6.0], ids=["touching", "near", "6mm"])
def test_a_ball_rolling_along_a_rail_grazes_nothing(gap_mm: float) -> None:
    """Noise on a ball rolling beside a rail (no motion across it) is no graze."""
    truth = simulate({0: (300.0, RADIUS + gap_mm)}, [(0.1, 0, (1500.0, 0.0))], 1.5)
    assert not _cushions(truth.events, 0)
    for seed in range(8):
        run = run_tracking(truth, Noise(position_std_mm=1.5), seed=seed, configs=(None, GRAZE))
        assert not _cushions(run.events, 0), seed


def test_a_ball_stopping_short_of_a_rail_grazes_nothing() -> None:
    """A ball rolling in at a shallow angle that dies 6 mm before the rail never turned off
    it: the graze check adds no cushion to what the kinks alone report (which, on one seed
    of six, already take the noise of its last crawl for a bounce)."""
    truth = simulate({0: (300.0, RADIUS + 30.0)}, [(0.1, 0, (600.0, -20.0))], 3.0)
    assert not _cushions(truth.events, 0)
    for seed in range(6):
        plain = run_tracking(truth, Noise(position_std_mm=1.5), seed=seed)
        run = run_tracking(truth, Noise(position_std_mm=1.5), seed=seed, configs=(None, GRAZE))
        assert _cushions(run.events, 0) == _cushions(plain.events, 0), seed
