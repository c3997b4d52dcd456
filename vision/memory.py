"""What the detector found around each ball, kept while the pixels there stay the same.

Between shots the balls lie still for seconds; searching their windows again finds the same
balls at the same places. The memory keeps, per ball the detector found (and per hint where
it found none), the window's pixels at the time. On a later frame a hint near a remembered
ball whose window has not changed gets that ball's result back without a search: the cost
of a still table is one pixel comparison per window.

"Not changed" is measured on the 3x3-averaged largest channel difference, so sensor and
compression noise (uncorrelated from pixel to pixel) averages out while a ball that moved a
fraction of a pixel changes its rim by a good share of its contrast with the cloth.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify import FEATURES
from vision.mosaic import Box


@dataclass(frozen=True, slots=True, eq=False)
class Remembered:
    """Balls found earlier and windows where none was, with their pixels then (columnar).

    Attributes:
        xy_px: (K, 2) float64 ball centre (or the hint, for an empty window), frame px.
        confidence: (K,) float64 the ball's confidence; NaN for an empty window.
        features: (K, F) float32 identification features (`vision.identify.FEATURES`);
            meaningless for an empty window.
        time_s: (K,) float64 when the window was last searched.
        boxes: (K, 4) int64 the window compared (u0, v0, u1, v1), frame px, end exclusive.
        patches: K (h, w, 3) uint8 copies of the window's pixels when it was searched.
    """

    xy_px: NDArray[np.float64]
    confidence: NDArray[np.float64]
    features: NDArray[np.float32]
    time_s: NDArray[np.float64]
    boxes: NDArray[np.int64]
    patches: tuple[NDArray[np.uint8], ...]

    def __post_init__(self) -> None:
        count = len(self.xy_px)
        if self.xy_px.shape != (count, 2) or self.boxes.shape != (count, 4):
            raise ValueError(
                f"xy_px must be (K, 2) and boxes (K, 4), got {self.xy_px.shape} and "
                f"{self.boxes.shape}"
            )
        for name in ("confidence", "time_s"):
            if getattr(self, name).shape != (count,):
                raise ValueError(f"{name} must be ({count},), got {getattr(self, name).shape}")
        if len(self.features) != count or len(self.patches) != count:
            raise ValueError(f"features and patches must have {count} rows")

    @classmethod
    def empty(cls, feature_count: int = len(FEATURES)) -> Remembered:
        """No entries."""
        return cls(
            np.zeros((0, 2)),
            np.zeros(0),
            np.zeros((0, feature_count), np.float32),
            np.zeros(0),
            np.zeros((0, 4), np.int64),
            (),
        )

    def __len__(self) -> int:
        return len(self.xy_px)

    @property
    def is_ball(self) -> NDArray[np.bool_]:
        """(K,) True for balls, False for empty windows."""
        found: NDArray[np.bool_] = np.isfinite(self.confidence)
        return found

    def take(self, index: NDArray[np.int64] | NDArray[np.bool_]) -> Remembered:
        """The entries at an index array or boolean mask."""
        chosen = np.asarray(index)
        if chosen.dtype == bool:
            # The detector mostly keeps all or none: the same entries (nothing here is ever
            # written to) or none, without copying every array.
            if len(chosen) == len(self) and chosen.all():
                return self
            if not chosen.any():
                return Remembered.empty(self.features.shape[1])
            chosen = np.flatnonzero(chosen)
        rows = chosen
        return Remembered(
            self.xy_px[rows],
            self.confidence[rows],
            self.features[rows],
            self.time_s[rows],
            self.boxes[rows],
            tuple(self.patches[int(i)] for i in rows),
        )

    @classmethod
    def concat(cls, first: Remembered, second: Remembered) -> Remembered:
        """Both sets of entries, first then second."""
        if len(second) == 0 and second.features.shape[1] == first.features.shape[1]:
            return first
        if len(first) == 0 and first.features.shape[1] == second.features.shape[1]:
            return second
        return cls(
            np.vstack([first.xy_px, second.xy_px]),
            np.concatenate([first.confidence, second.confidence]),
            np.vstack([first.features, second.features]),
            np.concatenate([first.time_s, second.time_s]),
            np.vstack([first.boxes, second.boxes]),
            first.patches + second.patches,
        )


def window_boxes(
    xy_px: NDArray[np.float64], half_px: NDArray[np.float64], bounds: Box
) -> NDArray[np.int64]:
    """(K, 4) int64 boxes of half-size `half_px` (K,) around (K, 2) points, clipped to
    `bounds` (u0, v0, u1, v1)."""
    centre = np.round(xy_px).astype(np.int64)
    half = np.ceil(half_px).astype(np.int64)[:, None]
    low = np.maximum(centre - half, np.array(bounds[:2], np.int64))
    high = np.minimum(centre + half + 1, np.array(bounds[2:], np.int64))
    boxes: NDArray[np.int64] = np.hstack([low, np.maximum(high, low)])
    return boxes


def crop(image: NDArray[np.uint8], boxes: NDArray[np.int64]) -> tuple[NDArray[np.uint8], ...]:
    """Copies of the (K, 4) boxes of an (H, W, 3) image."""
    return tuple(image[v0:v1, u0:u1].copy() for u0, v0, u1, v1 in boxes.tolist())


def changed(
    image: NDArray[np.uint8],
    remembered: Remembered,
    pixel_change: float,
    max_changed_share: float,
) -> NDArray[np.bool_]:
    """(K,) whether each remembered window now looks different.

    Args:
        image: (H, W, 3) uint8 BGR, the current frame.
        remembered: the windows and their pixels then.
        pixel_change: 3x3-averaged largest-channel difference (8-bit units) above which a
            pixel has changed; raising it keeps results through larger changes (and misses
            sub-pixel moves of faint balls), lowering it searches again on noise.
        max_changed_share: share of the window's pixels that may change before it counts
            as changed; raising it tolerates more flicker and misses more small moves.
    """
    out = np.ones(len(remembered), bool)
    windows = []
    for k, ((u0, v0, u1, v1), then) in enumerate(
        zip(remembered.boxes.tolist(), remembered.patches, strict=True)
    ):
        now = image[v0:v1, u0:u1]
        if now.shape != then.shape or not now.size:
            continue
        if cv2.norm(now, then, cv2.NORM_INF) <= pixel_change:
            # No pixel changed by more than the limit, so no 3x3 mean of them did: the full
            # test's answer (unchanged) for one call. Most still windows end here (measured
            # on sample clips: 57 % of the windows compared, 85 % of the unchanged ones).
            out[k] = False
            continue
        windows.append((k, now, then))
    if not windows:
        return out
    difference = _largest_difference([now for _, now, _ in windows], [t for _, _, t in windows])
    top = 0
    for k, now, _ in windows:
        height, width = now.shape[:2]
        # Each window blurred on its own (its own borders), as a view of the stacked rows.
        smooth = cv2.blur(difference[top : top + height, :width], (3, 3))
        top += height
        allowed = max_changed_share * smooth.size
        out[k] = int(np.count_nonzero(smooth > pixel_change)) > allowed
    return out


def _largest_difference(
    now: list[NDArray[np.uint8]], then: list[NDArray[np.uint8]]
) -> NDArray[np.uint8]:
    """The largest-channel absolute difference of pairs of (h_i, w_i, 3) windows, the pairs
    stacked top to bottom (left-aligned) in one (sum h_i, max w_i) array: one pass for all
    windows instead of one per window."""
    height = sum(window.shape[0] for window in now)
    width = max(window.shape[1] for window in now)
    stacked_now = np.zeros((height, width, 3), np.uint8)
    stacked_then = np.zeros((height, width, 3), np.uint8)
    top = 0
    for current, before in zip(now, then, strict=True):
        rows, columns = current.shape[:2]
        stacked_now[top : top + rows, :columns] = current
        stacked_then[top : top + rows, :columns] = before
        top += rows
    both = cv2.absdiff(stacked_now, stacked_then)
    # Three-way maximum: a reduction over a length-3 axis costs far more.
    largest: NDArray[np.uint8] = np.maximum(np.maximum(both[..., 0], both[..., 1]), both[..., 2])
    return largest


def recall(
    remembered: Remembered,
    hint_xy_px: NDArray[np.float64],
    hint_radius_px: NDArray[np.float64],
    still: NDArray[np.bool_],
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Which hints a still remembered entry explains, and which entries explain a hint.

    A hint is explained by the nearest remembered entry within half a ball radius, when
    that entry's window has not changed.

    Args:
        remembered: K entries.
        hint_xy_px: (M, 2) where the tracker expects balls, frame px.
        hint_radius_px: (M,) ball radius at each hint, px.
        still: (K,) entries whose window has not changed (and are young enough).

    Returns:
        (M,) hints explained, and (K,) entries used by some hint.
    """
    count = len(remembered)
    if count == 0 or len(hint_xy_px) == 0:
        return np.zeros(len(hint_xy_px), bool), np.zeros(count, bool)
    gaps = np.linalg.norm(hint_xy_px[:, None, :] - remembered.xy_px[None, :, :], axis=2)
    nearest = np.argmin(gaps, axis=1)
    close = gaps[np.arange(len(hint_xy_px)), nearest] < 0.5 * hint_radius_px
    explained = close & still[nearest]
    used = np.zeros(count, bool)
    used[nearest[explained]] = True
    return explained, used


