"""How far back a start may be put for a ball first seen already displaced."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from tracking.event_config import EventConfig
from tracking.starts import _roll_time

CONFIG = EventConfig()


@given(
    distance=st.floats(0.0, 3000.0),
    speed=st.floats(1e-9, 10_000.0),
)
def test_roll_time_is_bounded_however_slow_the_ball(distance: float, speed: float) -> None:
    lag = _roll_time(distance, speed, CONFIG)

    # Never longer than rolling that far from a standstill at the weakest deceleration, and
    # never longer than at a constant speed (the ball was faster before, not slower).
    decel = CONFIG.rolling_deceleration_mm_s2
    assert 0.0 <= lag <= math.sqrt(2.0 * distance / decel) + 1e-9
    assert lag <= distance / speed + 1e-9


def test_a_creeping_ball_cannot_have_started_minutes_ago() -> None:
    # 20 mm from its rest spot at a fitted 1e-4 mm/s: distance / speed says 55 hours.
    assert _roll_time(20.0, 1e-4, CONFIG) < 1.0


def test_a_fast_ball_took_about_distance_over_speed() -> None:
    assert math.isclose(_roll_time(30.0, 3000.0, CONFIG), 0.01, rel_tol=0.01)
