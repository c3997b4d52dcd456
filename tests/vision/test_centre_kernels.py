"""The compiled outline fit (`vision.centre_kernels`) places balls where `vision.centres`'
NumPy form does: on the very fits a real sample frame's search asks for (balls of the
cloth's hue), and on drawn half-lit balls alone and in threes (NumPy's products round
differently for one ball and for several), with and without a table mask."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from calibration.io import load_calibration
from vision import centre_kernels, centres, find, kernels, shaded_centres
from vision.candidates import SearchRegion, map_at
from vision.detector import BallDetector
from vision.find import to_mosaic
from vision.mosaic import pack
from vision.sources import VideoFileSource

pytestmark = pytest.mark.skipif(
    not centre_kernels.usable(), reason="numba is not installed, or another outline fit"
)

ROOT = Path(__file__).resolve().parents[2]
# The green 6 on green cloth in the rack: the first frame's search fits its outline.
CLIP = ROOT / "sample_videos" / "top_break_green"
TOLERANCE_PX = 1e-9
"""The two forms' sums and solves are the same operations (on this machine they agree bit
for bit); another BLAS may round a product's last bit differently."""


def _agree(region: SearchRegion, xy: Any, radius: Any, lit: Any, ball: Any) -> None:
    plain, plain_held = centres.outline_centres(region, xy, radius, lit, ball)
    fast, fast_held = centre_kernels.outline_centres(region, xy, radius, lit, ball)
    assert fast.shape == plain.shape and fast.dtype == plain.dtype == np.float64
    assert np.array_equal(fast_held, plain_held)
    assert np.allclose(fast, plain, rtol=0.0, atol=TOLERANCE_PX)


def test_a_real_frames_outline_fits_are_the_numpy_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []

    def recorded(*args: Any) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        calls.append(args)
        return centres.outline_centres(*args)

    monkeypatch.setattr(find, "outline_centres", recorded)
    monkeypatch.setattr(shaded_centres, "outline_centres", recorded)
    detector = BallDetector(load_calibration(CLIP / "calibration.json"))
    source = VideoFileSource(str(CLIP / "video.mp4"))
    try:
        frame = source.read()
    finally:
        source.close()
    assert frame is not None
    found = detector.detect(frame).xy_px.astype(np.float64)
    assert len(found) >= 9  # the rack was searched
    assert sum(len(call[1]) for call in calls) >= 1, "the frame's search fitted no outline"
    for region, xy, radius, lit, ball in calls:
        _agree(region, xy, radius, lit, ball)
    # Every ball's window, its maps as a seeded search makes them, fitted from starts a
    # few px off: most fits hold there (lit outlines), so the compared moves are real.
    region = detector._search_region(frame.image, pack(detector._boxes(found), detector._bounds))
    starts = to_mosaic(pack(detector._boxes(found), detector._bounds), found)
    lit = np.clip((region.distance - 0.5 * region.threshold) / region.threshold, 0.0, 1.0)
    assert region.shade is not None
    ball = np.maximum(lit, region.shade).astype(np.float32)
    radius = map_at(region.radius, starts)
    shifts = np.random.default_rng(7).uniform(-2.0, 2.0, starts.shape)
    for group in (slice(0, 1), slice(1, 4), slice(0, len(starts))):
        xy = starts[group] + shifts[group]
        _agree(region, xy, radius[group], lit.astype(np.float32), ball)
    held = centres.outline_centres(region, starts + shifts, radius, lit.astype(np.float32), ball)
    assert held[1].sum() >= len(starts) // 2


def _half_lit(
    centres_xy: list[tuple[float, float]], masked: bool
) -> tuple[SearchRegion, NDArray[np.float32], NDArray[np.float32]]:
    """Balls of radius 9 lit from the left (their right third shade) each with a cast
    shadow to the right; ``masked``: the table's mask ends 12 px from the right border."""
    size, radius = 120, 9.0
    v, u = np.mgrid[0:size, 0:size].astype(np.float64)
    lit = np.zeros((size, size), bool)
    shade = np.zeros((size, size), bool)
    for x, y in centres_xy:
        disc = np.hypot(u - x, v - y) <= radius * 1.1
        shadow = np.hypot(u - x - 0.6 * radius, v - y) <= radius
        lit |= disc & (u < x + 0.3 * radius)
        shade |= (disc | shadow) & ~(disc & (u < x + 0.3 * radius))
    distance = np.where(lit, 20.0, 0.0).astype(np.float32)
    valid = (u < size - 12).astype(np.uint8) if masked else None
    region = SearchRegion(
        image=np.zeros((size, size, 3), np.uint8),
        distance=distance,
        foreground=lit.astype(np.uint8),
        radius=np.full((size, size), radius, np.float32),
        gradient=np.zeros((size, size, 2), np.float32),
        centre_valid=np.ones((size, size), np.uint8),
        threshold=10.0,
        valid=valid,
        shade=shade.astype(np.uint8),
    )
    weight = np.clip((distance - 5.0) / 10.0, 0.0, 1.0).astype(np.float32)
    return region, weight, np.maximum(weight, shade).astype(np.float32)


@pytest.mark.parametrize("masked", [False, True], ids=["no-mask", "masked"])
@pytest.mark.parametrize("count", [1, 3], ids=lambda c: f"{c}-balls")
def test_drawn_half_lit_balls_are_placed_as_the_numpy_form_places_them(
    count: int, masked: bool
) -> None:
    places = [(40.0, 40.0), (80.0, 75.0), (100.0, 30.0)][:count]
    region, lit, ball = _half_lit(places, masked)
    rng = np.random.default_rng(count + 10 * masked)
    for _ in range(5):
        # Starts toward the light and into the shadow, up to half a radius off.
        start = np.array(places) + rng.uniform(-4.5, 4.5, (count, 2))
        radius = np.full(count, 9.0)
        _agree(region, start, radius, lit, ball)
    moved, held = centre_kernels.outline_centres(region, start, radius, lit, ball)
    # The fit pulls each ball back toward its drawn centre (not into its shadow); the third
    # ball's right side, against the mask, shows no outline there.
    inner = slice(0, 2)
    assert held[inner].all()
    assert np.all(np.linalg.norm(moved[inner] - np.array(places)[inner], axis=1) < 2.0)


def test_without_the_compiled_kernels_the_numpy_form_answers() -> None:
    region, lit, ball = _half_lit([(40.0, 40.0)], False)
    start = np.array([[37.0, 41.0]])
    previous = kernels.use_compiled(False)
    try:
        assert not centre_kernels.usable()
        plain = centre_kernels.outline_centres(region, start, np.full(1, 9.0), lit, ball)
    finally:
        kernels.use_compiled(previous)
    expected = centres.outline_centres(region, start, np.full(1, 9.0), lit, ball)
    assert np.array_equal(plain[0], expected[0]) and np.array_equal(plain[1], expected[1])
