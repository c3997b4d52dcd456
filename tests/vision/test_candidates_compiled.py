"""The compiled kernels (vision.kernels) give exactly what the NumPy forms in
vision.candidates and vision.confidence give: the same centres, pixels and confidences, bit
for bit, on crowded,
overlapping, border-cut and off-map balls (a review's outputs stay byte for byte the same
whether numba is installed or not)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from vision import kernels
from vision.candidates import SearchRegion
from vision.confidence import confidence, rim_shares
from vision.discs import ball_pixels, refine_centres

pytestmark = pytest.mark.skipif(not kernels.compiled(), reason="numba is not installed")


@pytest.fixture
def numpy_forms() -> Iterator[None]:
    """Within the test body the callers' NumPy forms run; the switch is restored after."""
    previous = kernels.use_compiled(False)
    yield
    kernels.use_compiled(previous)


def _balls(seed: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Balls crowded into a small area (touching, overlapping, some off a 60 x 40 map)."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-4.0, 64.0, (count, 2)), rng.uniform(5.0, 9.0, count)


def _both(function: object, *args: object) -> tuple[object, object]:
    kernels.use_compiled(True)
    fast = function(*args)  # type: ignore[operator]
    kernels.use_compiled(False)
    plain = function(*args)  # type: ignore[operator]
    return fast, plain


# Counts past 7 give balls more than six near neighbours (only the six nearest cut).
@pytest.mark.parametrize("count", [1, 2, 5, 12, 40], ids=lambda c: f"{c}-balls")
@pytest.mark.parametrize("seed", range(3))
def test_refine_centres_compiled_is_the_numpy_form(
    seed: int, count: int, numpy_forms: None
) -> None:
    rng = np.random.default_rng(200 + seed)
    weight = rng.random((40, 60)).astype(np.float32) * (rng.random((40, 60)) > 0.3)
    xy, radius = _balls(seed, count)
    fast, plain = _both(refine_centres, weight, xy, radius, 3)
    assert np.array_equal(fast, plain)  # type: ignore[arg-type]


@pytest.mark.parametrize("count", [1, 2, 5, 12, 40], ids=lambda c: f"{c}-balls")
@pytest.mark.parametrize("seed", range(3))
def test_ball_pixels_compiled_is_the_numpy_form(seed: int, count: int, numpy_forms: None) -> None:
    rng = np.random.default_rng(300 + seed)
    image = rng.integers(0, 256, (40, 60, 3), dtype=np.uint8)
    xy, radius = _balls(seed, count)
    fast, plain = _both(ball_pixels, image, xy, radius)
    assert isinstance(fast, list) and isinstance(plain, list)
    assert len(fast) == len(plain) == count
    for mine, theirs in zip(fast, plain, strict=True):
        assert mine.dtype == theirs.dtype == np.uint8
        assert np.array_equal(mine, theirs)


def test_a_larger_overlapping_ball_hides_its_disc_in_both_forms(numpy_forms: None) -> None:
    image = np.arange(40 * 60 * 3, dtype=np.int64).reshape(40, 60, 3).astype(np.uint8)
    xy = np.array([[20.0, 20.0], [28.0, 20.0]])
    radius = np.array([6.0, 8.0])
    fast, plain = _both(ball_pixels, image, xy, radius)
    assert isinstance(fast, list) and isinstance(plain, list)
    # The smaller ball, behind, keeps less than the half-disc a bisector would leave it.
    assert len(fast[0]) < len(fast[1]) / 2
    assert all(np.array_equal(a, b) for a, b in zip(fast, plain, strict=True))


def test_refine_centres_compiled_moves_a_ball_onto_its_blob(numpy_forms: None) -> None:
    kernels.use_compiled(True)
    weight = np.zeros((40, 60), np.float32)
    yy, xx = np.mgrid[:40, :60]
    weight[(xx - 30.0) ** 2 + (yy - 18.0) ** 2 <= 49.0] = 1.0
    got = refine_centres(weight, np.array([[27.4, 20.2]]), np.array([7.0]), 3)
    assert np.allclose(got, [[30.0, 18.0]], atol=0.5)
    assert refine_centres(weight, np.zeros((0, 2)), np.zeros(0), 3).shape == (0, 2)
    assert ball_pixels(np.zeros((40, 60, 3), np.uint8), np.zeros((0, 2)), np.zeros(0)) == []


def test_switching_reports_the_previous_setting(numpy_forms: None) -> None:
    assert kernels.use_compiled(True) is False
    assert kernels.compiled()
    assert kernels.use_compiled(False) is True
    assert not kernels.compiled()


def _region(seed: int, shade: bool, hued: bool) -> SearchRegion:
    """A 40 x 60 region of random maps (foreground, shade and hued 0/1; gradients either
    side of the edge bar), with shade and hued known or not."""
    rng = np.random.default_rng(400 + seed)
    distance = (rng.random((40, 60)) * 30.0).astype(np.float32)
    foreground = (distance > 10.0).astype(np.uint8)

    def mask() -> np.ndarray:
        return (rng.random((40, 60)) > 0.5).astype(np.uint8)

    return SearchRegion(
        image=rng.integers(0, 256, (40, 60, 3), dtype=np.uint8),
        distance=distance,
        foreground=foreground,
        radius=np.full((40, 60), 7.0, np.float32),
        gradient=(rng.normal(0.0, 3.0, (40, 60, 2))).astype(np.float32),
        centre_valid=np.ones((40, 60), np.uint8),
        threshold=10.0,
        separation=np.full((40, 60), 1.8, np.float32),
        shade=mask() if shade else None,
        hued=mask() if hued else None,
    )


@pytest.mark.parametrize(
    ("shade", "hued"), [(False, False), (True, False), (True, True)], ids=["plain", "shade", "hued"]
)
@pytest.mark.parametrize("count", [1, 3, 12], ids=lambda c: f"{c}-balls")
@pytest.mark.parametrize("seed", range(3))
def test_confidence_compiled_is_the_numpy_form(
    seed: int, count: int, shade: bool, hued: bool, numpy_forms: None
) -> None:
    region = _region(seed, shade, hued)
    xy, radius = _balls(seed, count)
    fast, plain = _both(confidence, region, xy, radius, 2.0, 0.6)
    assert isinstance(fast, tuple) and isinstance(plain, tuple)
    assert np.array_equal(fast[0], plain[0]) and np.array_equal(fast[1], plain[1])
    # Not all trivially zero: the random maps give some evidence somewhere.
    assert count == 1 or np.any(plain[0] > 0) or np.any(plain[1] > 0)


@pytest.mark.parametrize(
    ("shade", "hued"), [(False, False), (True, False), (True, True)], ids=["plain", "shade", "hued"]
)
@pytest.mark.parametrize("count", [0, 1, 3, 12], ids=lambda c: f"{c}-balls")
@pytest.mark.parametrize("seed", range(3))
def test_rim_shares_compiled_is_the_numpy_form(
    seed: int, count: int, shade: bool, hued: bool, numpy_forms: None
) -> None:
    region = _region(seed, shade, hued)
    xy, radius = _balls(seed, count)
    fast, plain = _both(rim_shares, region, xy, radius)
    assert isinstance(fast, tuple) and isinstance(plain, tuple)
    assert all(np.array_equal(a, b) for a, b in zip(fast, plain, strict=True))
    assert all(a.shape == (count,) and a.dtype == np.float64 for a in fast)
    # Some ball shows both lit and shaded rim samples on these random maps.
    assert count < 3 or not shade or np.any(plain[1] != 0)
