"""Compiled local maxima of a distance transform in ball radii, where numba is installed.

`vision.candidates.distance_peaks` divides the whole region's distance transform by the
radius map, dilates it and compares, then takes the nonzero pixels: five passes over every
pixel of a searched region, though only the few pixels of a ball's core (at least
`min_ratio` radii inside its blob) can be peaks. The loop here tests just those against their
neighbourhood, and returns the same pixels in the same (row-major) order with the same
float32 values. A test holds it equal to the NumPy form on real search regions
(tests/vision/test_candidates_peaks.py).

Compiled on first use, next to `vision.kernels` (only where `kernels.compiled()` says numba
is in use) and cached beside this file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

_compiled: dict[str, Callable[..., Any]] = {}


def _ratio(distance: NDArray[np.float32], radius: NDArray[np.float32], y: int, x: int) -> Any:
    """One pixel's distance over its radius, at least 1 px (as np.maximum: NaN stays), in
    float32."""
    r = radius[y, x]
    one = np.float32(1.0)
    return distance[y, x] / (r if r >= one or r != r else one)


def _is_peak(
    distance: NDArray[np.float32], radius: NDArray[np.float32], y: int, x: int, half: int
) -> bool:
    """Whether no pixel of the (2 half + 1)-square around (y, x), clipped to the map (the
    border `cv2.dilate` leaves out), has a larger ratio."""
    height, width = distance.shape
    value = _ratio(distance, radius, y, x)
    for v in range(max(0, y - half), min(height, y + half + 1)):
        for u in range(max(0, x - half), min(width, x + half + 1)):
            if _ratio(distance, radius, v, u) > value:
                return False
    return True


def _ratio_peaks(
    distance: NDArray[np.float32],
    radius: NDArray[np.float32],
    min_ratio: np.float32,
    half: int,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float32]]:
    """Rows, columns and ratios of the pixels whose ratio is at least `min_ratio` and that
    are peaks (`_is_peak`), in row-major order."""
    height, width = distance.shape
    rows = np.empty(16, np.int64)
    columns = np.empty(16, np.int64)
    values = np.empty(16, np.float32)
    found = 0
    for y in range(height):
        for x in range(width):
            if distance[y, x] <= 0.0:
                continue  # off the foreground: a ratio of 0, under any useful min_ratio
            value = _ratio(distance, radius, y, x)
            if not value >= min_ratio or not _is_peak(distance, radius, y, x, half):
                continue
            if found == len(rows):
                rows = np.concatenate((rows, np.empty(found, np.int64)))
                columns = np.concatenate((columns, np.empty(found, np.int64)))
                values = np.concatenate((values, np.empty(found, np.float32)))
            rows[found], columns[found], values[found] = y, x, value
            found += 1
    return rows[:found], columns[:found], values[:found]


def ratio_peaks(
    distance: NDArray[Any], radius: NDArray[np.float32], min_ratio: float, size: int
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float32]]:
    """(N,) rows, (N,) columns and (N,) float32 ratios of the local maxima (over a `size`
    square, odd) of `distance / max(radius, 1)` that reach `min_ratio` (compared in float32,
    as NumPy compares a float32 map with a Python float), row-major; call only when
    `vision.kernels.compiled()`, with a `min_ratio` above 0."""
    if not _compiled:
        _load()
    found: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float32]] = _compiled[
        "_ratio_peaks"
    ](
        np.ascontiguousarray(distance, np.float32),
        np.ascontiguousarray(radius, np.float32),
        np.float32(min_ratio),
        int(size) // 2,
    )
    return found


def _load() -> None:
    """Import numba and compile this module's kernels (`vision.kernels.compile_into`)."""
    from vision.kernels import compile_into

    compile_into(globals(), ("_ratio", "_is_peak", "_ratio_peaks"), _compiled)
