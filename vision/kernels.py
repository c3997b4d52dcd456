"""Compiled per-ball pixel loops of the round search, where numba is installed.

The search's per-ball work on a few balls is dozens of small NumPy calls, each costing more
in call overhead than in arithmetic (a hinted frame's fast pass spends ~3 ms on 3 balls).
A loop compiled by numba visits each ball's pixels once instead. Each kernel here computes
exactly what the NumPy form it stands for computes (`vision.discs.refine_centres`), and
a test holds the two equal on real search regions (tests/vision/test_candidates_compiled.py).

numba is optional (it comes with the `synth` extra): without it, `compiled()` is False and
the callers use their NumPy forms. numba is imported at the first kernel call, and the
compiled code is cached next to this file: only the first process after an install or a
change of this file compiles (11 s CPU), later ones load it (0.6 s).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

_available = importlib.util.find_spec("numba") is not None
"""Whether numba is installed (found without importing it: the import alone costs some
0.4 s, paid only by a process that searches for balls)."""

_enabled = _available
_compiled: dict[str, Callable[..., Any]] = {}


def compiled() -> bool:
    """Whether the compiled kernels are in use (numba installed, importable and not
    switched off). The first call that finds them on imports numba and compiles every
    kernel (or loads them from the cache)."""
    global _enabled, _available
    if _enabled and not _compiled:
        try:
            _load()
        except ImportError:  # found but not importable (a broken install): NumPy it is
            _enabled = _available = False
    return _enabled


def use_compiled(enabled: bool) -> bool:
    """Switch the compiled kernels on or off (benchmarks and tests compare both); returns
    the previous setting. Switching on without numba leaves them off."""
    global _enabled
    previous = _enabled
    _enabled = bool(enabled) and _available
    return previous


def _load() -> None:
    """Import numba and wrap every kernel, helpers before their callers (a kernel calls
    the compiled helpers it finds in this module when it is compiled, at its first call)."""
    import numba  # type: ignore[import-untyped, unused-ignore]

    jit = numba.njit(cache=True)
    module = globals()
    for name in _KERNELS:
        module[name] = jit(module[name])
        _compiled[name] = module[name]


def _kernel(name: str) -> Callable[..., Any]:
    """The compiled form of one of this module's kernels (after `compiled()` said True)."""
    return _compiled[name]


