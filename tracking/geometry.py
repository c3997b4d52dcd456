"""Table geometry the tracker and the event detector share: pockets, cushion lines, the bed.

All positions are ball centres on the ball-centre plane, table mm (design.md §3).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from calibration.table import Cushion, Pocket, TableSpec

POCKETS: tuple[Pocket, ...] = tuple(Pocket)
"""Pocket order of ``TableSpec.pockets_xy_mm``."""


def outside_distance_mm(table: TableSpec, xy_mm: NDArray[np.float64]) -> NDArray[np.float64]:
    """(N,) how far each point lies beyond the nearest cushion line, mm (<= 0 inside).

    Args:
        table: the table.
        xy_mm: (N, 2) points, table mm.
    """
    xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    beyond = np.stack(
        [-xy[:, 0], xy[:, 0] - table.length_mm, -xy[:, 1], xy[:, 1] - table.width_mm], axis=1
    )
    result: NDArray[np.float64] = beyond.max(axis=1)
    return result


def line_crossing_s(
    table: TableSpec, xy_mm: NDArray[np.float64], velocity_mm_s: NDArray[np.float64]
) -> float:
    """Seconds until a centre moving straight from ``xy_mm`` at ``velocity_mm_s`` first
    reaches a cushion line (the edge of the bed: past it, over a pocket, a ball drops);
    0 when it already lies on or beyond one, +inf when it never gets there.

    Args:
        table: the table.
        xy_mm: (2,) the centre, table mm.
        velocity_mm_s: (2,) its velocity, mm/s.
    """
    xy = np.asarray(xy_mm, dtype=np.float64).reshape(2)
    velocity = np.asarray(velocity_mm_s, dtype=np.float64).reshape(2)
    if float(outside_distance_mm(table, xy)[0]) >= 0.0:
        return 0.0
    best = math.inf
    for axis, extent in ((0, table.length_mm), (1, table.width_mm)):
        speed = float(velocity[axis])
        if speed < 0.0:
            best = min(best, float(xy[axis]) / -speed)
        elif speed > 0.0:
            best = min(best, (extent - float(xy[axis])) / speed)
    return best


CORNER_SHELF_MM = 41.3
"""How far behind a corner pocket's mouth line (jaw tip to jaw tip) its hole begins, along
the diagonal, mm (WPA: the shelf is 1 to 2 1/4 in deep; the middle)."""

SIDE_SHELF_MM = 4.8
"""How far behind a side pocket's mouth (the cushion line) its hole begins, mm (WPA: 0 to
3/8 in; the middle)."""


def drop_crossing_s(
    table: TableSpec, xy_mm: NDArray[np.float64], velocity_mm_s: NDArray[np.float64]
) -> float:
    """Seconds until a centre moving straight reaches the edge of a pocket's hole, where a
    ball drops: a corner pocket's hole begins `CORNER_SHELF_MM` behind its mouth line (a
    line across the corner at 45 degrees), a side pocket's `SIDE_SHELF_MM` past its
    cushion line; the crossing must lie within the mouth. 0 when the centre is already
    over a hole, +inf when the path meets none.

    Args:
        table: the table.
        xy_mm: (2,) the centre, table mm.
        velocity_mm_s: (2,) its velocity, mm/s.
    """
    xy = np.asarray(xy_mm, dtype=np.float64).reshape(2)
    velocity = np.asarray(velocity_mm_s, dtype=np.float64).reshape(2)
    corner_edge = math.sqrt(2.0) * (0.5 * table.corner_mouth_mm - CORNER_SHELF_MM)
    corner_span = table.corner_mouth_mm / math.sqrt(2.0)
    best = math.inf
    for pocket in POCKETS:
        point = np.asarray(table.pocket_xy_mm(pocket))
        # Distances in from the pocket's two cushion lines (x, then y), and their rates.
        inward = np.array([1.0 if point[0] == 0.0 else -1.0, 1.0 if point[1] == 0.0 else -1.0])
        local, rate = (xy - point) * inward, velocity * inward
        if pocket.is_corner():
            time_s = _reach_s(float(local.sum()), float(rate.sum()), corner_edge)
            span: tuple[int, ...] = (0, 1)
            limit = corner_span
        else:
            time_s = _reach_s(float(local[1]), float(rate[1]), -SIDE_SHELF_MM)
            span = (0,)
            limit = 0.5 * table.side_mouth_mm
        if not math.isfinite(time_s):
            continue
        there = local + rate * time_s
        if all(abs(float(there[axis])) <= limit for axis in span):
            best = min(best, time_s)
    return best


def _reach_s(value: float, rate: float, edge: float) -> float:
    """Seconds until ``value`` changing at ``rate`` falls to ``edge`` (0: already below)."""
    if value <= edge:
        return 0.0
    return (edge - value) / rate if rate < 0.0 else math.inf


def segment_point_distance_mm(
    start_xy_mm: NDArray[np.float64],
    end_xy_mm: NDArray[np.float64],
    point_xy_mm: NDArray[np.float64],
) -> NDArray[np.float64]:
    """(N, P) distance from each of N segments to each of P points, mm.

    Args:
        start_xy_mm: (N, 2) segment starts.
        end_xy_mm: (N, 2) segment ends.
        point_xy_mm: (P, 2) points.
    """
    direction = end_xy_mm - start_xy_mm
    length_sq = np.maximum(np.einsum("ni,ni->n", direction, direction), 1e-12)
    rel = point_xy_mm[None, :, :] - start_xy_mm[:, None, :]
    along = np.clip(np.einsum("npi,ni->np", rel, direction) / length_sq[:, None], 0.0, 1.0)
    closest = start_xy_mm[:, None, :] + along[:, :, None] * direction[:, None, :]
    result: NDArray[np.float64] = np.linalg.norm(point_xy_mm[None, :, :] - closest, axis=2)
    return result


def pocket_entry(
    table: TableSpec,
    xy_mm: NDArray[np.float64],
    velocity_mm_s: NDArray[np.float64],
    horizon_s: float,
    capture_mm: float,
) -> NDArray[np.int64]:
    """(N,) index into ``POCKETS`` of the pocket each ball is entering, or -1.

    A ball enters a pocket when its path over the next ``horizon_s`` (straight, at its current
    velocity) passes within ``capture_mm`` of the pocket point while heading toward it, or
    when it already lies within half of ``capture_mm`` of the pocket point.

    Args:
        table: the table.
        xy_mm: (N, 2) ball centres, table mm.
        velocity_mm_s: (N, 2) velocities, mm/s.
        horizon_s: how far ahead to follow the path, s.
        capture_mm: how close to the pocket point the path must pass, mm.
    """
    pockets = table.pockets_xy_mm()
    xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    velocity = np.asarray(velocity_mm_s, dtype=np.float64).reshape(-1, 2)
    distance = segment_point_distance_mm(xy, xy + velocity * horizon_s, pockets)
    to_pocket = pockets[None, :, :] - xy[:, None, :]
    heading = np.einsum("npi,ni->np", to_pocket, velocity) > 0.0
    here = np.linalg.norm(to_pocket, axis=2) <= 0.5 * capture_mm
    candidates = ((distance <= capture_mm) & heading) | here
    score = np.where(candidates, distance, np.inf)
    best = np.argmin(score, axis=1) if len(xy) else np.zeros(0, np.int64)
    found = np.isfinite(score[np.arange(len(xy)), best]) if len(xy) else np.zeros(0, bool)
    return np.where(found, best, -1).astype(np.int64)


def beside_side_mouth(
    table: TableSpec, xy_mm: NDArray[np.float64], velocity_mm_s: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """(N,) whether each ball, on the bed and heading for a side cushion line, crosses that
    line outside the side pocket's mouth (further than half the mouth and a radius from its
    middle: clear of the jaw's rounded nose, off which a ball may still rattle in): it
    meets the cushion beside the pocket, not the pocket, however near the pocket point its
    path passes (an oblique path passes a side pocket's point closer than it crosses the
    line: by the sine of its angle to the rail). False for a ball beyond a cushion line, in
    a side mouth already (between the jaws, nearer the line than a radius), or not closing
    on a side cushion line.

    Args:
        table: the table.
        xy_mm: (N, 2) ball centres, table mm.
        velocity_mm_s: (N, 2) velocities, mm/s.
    """
    xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    velocity = np.asarray(velocity_mm_s, dtype=np.float64).reshape(-1, 2)
    on_bed = outside_distance_mm(table, xy) < 0.0
    # Distance in from the side cushion line the ball is heading for, and its rate.
    near_far = np.where(velocity[:, 1] < 0.0, xy[:, 1], table.width_mm - xy[:, 1])
    closing = np.abs(velocity[:, 1])
    closing_ok = closing > 1e-9
    time_s = np.where(closing_ok, near_far / np.where(closing_ok, closing, 1.0), np.inf)
    crossing = xy[:, 0] + velocity[:, 0] * np.where(closing_ok, time_s, 0.0)
    half = 0.5 * table.side_mouth_mm
    outside = np.abs(crossing - 0.5 * table.length_mm) > half + table.ball_radius_mm
    # A centre nearer the line than a radius, between the jaws, is in the mouth already.
    in_mouth = (np.abs(xy[:, 0] - 0.5 * table.length_mm) <= half) & (
        np.minimum(xy[:, 1], table.width_mm - xy[:, 1]) < table.ball_radius_mm
    )
    result: NDArray[np.bool_] = on_bed & closing_ok & outside & ~in_mouth
    return result


def in_pocket_mouth(table: TableSpec, xy_mm: NDArray[np.float64]) -> NDArray[np.bool_]:
    """(N,) whether each centre lies in a pocket mouth, on the lip: nearer a cushion line than
    half a radius (or beyond it, which the cushion allows only at a mouth) and within a
    mouth's width of a pocket point, or within half a mouth of a corner pocket's point (past
    the jaws, over the hole, where a centre is far from both cushion lines).

    Args:
        table: the table.
        xy_mm: (N, 2) ball centres, table mm.
    """
    xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    near_line = outside_distance_mm(table, xy) > -0.5 * table.ball_radius_mm
    distance = np.linalg.norm(xy[:, None, :] - table.pockets_xy_mm()[None, :, :], axis=2)
    mouth = np.array(
        [table.corner_mouth_mm if p.is_corner() else table.side_mouth_mm for p in POCKETS]
    )
    corner = np.array([p.is_corner() for p in POCKETS])
    # Past a corner's jaws, over the hole, a centre is far from both cushion lines.
    deep = (distance[:, corner] <= 0.5 * table.corner_mouth_mm).any(axis=1)
    result: NDArray[np.bool_] = (near_line & (distance <= mouth[None, :]).any(axis=1)) | deep
    return result


def nearest_pocket(table: TableSpec, xy_mm: tuple[float, float]) -> Pocket:
    """The pocket whose point is nearest to a position."""
    distance = np.linalg.norm(table.pockets_xy_mm() - np.asarray(xy_mm, dtype=np.float64), axis=1)
    return POCKETS[int(np.argmin(distance))]


def cushion_for_contact(table: TableSpec, xy_mm: tuple[float, float]) -> Cushion:
    """The cushion a ball touching the rail at ``xy_mm`` touched; pocket jaws count as the
    adjacent cushion (the one on the same rail and the same half of the table)."""
    return table.nearest_cushion(float(xy_mm[0]), float(xy_mm[1]))


CUSHION_NORMALS = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
"""(4, 2) inward normals of the cushion lines x = 0, x = L, y = 0, y = W."""

Line = tuple[NDArray[np.float64], NDArray[np.float64]]
"""A straight path: (centre (2,) at a known time, mm; velocity (2,), mm/s)."""


def bounce_across_gap(
    table: TableSpec, paths: tuple[Line, Line], span_s: float, limits: tuple[float, float]
) -> tuple[int, NDArray[np.float64]] | None:
    """The cushion a ball unseen for ``span_s`` bounced off, judged from its paths either side.

    ``paths`` are the path as last seen before the gap (centre at the gap's start) and as
    first seen after it (centre at the gap's end). The ball bounced when it went in toward a
    cushion line and came out from it (normal speeds beyond ``limits[0]``, mm/s, the noise
    of a fitted velocity), the path before reaches the ball's touching line within the gap
    (at its speed when lost, or slowing evenly to rest: twice the gap), and the path after,
    traced back, left that line within ``limits[1]`` (mm) of where the path before met it.
    Only the direction of the path after counts when tracing it back: a ball slows after a
    bounce, so its speed would date the bounce too early.

    Returns:
        (side 0..3 as in ``CUSHION_NORMALS``, (2,) where the path before met the line), or None.
    """
    (start, v_in), (end, v_out) = paths
    radius = table.ball_radius_mm
    size = np.array([table.length_mm, table.width_mm])
    for side in range(4):
        normal = CUSHION_NORMALS[side]
        into, out = -float(v_in @ normal), float(v_out @ normal)
        if into <= limits[0] or out <= limits[0]:
            continue
        axis = side // 2
        line = radius if side % 2 == 0 else size[axis] - radius
        reach = abs(line - float(start[axis])) / into
        gap_out = abs(float(end[axis]) - line) / out
        if reach > 2.0 * span_s:
            continue  # even slowing to nothing by the time it reappeared, it fell short
        met = start + v_in * reach
        left = end - v_out * gap_out
        if float(np.linalg.norm(met - left)) <= limits[1]:
            return side, met
    return None
