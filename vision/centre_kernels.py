"""Compiled outline fit of `vision.centres.outline_centres`, where numba is installed.

The outline fit casts 32 rays from each ball and fits a circle to where they end, three
passes of six reweighted least-squares steps: on the one to three balls of a search that is
some 300 small NumPy calls (einsum, solve, det, eigvalsh on (K, 3, 3) stacks), about 10 ms a
call, the largest single cost of a hinted search of a ball of the cloth's hue (16 % of the
review's main thread on broadcast_scratch_red_tv). The loop here computes the same fit ball
by ball: the same samples, ends, weights and tests, the small sums and solves written out
(their last bits may differ from LAPACK's; tests/vision/test_centre_kernels.py holds the
two forms to 1e-9 px on real search regions, and the review's outputs of the sample clips
stay byte-identical).

It is used (`outline_centres`) only where `vision.kernels.compiled()` says numba is in use;
otherwise the NumPy form is called. The constants are read from `vision.centres` at each call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision import centres
from vision.candidates import DIRECTIONS, SearchRegion

_compiled: dict[str, Callable[..., Any]] = {}
_DIRECTIONS = np.ascontiguousarray(DIRECTIONS, np.float64)


def _at(image: NDArray[Any], u: float, v: float) -> float:
    """`vision.candidates.sample` at one point: the nearest pixel's value, 0 off the map."""
    height, width = image.shape
    column = int(np.rint(u))
    row = int(np.rint(v))
    if column < 0 or column >= width or row < 0 or row >= height:
        return 0.0
    value: float = image[row, column]
    return value


def _pairwise32(values: NDArray[np.float64]) -> float:
    """NumPy's sum of 32 float64 values (eight running sums, combined pairwise)."""
    r = values[:8].copy()
    for start in range(8, 32, 8):
        for j in range(8):
            r[j] += values[start + j]
    total: float = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    return total


Maps = tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.float32], NDArray[np.uint8]]
"""The ball, lit, radius and valid maps of a region (an empty valid map: valid everywhere)."""
Geometry = tuple[NDArray[np.float64], NDArray[np.float64]]
"""`vision.centres.RAY_RADII` and `vision.candidates.DIRECTIONS`."""

SHADE_WEIGHT, SCALE_RADII, BIAS_PRIOR, STEPS, MIN_RAYS, MIN_SPREAD, MAX_BIAS = range(7)
PASSES, REACH, MAX_SHIFT, SINGLE = range(7, 11)
"""Where each number lies in the kernels' ``numbers`` array (`vision.centres`' constants,
the samples a ray's end must be clean for, and whether the call fits one ball alone)."""


def _ray_ends(
    maps: Maps, centre: tuple[float, float, float], geometry: Geometry, reach: int
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_]]:
    """`vision.centres._ray_ends` of one ball at ``centre`` (u, v, radius): (32,) ends,
    whether each ray has one and whether it is the foreground's."""
    ball, lit, radius_map, valid = maps
    x, y, radius = centre
    ray_radii, directions = geometry
    rays, samples = len(directions), len(ray_radii)
    ends = np.empty(rays)
    has_end = np.zeros(rays, np.bool_)
    lit_end = np.zeros(rays, np.bool_)
    inside = np.empty(samples)
    dirty = np.empty(samples, np.bool_)
    step = ray_radii[1] - ray_radii[0]
    for ray in range(rays):
        for s in range(samples):
            length = radius * ray_radii[s]
            u = x + length * directions[ray, 0]
            v = y + length * directions[ray, 1]
            inside[s] = _at(ball, u, v)
            on_table = _at(radius_map, u, v) > 0
            if valid.size:
                on_table = on_table and _at(valid, u, v) > 0
            dirty[s] = inside[s] >= 0.5 or not on_table
        # The first sample that is ball, followed by `reach` samples of clean cloth.
        first = 0
        for s in range(samples - reach):
            if inside[s] >= 0.5 and not dirty[s + 1 : s + reach + 1].any():
                first = s
                has_end[ray] = True
                break
        here = inside[first]
        after = inside[min(first + 1, samples - 1)]
        fraction = min(max((here - 0.5) / max(here - after, 1e-6), 0.0), 1.0)
        ends[ray] = (ray_radii[first] + fraction * step) * radius
        length = radius * ray_radii[first]
        u = x + length * directions[ray, 0]
        v = y + length * directions[ray, 1]
        lit_end[ray] = _at(lit, u, v) >= 0.5
    return ends, has_end, lit_end