def _nearest(
    centres: NDArray[np.float64], ball: int, count: int
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """(K,) distances from one ball to every ball (itself infinite) and the indices of its
    `count` nearest, as `vision.discs._own_disc` takes them (np.argsort, quicksort)."""
    gaps = np.empty(len(centres))
    for other in range(len(centres)):
        if other == ball:
            gaps[other] = np.inf
        else:
            gaps[other] = np.hypot(
                centres[other, 0] - centres[ball, 0], centres[other, 1] - centres[ball, 1]
            )
    return gaps, np.argsort(gaps)[:count]


def _centroid(
    weight: NDArray[np.floating[Any]],
    centres: NDArray[np.float64],
    radius: NDArray[np.float64],
    ball: int,
    reach: int,
) -> tuple[float, float, float]:
    """The weight's sum and its first moments (u, v) over one ball's own disc: pixels within
    its radius of its centre, on its side of the bisector with each of its six nearest balls
    that are nearer than two radii and two pixels; pixels off the map weigh nothing."""
    count = len(centres)
    gaps, nearest = _nearest(centres, ball, min(6, count - 1))
    x, y = centres[ball, 0], centres[ball, 1]
    limit = radius[ball] ** 2
    near_gap = 2.0 * radius[ball] + 2.0
    height, width = weight.shape
    total, sum_u, sum_v = 0.0, 0.0, 0.0
    base_u, base_v = np.rint(x), np.rint(y)
    for dv_step in range(-reach, reach + 1):
        v = base_v + dv_step
        dv = v - y
        row = int(v)
        for du_step in range(-reach, reach + 1):
            u = base_u + du_step
            du = u - x
            if du * du + dv * dv > limit:
                continue
            mine = True
            for other in nearest:
                if gaps[other] < near_gap:
                    tu, tv = centres[other, 0] - x, centres[other, 1] - y
                    if du * tu + dv * tv > 0.5 * (tu * tu + tv * tv):
                        mine = False
                        break
            column = int(u)
            if mine and 0 <= row < height and 0 <= column < width:
                value = float(weight[row, column])
                total += value
                sum_u += value * u
                sum_v += value * v
    return total, sum_u, sum_v


def _refine_centres(
    weight: NDArray[np.floating[Any]],
    xy: NDArray[np.float64],
    radius: NDArray[np.float64],
    iterations: int,
) -> NDArray[np.float64]:
    """`vision.discs.refine_centres` as one loop over balls and their pixels."""
    centres = xy.copy()
    if len(centres) == 0:
        return centres
    reach = int(np.ceil(radius.max())) + 1
    for _ in range(iterations):
        moved = centres.copy()
        for ball in range(len(centres)):
            total, sum_u, sum_v = _centroid(weight, centres, radius, ball, reach)
            if total > 1e-3:
                moved[ball, 0] = sum_u / total
                moved[ball, 1] = sum_v / total
        centres = moved
    return centres


def _is_own_pixel(
    centres: NDArray[np.float64],
    radius: NDArray[np.float64],
    ball: int,
    near: tuple[NDArray[np.float64], NDArray[np.int64], float],
    offset: tuple[float, float],
) -> bool:
    """Whether a pixel at `offset` (du, dv) from a ball's centre, inside its disc, is the
    ball's own with `hide_behind` (`vision.discs._cut_at_bisectors`): on its side of
    the bisector with each near neighbour that does not overlap it, and not within the disc
    of a larger overlapping one (nearer the camera). `near`: (K,) distances to every ball,
    the nearest balls' indices and the nearness limit."""
    gaps, nearest, near_gap = near
    du, dv = offset
    x, y = centres[ball, 0], centres[ball, 1]
    for other in nearest:
        if gaps[other] >= near_gap:
            continue
        tu, tv = centres[other, 0] - x, centres[other, 1] - y
        if gaps[other] < 0.95 * (radius[ball] + radius[other]):
            if radius[other] > radius[ball]:
                eu, ev = du - tu, dv - tv
                if eu * eu + ev * ev <= radius[other] ** 2:
                    return False
        elif du * tu + dv * tv > 0.5 * (tu * tu + tv * tv):
            return False
    return True


def _ball_pixels(
    image: NDArray[np.uint8], xy: NDArray[np.float64], radius: NDArray[np.float64]
) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """`vision.discs.ball_pixels` as one loop: every ball's pixels in one (N, 3) array,
    ball by ball in row-major order, and (K,) where each ball's pixels end."""
    count = len(xy)
    scale = 0.9
    reach = int(np.ceil(radius.max() * scale)) + 1
    height, width = image.shape[:2]
    side = 2 * reach + 1
    pixels = np.empty((count * side * side, 3), np.uint8)
    ends = np.zeros(count, np.int64)
    taken = 0
    for ball in range(count):
        gaps, nearest = _nearest(xy, ball, min(6, count - 1))
        near = (gaps, nearest, 2.0 * radius[ball] * scale + 2.0)
        x, y = xy[ball, 0], xy[ball, 1]
        limit = (radius[ball] * scale) ** 2
        base_u, base_v = np.rint(x), np.rint(y)
        for dv_step in range(-reach, reach + 1):
            v = base_v + dv_step
            row = int(v)
            for du_step in range(-reach, reach + 1):
                u = base_u + du_step
                column = int(u)
                du, dv = u - x, v - y
                if du * du + dv * dv > limit or not (0 <= row < height and 0 <= column < width):
                    continue
                if _is_own_pixel(xy, radius, ball, near, (du, dv)):
                    pixels[taken] = image[row, column]
                    taken += 1
        ends[ball] = taken
    return pixels[:taken], ends


def _pixel(shape: tuple[int, int], u_px: float, v_px: float) -> tuple[int, int, float]:
    """`vision.candidates.PixelIndex` of one point: its row and column clamped to a map of
    `shape` (H, W), and 1.0 when the point's nearest pixel is on the map, else 0.0."""
    u, v = int(np.rint(u_px)), int(np.rint(v_px))
    row = min(max(v, 0), shape[0] - 1)
    column = min(max(u, 0), shape[1] - 1)
    return row, column, 1.0 if (row == v and column == u) else 0.0


def _disc_and_rim(
    maps: tuple[NDArray[np.uint8], NDArray[np.uint8], NDArray[np.uint8]],
    points: tuple[float, float, float, NDArray[np.float64], NDArray[np.float64]],
    known: tuple[bool, bool],
) -> tuple[float, float]:
    """One ball's disc coverage (its three inner circles) and rim share (`_rim_share`, on
    its fourth circle). `maps`: foreground, shade and hued; `points`: centre (u, v), radius,
    the circles' shares and the (32, 2) directions; `known`: whether shade and hued are."""
    foreground, shade, hued = maps
    x, y, radius, shares, directions = points
    with_shade, with_hue = known
    shape = (foreground.shape[0], foreground.shape[1])
    disc, rim, either, rim_hued = 0.0, 0.0, 0.0, 0.0
    for k in range(len(directions)):
        for c in range(4):
            reach = radius * shares[c]
            row, column, inside = _pixel(
                shape, x + reach * directions[k, 0], y + reach * directions[k, 1]
            )
            covered = float(foreground[row, column]) * inside
            if c < 3:
                disc += covered
                continue
            rim += covered
            if with_shade:
                either += max(covered, float(shade[row, column]) * inside)
            if with_hue:
                rim_hued += float(hued[row, column]) * inside * covered
    samples = len(directions)
    share = rim / samples
    half_lit = with_shade and share >= 0.3 and (not with_hue or rim_hued >= 0.5 * rim)
    if half_lit:
        share = either / samples
    return disc / (3 * samples), share


def _outline(
    gradient: NDArray[np.float32],
    points: tuple[float, float, float, NDArray[np.float64], NDArray[np.float64]],
    edge: float,
) -> float:
    """One ball's outline share: of the 32 directions, those where the radial gradient on
    one of the outline circles (shares 4-6) passes `edge`."""
    x, y, radius, shares, directions = points
    shape = (gradient.shape[0], gradient.shape[1])
    passed = 0.0
    for k in range(len(directions)):
        dx, dy = directions[k, 0], directions[k, 1]
        strongest = -1.0
        for c in range(4, 7):
            reach = radius * shares[c]
            row, column, inside = _pixel(shape, x + reach * dx, y + reach * dy)
            along = (float(gradient[row, column, 0]) * inside) * dx + (
                float(gradient[row, column, 1]) * inside
            ) * dy
            strongest = max(strongest, abs(along))
        passed += 1.0 if strongest > edge else 0.0
    return passed / len(directions)


def _free_ring(
    distance: NDArray[np.float32],
    balls: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]],
    ball: int,
    circle: tuple[float, NDArray[np.float64]],
    occupied_above: float,
) -> float:
    """One ball's free ring share: of the 32 points of its ring (`circle`: the ring's share
    of the radius and the directions), those not clearly foreground or within 1.2 radii of
    a candidate that may explain them (`possible`)."""
    xy, radius, possible = balls
    share, directions = circle
    shape = (distance.shape[0], distance.shape[1])
    reach = radius[ball] * share
    free = 0.0
    for k in range(len(directions)):
        u = xy[ball, 0] + reach * directions[k, 0]
        v = xy[ball, 1] + reach * directions[k, 1]
        row, column, inside = _pixel(shape, u, v)
        mine = not (float(distance[row, column]) * inside > occupied_above)
        for other in range(len(xy)):
            if mine:
                break
            ou, ov = u - xy[other, 0], v - xy[other, 1]
            mine = bool(possible[ball, other]) and np.sqrt(ou * ou + ov * ov) < (
                1.2 * radius[other]
            )
        free += 1.0 if mine else 0.0
    return free / len(directions)


