"""Pure geometry of contacts: when two straight paths touch, when a path reaches a cushion,
and which contact best explains a change of velocity.

Positions are ball centres in table mm, velocities mm/s, times s. A path is a straight line
``p + v (t - t_ref)``, fitted to a few frames before or after the contact.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking.fastnp import true_indices
from tracking.geometry import CUSHION_NORMALS as CUSHION_NORMALS

FloatArray = NDArray[np.float64]


def inside_distances_mm(table: TableSpec, xy_mm: FloatArray) -> FloatArray:
    """(4,) distance of a point inside the bed from the lines x = 0, x = L, y = 0, y = W."""
    x, y = float(xy_mm[0]), float(xy_mm[1])
    return np.array([x, table.length_mm - x, y, table.width_mm - y])


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


def cushion_reach_time(
    table: TableSpec, path: tuple[float, FloatArray, FloatArray], side: int, radius_mm: float
) -> float | None:
    """When a path's centre comes ``radius_mm`` from cushion line ``side`` (0..3), or None."""
    t_ref, p, v = path
    approach = -float(v @ CUSHION_NORMALS[side])
    if approach <= 1e-6:
        return None
    gap = inside_distances_mm(table, p)[side] - radius_mm
    return float(t_ref + gap / approach)


def departure_cushion(
    table: TableSpec,
    rest_xy_mm: FloatArray,
    after: tuple[float, FloatArray, FloatArray],
    since_s: float,
    miss_mm: float,
) -> tuple[int, float] | None:
    """The cushion a ball struck from rest met before it was seen on its way, or None.

    A ball struck from rest leaves in a straight line from its rest spot. When its path as
    first seen, traced back, misses the rest spot by more than ``miss_mm``, or runs back
    toward it (the rest spot lies more than ``miss_mm`` ahead: it turned round), but was one
    radius from a cushion line shortly before (after ``since_s``), going away from it, with
    the same sense along the cushion as the way in from the rest spot (either, when it went
    in within ``miss_mm`` of straight), it met that cushion at once (a ball near a rail
    struck into it, or one driven out of the rack into the foot cushion and back while unseen).

    Args:
        table: the table.
        rest_xy_mm: (2,) the rest spot.
        after: (t_ref, p (2,), v (2,)) the path first seen after the start.
        since_s: the bounce cannot be earlier than this (the start), s.
        miss_mm: how far the path may pass from the rest spot and still be the departure.

    Returns:
        (side 0..3 as in ``CUSHION_NORMALS``, time of the contact s), or None.
    """
    t_ref, p, v = after
    speed = float(np.linalg.norm(v))
    if speed < 1e-6:
        return None
    offset = rest_xy_mm - p
    ahead = float(offset @ v) / speed
    if abs(float(offset[0] * v[1] - offset[1] * v[0])) / speed <= miss_mm and ahead <= miss_mm:
        return None  # on its way out from the rest spot
    radius, found = table.ball_radius_mm, None
    extent = np.array([table.length_mm, table.width_mm])
    for side in range(4):
        away = float(v @ CUSHION_NORMALS[side])
        gap = float(inside_distances_mm(table, p)[side]) - radius
        if away <= 0.0 or gap < 0.0:
            continue
        t_contact = t_ref - gap / away
        at = p + v * (t_contact - t_ref)
        along = 1 - side // 2  # the coordinate along this cushion
        shift = float((at - rest_xy_mm)[along])
        inward = shift * v[along] >= 0.0 or abs(shift) <= miss_mm
        latest = found is None or t_contact > found[1]
        if since_s <= t_contact and 0.0 <= at[along] <= extent[along] and inward and latest:
            found = (side, float(t_contact))
    return found


def struck_into_rail(
    table: TableSpec,
    rest_xy_mm: FloatArray,
    striker: tuple[FloatArray, FloatArray],
    slowing_mm_s2: float,
) -> tuple[int, float] | None:
    """The cushion a resting ball beside a rail was driven into by a ball that hit it, or None.

    A struck ball leaves along the line of centres at the striker's speed along that line
    (equal masses). Lying within one radius of a cushion along that line, it reaches the
    cushion unless friction stops it first: at ``slowing_mm_s2`` (the strongest, a sliding
    ball's) it covers at least u² / (2 a). Such a bounce often lasts a frame or two and a few
    millimetres: too short to show as a kink.

    Args:
        table: the table.
        rest_xy_mm: (2,) the struck ball's rest position.
        striker: ((2,) the striker's centre at the contact, (2,) its velocity before it, mm/s).
        slowing_mm_s2: the strongest deceleration of the struck ball, mm/s².

    Returns:
        (side 0..3 as in ``CUSHION_NORMALS``, seconds from the contact to the cushion), or None.
    """
    offset = rest_xy_mm - striker[0]
    distance = float(np.linalg.norm(offset))
    if distance < 1e-6:
        return None
    heading = offset / distance
    speed = float(striker[1] @ heading)
    if speed <= 0.0:
        return None
    radius, found = table.ball_radius_mm, None
    gaps = np.maximum(inside_distances_mm(table, rest_xy_mm) - radius, 0.0)
    for side in range(4):
        into = -float(heading @ CUSHION_NORMALS[side])
        travel = float(gaps[side]) / into if into > 1e-6 else math.inf
        reached = speed**2 >= 2.0 * slowing_mm_s2 * travel
        if travel <= radius and reached and (found is None or travel < found[1] * speed):
            found = (side, travel / speed)
    return found


