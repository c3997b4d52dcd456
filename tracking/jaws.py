"""Pure geometry of pocket jaws: the jaw tips (ends of the cushion noses), which tip explains a
change of velocity, and which jaw a ball dropping into a pocket was pressed against.

Positions are ball centres in table mm, velocities mm/s. Jaws count as the cushion they end.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking.fastnp import true_indices
from tracking.geometry import CORNER_SHELF_MM, SIDE_SHELF_MM

FloatArray = NDArray[np.float64]

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
        pressed = true_indices(
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
    seen = true_indices(np.isfinite(local_mm[:, 0]))[-_LAST_STEPS:]
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


def hole_gap_mm(table: TableSpec, xy_mm: FloatArray, pocket_xy_mm: tuple[float, float]) -> float:
    """How far a ball centre must still travel, at the least, to be over a pocket's hole (where
    a ball drops): to the line across a corner `CORNER_SHELF_MM` behind its mouth line, or
    `SIDE_SHELF_MM` past a side pocket's cushion line; 0 when it is already over it.

    Args:
        table: the table.
        xy_mm: (2,) the centre, table mm.
        pocket_xy_mm: the pocket's point (where its cushion lines meet).

    Returns:
        The distance, mm.
    """
    px, py = pocket_xy_mm
    inward_x = 1.0 if px == 0.0 else -1.0
    inward_y = 1.0 if py == 0.0 else -1.0
    local_x = (float(xy_mm[0]) - px) * inward_x
    local_y = (float(xy_mm[1]) - py) * inward_y
    corner = px in (0.0, table.length_mm) and py in (0.0, table.width_mm)
    if corner:
        edge = math.sqrt(2.0) * (0.5 * table.corner_mouth_mm - CORNER_SHELF_MM)
        return max(0.0, (local_x + local_y - edge) / math.sqrt(2.0))
    return max(0.0, local_y + SIDE_SHELF_MM)


def in_jaws(table: TableSpec, xy_mm: FloatArray, slack_mm: float = 0.0) -> NDArray[np.bool_]:
    """(N,) whether each centre lies in a pocket's jaws: past a corner pocket's mouth line
    (jaw tip to jaw tip, across the corner at 45 degrees), or past the cushion line between
    a side pocket's jaw tips. Only a ball on the lip or in the hole can be there: lost from
    sight there while moving (rattling between the jaws), it dropped unless seen again.

    Args:
        table: the table.
        xy_mm: (N, 2) ball centres, table mm.
        slack_mm: how far beyond the mouth (past the jaw tips) still counts, mm.
    """
    xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    length, width = table.length_mm, table.width_mm
    # Distances in from the nearest end (head/foot) and side cushion lines.
    in_x = np.minimum(xy[:, 0], length - xy[:, 0])
    in_y = np.minimum(xy[:, 1], width - xy[:, 1])
    corner = in_x + in_y < table.corner_mouth_mm / math.sqrt(2.0) + math.sqrt(2.0) * slack_mm
    side = (in_y < 0.0) & (np.abs(xy[:, 0] - 0.5 * length) < 0.5 * table.side_mouth_mm + slack_mm)
    result: NDArray[np.bool_] = np.isfinite(xy[:, 0]) & (corner | side)
    return result