def _confidence_parts(
    maps: tuple[
        NDArray[np.uint8],
        NDArray[np.float32],
        NDArray[np.float32],
        NDArray[np.uint8],
        NDArray[np.uint8],
    ],
    balls: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]],
    circles: tuple[NDArray[np.float64], NDArray[np.float64]],
    limits: tuple[float, float, bool, bool],
) -> NDArray[np.float64]:
    """The sampled parts of `vision.confidence.confidence`, (K, 4): each ball's disc
    coverage, rim share (`_rim_share`), outline share and free ring share.

    Args:
        maps: foreground, gradient (H, W, 2), distance, shade and hued of the region (shade
            and hued ignored unless `limits` says they are known).
        balls: (K, 2) centres, (K,) radii and (K, K) which candidates may explain another's
            ring (`possible`).
        circles: (8,) the circles' shares of the radius (disc 0-3, outline 4-6, ring 7) and
            (32, 2) their directions.
        limits: the ring's occupied distance, the outline's edge gradient, whether shade
            and hued are known.
    """
    foreground, gradient, distance, shade, hued = maps
    xy, radius, _ = balls
    shares, directions = circles
    occupied_above, edge, with_shade, with_hue = limits
    out = np.zeros((len(xy), 4))
    for ball in range(len(xy)):
        points = (xy[ball, 0], xy[ball, 1], radius[ball], shares, directions)
        out[ball, 0], out[ball, 1] = _disc_and_rim(
            (foreground, shade, hued), points, (with_shade, with_hue)
        )
        out[ball, 2] = _outline(gradient, points, edge)
        out[ball, 3] = _free_ring(distance, balls, ball, (shares[7], directions), occupied_above)
    return out


