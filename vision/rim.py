"""Ball centres from the lit arc of their outline (a circle of the known radius).

A ball's foreground is seldom its whole disc: the side away from the light is darker and may
match the cloth's shade (a white ball on dim grey cloth shows only its lit half), while its
shadow on the cloth joins its shaded side (a striped ball's disc and shadow make one blob).
Any centroid of such a blob is pulled toward the light or into the shadow by up to a radius.
Where the ball's foreground ends on clean cloth (neither foreground nor shade beyond it), its
outline is exact; a circle of the radius the calibration gives there, fitted to those edge
points only, places the ball wherever at least a quarter of its outline is seen that way.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.candidates import DIRECTIONS, SearchRegion

RAY_RADII = np.linspace(0.5, 1.5, 21)
"""Distances along each ray from the centre, in ball radii, where the maps are sampled."""
CLEAN_RADII = 0.3
"""How far past an edge point, in ball radii, the ray must be clean cloth (no foreground, no
shade) for the point to be the ball's outline rather than its edge against its shadow."""
MIN_POINTS = 8
"""Fewest outline points (of 32 rays) a fit needs."""
MIN_SPREAD = 0.15
"""Smallest eigenvalue of the points' direction scatter per point: the arc must bound the
centre in every direction (a quarter circle gives 0.18, a half circle 0.5)."""
MAX_RESIDUAL = 0.12
"""Largest median distance, in ball radii, of the kept points from the fitted circle."""
MAX_SHIFT = 0.75
"""Largest move, in ball radii, from the starting centre a fit may make."""
ITERATIONS = 3


