"""Pure cushion-contact geometry (`tracking.cushion_contacts`)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tracking.builders import TABLE
from tracking.cushion_contacts import (
    FloatArray,
    cushion_score,
    departure_cushion,
    in_rail_opening,
    split_change,
    struck_into_rail,
)

RADIUS = TABLE.ball_radius_mm
W = TABLE.width_mm


def _path(
    t_ref: float, xy: tuple[float, float], v: tuple[float, float]
) -> tuple[float, FloatArray, FloatArray]:
    return (t_ref, np.array(xy, dtype=np.float64), np.array(v, dtype=np.float64))


def test_departure_into_the_near_rail_is_a_cushion_contact() -> None:
    """top_lip_late shot 3: the 3 rested 38 mm off the left rail's contact line, was struck
    towards it at 15.55 s and was next seen coming away from it."""
    rest = np.array([1623.5, 66.9])
    after = _path(15.6, (1742.3, 71.5), (2112.0, 1140.0))
    found = departure_cushion(TABLE, rest, after, since_s=15.5, miss_mm=RADIUS)
    assert found is not None
    side, t_contact = found
    assert side == 2  # the line y = 0
    assert 15.55 < t_contact < 15.58


def test_a_ball_found_heading_back_to_its_rest_spot_met_the_cushion_behind_it() -> None:
    """b01 (7ft, 30 fps): the 4 rested 317 mm from the foot cushion's contact line, left
    straight for it unseen and was first seen 87 mm off the line coming straight back: its
    path traced back runs through the rest spot, but toward it, not away from it."""
    line = TABLE.length_mm - RADIUS
    rest = np.array([line - 317.0, 457.0])
    after = _path(1.2667, (line - 87.0, 448.6), (-1800.0, -40.0))
    found = departure_cushion(TABLE, rest, after, since_s=1.0, miss_mm=RADIUS)
    assert found is not None
    side, t_contact = found
    assert side == 1  # the line x = L
    assert 1.2667 - 87.0 / 1800.0 - 0.005 < t_contact < 1.2667


@pytest.mark.parametrize(
    ("rest", "after", "since"),
    [
        ((1000.0, 400.0), (1.0, (1100.0, 450.0), (1000.0, 500.0)), 0.9),  # straight away
        ((1000.0, 60.0), (1.0, (1100.0, 90.0), (1000.0, 300.0)), 1.0),  # bounce before start
        ((1000.0, 60.0), (1.0, (1100.0, 90.0), (0.0, 0.0)), 0.9),  # not moving
    ],
    ids=["from-rest-spot", "too-early", "still"],
)
def test_no_departure_cushion(
    rest: tuple[float, float],
    after: tuple[float, tuple[float, float], tuple[float, float]],
    since: float,
) -> None:
    found = departure_cushion(TABLE, np.array(rest), _path(*after), since, RADIUS)
    assert found is None


@settings(deadline=None)  # pure geometry; under load a first call can take >200 ms
@given(
    x=st.floats(200.0, 2300.0),
    y=st.floats(RADIUS + 1.0, W - RADIUS - 1.0),
    angle=st.floats(0.0, 2.0 * np.pi),
    speed=st.floats(100.0, 8000.0),
    later=st.floats(0.0, 0.1),
)
def test_a_ball_leaving_straight_from_its_rest_spot_met_no_cushion(
    x: float, y: float, angle: float, speed: float, later: float
) -> None:
    """Invariant: a path that runs through the rest spot is the plain departure."""
    rest = np.array([x, y])
    v = speed * np.array([np.cos(angle), np.sin(angle)])
    after = (1.0 + later, rest + v * later, v)
    assert departure_cushion(TABLE, rest, after, 1.0, RADIUS) is None


SLIDING = 0.25 * 9810.0


@pytest.mark.parametrize(
    ("rest", "striker_xy", "velocity", "want"),
    [
        ((1741.4, 35.0), (1742.5, 92.1), (-48.0, -600.0), (2, 6.4 / 600.0)),  # f1 shot 2
        ((1500.0, RADIUS + 20.0), (1500.0, RADIUS + 77.2), (0.0, -150.0), None),  # too slow
        ((1500.0, RADIUS + 40.0), (1500.0, RADIUS + 97.2), (0.0, -3000.0), None),  # far
        ((1500.0, RADIUS + 3.0), (1442.9, RADIUS + 3.0), (900.0, 0.0), None),  # along it
        ((1500.0, RADIUS + 3.0), (1500.0, RADIUS + 60.2), (0.0, 500.0), None),  # away
    ],
    ids=["f1-shot2", "too-slow", "too-far", "along", "receding"],
)
def test_struck_into_rail(
    rest: tuple[float, float],
    striker_xy: tuple[float, float],
    velocity: tuple[float, float],
    want: tuple[int, float] | None,
) -> None:
    striker = (np.array(striker_xy), np.array(velocity))
    found = struck_into_rail(TABLE, np.array(rest), striker, SLIDING)
    if want is None:
        assert found is None
    else:
        assert found is not None and found[0] == want[0]
        assert found[1] == pytest.approx(want[1], rel=0.05)


@pytest.mark.parametrize(
    ("frame_s", "side"),
    [(0.0, -1), (1.0 / 30.0, 2), (1.0 / 60.0, 2)],
    ids=["none", "30fps", "60fps"],
)
def test_a_kink_corner_a_frame_inside_the_line_is_a_cushion_at_its_speed(
    frame_s: float, side: int
) -> None:
    """b11 (8ft corner, 30 fps): the 6 came in at 1840 mm/s across the line y = 0 and its
    fits' corner fell 58 mm from it (the window after the bounce held its next contact):
    beyond a radius plus the tolerance, within what it covers toward the rail in a frame."""
    reach = RADIUS + 20.0
    velocities = (np.array([275.0, -1837.0]), np.array([-1853.0, 724.0]))
    found, cosine = cushion_score(TABLE, np.array([1823.0, 58.0]), velocities, reach, frame_s)
    assert found == side
    assert (cosine > 0.5) == (side >= 0)


@settings(deadline=None)  # pure geometry; under load a first call can take >200 ms
@given(
    speed=st.floats(100.0, 8000.0),
    gap=st.floats(0.0, 600.0),
    frame_s=st.sampled_from([1.0 / 30.0, 1.0 / 50.0, 1.0 / 60.0]),
)
def test_a_corner_further_in_than_a_frame_of_travel_is_no_cushion(
    speed: float, gap: float, frame_s: float
) -> None:
    """Invariant: the reach grows by no more than the normal travel in one frame."""
    reach = RADIUS + 20.0
    y = reach + speed * frame_s + gap + 1.0
    velocities = (np.array([0.0, -speed]), np.array([0.0, 0.5 * speed]))
    assert cushion_score(TABLE, np.array([1200.0, y]), velocities, reach, frame_s) == (-1, 0.0)


@pytest.mark.parametrize(
    ("xy", "side", "opening"),
    [
        ((2495.0, 46.0), 1, True),  # as corner_lip_stay shot 3's 10, in the foot-left mouth
        ((2495.0, 46.0), 2, True),
        ((2506.0, 40.0), 1, True),
        ((2506.0, 100.0), 1, False),  # on the foot rail, touching its jaw's nose
        ((1270.0, 29.0), 2, True),  # in the left side pocket's mouth
        ((1200.0, 29.0), 2, False),  # touching the side pocket's nose
        ((600.0, 29.0), 2, False),
    ],
    ids=["lip-foot", "lip-left", "corner-mouth", "rail-end", "side-mouth", "side-nose", "rail"],
)
def test_a_centre_in_a_pocket_opening_cannot_touch_the_rail(
    xy: tuple[float, float], side: int, opening: bool
) -> None:
    assert in_rail_opening(TABLE, np.array(xy), side) == opening


@pytest.mark.parametrize(
    ("xy", "side"),
    [((2495.0, 46.0), -1), ((1270.0, 40.0), -1), ((2300.0, 40.0), 2), ((1200.0, 40.0), 2)],
    ids=["corner-mouth", "side-mouth", "rail", "side-nose"],
)
def test_a_kink_in_a_pocket_mouth_is_no_cushion(xy: tuple[float, float], side: int) -> None:
    """sample corner_offtable_grey's break: the 6 turned in the foot-left pocket's mouth as it
    dropped; the line y = 0 has no rail there (a jaw may explain it, a cushion may not)."""
    velocities = (np.array([900.0, -900.0]), np.array([900.0, 300.0]))
    found, _ = cushion_score(TABLE, np.array(xy), velocities, RADIUS + 20.0)
    assert found == side


@settings(deadline=None)  # pure geometry; under load a first call can take >200 ms
@given(
    a=st.floats(-3000.0, 3000.0),
    b=st.floats(-3000.0, 3000.0),
    normal_deg=st.floats(0.0, 360.0),
    turn_deg=st.floats(16.0, 164.0),
)
def test_a_split_change_adds_back_up_to_the_change(
    a: float, b: float, normal_deg: float, turn_deg: float
) -> None:
    """Invariant: a normal + b line is the change split, whatever the two directions."""
    normal = np.array([np.cos(np.radians(normal_deg)), np.sin(np.radians(normal_deg))])
    line_deg = normal_deg + turn_deg
    line = np.array([np.cos(np.radians(line_deg)), np.sin(np.radians(line_deg))])
    split = split_change(a * normal + b * line, normal, line)
    assert split is not None
    assert split[0] == pytest.approx(a, abs=1e-6)
    assert split[1] == pytest.approx(b, abs=1e-6)
    assert split[2] == pytest.approx(1.0 / abs(np.sin(np.radians(turn_deg))))


@pytest.mark.parametrize(
    ("line_deg", "found"),
    [(90.0, True), (30.0, True), (10.0, False), (175.0, False)],
    ids=["across", "oblique", "near-parallel", "near-antiparallel"],
)
def test_a_change_along_nearly_one_direction_is_not_split(line_deg: float, found: bool) -> None:
    """p30 break 9 (30 fps): the 4 was hit by the 2 from above (line of centres along y) 8 ms
    before it met the foot rail (normal along -x): one kink, two pushes across each other;
    within 15 degrees of parallel the split is noise and none is made."""
    normal = np.array([-1.0, 0.0])
    line = np.array([np.cos(np.radians(line_deg)), np.sin(np.radians(line_deg))])
    split = split_change(np.array([-900.0, 400.0]), normal, line)
    assert (split is not None) == found
