"""Cushion contacts at pocket jaws just before a drop."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.tracking.builders import TABLE, Noise, run_tracking, simulate
from tracking.contacts import jaw_rub
from tracking.types import EventKind

RADIUS = TABLE.ball_radius_mm
L, W = TABLE.length_mm, TABLE.width_mm


@pytest.mark.parametrize(
    ("last_xy", "want"),
    [
        ((L + 1.0, 40.0), "foot"),  # pressed on the foot jaw of the foot-left pocket
        ((L - 30.0, -0.5), "left_foot"),  # on the left rail's jaw
        ((L - 20.0, 20.0), None),  # down the middle of the mouth
        ((L - 1.0, 150.0), None),  # on the foot cushion line but outside the mouth
    ],
    ids=["foot-jaw", "side-rail-jaw", "clean", "outside-mouth"],
)
def test_jaw_rub_names_the_jaw_the_centre_pressed_on(
    last_xy: tuple[float, float], want: str | None
) -> None:
    path = np.array([[L - 150.0, 150.0], [L - 90.0, 95.0], [np.nan, np.nan], last_xy])
    got = jaw_rub(TABLE, path, (L, 0.0))
    assert (got[0] if got else None) == want
    if got is not None:
        assert got[1] == 3


def test_jaw_rub_ignores_side_pockets() -> None:
    path = np.array([[L / 2 - 30.0, 40.0], [L / 2 - 10.0, 1.0]])
    assert jaw_rub(TABLE, path, (L / 2, 0.0)) is None


def test_clean_drop_in_a_corner_has_no_cushion_contact() -> None:
    """A ball rolled down the diagonal into the corner touches no jaw."""
    start = (L - 600.0, 600.0)
    speed = 1500.0 / math.sqrt(2.0)
    truth = simulate({0: (700.0, 640.0), 5: start}, [(0.1, 5, (speed, -speed))], 1.5)
    assert any(e.kind == EventKind.BALL_POCKET for e in truth.events)
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=7)
    assert any(e.kind == EventKind.BALL_POCKET and e.balls == (5,) for e in run.events)
    assert not [e for e in run.events if e.kind == EventKind.BALL_CUSHION and e.balls == (5,)]