def _normal_equations(
    weight: NDArray[np.float64],
    target: NDArray[np.float64],
    design: NDArray[np.float64],
    bias_prior: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The weighted least-squares system (3 x 3, 3) of the move and the bias, summed in
    NumPy's einsum order, the bias held near 0 by ``bias_prior``."""
    normal = np.zeros((3, 3))
    rhs = np.zeros(3)
    for n in range(len(weight)):
        for i in range(3):
            wi = weight[n] * design[n, i]
            rhs[i] += weight[n] * target[n] * design[n, i]
            for j in range(3):
                normal[i, j] += wi * design[n, j]
    normal[2, 2] += bias_prior * _pairwise32(weight)
    return normal, rhs


def _solved(normal: NDArray[np.float64], rhs: NDArray[np.float64]) -> NDArray[np.float64]:
    """(3,) move and bias: none where the system is singular, the move alone where the
    best bias is inward (LAPACK's solves, as NumPy's)."""
    solved = np.zeros(3)
    if abs(np.linalg.det(normal)) > 1e-6:
        both = np.linalg.solve(normal, rhs)
        solved[0], solved[1], solved[2] = both[0], both[1], both[2]
        if solved[2] < 0.0:
            alone = np.linalg.solve(normal[:2, :2].copy(), rhs[:2].copy())
            solved[0], solved[1], solved[2] = alone[0], alone[1], 0.0
    return solved


def _spread(
    has_end: NDArray[np.bool_],
    stretched: NDArray[np.float64],
    directions: NDArray[np.float64],
    numbers: NDArray[np.float64],
) -> bool:
    """Whether enough rays end near the fitted circle, all round the centre."""
    count = 0
    sxx = sxy = syy = 0.0
    for n in range(len(has_end)):
        if (1.0 if has_end[n] else 0.0) / (1.0 + stretched[n] * stretched[n]) > 0.5:
            count += 1
            sxx += directions[n, 0] * directions[n, 0]
            sxy += directions[n, 0] * directions[n, 1]
            syy += directions[n, 1] * directions[n, 1]
    smallest = np.linalg.eigvalsh(np.array([[sxx, sxy], [sxy, syy]]))[0]
    return bool(count >= numbers[MIN_RAYS] and smallest >= numbers[MIN_SPREAD] * max(count, 1))


def _fit(
    rays: tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_]],
    radius: float,
    directions: NDArray[np.float64],
    numbers: NDArray[np.float64],
) -> tuple[float, float, bool]:
    """`vision.centres._fit` of one ball's ``rays`` (ends, whether each has one, whether
    it is the foreground's): its move (du, dv) and whether the fit held."""
    ends, has_end, lit_end = rays
    count = len(ends)
    target = np.empty(count)
    prior = np.empty(count)
    for n in range(count):
        target[n] = ends[n] - radius if has_end[n] else 0.0
        prior[n] = (1.0 if lit_end[n] else numbers[SHADE_WEIGHT]) if has_end[n] else 0.0
    weight = prior.copy()
    scale = numbers[SCALE_RADII] * radius
    stretched = np.zeros(count)
    design = np.ones((count, 3))
    design[:, :2] = directions
    move = np.zeros((2, 2))
    solved = np.zeros(3)
    for _ in range(int(numbers[STEPS])):
        normal, rhs = _normal_equations(weight, target, design, numbers[BIAS_PRIOR])
        solved = _solved(normal, rhs)
        # NumPy's `delta @ DIRECTIONS.T` is a BLAS product whose rounding differs with the
        # number of balls (one: gemv; more: gemm): the same product here, for the same bits.
        move[0, 0], move[0, 1] = solved[0], solved[1]
        transposed = directions.T
        along = np.dot(move[0], transposed) if numbers[SINGLE] else np.dot(move, transposed)[0]
        for n in range(count):
            residual = target[n] - along[n] - solved[2]
            if residual > 0 and not lit_end[n]:
                residual = 3.0 * residual
            stretched[n] = residual / scale
            weight[n] = prior[n] / (1.0 + stretched[n] * stretched[n])
    ok = _spread(has_end, stretched, directions, numbers)
    ok = ok and np.isfinite(solved[0]) and np.isfinite(solved[1])
    if not (ok and abs(solved[2]) <= numbers[MAX_BIAS] * radius):
        return 0.0, 0.0, False
    return solved[0], solved[1], True


