"""Where the detector searches: the windows around hints, and what they explain.

The detector (`vision.detector.BallDetector`) searches windows around the places the tracker
expects balls rather than the whole table. These helpers lay out those windows, tell which
hints a search explained, drop the duplicates of one ball found twice, and remember each
layout's median ball radius (hinted windows move with the balls: most layouts are seen once).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.candidates import median_of_radii
from vision.mosaic import Box, Mosaic, merge_boxes
from vision.types import Frame

EXPLAINED_RADII = 1.5
"""A hint is explained by a ball found nearer to it than this many ball radii."""
MEDIANS_KEPT = 64
"""Window layouts whose median radius is remembered."""
CLEARED_RADII = 1.6
"""`cleared` clears this many ball radii (plus 2 px) around each ball."""

Found = tuple[NDArray[np.float64], NDArray[np.float64], list[NDArray[np.uint8]]]
"""What a search found: (K, 2) centres, frame px; (K,) confidences; K arrays of pixels."""


def joined(first: Found, second: Found) -> Found:
    """The balls of two searches, the first's first."""
    return (
        np.vstack([first[0], second[0]]),
        np.concatenate([first[1], second[1]]),
        first[2] + second[2],
    )


def cleared(
    mask: NDArray[np.uint8], xy_px: NDArray[np.float64], radius_px: NDArray[np.float64]
) -> NDArray[np.uint8]:
    """A copy of the (H, W) `mask` with 0 in a disc of `CLEARED_RADII` radii (+2 px) around
    each of (K, 2) `xy_px` (ball radii (K,), px)."""
    out = mask.copy()
    for (u, v), radius in zip(xy_px, radius_px, strict=True):
        centre = (round(float(u)), round(float(v)))
        cv2.circle(out, centre, round(CLEARED_RADII * float(radius)) + 2, 0, -1)
    return out


def check_size(frame: Frame, size: tuple[int, int]) -> None:
    """Raise ValueError unless the frame is `size` (width, height) px, the calibration's."""
    if frame.size != size:
        raise ValueError(
            f"frame is {frame.size[0]}x{frame.size[1]} but the calibration is for "
            f"{size[0]}x{size[1]}"
        )


def whole(bounds: Box) -> list[Box]:
    """The one box of the whole searched table (none if it is empty)."""
    return [bounds] if bounds[2] > bounds[0] and bounds[3] > bounds[1] else []


def window_half(radius_px: NDArray[np.float64], window_radii: float) -> NDArray[np.float64]:
    """(K,) half-size, px, of the search windows around balls of (K,) radii, px: `window_radii`
    radii and 2 px more, rounded up."""
    half: NDArray[np.float64] = np.ceil(window_radii * radius_px) + 2
    return half


def hint_boxes(
    hints_px: NDArray[np.float64], half_px: NDArray[np.float64], bounds: Box
) -> list[Box]:
    """The merged frame boxes of half-size (M,) `half_px` around (M, 2) `hints_px`, clipped
    to `bounds` (u0, v0, u1, v1); boxes thinner than 3 px are dropped."""
    boxes = np.column_stack([hints_px - half_px[:, None], hints_px + half_px[:, None] + 1])
    boxes[:, [0, 2]] = np.clip(boxes[:, [0, 2]], bounds[0], bounds[2])
    boxes[:, [1, 3]] = np.clip(boxes[:, [1, 3]], bounds[1], bounds[3])
    merged = merge_boxes(np.round(boxes).astype(np.int64))
    return [b for b in merged if b[2] - b[0] > 2 and b[3] - b[1] > 2]


def unexplained(
    hints_px: NDArray[np.float64], radius_px: NDArray[np.float64], found_px: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """(M,) whether each of (M, 2) `hints_px` (ball radii (M,)) has no ball of (K, 2)
    `found_px` within `EXPLAINED_RADII` of its radius."""
    gaps = np.linalg.norm(hints_px[:, None, :] - found_px[None, :, :], axis=2)
    lone: NDArray[np.bool_] = ~np.any(gaps < EXPLAINED_RADII * radius_px[:, None], axis=1)
    return lone


def dedupe(
    xy: NDArray[np.float64], confidence: NDArray[np.float64], radius: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """(K,) keep mask: the less confident of two detections closer than one radius goes."""
    keep = np.ones(len(xy), bool)
    for i in np.argsort(-confidence):
        if not keep[i]:
            continue
        close = np.hypot(*(xy - xy[i]).T) < radius[i]
        close[i] = False
        keep &= ~close
    return keep


class MedianRadii:
    """The median ball radius over a mosaic's pixels, remembered per layout of windows (the
    whole table's is the same at every full search)."""

    def __init__(self) -> None:
        self._medians: dict[bytes, float] = {}

    def of(self, mosaic: Mosaic, radius: NDArray[np.float32]) -> float:
        """The median of `radius`, the mosaic's (H, W) radius map, px."""
        key = mosaic.frame_boxes.tobytes() + mosaic.origins.tobytes()
        median = self._medians.get(key)
        if median is None:
            if len(self._medians) >= MEDIANS_KEPT:
                self._medians.clear()
            median = self._medians[key] = median_of_radii(radius)
        return median
