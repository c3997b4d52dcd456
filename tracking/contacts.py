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

FloatArray = NDArray[np.float64]

CUSHION_NORMALS = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
"""(4, 2) inward normals of the cushion lines x = 0, x = L, y = 0, y = W."""

_LAST_STEPS = 4
"""How many last sightings a dropping ball's final straight path is fitted over."""

SIDE_JAW_TAPER = 0.2
"""How much a side pocket narrows from its mouth to where a ball drops, each side, in ball
radii (the jaws turn in by a few degrees over a cushion's width)."""

JAW_RELIEF_DEG = 38.0
"""How far a corner pocket's jaw face turns away from the cushion line at the nose, degrees
(WPA: pocket angle 142 +- 1 degrees between cushion face and jaw face)."""

NOSE_ROUNDING = 0.75
"""Radius of the rounded cushion nose at a corner pocket's jaw, in ball radii (pocket jaws
are faced with a rounded nose; about 21 mm on a standard table)."""


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
    first seen, traced back, misses the rest spot by more than ``miss_mm`` but was one radius
    from a cushion line shortly before (after ``since_s``), going away from it, with the
    same sense along the cushion as the way in from the rest spot, it met that cushion at
    once (a ball near a rail struck into it).

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
    if abs(float(offset[0] * v[1] - offset[1] * v[0])) / speed <= miss_mm:
        return None
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
        inward = (at - rest_xy_mm)[along] * v[along] >= 0.0
        latest = found is None or t_contact > found[1]
        if since_s <= t_contact and 0.0 <= at[along] <= extent[along] and inward and latest:
            found = (side, float(t_contact))
    return found


def cushion_score(
    table: TableSpec, xy_mm: FloatArray, velocities: tuple[FloatArray, FloatArray], reach_mm: float
) -> tuple[int, float]:
    """Which cushion line best explains a velocity change at ``xy_mm``, and how well.

    A cushion explains it when the centre is within ``reach_mm`` of the line, the ball was
    heading into the cushion and the change pushes it back out.

    Returns:
        (side 0..3, cosine between the change and the inward normal), or (-1, 0.0).
    """
    v_before, v_after = velocities
    change = v_after - v_before
    size = float(np.linalg.norm(change))
    if size < 1e-9:
        return -1, 0.0
    near = inside_distances_mm(table, xy_mm) <= reach_mm
    toward = CUSHION_NORMALS @ v_before < 0.0
    cosine = (CUSHION_NORMALS @ change) / size
    score = np.where(near & toward & (cosine > 0.0), cosine, 0.0)
    side = int(np.argmax(score))
    return (side, float(score[side])) if score[side] > 0.0 else (-1, 0.0)


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
            for other in np.flatnonzero(near):
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


def jaw_tips_mm(table: TableSpec) -> tuple[FloatArray, tuple[str, ...]]:
    """(12, 2) ends of the six cushion noses (the pocket jaw tips) and their cushion names."""
    from calibration.table import Cushion

    points, names = [], []
    for cushion in Cushion:
        for end in table.cushion_segment_mm(cushion):
            points.append(end)
            names.append(str(cushion))
    return np.array(points, dtype=np.float64), tuple(names)


def jaw_score(
    tips: tuple[FloatArray, tuple[str, ...]],
    xy_mm: FloatArray,
    velocities: tuple[FloatArray, FloatArray],
    reach_mm: float,
) -> tuple[str | None, float]:
    """Which pocket jaw tip best explains a velocity change at ``xy_mm``, and how well.

    A jaw tip acts as a round cushion: the change must point from the tip to the centre and
    the ball must have been heading into the tip. Jaws count as the cushion they end.

    Returns:
        (cushion name, cosine of the change with the tip normal), or (None, 0.0).
    """
    points, names = tips
    v_before, v_after = velocities
    change = v_after - v_before
    size = float(np.linalg.norm(change))
    offset = xy_mm[None, :] - points
    distance = np.linalg.norm(offset, axis=1)
    near = (distance <= reach_mm) & (distance > 1e-6)
    if size < 1e-9 or not near.any():
        return None, 0.0
    normal = offset / np.where(near, distance, 1.0)[:, None]
    cosine = (normal @ change) / size
    toward = normal @ v_before < 0.0
    score = np.where(near & toward & (cosine > 0.0), cosine, 0.0)
    best = int(np.argmax(score))
    return (names[best], float(score[best])) if score[best] > 0.0 else (None, 0.0)


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
    seen = np.flatnonzero(np.isfinite(xy_mm[:, 0]))
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


