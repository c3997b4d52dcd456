"""Distance-transform peaks (`vision.candidates.distance_peaks`): the compiled form
(`vision.peak_kernels`) finds exactly the NumPy form's peaks, bit for bit and in the same
order, on lone, touching and border-cut balls, ragged blobs and a varying radius map; and
each lone ball gives one peak at its centre."""

from __future__ import annotations

from collections.abc import Iterator

import cv2
import numpy as np
import pytest

from vision import kernels
from vision.candidates import SearchRegion, distance_peaks

pytestmark = pytest.mark.skipif(not kernels.compiled(), reason="numba is not installed")

HEIGHT, WIDTH = 70, 110


@pytest.fixture
def restore_switch() -> Iterator[None]:
    previous = kernels.use_compiled(True)
    yield
    kernels.use_compiled(previous)


def _region(foreground: np.ndarray, radius: np.ndarray) -> SearchRegion:
    shape = foreground.shape
    return SearchRegion(
        image=np.zeros((*shape, 3), np.uint8),
        distance=foreground.astype(np.float32) * 20.0,
        foreground=foreground,
        radius=radius,
        gradient=np.zeros((*shape, 2), np.float32),
        centre_valid=np.ones(shape, np.uint8),
        threshold=10.0,
        separation=np.full(shape, 1.8, np.float32),
    )


def _discs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Balls of radius 6-9 px, some touching or cut by the border, with ragged noise."""
    rng = np.random.default_rng(500 + seed)
    foreground = np.zeros((HEIGHT, WIDTH), np.uint8)
    for (u, v), r in zip(
        rng.uniform(-5.0, [WIDTH + 5, HEIGHT + 5], (12, 2)), rng.uniform(6.0, 9.0, 12), strict=True
    ):
        cv2.circle(foreground, (int(u), int(v)), int(r), 1, -1)
    foreground |= (rng.random((HEIGHT, WIDTH)) > 0.97).astype(np.uint8)
    # A radius map that varies across the region (a perspective view), zero in a gap.
    radius = np.tile(np.linspace(5.0, 9.0, WIDTH, dtype=np.float32), (HEIGHT, 1))
    radius[:, 50:53] = 0.0
    return foreground, radius


@pytest.mark.parametrize("min_ratio", [0.3, 0.55, 1.0])
@pytest.mark.parametrize("seed", range(4))
def test_compiled_peaks_are_the_numpy_forms(
    seed: int, min_ratio: float, restore_switch: None
) -> None:
    region = _region(*_discs(seed))
    kernels.use_compiled(True)
    fast = distance_peaks(region, min_ratio, 10.0)
    kernels.use_compiled(False)
    plain = distance_peaks(region, min_ratio, 10.0)
    assert len(plain) > 0
    assert fast.dtype == plain.dtype
    assert np.array_equal(fast, plain)


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
def test_a_lone_ball_gives_one_peak_at_its_centre(compiled: bool, restore_switch: None) -> None:
    foreground = np.zeros((HEIGHT, WIDTH), np.uint8)
    cv2.circle(foreground, (40, 30), 8, 1, -1)
    cv2.circle(foreground, (85, 45), 8, 1, -1)
    region = _region(foreground, np.full((HEIGHT, WIDTH), 8.0, np.float32))
    kernels.use_compiled(compiled)
    peaks = distance_peaks(region, 0.55, 10.0)
    assert sorted(map(tuple, peaks.tolist())) == [(40.0, 30.0), (85.0, 45.0)]
