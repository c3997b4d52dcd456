"""Compiled reads of a search region's maps at a few points, where numba is installed.

The round search reads its maps (radius, where centres may lie) and its mosaic's
tiles at a handful of points, dozens of times a frame (`vision.candidates.map_at`, 14,600
calls over broadcast_nudge's 1,152 fast passes; `vision.mosaic.Mosaic.tile_of`): each call is
half a dozen small NumPy calls whose overhead is the whole cost. One compiled loop per call
returns exactly the NumPy forms' values (held equal by tests/vision/test_kernels_points.py).

Compiled on first use (only where `vision.kernels.compiled()` says numba is in use) and
cached beside this file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

_compiled: dict[str, Callable[..., Any]] = {}


def _nearest_pixel(value: float, size: int) -> int:
    """The index of a coordinate's nearest pixel (`np.rint`, halves to even), clamped to
    [0, size)."""
    index = int(np.rint(value))
    return min(max(index, 0), size - 1)


def _map_at(image: NDArray[Any], xy: NDArray[np.float64]) -> NDArray[np.float64]:
    """`vision.candidates.map_at` of an (H, W) map: (K,) float64 (a value converts to
    float64 exactly)."""
    height, width = image.shape
    out = np.empty(len(xy), np.float64)
    for k in range(len(xy)):
        column = _nearest_pixel(xy[k, 0], width)
        row = _nearest_pixel(xy[k, 1], height)
        out[k] = np.float64(image[row, column])
    return out


def _tile_of(
    xy: NDArray[np.float64], frame_boxes: NDArray[np.int64], origins: NDArray[np.int64]
) -> NDArray[np.int64]:
    """`vision.mosaic.Mosaic.tile_of`: (K,) the first tile whose pixels hold each point
    (its pixel squares, from half a pixel before its origin), -1 in a gap."""
    out = np.full(len(xy), -1, np.int64)
    for k in range(len(xy)):
        u, v = xy[k, 0], xy[k, 1]
        for tile in range(len(origins)):
            low_u = origins[tile, 0] - 0.5
            low_v = origins[tile, 1] - 0.5
            high_u = origins[tile, 0] + (frame_boxes[tile, 2] - frame_boxes[tile, 0]) - 0.5
            high_v = origins[tile, 1] + (frame_boxes[tile, 3] - frame_boxes[tile, 1]) - 0.5
            if low_u <= u < high_u and low_v <= v < high_v:
                out[k] = tile
                break
    return out


def _cut_distance(
    xy: NDArray[np.float64],
    tiles: NDArray[np.int64],
    frame_boxes: NDArray[np.int64],
    mosaic: tuple[NDArray[np.int64], NDArray[np.int64]],
) -> NDArray[np.float64]:
    """`vision.mosaic.Mosaic.cut_distance`: (K,) distance of each point from its tile's
    nearest side that is not one of `bounds` (inf when none is); `mosaic`: the tiles'
    origins and the bounds. A tile of -1 is the last tile, as NumPy indexes it."""
    origins, bounds = mosaic
    out = np.empty(len(xy), np.float64)
    count = len(origins)
    for k in range(len(xy)):
        tile = tiles[k] if tiles[k] >= 0 else tiles[k] + count
        low_u, low_v = float(frame_boxes[tile, 0]), float(frame_boxes[tile, 1])
        high_u, high_v = float(frame_boxes[tile, 2]), float(frame_boxes[tile, 3])
        u = xy[k, 0] + (low_u - origins[tile, 0])
        v = xy[k, 1] + (low_v - origins[tile, 1])
        gaps = (u - low_u, v - low_v, high_u - 1 - u, high_v - 1 - v)
        edges = (low_u, low_v, high_u, high_v)
        nearest = np.inf
        for side in range(4):
            gap = gaps[side] if edges[side] != float(bounds[side]) else np.inf
            if gap != gap:
                nearest = gap  # NaN, as NumPy's min gives it
                break
            nearest = min(nearest, gap)
        out[k] = nearest
    return out


_KERNELS = ("_nearest_pixel", "_map_at", "_tile_of", "_cut_distance")
"""The functions compiled, helpers before their callers."""


def reads(image: NDArray[Any]) -> bool:
    """Whether `map_at` reads this map: a non-empty, C-contiguous (H, W) float32 or uint8
    one (the radius and validity maps of a mosaic of windows, read most). Each other dtype,
    shape or memory layout would be one more compiled form (about a second each on a first
    run); a whole table's maps are views, read by the NumPy form."""
    return (
        image.ndim == 2
        and image.dtype in _READ_DTYPES
        and image.size > 0
        and image.flags.c_contiguous
    )


_READ_DTYPES = (np.dtype(np.float32), np.dtype(np.uint8))


def map_at(image: NDArray[Any], xy: NDArray[np.float64]) -> NDArray[np.float64]:
    """(K,) float64 values of an (H, W) map at (K, 2) points, nearest pixel clamped to
    the map: `vision.candidates.map_at` compiled (call only when `vision.kernels.compiled()`
    and `reads(image)`)."""
    if not _compiled:
        _load()
    points = np.ascontiguousarray(xy, np.float64).reshape(-1, 2)
    values: NDArray[np.float64] = _compiled["_map_at"](image, points)
    return values


def tile_of(
    xy: NDArray[np.float64], frame_boxes: NDArray[np.int64], origins: NDArray[np.int64]
) -> NDArray[np.int64]:
    """(K,) int64 tile of each of (K, 2) mosaic points, -1 in a gap: `Mosaic.tile_of`
    compiled (call only when `vision.kernels.compiled()`)."""
    if not _compiled:
        _load()
    tiles: NDArray[np.int64] = _compiled["_tile_of"](
        np.ascontiguousarray(xy, np.float64).reshape(-1, 2),
        np.ascontiguousarray(frame_boxes, np.int64),
        np.ascontiguousarray(origins, np.int64),
    )
    return tiles


def cut_distance(
    xy: NDArray[np.float64],
    tiles: NDArray[np.int64],
    frame_boxes: NDArray[np.int64],
    mosaic: tuple[NDArray[np.int64], NDArray[np.int64]],
) -> NDArray[np.float64]:
    """(K,) float64 distance of (K, 2) mosaic points in (K,) `tiles` from their tile's
    nearest side that cuts through the picture: `Mosaic.cut_distance` compiled (call only
    when `vision.kernels.compiled()`); `mosaic`: (T, 2) origins and (4,) bounds."""
    if not _compiled:
        _load()
    origins, bounds = mosaic
    distance: NDArray[np.float64] = _compiled["_cut_distance"](
        np.ascontiguousarray(xy, np.float64).reshape(-1, 2),
        np.ascontiguousarray(tiles, np.int64),
        np.ascontiguousarray(frame_boxes, np.int64),
        (np.ascontiguousarray(origins, np.int64), np.ascontiguousarray(bounds, np.int64)),
    )
    return distance


def _load() -> None:
    """Import numba and compile this module's kernels (`vision.kernels.compile_into`)."""
    from vision.kernels import compile_into

    compile_into(globals(), _KERNELS, _compiled)