CELL_PX = 4
"""Side of the cells the whole-table comparison works on (their mean colour)."""


@dataclass(frozen=True, slots=True, eq=False)
class TableMemory:
    """The whole table as the last full search saw it, cell by cell, and what it found.

    Attributes:
        cells: (h, w, 3) uint8 mean colour of each CELL_PX cell of the searched bounds, as
            when that cell was last searched (cells searched later are newer).
        bounds: (u0, v0, u1, v1) the region the cells cover, frame px.
        complete_time_s: when the whole table was last searched cell for cell.
        balls: the balls the last full search returned.
    """

    cells: NDArray[np.uint8]
    bounds: Box
    complete_time_s: float
    balls: Remembered


def table_cells(image: NDArray[np.uint8], bounds: Box) -> NDArray[np.uint8]:
    """(h, w, 3) uint8 mean colour of the CELL_PX cells of `bounds` in an image (averaging
    a cell divides the noise by CELL_PX)."""
    u0, v0, u1, v1 = bounds
    size = (max(1, (u1 - u0) // CELL_PX), max(1, (v1 - v0) // CELL_PX))
    region = image[v0 : v0 + size[1] * CELL_PX, u0 : u0 + size[0] * CELL_PX]
    cells = cv2.resize(region, size, interpolation=cv2.INTER_AREA)
    return np.asarray(cells, np.uint8)


def changed_cells(
    now: NDArray[np.uint8], before: NDArray[np.uint8], pixel_change: float
) -> NDArray[np.uint8]:
    """(h, w) uint8 1 where a cell's mean colour moved by more than `pixel_change` in some
    channel."""
    both = cv2.absdiff(now, before)
    largest = np.maximum(np.maximum(both[..., 0], both[..., 1]), both[..., 2])
    moved: NDArray[np.uint8] = (largest > pixel_change).astype(np.uint8)
    return moved


def grow(mask: NDArray[np.uint8], reach_px: float) -> NDArray[np.uint8]:
    """A cell mask grown by `reach_px` frame pixels (a square of cells)."""
    cells = int(np.ceil(reach_px / CELL_PX))
    if cells <= 0:
        return mask
    grown = cv2.dilate(mask, np.ones((2 * cells + 1,) * 2, np.uint8))
    return np.asarray(grown, np.uint8)


def cell_boxes(mask: NDArray[np.uint8], bounds: Box) -> NDArray[np.int64]:
    """(B, 4) int64 frame boxes (u0, v0, u1, v1) around the connected parts of a cell mask
    over `bounds`, clipped to them."""
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count <= 1:
        return np.zeros((0, 4), np.int64)
    parts = stats[1:, :4].astype(np.int64)
    u0, v0, u1, v1 = bounds
    low = parts[:, :2] * CELL_PX + np.array([u0, v0])
    high = low + parts[:, 2:4] * CELL_PX
    # The last row and column of cells may stop short of the bounds: reach them.
    high[:, 0] = np.where(parts[:, 0] + parts[:, 2] >= mask.shape[1], u1, high[:, 0])
    high[:, 1] = np.where(parts[:, 1] + parts[:, 3] >= mask.shape[0], v1, high[:, 1])
    boxes: NDArray[np.int64] = np.hstack([low, np.minimum(high, [u1, v1])])
    return boxes


def in_mask(xy_px: NDArray[np.float64], mask: NDArray[np.uint8], bounds: Box) -> NDArray[np.bool_]:
    """(K,) whether frame points fall on a set cell of a mask over `bounds` (points
    outside the cells count as set)."""
    u = np.floor((xy_px[:, 0] - bounds[0]) / CELL_PX).astype(np.int64)
    v = np.floor((xy_px[:, 1] - bounds[1]) / CELL_PX).astype(np.int64)
    height, width = mask.shape
    outside = (u < 0) | (v < 0) | (u >= width) | (v >= height)
    found: NDArray[np.bool_] = outside.copy()
    found[~outside] = mask[v[~outside], u[~outside]] > 0
    return found