def fit_lit_arcs(
    region: SearchRegion, xy: NDArray[np.float64], radius: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """(K, 2) centres of the balls at (K, 2) `xy` (their foreground centroids) with (K,)
    radii, and (K,) whether a circle of that radius fitted to each one's lit arc held: there
    the fitted centre; elsewhere `xy` unchanged."""
    centres = np.asarray(xy, np.float64).copy()
    held = np.zeros(len(centres), bool)
    if len(centres) == 0:
        return centres, held
    # A ball whose fit fails keeps its centre, so every later step would fail it again:
    # only the balls still held are refitted.
    active = np.arange(len(centres))
    for _ in range(ITERATIONS):
        start, size = centres[active], radius[active]
        moved, ok = _fit_once(_edge_points(region, start, size), size)
        centres[active] = np.where(ok[:, None], moved + start, start)
        active = active[ok]
        if len(active) == 0:
            break
    held[active] = True
    shift = np.linalg.norm(centres - xy, axis=1)
    held &= shift <= MAX_SHIFT * radius
    return np.where(held[:, None], centres, xy), held


def _fit_once(
    edges: tuple[NDArray[np.float64], NDArray[np.bool_]], radius: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """One Gauss-Newton step of the circle fit (radii (K,)) from the centres the (K, 32)
    `edges` were found around: (K, 2) moves and (K,) held (0 where not)."""
    edge, valid = edges
    # |p - c| ~ e - u.(c - c0) near c0: solve u.delta = e - r in least squares.
    target = np.where(valid, edge - radius[:, None], 0.0)
    delta = _solve(_scatter(valid), target, valid)
    residual = np.abs(target - delta @ DIRECTIONS.T)
    # Trim the worst points once (a neighbour's or a highlight's edge) and solve again.
    limit = np.maximum(2.5 * _masked_median(residual, valid), 0.08 * radius)
    keep = valid & (residual <= limit[:, None])
    scatter = _scatter(keep)
    delta = _solve(scatter, np.where(keep, target, 0.0), keep)
    residual = np.abs(target - delta @ DIRECTIONS.T)
    count = keep.sum(axis=1)
    spread = _spread(scatter)
    ok = (count >= MIN_POINTS) & (spread >= MIN_SPREAD * np.maximum(count, 1))
    ok &= _masked_median(residual, keep) <= MAX_RESIDUAL * radius
    ok &= np.all(np.isfinite(delta), axis=1)
    return np.where(ok[:, None], delta, 0.0), ok


def _edge_points(
    region: SearchRegion, xy: NDArray[np.float64], radius: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """(K, 32) distance from the centre of each ray's outline point, px, and (K, 32) whether
    the ray has one: the first place its foreground ends on clean cloth."""
    steps = radius[:, None, None] * RAY_RADII[None, None, :]
    us = xy[:, 0, None, None] + steps * DIRECTIONS[None, :, 0, None]
    vs = xy[:, 1, None, None] + steps * DIRECTIONS[None, :, 1, None]
    distance = _bilinear(region.distance, us, vs)
    foreground = distance > region.threshold
    # Not clean cloth: foreground, shade, or no cloth at all.
    dirty_at = foreground | ~_on_cloth(region, us, vs)
    reach = max(1, round(float(CLEAN_RADII / (RAY_RADII[1] - RAY_RADII[0]))))
    # run[..., k]: samples k+1 .. k+reach are all clean cloth (counted, not shifted reach
    # times); the last reach samples have too few samples past them.
    samples = dirty_at.shape[2]
    dirty = np.zeros((*dirty_at.shape[:2], samples + 1), np.int16)
    np.cumsum(dirty_at, axis=2, out=dirty[..., 1:])
    edge_at = np.zeros(dirty_at.shape, bool)
    if samples > reach:
        run = dirty[..., reach + 1 :] == dirty[..., 1 : samples - reach + 1]
        edge_at[..., : samples - reach] = foreground[..., : samples - reach] & run
    valid: NDArray[np.bool_] = np.asarray(edge_at.any(axis=2), bool)
    # Rays without an outline point are never used: only the others are placed.
    first = np.argmax(edge_at[valid], axis=1)
    edge = np.zeros(valid.shape)
    edge[valid] = _sub_pixel(distance[valid], foreground[valid] & _up_to(first), region.threshold)
    return edge * radius[:, None], valid


def _on_cloth(
    region: SearchRegion, us: NDArray[np.float64], vs: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """(...) whether the nearest pixel of each point (`us`, `vs` (...)) is in the searched
    picture (a window's side, a gap in the mosaic: radius 0, where the distance is 0 without
    being cloth), on the table's surface and not shade (`vision.candidates.sample`'s
    rounding)."""
    height, width = region.distance.shape
    u = np.rint(us).astype(np.int64)
    v = np.rint(vs).astype(np.int64)
    rows, cols = np.minimum(np.maximum(v, 0), height - 1), np.minimum(np.maximum(u, 0), width - 1)
    index = rows * width + cols
    ok: NDArray[np.bool_] = (cols == u) & (rows == v)
    ok &= region.radius.ravel().take(index) > 0
    if region.shade is not None:
        ok &= region.shade.ravel().take(index) == 0
    if region.valid is not None:
        ok &= region.valid.ravel().take(index) > 0
    return ok


def _bilinear(
    image: NDArray[np.float32], us: NDArray[np.float64], vs: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Bilinear values of a (H, W) map at points (`us`, `vs` (...)), clamped to the map: the
    outline's sub-pixel place needs more than the nearest pixel's value."""
    height, width = image.shape
    # np.minimum/np.maximum: np.clip's per-call overhead dominates on these small arrays.
    u = np.minimum(np.maximum(us, 0.0), width - 1.001)
    v = np.minimum(np.maximum(vs, 0.0), height - 1.001)
    u0, v0 = np.floor(u), np.floor(v)
    fu, fv = u - u0, v - v0
    flat = image.ravel()
    index = v0.astype(np.int64) * width + u0.astype(np.int64)
    left = 1.0 - fu
    top = flat.take(index) * left + flat.take(index + 1) * fu
    index += width
    bottom = flat.take(index) * left + flat.take(index + 1) * fu
    value: NDArray[np.float64] = top * (1.0 - fv) + bottom * fv
    return value


def _up_to(last: NDArray[np.int64]) -> NDArray[np.bool_]:
    """(..., S) mask of the samples up to and including each ray's `last` (...) one."""
    within: NDArray[np.bool_] = np.arange(len(RAY_RADII)) <= last[..., None]
    return within


def _sub_pixel(
    distance: NDArray[np.float64], ball: NDArray[np.bool_], threshold: float
) -> NDArray[np.float64]:
    """(M,) outline point of each of M rays, in ball radii from the centre: where the (M, S)
    distance last falls through halfway from the ball's inside (the `ball` samples' median)
    to the cloth just past the ball's last sample; blur and the halo of shadow carry the
    threshold's own crossing a pixel outward."""
    samples = len(RAY_RADII)
    last = samples - 1 - np.argmax(ball[:, ::-1], axis=1)
    plateau = _masked_median(distance, ball)
    after = _at(distance, np.minimum(last + 1, samples - 1))
    level = np.maximum(0.5 * (plateau + after), threshold)
    above = ball & (distance > level[:, None])
    j = np.where(above.any(axis=1), samples - 1 - np.argmax(above[:, ::-1], axis=1), last)
    inside, outside = _at(distance, j), _at(distance, np.minimum(j + 1, samples - 1))
    fraction = np.clip((inside - level) / np.maximum(inside - outside, 1e-6), 0.0, 1.0)
    edge: NDArray[np.float64] = RAY_RADII[j] + fraction * (RAY_RADII[1] - RAY_RADII[0])
    return edge


def _at(values: NDArray[np.float64], index: NDArray[np.int64]) -> NDArray[np.float64]:
    """(M,) values of (M, S) `values` at each row's column `index` (M,)."""
    picked: NDArray[np.float64] = values[np.arange(len(values)), index]
    return picked


def _scatter(use: NDArray[np.bool_]) -> NDArray[np.float64]:
    """(K, 2, 2) scatter matrix of the directions of each ball's (K, 32) used rays."""
    weight = use.astype(np.float64)
    scatter: NDArray[np.float64] = np.einsum("kn,ni,nj->kij", weight, DIRECTIONS, DIRECTIONS)
    return scatter


def _solve(
    a: NDArray[np.float64], target: NDArray[np.float64], use: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """(K, 2) least-squares delta with DIRECTIONS (32, 2) . delta = target (K, 32) over the
    used rays, whose (K, 2, 2) `_scatter` is `a`; NaN where the system is singular."""
    weight = use.astype(np.float64)
    b = np.einsum("kn,kn,ni->ki", weight, target, DIRECTIONS)
    det = a[:, 0, 0] * a[:, 1, 1] - a[:, 0, 1] * a[:, 1, 0]
    safe = np.abs(det) > 1e-9
    det = np.where(safe, det, 1.0)
    dx = (a[:, 1, 1] * b[:, 0] - a[:, 0, 1] * b[:, 1]) / det
    dy = (a[:, 0, 0] * b[:, 1] - a[:, 1, 0] * b[:, 0]) / det
    out = np.column_stack([dx, dy])
    out[~safe] = np.nan
    return out


def _spread(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """(K,) smallest eigenvalue of the used rays' (K, 2, 2) direction scatter matrix `a`."""
    half_trace = 0.5 * (a[:, 0, 0] + a[:, 1, 1])
    gap = np.sqrt(np.maximum(half_trace**2 - (a[:, 0, 0] * a[:, 1, 1] - a[:, 0, 1] ** 2), 0.0))
    smallest: NDArray[np.float64] = half_trace - gap
    return smallest


def _masked_median(values: NDArray[np.float64], use: NDArray[np.bool_]) -> NDArray[np.float64]:
    """(K,) median of each row's used values (inf where none)."""
    ordered = np.sort(np.where(use, values, np.inf), axis=1)
    count = use.sum(axis=1)
    middle = np.maximum(count - 1, 0) // 2
    median: NDArray[np.float64] = _at(ordered, middle)
    return np.where(count > 0, median, np.inf)