def jaw_rub(
    table: TableSpec, xy_mm: FloatArray, pocket_xy_mm: tuple[float, float]
) -> tuple[str, int] | None:
    """Which corner-pocket jaw (or cushion beside it) a dropping ball touched on its way in.

    The jaws of a corner pocket run on from the cushion noses into the pocket, turned
    away from the bed (``JAW_RELIEF_DEG``). A centre inside the mouth within a radius of a jaw
    face is pressed against that jaw: a cushion contact just before the drop, too short to
    bend the path visibly (deeper in, past the cushion line but clear of the receding jaw, it
    is over the hole). A ball lost from sight just
    before it dropped (motion blur) is followed along its last straight path (fitted over its
    last few sightings, one row a frame): a centre that comes within one radius of a rail
    line before the nose ends, or of the rounded nose, cannot pass that rail without
    touching it (`_rail_before_mouth`).

    Args:
        table: the table.
        xy_mm: (K, 2) the ball's last sighted centres, mm (NaN rows are skipped).
        pocket_xy_mm: the pocket point it dropped in (a side pocket: `_side_jaw`).

    Returns:
        (cushion name, index of the first sighting pressed on the jaw, or of the last
        sighting before a contact the path was heading for), or None.
    """
    px, py = pocket_xy_mm
    corner = px in (0.0, table.length_mm) and py in (0.0, table.width_mm)
    if not corner:
        return _side_jaw(table, xy_mm, pocket_xy_mm)
    tip = table.corner_mouth_mm / math.sqrt(2.0)
    x, y = xy_mm[:, 0], xy_mm[:, 1]
    valid = np.isfinite(x)
    # The line x = px (head or foot) beyond its nose, then the line y = py (a side rail).
    # Signed distance inside each line (negative beyond it), and distance along it.
    sign_x = math.copysign(1.0, table.length_mm / 2 - px)
    sign_y = math.copysign(1.0, table.width_mm / 2 - py)
    inside_x, inside_y = (x - px) * sign_x, (y - py) * sign_y
    noses = ((px, py + sign_y * tip), (px + sign_x * tip, py))
    checks = ((inside_x, inside_y, noses[0]), (inside_y, inside_x, noses[1]))
    relief = math.radians(JAW_RELIEF_DEG)
    best: tuple[int, str] | None = None
    for gap, along, nose in checks:
        # Distance from the jaw face: from the nose tip into the pocket, turned away from the
        # bed by the jaw relief.
        to_tip = np.stack([along - tip, gap], axis=1)
        face = np.array([-math.cos(relief), -math.sin(relief)])
        depth = np.maximum(to_tip @ face, 0.0)
        from_jaw = np.linalg.norm(to_tip - depth[:, None] * face[None, :], axis=1)
        pressed = np.flatnonzero(
            valid
            & (np.nan_to_num(along, nan=np.inf) < tip)
            & (np.nan_to_num(from_jaw, nan=np.inf) <= table.ball_radius_mm)
        )
        if len(pressed) and (best is None or pressed[0] < best[0]):
            best = (int(pressed[0]), str(table.nearest_cushion(*nose)))
    if best is not None:
        return best[1], best[0]
    fitted = _last_step(np.stack([inside_x, inside_y], axis=1))
    if fitted is None:
        return None
    rail = _rail_before_mouth(fitted[0], tip, table.ball_radius_mm)
    if rail is None:
        return None
    return str(table.nearest_cushion(*noses[rail])), fitted[1]


def _last_step(local_mm: FloatArray) -> tuple[FloatArray, int] | None:
    """The last straight stretch of a path, fitted over its last few sightings (a slow
    ball's single step is mostly noise): (2, 2) where it was one row before its last
    sighting and at it, and the index of the last sighting; None with under two."""
    seen = np.flatnonzero(np.isfinite(local_mm[:, 0]))[-_LAST_STEPS:]
    if len(seen) < 2:
        return None
    slope, offset = np.polyfit(seen.astype(np.float64), local_mm[seen], 1)
    steps = np.stack([offset + slope * (seen[-1] - 1), offset + slope * seen[-1]])
    return steps, int(seen[-1])


