"""Search windows packed into one image: gather, tile lookup and the way back to the frame."""

from __future__ import annotations

import numpy as np
import pytest

from vision.mosaic import GAP_PX, merge_boxes, pack

FRAME = np.arange(120 * 160 * 3, dtype=np.int64).reshape(120, 160, 3) % 251
BOUNDS = (0, 0, 160, 120)


@pytest.mark.parametrize(
    "boxes",
    [
        [(10, 10, 40, 30)],
        [(10, 10, 40, 30), (100, 50, 130, 90), (60, 5, 75, 20)],
        [(0, 0, 160, 120)],
    ],
    ids=["one", "three", "whole-frame"],
)
def test_windows_come_back_where_they_were(boxes: list[tuple[int, int, int, int]]) -> None:
    mosaic = pack(boxes, BOUNDS)
    packed = mosaic.gather(FRAME)
    assert packed.shape[:2] == mosaic.shape
    for (u0, v0, u1, v1), (mu, mv) in zip(mosaic.frame_boxes, mosaic.origins, strict=True):
        assert np.array_equal(packed[mv : mv + v1 - v0, mu : mu + u1 - u0], FRAME[v0:v1, u0:u1])
        centre = np.array([[mu + (u1 - u0) / 2.0, mv + (v1 - v0) / 2.0]])
        back = mosaic.to_frame(centre)[0]
        assert np.allclose(back, [(u0 + u1) / 2.0, (v0 + v1) / 2.0])


def test_one_window_is_the_mosaic_and_a_view() -> None:
    mosaic = pack([(10, 10, 40, 30)], BOUNDS)
    assert mosaic.shape == (20, 30)
    assert np.shares_memory(mosaic.gather(FRAME), FRAME)


def test_gaps_are_empty_and_belong_to_no_tile() -> None:
    mosaic = pack([(10, 10, 40, 30), (100, 50, 130, 60)], BOUNDS)
    packed = mosaic.gather(np.ones((120, 160), np.uint8))
    assert packed.sum() == 30 * 20 + 30 * 10
    first_end = int(mosaic.origins[0, 0] + 30)
    gap = np.array([[first_end + GAP_PX / 2.0, 5.0]])
    assert mosaic.tile_of(gap).tolist() == [-1]


def test_overlapping_boxes_merge() -> None:
    boxes = np.array([[0, 0, 10, 10], [5, 5, 20, 20], [30, 30, 40, 40]], np.int64)
    assert sorted(merge_boxes(boxes)) == [(0, 0, 20, 20), (30, 30, 40, 40)]


@pytest.mark.parametrize(
    "boxes",
    [[(10, 10, 40, 30)], [(10, 10, 40, 30), (100, 50, 130, 90), (60, 5, 75, 20)]],
    ids=["one", "three"],
)
def test_stacked_maps_gather_as_each_map_alone(boxes: list[tuple[int, int, int, int]]) -> None:
    mosaic = pack(boxes, BOUNDS)
    planes = np.moveaxis(FRAME, 2, 0)
    packed = mosaic.gather_planes(planes)
    assert packed.shape == (3, *mosaic.shape)
    for channel in range(3):
        assert np.array_equal(packed[channel], mosaic.gather(FRAME[..., channel]))
