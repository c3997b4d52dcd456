"""A ball put down by hand rather than set rolling.

A hand lifts a ball (the cue ball in hand, a spotted ball) and puts it down elsewhere: the
camera sees it at rest, loses it for a frame or two under the hand, and finds it already at
rest far away. A struck ball found as far along after as short a time is still fast: cloth
slows a ball by at most a few metres per second squared, so only a ball it hit can have
stopped it (a stun shot stopping dead on the ball it met).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

MAX_DECELERATION_MM_S2 = 5000.0
"""No ball loses speed faster on cloth without hitting something: sliding friction is about
0.2 g (2 m/s^2); the margin covers a hop and a cushion's glancing touch."""


def least_speed_after(distance_mm: float, elapsed_s: float) -> float:
    """The slowest a ball can be moving after covering ``distance_mm`` in ``elapsed_s`` from
    rest without hitting a ball: decelerating at most ``MAX_DECELERATION_MM_S2``,
    ``distance <= v_end t + a t^2 / 2``.

    Args:
        distance_mm: straight distance from the rest spot to where the ball is found, mm.
        elapsed_s: longest time it can have taken (since it was last seen at rest), s (> 0).

    Returns:
        The least speed now, mm/s (0 when slowing to a stop could cover the distance).
    """
    if elapsed_s <= 0.0 or not math.isfinite(elapsed_s):
        raise ValueError(f"elapsed_s must be positive and finite, got {elapsed_s}")
    return max(distance_mm / elapsed_s - 0.5 * MAX_DECELERATION_MM_S2 * elapsed_s, 0.0)


def put_down(
    jump_mm: NDArray[np.float64],
    elapsed_s: float,
    speed_mm_s: float,
    others_mm: NDArray[np.float64],
    diameter_mm: float,
) -> bool:
    """Whether a ball found away from its rest spot was put there by hand.

    It jumped more than a diameter, moves now at less than half the least speed a roll that
    far in that time leaves (`least_speed_after`), and no other ball lies within two
    diameters of where it was found (one it could have stopped dead on).

    Args:
        jump_mm: (2, 2) its rest spot and its first sighting away from it, mm.
        elapsed_s: time since it was last seen at rest, s (> 0).
        speed_mm_s: its speed fitted over its sightings since, mm/s.
        others_mm: (K, 2) rest spots of the other balls on the table, mm (NaN rows ignored).
        diameter_mm: ball diameter, mm.

    Returns:
        True for a ball put down by hand, False for one that may have rolled there.
    """
    rest, found = np.asarray(jump_mm, dtype=np.float64).reshape(2, 2)
    distance = float(np.linalg.norm(found - rest))
    if not math.isfinite(distance) or distance <= diameter_mm:
        return False
    if speed_mm_s >= 0.5 * least_speed_after(distance, elapsed_s):
        return False
    others = np.asarray(others_mm, dtype=np.float64).reshape(-1, 2)
    gaps = np.linalg.norm(others - found[None, :], axis=1)
    return not bool(np.any(gaps[np.isfinite(gaps)] <= 2.0 * diameter_mm))
