"""The compiled point reads (`vision.point_kernels`) give exactly what their NumPy forms
give: `map_at` on (H, W) and (H, W, C) maps of each dtype the search reads, strided views
included, at points inside, on pixel halves (rounded to even), off the map and NaN; and
`Mosaic.tile_of` and `Mosaic.cut_distance` on points in tiles, on tile borders, in the gaps
between them and on the bounds' edges."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from vision import kernels
from vision.candidates import map_at
from vision.mosaic import pack

pytestmark = pytest.mark.skipif(not kernels.compiled(), reason="numba is not installed")


@pytest.fixture
def restore_switch() -> Iterator[None]:
    previous = kernels.use_compiled(True)
    yield
    kernels.use_compiled(previous)


def _both(function: object, *args: object) -> tuple[np.ndarray, np.ndarray]:
    kernels.use_compiled(True)
    fast = function(*args)  # type: ignore[operator]
    kernels.use_compiled(False)
    plain = function(*args)  # type: ignore[operator]
    return np.asarray(fast), np.asarray(plain)


def _points(seed: int) -> np.ndarray:
    """Points inside and off a 40 x 60 map, on pixel halves and NaN."""
    rng = np.random.default_rng(seed)
    inside = rng.uniform(-3.0, 63.0, (30, 2))
    halves = np.round(rng.uniform(-2.0, 62.0, (10, 2))) + 0.5
    return np.vstack([inside, halves, [[np.nan, 3.0], [5.0, np.nan], [1e6, -1e6]]])


MAPS = {
    "float32": lambda rng: rng.random((40, 60)).astype(np.float32),
    "uint8": lambda rng: (rng.random((40, 60)) * 255).astype(np.uint8),
    "bgr-uint8": lambda rng: (rng.random((40, 60, 3)) * 255).astype(np.uint8),
    "gradient-float32": lambda rng: rng.normal(size=(40, 60, 2)).astype(np.float32),
    "strided-view": lambda rng: rng.random((50, 80)).astype(np.float32)[5:45, 10:70],
}


# The NumPy form casts NaN to an integer (then clamped), as the compiled one does.
@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("kind", list(MAPS), ids=list(MAPS))
@pytest.mark.parametrize("seed", range(2))
def test_map_at_compiled_is_the_numpy_form(kind: str, seed: int, restore_switch: None) -> None:
    image = MAPS[kind](np.random.default_rng(seed))
    fast, plain = _both(map_at, image, _points(seed))
    assert fast.dtype == plain.dtype == np.float64
    assert fast.shape == plain.shape
    assert np.array_equal(fast, plain)
    assert np.array_equal(*_both(map_at, image, np.zeros((0, 2))))


def test_tile_of_compiled_is_the_numpy_form(restore_switch: None) -> None:
    boxes = [(10, 10, 40, 30), (100, 50, 131, 90), (35, 20, 60, 45), (0, 200, 17, 219)]
    mosaic = pack(boxes, (0, 0, 300, 300))
    height, width = mosaic.shape
    rng = np.random.default_rng(5)
    # Every half pixel over the mosaic and a margin: tile borders, gaps and beyond.
    grid = np.stack(np.meshgrid(np.arange(-2, width + 2, 0.5), np.arange(-2, height + 2, 0.5)))
    xy = np.vstack([grid.reshape(2, -1).T, rng.uniform(-5, width + 5, (200, 2)), [[np.nan, 1]]])
    fast, plain = _both(mosaic.tile_of, xy)
    assert fast.dtype == plain.dtype == np.int64
    assert np.array_equal(fast, plain)
    assert {-1, 0, 1, 2, 3} <= set(fast.tolist())
    assert np.array_equal(*_both(mosaic.to_frame, xy[fast >= 0]))
    assert np.array_equal(*_both(mosaic.cut_distance, xy[fast >= 0]))
    # Points in a gap (tile -1, the last tile as NumPy indexes it) and NaN, tiles given.
    assert np.array_equal(*_both(mosaic.cut_distance, xy, fast), equal_nan=True)
    # A tile on the bounds' sides: those sides are real edges, not cuts (inf when all are).
    whole = pack([(0, 0, 50, 40)], (0, 0, 50, 40))
    inside = np.array([[3.0, 4.0], [49.0, 39.0]])
    assert np.array_equal(*_both(whole.cut_distance, inside))
    assert np.all(np.isinf(whole.cut_distance(inside)))