_KERNELS = (
    "_nearest",
    "_pixel",
    "_centroid",
    "_refine_centres",
    "_is_own_pixel",
    "_ball_pixels",
    "_disc_and_rim",
    "_outline",
    "_free_ring",
    "_confidence_parts",
)
"""The functions compiled, helpers before their callers."""


def refine_centres(
    weight: NDArray[np.floating[Any]],
    xy: NDArray[np.float64],
    radius: NDArray[np.float64],
    iterations: int,
) -> NDArray[np.float64]:
    """(K, 2) sub-pixel centres: `vision.discs.refine_centres` compiled (call only
    when `compiled()`)."""
    centres: NDArray[np.float64] = _kernel("_refine_centres")(
        np.ascontiguousarray(weight),
        np.ascontiguousarray(xy, np.float64),
        np.ascontiguousarray(radius, np.float64),
        int(iterations),
    )
    return centres


def ball_pixels(
    image: NDArray[np.uint8], xy: NDArray[np.float64], radius: NDArray[np.float64]
) -> list[NDArray[np.uint8]]:
    """Each ball's (K_i, 3) BGR pixels: `vision.discs.ball_pixels` compiled (call only
    when `compiled()`, with K >= 1)."""
    pixels, ends = _kernel("_ball_pixels")(
        np.ascontiguousarray(image),
        np.ascontiguousarray(xy, np.float64),
        np.ascontiguousarray(radius, np.float64),
    )
    bounds = ends.tolist()
    return [pixels[start:end] for start, end in zip([0, *bounds[:-1]], bounds, strict=True)]


def confidence_parts(
    region: Any,
    balls: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]],
    circles: tuple[NDArray[np.float64], NDArray[np.float64]],
    occupied_above: float,
    edge_gradient: float,
) -> NDArray[np.float64]:
    """(K, 4) disc coverage, rim share, outline share and free ring share of each ball in a
    `vision.candidates.SearchRegion`: `vision.confidence.confidence`'s sampling compiled
    (call only when `compiled()`)."""
    unknown = np.zeros((1, 1), np.uint8)
    maps = (
        np.ascontiguousarray(region.foreground),
        np.ascontiguousarray(region.gradient, np.float32),
        np.ascontiguousarray(region.distance, np.float32),
        unknown if region.shade is None else np.ascontiguousarray(region.shade),
        unknown if region.hued is None else np.ascontiguousarray(region.hued),
    )
    xy, radius, possible = balls
    parts: NDArray[np.float64] = _kernel("_confidence_parts")(
        maps,
        (
            np.ascontiguousarray(xy, np.float64),
            np.ascontiguousarray(radius, np.float64),
            np.ascontiguousarray(possible),
        ),
        (np.ascontiguousarray(circles[0], np.float64), np.ascontiguousarray(circles[1])),
        (
            float(occupied_above),
            float(edge_gradient),
            region.shade is not None,
            region.shade is not None and region.hued is not None,
        ),
    )
    return parts
