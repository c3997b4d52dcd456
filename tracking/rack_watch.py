"""Whether a located rack's places still show what they showed when it was located.

A struck rack changes its places' pixels on the frame its balls start to move, before any
detection on a place moves off it: a ball that leaves its place is no longer on it, so a
test of the detections on places never sees it move, and a hinted window may still return
a ball where it stood. `tracking.rack_fill.RackFiller` stops filling the moment its places'
pixels change.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.camera import BALL_CENTRE_HEIGHT_MM
from vision.cloth import cloth_distance


class PlaceWatch:
    """Each rack place's disc (within 0.85 radii) as it was when the rack was located, and
    whether it changed since.

    Args:
        diameter_mm: ball diameter, mm.
        changed_fraction: share of a place's disc whose pixels must change, each by the
            detector's foreground threshold, for the place to have changed; raising it waits
            for larger changes (1 or more: never).
    """

    def __init__(self, diameter_mm: float, changed_fraction: float) -> None:
        self.diameter_mm = diameter_mm
        self.changed_fraction = changed_fraction
        self._discs: list[NDArray[np.int64]] | None = None
        self._before = np.zeros((0, 3), np.float32)

    def reset(self) -> None:
        """Forget the places' pixels (a new rack: the next `changed` keeps them again)."""
        self._discs = None

    def changed(
        self,
        image: NDArray[np.uint8],
        camera: Any,
        centres: NDArray[np.float64],
        threshold: tuple[float, float],
    ) -> bool:
        """Whether any place's disc changed since the first call after `reset` (which keeps
        the discs' pixels and returns False).

        Args:
            image: (H, W, 3) uint8 BGR frame.
            camera: the calibrated camera (``project``, ``ball_radius_px``).
            centres: (10, 2) the places' centres, table mm (the rack as located).
            threshold: the detector's foreground distance (8-bit colour units) and its
                ``dark_ratio`` (`vision.cloth.cloth_distance`).
        """
        flat = image.reshape(-1, 3)
        if self._discs is None:
            self._discs = _discs(image.shape[:2], camera, centres, self.diameter_mm)
            self._before = np.concatenate([flat[d] for d in self._discs]).astype(np.float32)
            return False
        sizes = np.array([len(d) for d in self._discs])
        if sizes.sum() == 0:
            return False
        now = np.concatenate([flat[d] for d in self._discs])
        distance = cloth_distance(now[None], self._before[None], threshold[1]).ravel()
        moved = (distance > threshold[0]).astype(np.float64)
        starts = np.r_[0, np.cumsum(sizes)[:-1]]
        share = np.add.reduceat(moved, np.minimum(starts, len(moved) - 1)) / np.maximum(sizes, 1)
        share[sizes == 0] = 0.0
        return bool(np.any(share >= self.changed_fraction))


def _discs(
    shape: tuple[int, ...], camera: Any, centres: NDArray[np.float64], diameter_mm: float
) -> list[NDArray[np.int64]]:
    """Each of the (P, 2) places' discs within 0.85 radii: flat indices into a frame of
    (H, W) ``shape``, inside it."""
    uv = camera.project(centres, BALL_CENTRE_HEIGHT_MM)
    radius = 0.85 * camera.ball_radius_px(centres, diameter_mm / 2.0)
    height, width = int(shape[0]), int(shape[1])
    discs = []
    for (u, v), r in zip(uv, radius, strict=True):
        vv, uu = np.mgrid[
            max(int(v - r), 0) : min(int(v + r) + 2, height),
            max(int(u - r), 0) : min(int(u + r) + 2, width),
        ]
        inside = (uu - u) ** 2 + (vv - v) ** 2 <= r * r
        discs.append((vv[inside] * width + uu[inside]).astype(np.int64))
    return discs
