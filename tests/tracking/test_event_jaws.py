"""Cushion contacts at pocket jaws just before a drop."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.tracking.builders import TABLE, Noise, run_tracking, simulate
from tracking.jaws import jaw_rub
from tracking.types import EventKind

RADIUS = TABLE.ball_radius_mm
L, W = TABLE.length_mm, TABLE.width_mm


@pytest.mark.parametrize(
    ("last_xy", "want"),
    [
        ((L + 1.0, 40.0), "foot"),  # pressed on the foot jaw of the foot-left pocket
        ((L - 45.0, -2.0), "left_foot"),  # on the left rail's jaw
        ((L - 29.0, -0.6), None),  # past the rail line deep in the mouth: over the hole
        ((L - 20.0, 20.0), None),  # down the middle of the mouth
        ((L - 1.0, 150.0), "foot"),  # came into the foot cushion outside the mouth
    ],
    ids=["foot-jaw", "side-rail-jaw", "deep", "clean", "into-foot-cushion"],
)
def test_jaw_rub_names_the_jaw_the_centre_pressed_on(
    last_xy: tuple[float, float], want: str | None
) -> None:
    path = np.array([[L - 150.0, 150.0], [L - 90.0, 95.0], [np.nan, np.nan], last_xy])
    got = jaw_rub(TABLE, path, (L, 0.0))
    assert (got[0] if got else None) == want
    if got is not None:
        assert got[1] == 3


@pytest.mark.parametrize(
    ("last_two", "want"),
    [
        (((L - 120.0, 60.0), (L - 110.0, 45.0)), "left_foot"),  # shallow, into the side rail
        (((120.0, W - 60.0), (110.0, W - 45.0)), "right_head"),  # the same at the head-right
        (((L - 60.0, 120.0), (L - 45.0, 110.0)), "foot"),  # shallow, into the end rail
        (((L - 150.0, 150.0), (L - 100.0, 100.0)), None),  # down the diagonal: clean
        (((L - 34.0, 300.0), (L - 34.0, 250.0)), None),  # along the foot cushion into the mouth
        (((L - 89.0, 43.5), (L - 79.0, 31.3)), "left_foot"),  # grazing the nose of the rail
        (((L - 108.7, 61.9), (L - 69.4, 33.4)), None),  # passing the nose just clear
        (((L - 100.0, 100.0), (L - 150.0, 150.0)), None),  # leaving the pocket
    ],
    ids=[
        "side-rail",
        "head-right",
        "end-rail",
        "diagonal",
        "along-rail",
        "nose",
        "past-nose",
        "leaving",
    ],
)
def test_jaw_rub_follows_a_ball_lost_just_before_it_dropped(
    last_two: tuple[tuple[float, float], tuple[float, float]], want: str | None
) -> None:
    """Seen last heading for the pocket, a centre that would come within a radius of a rail
    line before it crossed the mouth touched that rail on the way in."""
    path = np.array([*last_two, [np.nan, np.nan]])
    pocket = (0.0, W) if last_two[0][0] < L / 2 else (L, 0.0)
    got = jaw_rub(TABLE, path, pocket)
    assert (got[0] if got else None) == want
    if got is not None:
        assert got[1] == 1  # the last sighting before the contact


@pytest.mark.parametrize(
    ("path", "want"),
    [
        ([(L / 2 - 30.0, 40.0), (L / 2 - 10.0, 1.0)], None),  # near the middle: clean
        ([(L / 2 + 28.0, 120.0), (L / 2 + 30.0, 88.0), (L / 2 + 32.0, 55.0)], "left_foot"),
        ([(L / 2 - 250.0, W - 60.0), (L / 2 - 200.0, W - 50.0)], "right_head"),  # the rail
        ([(L / 2 + 10.0, 60.0), (L / 2 + 12.0, 100.0)], None),  # leaving the pocket
    ],
    ids=["straight-in", "grazing-jaw", "rail-before-mouth", "leaving"],
)
def test_jaw_rub_at_a_side_pocket(path: list[tuple[float, float]], want: str | None) -> None:
    """Into a side pocket, a centre nearer a jaw than a radius (plus the jaws' taper) as it
    crosses the rail line touched that side; one down the middle touched nothing."""
    pocket = (L / 2, 0.0) if path[-1][1] < W / 2 else (L / 2, W)
    got = jaw_rub(TABLE, np.array(path), pocket)
    assert (got[0] if got else None) == want


def test_clean_drop_in_a_corner_has_no_cushion_contact() -> None:
    """A ball rolled down the diagonal into the corner touches no jaw."""
    start = (L - 600.0, 600.0)
    speed = 1500.0 / math.sqrt(2.0)
    truth = simulate({0: (700.0, 640.0), 5: start}, [(0.1, 5, (speed, -speed))], 1.5)
    assert any(e.kind == EventKind.BALL_POCKET for e in truth.events)
    run = run_tracking(truth, Noise(position_std_mm=1.0), seed=7)
    assert any(e.kind == EventKind.BALL_POCKET and e.balls == (5,) for e in run.events)
    assert not [e for e in run.events if e.kind == EventKind.BALL_CUSHION and e.balls == (5,)]