def _outline_centres(
    maps: Maps,
    xy: NDArray[np.float64],
    radius: NDArray[np.float64],
    geometry: Geometry,
    numbers: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """`vision.centres.outline_centres` ball by ball (a ball whose fit fails in a pass
    keeps its start, as there)."""
    out = xy.copy()
    held = np.ones(len(xy), np.bool_)
    for k in range(len(xy)):
        x, y = xy[k, 0], xy[k, 1]
        for _ in range(int(numbers[PASSES])):
            rays = _ray_ends(maps, (x, y, radius[k]), geometry, int(numbers[REACH]))
            du, dv, ok = _fit(rays, radius[k], geometry[1], numbers)
            if not ok:
                held[k] = False
                break
            x, y = x + du, y + dv
        if held[k]:
            shift_u, shift_v = x - xy[k, 0], y - xy[k, 1]
            shift = np.sqrt(shift_u * shift_u + shift_v * shift_v)
            held[k] = shift <= numbers[MAX_SHIFT] * radius[k]
        if held[k]:
            out[k, 0], out[k, 1] = x, y
    return out, held


_KERNELS = (
    "_at",
    "_pairwise32",
    "_ray_ends",
    "_normal_equations",
    "_solved",
    "_spread",
    "_fit",
    "_outline_centres",
)


def usable() -> bool:
    """Whether `outline_centres` runs compiled (numba in use)."""
    from vision.kernels import compiled

    return compiled()


def outline_centres(
    region: SearchRegion,
    xy: NDArray[np.float64],
    radius: NDArray[np.float64],
    lit: NDArray[np.float32],
    ball: NDArray[np.float32],
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """`vision.centres.outline_centres`, compiled where `usable()` (else that function)."""
    if not usable() or len(xy) == 0:
        return centres.outline_centres(region, xy, radius, lit, ball)
    if not _compiled:
        _load()
    step = centres.RAY_RADII[1] - centres.RAY_RADII[0]
    reach = max(1, round(centres.CLEAN_RADII / step))
    numbers = np.array(
        [
            centres.SHADE_WEIGHT,
            centres.SCALE_RADII,
            centres.BIAS_PRIOR,
            centres.STEPS,
            centres.MIN_RAYS,
            centres.MIN_SPREAD,
            centres.MAX_BIAS,
            centres.PASSES,
            reach,
            centres.MAX_SHIFT,
            len(xy) == 1,
        ],
        np.float64,
    )
    valid = region.valid if region.valid is not None else np.zeros((0, 0), np.uint8)
    maps = (
        np.ascontiguousarray(ball, np.float32),
        np.ascontiguousarray(lit, np.float32),
        np.ascontiguousarray(region.radius, np.float32),
        np.ascontiguousarray(valid, np.uint8),
    )
    fitted: tuple[NDArray[np.float64], NDArray[np.bool_]] = _compiled["_outline_centres"](
        maps,
        np.ascontiguousarray(xy, np.float64).reshape(-1, 2),
        np.ascontiguousarray(radius, np.float64).reshape(-1),
        (np.ascontiguousarray(centres.RAY_RADII, np.float64), _DIRECTIONS),
        numbers,
    )
    return fitted


def _load() -> None:
    """Import numba and compile this module's kernels (`vision.kernels.compile_into`)."""
    from vision.kernels import compile_into

    compile_into(globals(), _KERNELS, _compiled)
