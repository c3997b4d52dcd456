"""Search windows packed into one small image, so a frame's windows cost one pass.

When the tracker says where the balls should be, the detector looks only in a window around
each. Processing ten windows one by one costs ten times every per-call overhead; packing them
side by side (with a gap of empty pixels between) into a mosaic costs it once and the work
scales with the pixels searched.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from vision import kernels, point_kernels

ScalarT = TypeVar("ScalarT", bound=np.generic)

Box = tuple[int, int, int, int]
"""(u0, v0, u1, v1) pixel box, end exclusive."""

GAP_PX = 3
"""Empty pixels between tiles (more than the 3x3 filters reach)."""


@dataclass(frozen=True, slots=True, eq=False)
class Mosaic:
    """Where each window sits in the frame and in the mosaic.

    Attributes:
        frame_boxes: (T, 4) int64 windows in the frame (u0, v0, u1, v1).
        origins: (T, 2) int64 top-left corner of each window in the mosaic (u, v).
        bounds: (4,) int64 the region windows were clipped to; a window side on it is a
            real edge (nothing beyond), any other side cuts through the picture.
        shape: (height, width) of the mosaic.
    """

    frame_boxes: NDArray[np.int64]
    origins: NDArray[np.int64]
    bounds: NDArray[np.int64]
    shape: tuple[int, int]

    def gather(self, array: NDArray[ScalarT]) -> NDArray[ScalarT]:
        """The windows of a frame-sized (H, W[, C]) array, packed; zeros in the gaps.

        A single window (a full search) is returned as a view of `array`, not a copy:
        treat the result as read-only.
        """
        if len(self.frame_boxes) == 1:
            u0, v0, u1, v1 = (int(x) for x in self.frame_boxes[0])
            if (v1 - v0, u1 - u0) == self.shape:
                return array[v0:v1, u0:u1]
        out = np.zeros((*self.shape, *array.shape[2:]), dtype=array.dtype)
        for (u0, v0, u1, v1), (mu, mv) in zip(
            self.frame_boxes.tolist(), self.origins.tolist(), strict=True
        ):
            out[mv : mv + v1 - v0, mu : mu + u1 - u0] = array[v0:v1, u0:u1]
        return out

    def gather_planes(self, planes: NDArray[ScalarT]) -> NDArray[ScalarT]:
        """`gather` of a (P, H, W) stack of frame-sized maps: (P, h, w), one pass for all P
        maps (a frame's many per-pixel maps cost one loop over the tiles, not one each).

        A single window (a full search) is returned as a view of `planes`: treat the
        result as read-only.
        """
        if len(self.frame_boxes) == 1:
            u0, v0, u1, v1 = (int(x) for x in self.frame_boxes[0])
            if (v1 - v0, u1 - u0) == self.shape:
                return planes[:, v0:v1, u0:u1]
        out = np.zeros((len(planes), *self.shape), dtype=planes.dtype)
        for (u0, v0, u1, v1), (mu, mv) in zip(
            self.frame_boxes.tolist(), self.origins.tolist(), strict=True
        ):
            out[:, mv : mv + v1 - v0, mu : mu + u1 - u0] = planes[:, v0:v1, u0:u1]
        return out

    def tile_of(self, xy: NDArray[np.float64]) -> NDArray[np.int64]:
        """(K,) tile index of (K, 2) mosaic points (-1 in a gap)."""
        if kernels.compiled():
            return point_kernels.tile_of(xy, self.frame_boxes, self.origins)
        sizes = self.frame_boxes[:, 2:] - self.frame_boxes[:, :2]
        low = self.origins[None, :, :]
        inside = np.all(
            (xy[:, None, :] >= low - 0.5) & (xy[:, None, :] < low + sizes[None] - 0.5), axis=2
        )
        found = np.where(inside.any(axis=1), np.argmax(inside, axis=1), -1)
        return found.astype(np.int64)

    def to_frame(self, xy: NDArray[np.float64]) -> NDArray[np.float64]:
        """(K, 2) frame pixels of (K, 2) mosaic points (all inside tiles)."""
        tiles = self.tile_of(xy)
        shift = (self.frame_boxes[tiles, :2] - self.origins[tiles]).astype(np.float64)
        frame_xy: NDArray[np.float64] = xy + shift
        return frame_xy

    def cut_distance(
        self, xy: NDArray[np.float64], tiles: NDArray[np.int64] | None = None
    ) -> NDArray[np.float64]:
        """(K,) distance of mosaic points from their tile's nearest side that cuts through
        the picture (inf when all its sides are real edges); `tiles`: their `tile_of`, when
        already known."""
        tiles = self.tile_of(xy) if tiles is None else tiles
        if kernels.compiled():
            return point_kernels.cut_distance(
                xy, tiles, self.frame_boxes, (self.origins, self.bounds)
            )
        box = self.frame_boxes[tiles].astype(np.float64)
        frame_xy = xy + (box[:, :2] - self.origins[tiles])
        gaps = np.column_stack(
            [
                frame_xy[:, 0] - box[:, 0],
                frame_xy[:, 1] - box[:, 1],
                box[:, 2] - 1 - frame_xy[:, 0],
                box[:, 3] - 1 - frame_xy[:, 1],
            ]
        )
        is_edge = box == self.bounds[None, :].astype(np.float64)
        gaps[is_edge] = np.inf
        nearest: NDArray[np.float64] = gaps.min(axis=1)
        return nearest


def merge_boxes(boxes: NDArray[np.int64]) -> list[Box]:
    """Union overlapping boxes until none overlap."""
    merged = [(int(b[0]), int(b[1]), int(b[2]), int(b[3])) for b in boxes]
    changed = True
    while changed:
        changed = False
        out: list[Box] = []
        for box in merged:
            for k, other in enumerate(out):
                if (
                    box[0] < other[2]
                    and other[0] < box[2]
                    and box[1] < other[3]
                    and other[1] < box[3]
                ):
                    out[k] = (
                        min(box[0], other[0]),
                        min(box[1], other[1]),
                        max(box[2], other[2]),
                        max(box[3], other[3]),
                    )
                    changed = True
                    break
            else:
                out.append(box)
        merged = out
    return merged


def pack(boxes: list[Box], bounds: Box) -> Mosaic:
    """Shelf-pack windows (tallest first) into rows about as wide as the widest window
    times the square root of their count."""
    frame_boxes = np.array(boxes, dtype=np.int64).reshape(-1, 4)
    # Plain Python over the few windows of a frame: NumPy's per-call cost is most of it.
    sizes = [(u1 - u0, v1 - v0) for u0, v0, u1, v1 in frame_boxes.tolist()]
    widest = max(w for w, _ in sizes)
    row_width = max(widest, int(math.sqrt(len(sizes)) * widest))
    origins = [(0, 0)] * len(sizes)
    u = v = row_height = width = 0
    # Tallest first; Python's sort is stable, as argsort(kind="stable") of the negated heights.
    for index in sorted(range(len(sizes)), key=lambda i: -sizes[i][1]):
        w, h = sizes[index]
        if u > 0 and u + w > row_width:
            u, v, row_height = 0, v + row_height + GAP_PX, 0
        origins[index] = (u, v)
        width = max(width, u + w)  # no gap after the last tile: one window is the mosaic
        u += w + GAP_PX
        row_height = max(row_height, h)
    return Mosaic(
        frame_boxes,
        np.array(origins, np.int64).reshape(-1, 2),
        np.array(bounds, np.int64),
        (v + row_height, width),
    )
