"""Pure geometry of contacts: when two straight paths touch, which ball best explains a change
of velocity, and when a path passed a point; the cushion geometry (when a path reaches a
cushion, which cushion explains a kink) is in `tracking.cushion_contacts`, re-exported here.

Positions are ball centres in table mm, velocities mm/s, times s. A path is a straight line
``p + v (t - t_ref)``, fitted to a few frames before or after the contact.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.typing import NDArray

from tracking.cushion_contacts import cushion_reach_time as cushion_reach_time
from tracking.cushion_contacts import cushion_score as cushion_score
from tracking.cushion_contacts import departure_cushion as departure_cushion
from tracking.cushion_contacts import in_rail_opening as in_rail_opening
from tracking.cushion_contacts import inside_distances_mm as inside_distances_mm
from tracking.cushion_contacts import split_change as split_change
from tracking.cushion_contacts import struck_into_rail as struck_into_rail
from tracking.fastnp import true_indices
from tracking.geometry import CUSHION_NORMALS as CUSHION_NORMALS

FloatArray = NDArray[np.float64]


def line_intersection_time(
    before: tuple[float, FloatArray, FloatArray], after: tuple[float, FloatArray, FloatArray]
) -> float | None:
    """The time where two fitted paths of one ball come closest (the corner of a kink).

    Args:
        before: (t_ref, p (2,), v (2,)) of the path before the contact.
        after: the same after it.

    Returns:
        The time, s; None when the velocities are equal.
    """
    tb, pb, vb = before
    ta, pa, va = after
    dv = vb - va
    dv_sq = float(dv @ dv)
    if dv_sq < 1e-9:
        return None
    # pb + vb (t - tb) = pa + va (t - ta)  ->  (vb - va) t = pa - pb - va ta + vb tb
    rhs = pa - pb - va * ta + vb * tb
    return float(rhs @ dv) / dv_sq


def path_corners(
    before: tuple[FloatArray, FloatArray, FloatArray],
    after: tuple[FloatArray, FloatArray, FloatArray],
) -> FloatArray:
    """(B, 2) where each ball's fitted paths before and after a frame come closest (the corner
    of a kink, `line_intersection_time` for many balls at once), kept between the two fits'
    reference times; the end of the path before when the velocities are equal.

    Args:
        before: (t_ref (B,), p (B, 2), v (B, 2)) of the paths before.
        after: the same after.
    """
    tb, pb, vb = before
    ta, pa, va = after
    dv = vb - va
    dv_sq = np.einsum("bi,bi->b", dv, dv)
    rhs = pa - pb - va * ta[:, None] + vb * tb[:, None]
    time_s = np.einsum("bi,bi->b", rhs, dv) / np.maximum(dv_sq, 1e-9)
    time_s = np.where(dv_sq < 1e-9, ta, np.clip(time_s, tb, np.maximum(ta, tb)))
    result: FloatArray = pb + vb * (time_s - tb)[:, None]
    return result


def touch_time(
    path_a: tuple[float, FloatArray, FloatArray],
    path_b: tuple[float, FloatArray, FloatArray],
    distance_mm: float,
) -> float | None:
    """First time two straight paths are ``distance_mm`` apart (centre to centre), or None.

    Args:
        path_a: (t_ref, p (2,), v (2,)) of ball a.
        path_b: the same for ball b.
        distance_mm: the separation sought (one ball diameter for a contact).
    """
    ta, pa, va = path_a
    tb, pb, vb = path_b
    # d(t) = (pa - va ta) - (pb - vb tb) + (va - vb) t ; solve |d(t)|² = D²
    offset = (pa - va * ta) - (pb - vb * tb)
    rate = va - vb
    a = float(rate @ rate)
    b = 2.0 * float(offset @ rate)
    c = float(offset @ offset) - distance_mm**2
    if a < 1e-9:
        return None
    disc = b * b - 4.0 * a * c
    if disc < 0.0:
        return None
    return (-b - math.sqrt(disc)) / (2.0 * a)


def ball_score(
    xy_mm: FloatArray, change: FloatArray, others_xy_mm: FloatArray, reach_mm: float
) -> tuple[int, float]:
    # The best ball is the one whose line of centres matches the change and whose distance
    # is nearest one diameter (``reach_mm`` less the tolerance is not known here, so the
    # nearest ball wins among equally well aligned ones).
    """Which other ball best explains a velocity change at ``xy_mm``, and how well.

    Args:
        xy_mm: (2,) the ball's centre at the contact.
        change: (2,) its velocity change.
        others_xy_mm: (B, 2) the other balls' centres at the same time (NaN: unknown).
        reach_mm: the largest centre distance that can be a contact.

    Returns:
        (index into others, |cosine| between the change and the line of centres), or (-1, 0.0).
    """
    offset = others_xy_mm - xy_mm[None, :]
    distance = np.linalg.norm(offset, axis=1)
    size = float(np.linalg.norm(change))
    near = np.isfinite(distance) & (distance <= reach_mm) & (distance > 1e-6)
    if size < 1e-9 or not near.any():
        return -1, 0.0
    cosine = np.abs(offset @ change) / (np.where(near, distance, 1.0) * size)
    closeness = np.where(near, distance, np.inf) / reach_mm
    score = np.where(near, cosine - 0.5 * closeness, -np.inf)
    best = int(np.argmax(score))
    return best, float(cosine[best])


def contact_chain(
    xy_mm: FloatArray,
    moving: NDArray[np.bool_],
    usable: NDArray[np.bool_],
    start: int,
    reach_mm: float,
) -> list[int] | None:
    """The shortest chain of touching balls from a moving ball to ball ``start``.

    Balls frozen together pass a push on without moving much themselves (a rack at the
    break), so a ball that starts with no moving ball beside it may still have been hit
    through resting neighbours.

    Args:
        xy_mm: (B, 2) every ball's centre at the moment ``start`` began to move.
        moving: (B,) balls that were moving then.
        usable: (B,) balls whose position is known.
        start: the ball that started.
        reach_mm: the largest centre distance of two touching balls.

    Returns:
        [mover, resting..., start] with only the first ball moving, or None.
    """
    diameter_gap = np.full(len(xy_mm), np.inf)
    parent = {start: -1}
    frontier = [start]
    for _ in range(4):
        found: list[int] = []
        following: list[int] = []
        for node in frontier:
            distance = np.linalg.norm(xy_mm - xy_mm[node], axis=1)
            near = usable & (distance <= reach_mm) & (distance > 1e-6)
            for other in true_indices(near):
                other = int(other)
                if other in parent:
                    continue
                parent[other] = node
                diameter_gap[other] = distance[other]
                (found if moving[other] else following).append(other)
        if found:
            best = min(found, key=lambda b: diameter_gap[b])
            chain = [best]
            while parent[chain[-1]] != -1:
                chain.append(parent[chain[-1]])
            return chain
        frontier = following
    return None


def _segment_gap(start: FloatArray, step: FloatArray, point: FloatArray) -> tuple[float, float]:
    """(fraction along the segment of its closest point to ``point``, squared distance)."""
    rel = point - start
    length_sq = float(step @ step)
    along = min(max(float(rel @ step) / length_sq, 0.0), 1.0) if length_sq > 1e-12 else 0.0
    return along, float(np.sum((rel - along * step) ** 2))


def last_pass_within(
    time_s: FloatArray, xy_mm: FloatArray, point_mm: FloatArray, reach_mm: float
) -> float | None:
    """When a ball's sighted path last came within ``reach_mm`` of a point, or None.

    The path runs straight between consecutive sightings; the time is where the path,
    in its last stretch within ``reach_mm``, first came that close. A path that starts
    within reach never passed (None).

    Args:
        time_s: (K,) sighting times, s, increasing.
        xy_mm: (K, 2) the ball's centres, mm (NaN rows are skipped).
        point_mm: (2,) the point.
        reach_mm: the distance sought.
    """
    seen = true_indices(np.isfinite(xy_mm[:, 0]))
    segments = list(itertools.pairwise(seen))
    inside = [
        _segment_gap(xy_mm[a], xy_mm[b] - xy_mm[a], point_mm)[1] <= reach_mm**2 for a, b in segments
    ]
    if not any(inside):
        return None
    last = len(inside) - 1 - inside[::-1].index(True)
    first = last
    while first > 0 and inside[first - 1]:
        first -= 1
    a, b = segments[first]
    if float(np.linalg.norm(xy_mm[a] - point_mm)) <= reach_mm:
        return None  # it was already that close when first seen: no pass
    step = xy_mm[b] - xy_mm[a]
    along, gap_sq = _segment_gap(xy_mm[a], step, point_mm)
    # Entry into the disc: |start + s step - point| = reach, the smaller root.
    length_sq = max(float(step @ step), 1e-12)
    entry = along - math.sqrt(max(reach_mm**2 - gap_sq, 0.0) / length_sq)
    entry = min(max(entry, 0.0), along)
    return float(time_s[a] + entry * (time_s[b] - time_s[a]))
