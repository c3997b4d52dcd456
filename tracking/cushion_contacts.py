"""Pure geometry of cushion contacts: how far a centre lies from each cushion line, when a
path reaches one, and which cushion best explains a change of velocity.

Positions are ball centres in table mm, velocities mm/s, times s. A path is a straight line
``p + v (t - t_ref)``, fitted to a few frames before or after the contact. The ball-to-ball
geometry is in `tracking.contacts`, which re-exports these functions.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from calibration.table import Cushion, TableSpec
from tracking.fastnp import true_indices
from tracking.geometry import CUSHION_NORMALS

FloatArray = NDArray[np.float64]


def inside_distances_mm(table: TableSpec, xy_mm: FloatArray) -> FloatArray:
    """(4,) distance of a point inside the bed from the lines x = 0, x = L, y = 0, y = W."""
    x, y = float(xy_mm[0]), float(xy_mm[1])
    return np.array([x, table.length_mm - x, y, table.width_mm - y])


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
    along = float(xy_mm[1 - side // 2])
    radius = table.ball_radius_mm
    for name in _SIDE_CUSHIONS[side]:
        ends = table.cushion_segment_mm(Cushion(name))
        low, high = sorted(float(end[1 - side // 2]) for end in ends)
        if low - radius <= along <= high + radius:
            return False
    return True
