"""Pure ball-contact geometry (`tracking.contacts`)."""

from __future__ import annotations

import numpy as np
import pytest

from tracking import contacts, cushion_contacts
from tracking.contacts import last_pass_within, path_corners, touch_time


def test_path_corners_meet_where_the_two_lines_cross() -> None:
    """A ball at (1000, 40) at t = 1 s that came in at (100, -300) and left at (100, 240)."""
    before = (np.array([0.95]), np.array([[995.0, 55.0]]), np.array([[100.0, -300.0]]))
    after = (np.array([1.05]), np.array([[1005.0, 52.0]]), np.array([[100.0, 240.0]]))
    corner = path_corners(before, after)
    assert corner.shape == (1, 2)
    np.testing.assert_allclose(corner[0], [1000.0, 40.0], atol=1e-6)


def test_touch_time_is_when_two_paths_are_a_diameter_apart() -> None:
    """Ball a at the origin rolls at 1000 mm/s along x toward ball b resting at x = 500 mm:
    they touch (57 mm apart) after (500 - 57) / 1000 s."""
    path_a = (0.0, np.zeros(2), np.array([1000.0, 0.0]))
    path_b = (0.0, np.array([500.0, 0.0]), np.zeros(2))
    assert touch_time(path_a, path_b, 57.0) == pytest.approx(0.443)
    assert touch_time(path_a, (0.0, np.array([500.0, 100.0]), np.zeros(2)), 57.0) is None


def test_a_path_entering_the_disc_passed_when_it_crossed_the_rim() -> None:
    """Sightings at x = 0, 100, 200 mm (t = 0, 0.1, 0.2 s) past a point at x = 150: the path
    came within 30 mm at x = 120, t = 0.12 s; a path that starts inside never passed."""
    time_s = np.array([0.0, 0.1, 0.2])
    xy = np.array([[0.0, 0.0], [100.0, 0.0], [200.0, 0.0]])
    point = np.array([150.0, 0.0])
    assert last_pass_within(time_s, xy, point, 30.0) == pytest.approx(0.12)
    assert last_pass_within(time_s, xy, np.array([5.0, 0.0]), 30.0) is None


def test_the_cushion_geometry_is_re_exported_unchanged() -> None:
    assert contacts.cushion_score is cushion_contacts.cushion_score
    assert contacts.struck_into_rail is cushion_contacts.struck_into_rail
