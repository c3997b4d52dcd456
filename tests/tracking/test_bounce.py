"""bounce_off_cushions: predictions bounce off cushion lines, but not in pocket mouths."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from tests.tracking.builders import TABLE
from tracking.bounce import CushionModel, bounce_off_cushions, in_pocket_mouth

L, W, R = TABLE.length_mm, TABLE.width_mm, TABLE.ball_radius_mm
MODEL = CushionModel(restitution=0.8, restitution_std=0.15)


def _step(
    before: tuple[float, float], after: tuple[float, float, float, float]
) -> tuple[NDArray[np.float64], NDArray[np.float64], bool]:
    mean = np.array([after], np.float64)
    cov = np.eye(4)[None] * 100.0
    bounced = bounce_off_cushions(TABLE, np.array([before], np.float64), mean, cov, MODEL)
    return mean[0], cov[0], bool(bounced[0])


def test_crossing_a_cushion_line_reflects_position_and_velocity() -> None:
    line = W - R
    mean, cov, bounced = _step((1800.0, line - 20.0), (1800.0, line + 30.0, 0.0, 1500.0))
    assert bounced
    assert mean[1] == pytest.approx(line - 0.8 * 30.0)
    assert mean[3] == pytest.approx(-0.8 * 1500.0)
    assert cov[3, 3] == pytest.approx(0.64 * 100.0 + (0.15 * 1500.0) ** 2)
    assert cov[1, 3] == pytest.approx(0.0)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ((2480.0, 1220.0), (2560.0, 1300.0, 2000.0, 2000.0)),
        ((1270.0, 1230.0), (1270.0, 1290.0, 0, 1800.0)),
    ],
    ids=["corner", "side"],
)
def test_crossing_in_a_pocket_mouth_is_not_reflected_but_held_on_the_table(
    before: tuple[float, float], after: tuple[float, float, float, float]
) -> None:
    mean, _, bounced = _step(before, after)
    assert not bounced
    assert mean[3] > 0.0  # still heading into the pocket
    assert 0.0 <= mean[0] <= L and 0.0 <= mean[1] <= W


def test_resting_ball_beyond_a_line_is_left_alone() -> None:
    mean, _, bounced = _step((1800.0, W + 5.0), (1800.0, W + 5.0, 0.0, 0.0))
    assert not bounced
    assert mean[1] == W + 5.0
    assert in_pocket_mouth(TABLE, np.array([[0.0, 50.0], [1800.0, W]])).tolist() == [True, False]


@settings(max_examples=60, deadline=None)
@given(
    x=st.floats(R, L - R),
    y=st.floats(R, W - R),
    vx=st.floats(-14000.0, 14000.0),
    vy=st.floats(-14000.0, 14000.0),
)
def test_a_moving_prediction_never_leaves_the_table(
    x: float, y: float, vx: float, vy: float
) -> None:
    dt = 1.0 / 25.0
    mean, _, _ = _step((x, y), (x + vx * dt, y + vy * dt, vx, vy))
    assert 0.0 <= mean[0] <= L and 0.0 <= mean[1] <= W
