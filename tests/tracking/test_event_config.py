"""The event detector's physical thresholds (`tracking.event_config`)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracking.event_config import (
    GRAVITY_MM_S2,
    NOSE_HEIGHT_FRACTION,
    EventConfig,
    min_off_table_speed_mm_s,
)


def test_off_table_speed_lifts_a_pool_ball_over_the_nose() -> None:
    speed = min_off_table_speed_mm_s(57.15, restitution=0.9)
    # Every joule left after the rebound would lift the ball's bottom to the nose height.
    left = 0.5 * speed**2 * (1.0 - 0.9**2)
    assert left == pytest.approx(GRAVITY_MM_S2 * NOSE_HEIGHT_FRACTION * 57.15)
    assert 1900.0 < speed < 2000.0
    assert EventConfig().off_table_min_speed_mm_s == pytest.approx(speed)
    # With no rebound at all the bound is the bare lift, sqrt(2 g h): 0.84 m/s.
    assert min_off_table_speed_mm_s(57.15, restitution=0.0) == pytest.approx(
        math.sqrt(2.0 * GRAVITY_MM_S2 * NOSE_HEIGHT_FRACTION * 57.15)
    )


@given(
    diameter=st.floats(40.0, 70.0),
    restitution=st.floats(0.0, 0.95),
    more=st.floats(0.001, 0.04),
)
def test_off_table_speed_grows_with_ball_size_and_cushion_liveliness(
    diameter: float, restitution: float, more: float
) -> None:
    base = min_off_table_speed_mm_s(diameter, restitution)
    assert min_off_table_speed_mm_s(diameter * (1.0 + more), restitution) > base
    assert min_off_table_speed_mm_s(diameter, restitution + more) > base


def test_off_table_speed_rejects_a_cushion_that_returns_everything() -> None:
    with pytest.raises(ValueError, match="restitution"):
        min_off_table_speed_mm_s(57.15, restitution=1.0)
