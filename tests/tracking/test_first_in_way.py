"""`EventConfig.first_in_way` (`tracking.kinks` `_first_in_way`): a kink is not explained by
a ball the path could reach only through another one."""

from __future__ import annotations

import numpy as np

from tests.tracking.builders import TABLE
from tracking.event_config import EventConfig
from tracking.events import EventDetector

RACK = {
    1: (1676.25, 559.0),
    2: (1824.73, 644.73),
    3: (1824.73, 530.42),
    4: (1775.24, 616.15),
    5: (1775.24, 501.85),
    6: (1824.73, 587.58),
    7: (1725.74, 530.42),
    8: (1824.73, 473.27),
    9: (1725.74, 587.58),
    10: (1775.24, 559.0),
}
"""t2614 (top 8 ft, 50 fps, centres with 1.5 mm noise): the rack as the cue ball hit it."""


def _others() -> np.ndarray:
    others = np.full((11, 2), np.nan)
    for ball, xy in RACK.items():
        others[ball] = xy
    return others


def test_the_break_kink_goes_to_the_ball_the_cue_ball_reached_first() -> None:
    """The cue ball came at 13.8 m/s; its kink's corner fell 2.6 ms late, 36 mm into the
    rack, where the 9's line of centres fitted its change best (cosine 0.91): it never
    reached the 9 without going through the 1, whose line of centres at their touch
    explains the change too."""
    detector = EventDetector(TABLE, EventConfig(first_in_way=True))
    velocity = np.array([13819.0, -469.0])
    before = (1.05, np.array([1674.0, 599.0]) - velocity * 0.0483, velocity)
    change = np.array([3162.0, 7423.0]) - velocity
    found = detector._first_in_way(before, _others(), (9, 0.91), change)
    assert found[0] == 1
    assert found[1] > 0.9


def test_a_ball_beside_the_path_is_not_in_the_way() -> None:
    """A ball the path passes clear of (more than a diameter off its line) was not reached:
    the ball chosen stays."""
    detector = EventDetector(TABLE, EventConfig(first_in_way=True))
    velocity = np.array([2000.0, 0.0])
    before = (1.0, np.array([1500.0, 400.0]), velocity)
    others = np.full((11, 2), np.nan)
    others[3] = (1700.0, 400.0 + 1.05 * TABLE.ball_diameter_mm)  # beside, not in the way
    others[4] = (1800.0, 400.0 + 0.5 * TABLE.ball_diameter_mm)
    change = np.array([-1500.0, -800.0])
    assert detector._first_in_way(before, others, (4, 0.8), change) == (4, 0.8)


def test_a_ball_reached_first_that_cannot_explain_the_change_is_passed_over() -> None:
    """Reached first but touched so thinly that its line of centres lies across the change:
    the choice stays (a graze of one ball, then the contact that turned the path)."""
    detector = EventDetector(TABLE, EventConfig(first_in_way=True))
    velocity = np.array([2000.0, 0.0])
    before = (1.0, np.array([1500.0, 400.0]), velocity)
    others = np.full((11, 2), np.nan)
    others[3] = (1650.0, 400.0 + 0.98 * TABLE.ball_diameter_mm)  # thin: line nearly along y
    others[4] = (1800.0, 400.0)
    change = np.array([-2000.0, 0.0])  # stopped dead: the push was along x
    assert detector._first_in_way(before, others, (4, 1.0), change) == (4, 1.0)