def _side_jaw(
    table: TableSpec, xy_mm: FloatArray, pocket_xy_mm: tuple[float, float]
) -> tuple[str, int] | None:
    """Which cushion beside a side pocket a ball dropping into it touched, from its last
    straight path: a centre that comes within a radius of the rail line beyond the mouth,
    or crosses the rail line (into the pocket) nearer a jaw than a radius plus the jaws'
    taper (the mouth narrows inward to the throat), touched that side.

    Returns:
        (cushion name, index of the last sighting), or None.
    """
    px, py = pocket_xy_mm
    inward = math.copysign(1.0, table.width_mm / 2 - py)
    local = np.stack([xy_mm[:, 0] - px, (xy_mm[:, 1] - py) * inward], axis=1)
    fitted = _last_step(local)
    if fitted is None:
        return None
    (start, end), last = fitted
    step = end - start
    radius, half = table.ball_radius_mm, table.side_mouth_mm / 2.0
    if step[1] >= 0.0 or start[1] <= 0.0:
        return None  # not heading into the pocket, or already in it
    # Where the centre comes within a radius of the rail line, and where it crosses it.
    at_rail = start[0] + step[0] * (start[1] - radius) / -step[1] if start[1] > radius else None
    at_mouth = start[0] + step[0] * start[1] / -step[1]
    if at_rail is not None and abs(at_rail) >= half:
        side = at_rail
    elif abs(at_mouth) >= half - radius * (1.0 + SIDE_JAW_TAPER):
        side = at_mouth
    else:
        return None
    nose = (px + math.copysign(half, side), py)
    return str(table.nearest_cushion(*nose)), last


def _rail_before_mouth(steps_mm: FloatArray, tip_mm: float, radius_mm: float) -> int | None:
    """Which rail a corner-bound straight path touches on its way into the pocket, or None.

    A rail's nose line runs to ``tip_mm`` from the corner, where it ends in a rounded nose
    (radius ``NOSE_ROUNDING`` ball radii, tangent to the line at the tip) and the jaw turns
    away from the bed. The path touches the rail when its centre comes within one radius of
    the line before the tip, or within a radius of the rounded nose, before its nearest
    approach to the pocket point (where it is over the hole).

    Args:
        steps_mm: (2, 2) the last two sightings in the pocket's frame: distance inside the
            end rail line and inside the side rail line, mm (the pocket point is the origin).
        tip_mm: how far from the corner the cushion noses end, along each rail, mm.
        radius_mm: ball radius, mm.

    Returns:
        0 for the end rail (head or foot), 1 for the side rail, or None.
    """
    start, step = steps_mm[0], steps_mm[1] - steps_mm[0]
    length_sq = float(step @ step)
    if -float(step.sum()) <= 1e-9 or length_sq < 1e-9:
        return None  # not closing on the corner
    nose_r = NOSE_ROUNDING * radius_mm
    # Past its nearest approach to the pocket point the ball is over the hole.
    end = -float(start @ step) / length_sq
    first: tuple[float, int] | None = None
    for axis in (0, 1):
        touches = []
        if step[axis] < 0.0 and start[axis] > radius_mm:
            reach = (float(start[axis]) - radius_mm) / -float(step[axis])
            if float(start[1 - axis] + reach * step[1 - axis]) >= tip_mm:
                touches.append(reach)
        nose = np.zeros(2)
        nose[axis], nose[1 - axis] = -nose_r, tip_mm
        rel = start - nose
        # |rel + s step| = radius + nose radius, the smaller root, on the forward path.
        b = float(rel @ step) / length_sq
        c = (float(rel @ rel) - (radius_mm + nose_r) ** 2) / length_sq
        if b * b - c >= 0.0 and -b + math.sqrt(b * b - c) >= 0.0:
            touches.append(max(-b - math.sqrt(b * b - c), 0.0))
        touches = [t for t in touches if t <= end]
        if touches and (first is None or min(touches) < first[0]):
            first = (min(touches), axis)
    return None if first is None else first[1]