def cushion_score(
    table: TableSpec,
    xy_mm: FloatArray,
    velocities: tuple[FloatArray, FloatArray],
    reach_mm: float,
    frame_s: float = 0.0,
) -> tuple[int, float]:
    """Which cushion line best explains a velocity change at ``xy_mm``, and how well.

    A cushion explains it when the centre is within ``reach_mm`` of the line, the ball was
    heading into the cushion and the change pushes it back out. A bounce falls between two
    frames, and a fit window after it may hold the next contact too: the corner of the
    fitted paths may then lie inside the line by up to what the ball covers toward it in one
    frame (``frame_s``), which the reach grows by (a fast ball at 30 fps: 60 mm). A centre in
    a pocket's opening past the ends of a line's rails (`in_rail_opening`) cannot touch that
    line: only a jaw is there.

    Returns:
        (side 0..3, cosine between the change and the inward normal), or (-1, 0.0).
    """
    v_before, v_after = velocities
    change = v_after - v_before
    size = float(np.linalg.norm(change))
    if size < 1e-9:
        return -1, 0.0
    approach = -(CUSHION_NORMALS @ v_before)
    near = inside_distances_mm(table, xy_mm) <= reach_mm + np.maximum(approach, 0.0) * frame_s
    toward = approach > 0.0
    cosine = (CUSHION_NORMALS @ change) / size
    score = np.where(near & toward & (cosine > 0.0), cosine, 0.0)
    for side in true_indices(score > 0.0):
        if in_rail_opening(table, xy_mm, int(side)):
            score[side] = 0.0
    side = int(np.argmax(score))
    return (side, float(score[side])) if score[side] > 0.0 else (-1, 0.0)


def split_change(
    change: FloatArray, normal: FloatArray, line: FloatArray
) -> tuple[float, float, float] | None:
    """Split a velocity change into a push along a cushion's inward ``normal`` and one along a
    line of centres ``line`` (both unit vectors): ``change = a normal + b line``.

    A ball that meets a ball and a cushion within one frame (a break at 30 fps) shows one kink
    holding both; each push is there when its share is beyond noise and points the right way
    (off the cushion; away from the other ball).

    Args:
        change: (2,) the velocity change, mm/s.
        normal: (2,) the cushion's inward unit normal.
        line: (2,) the unit line of centres, from the other ball to this one.

    Returns:
        (a, b, gain) where ``gain`` (>= 1) is how much the split magnifies the noise of the
        change (1 / sine of the angle between the directions); None when the two
        directions are within 15 degrees of parallel (the split is then noise).
    """
    sine = float(normal[0] * line[1] - normal[1] * line[0])
    if abs(sine) < math.sin(math.radians(15.0)):
        return None
    a = float(change[0] * line[1] - change[1] * line[0]) / sine
    b = float(normal[0] * change[1] - normal[1] * change[0]) / sine
    return a, b, 1.0 / abs(sine)


_SIDE_CUSHIONS = (("head",), ("foot",), ("left_head", "left_foot"), ("right_head", "right_foot"))
"""The cushions (`calibration.table.Cushion` names) along each cushion line 0..3."""


def in_rail_opening(table: TableSpec, xy_mm: FloatArray, side: int) -> bool:
    """Whether a centre lies more than a radius past the ends of every cushion along line
    ``side`` (in a pocket's opening): a ball there cannot touch that line's rail, only a
    jaw (a centre touching a rounded nose lies up to a radius past its tip).

    Args:
        table: the table (cushion segments, ball radius).
        xy_mm: (2,) the centre, table mm.
        side: the cushion line, 0..3 as in ``CUSHION_NORMALS``.
    """
    from calibration.table import Cushion

    along = float(xy_mm[1 - side // 2])
    radius = table.ball_radius_mm
    for name in _SIDE_CUSHIONS[side]:
        ends = table.cushion_segment_mm(Cushion(name))
        low, high = sorted(float(end[1 - side // 2]) for end in ends)
        if low - radius <= along <= high + radius:
            return False
    return True


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
