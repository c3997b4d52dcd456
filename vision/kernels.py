"""Compiled per-ball pixel loops of the round search, where numba is installed, and the
switch that says whether the compiled kernels are in use.

The search's per-ball work on a few balls is dozens of small NumPy calls, each costing more
in call overhead than in arithmetic (a hinted frame's fast pass spends ~3 ms on 3 balls).
A loop compiled by numba visits each ball's pixels once instead. Each kernel here computes
exactly what the NumPy form it stands for computes (`vision.discs.refine_centres`), and
a test holds the two equal on real search regions (tests/vision/test_candidates_compiled.py).
This module holds the loops over a ball's own disc (centre refinement, its pixels);
`vision.confidence_kernels` the confidence's sampling and `vision.peak_kernels` the distance
peaks, both compiled only where `compiled()` says so.

numba is optional (it comes with the `synth` extra): without it, `compiled()` is False and
the callers use their NumPy forms. numba is imported at the first kernel call, and the
compiled code is cached next to this file: only the first process after an install or a
change of this file compiles (11 s CPU), later ones load it (0.6 s).

`warm_up_in_background` does that loading on a thread of its own as soon as a detector is
built (`vision.region.RegionMaps`), while the review opens its video and learns the cloth,
instead of inside the first searches: about a second of CPU (importing numba 0.4 s, readying
LLVM with the first kernel 0.4 s, the other kernels a few hundredths each) that the review's
main thread otherwise spends with its frames waiting.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from vision.candidates import SearchRegion

_available = importlib.util.find_spec("numba") is not None
"""Whether numba is installed (found without importing it: the import alone costs some
0.4 s, paid only by a process that searches for balls)."""

_enabled = _available
_compiled: dict[str, Callable[..., Any]] = {}
_lock = threading.RLock()
"""Held while a module's kernels are wrapped (`compile_into`): the warm-up thread and the
first search may both ask for them."""
_warming: list[threading.Thread] = []


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


def warm_up_in_background() -> None:
    """Start loading the compiled kernels (importing numba, readying LLVM, loading each
    kernel's cached code) on a thread of its own, once per process; nothing when numba is
    absent or switched off. The kernels are the same whether this ran or not: a search that
    comes first loads them itself (numba's lock makes the two wait for each other)."""
    with _lock:
        if _warming or not _enabled or _compiled:
            return
        _warming.append(threading.Thread(target=_warm_up, name="tenball-kernels"))
    _warming[0].start()


def wait_for_warm_up() -> None:
    """Return once `warm_up_in_background`'s thread, if one was started, has finished."""
    if _warming:
        _warming[0].join()


def _warm_up() -> None:
    """Call each kernel once on a tiny input of the types the search passes (so the
    cached code of those very signatures is loaded)."""
    try:
        if not compiled():
            return
        from vision import peak_kernels, point_kernels

        plane = np.ones((8, 8), np.float32)
        xy = np.full((1, 2), 3.0)
        radius = np.ones(1)
        peak_kernels.ratio_peaks(plane, plane, 0.5, 3)
        point_kernels.map_at(plane, xy)
        point_kernels.map_at(np.ones((8, 8), np.uint8), xy)
        boxes, origins = np.array([[0, 0, 8, 8]], np.int64), np.zeros((1, 2), np.int64)
        tiles = point_kernels.tile_of(xy, boxes, origins)
        point_kernels.cut_distance(xy, tiles, boxes, (origins, boxes[0]))
        refine_centres(plane, xy, radius, 1)
        ball_pixels(np.zeros((8, 8, 3), np.uint8), xy, radius)
        _warm_confidence()
        _warm_centres()
    except Exception:  # a warm-up only: the first search loads them itself
        return


def use_compiled(enabled: bool) -> bool:
    """Switch the compiled kernels on or off (benchmarks and tests compare both); returns
    the previous setting. Switching on without numba leaves them off."""
    global _enabled
    previous = _enabled
    _enabled = bool(enabled) and _available
    return previous


def compile_into(
    namespace: dict[str, Any], names: tuple[str, ...], compiled: dict[str, Callable[..., Any]]
) -> None:
    """Compile a module's kernels in place: each function named in ``names``, helpers before
    their callers (a kernel calls the compiled helpers it finds in its module when it is
    compiled), replaced in the module's ``namespace`` (its ``globals()``) and kept in
    ``compiled``. numba's cache keeps them on disk beside each module."""
    with _lock:
        if compiled:
            return  # another thread wrapped them while this one waited
        import numba  # type: ignore[import-untyped, unused-ignore]

        jit = numba.njit(cache=True)
        done: dict[str, Callable[..., Any]] = {}
        for name in names:
            namespace[name] = done[name] = jit(namespace[name])
        # All at once: a caller that finds ``compiled`` filled uses it without the lock.
        compiled.update(done)


def _load() -> None:
    """Import numba and wrap every kernel of this module."""
    compile_into(globals(), _KERNELS, _compiled)


def _kernel(name: str) -> Callable[..., Any]:
    """The compiled form of one of this module's kernels (after `compiled()` said True)."""
    return _compiled[name]


def _small_region(side: int, radius_px: float) -> SearchRegion:
    """A `side` x `side` search region of foreground everywhere with balls of `radius_px`:
    the warm-up's stand-in for a searched window (the maps' dtypes are the search's)."""
    from vision.candidates import SearchRegion

    ones = np.ones((side, side), np.uint8)
    plane = np.ones((side, side), np.float32)
    return SearchRegion(
        np.zeros((side, side, 3), np.uint8),
        plane.copy(),
        ones.copy(),
        radius_px * plane,
        np.zeros((side, side, 2), np.float32),
        ones.copy(),
        1.0,
        valid=ones.copy(),
    )


def _warm_confidence() -> None:
    """`vision.confidence`'s compiled sampling (`vision.confidence_kernels`), through the
    very calls the search makes, on a small region with one ball."""
    from vision.confidence import confidence, rim_shares

    side = 16
    ones = np.ones((side, side), np.uint8)
    region = replace(
        _small_region(side, 2.0),
        separation=np.full((side, side), 2.0, np.float32),
        shade=ones.copy(),
        hued=ones.copy(),
    )
    xy, radius = np.full((1, 2), side / 2.0), np.full(1, 2.0)
    confidence(region, xy, radius, 1.0, 0.5)
    rim_shares(region, xy, radius)


def _warm_centres() -> None:
    """`vision.centre_kernels`' outline fit, through the call the search makes, on one ball
    of a small region."""
    from vision import centre_kernels

    if not centre_kernels.usable():
        return
    side = 24
    plane = np.ones((side, side), np.float32)
    centre_kernels.outline_centres(
        _small_region(side, 4.0), np.full((1, 2), side / 2.0), np.full(1, 4.0), plane, plane
    )


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


_KERNELS = (
    "_nearest",
    "_centroid",
    "_refine_centres",
    "_is_own_pixel",
    "_ball_pixels",
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
