"""What the detector knows before it sees a ball: where the playing surface is, how big a
ball looks at every pixel, and what colour the cloth is there.

`TableView` comes from a calibration (or, for uncalibrated images, from a mask and a radius).
`ClothModel` is learned from one frame: the cloth's colour per pixel in Lab, estimated
robustly (balls, hands and shadows are left out) and smooth, so a lamp's bright spot or dark
corners do not read as balls.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import BALL_CENTRE_HEIGHT_MM, CameraModel
from calibration.io import Calibration
from calibration.table import TableSpec

Box = tuple[int, int, int, int]
"""(u0, v0, u1, v1) pixel box, end exclusive."""

_RADIUS_GRID_PX = 16
_CLOTH_CELL_PX = 8


def surface_outline_mm(table: TableSpec, margin_mm: float) -> NDArray[np.float64]:
    """(8, 2) octagon of the playing surface: the rectangle with its corner pockets cut at
    the mouths' jaw line, grown by `margin_mm` on every side; table mm."""
    length, width = table.length_mm + margin_mm, table.width_mm + margin_mm
    low = -margin_mm
    cut = table.corner_mouth_mm / math.sqrt(2.0)
    return np.array(
        [
            (low + cut, low),
            (length - cut, low),
            (length, low + cut),
            (length, width - cut),
            (length - cut, width),
            (low + cut, width),
            (low, width - cut),
            (low, low + cut),
        ],
        dtype=np.float64,
    )


def _outline_px(camera: CameraModel, outline_mm: NDArray[np.float64]) -> NDArray[np.int32]:
    """Project an outline densely (lens distortion bends straight edges) to int pixels."""
    closed = np.vstack([outline_mm, outline_mm[:1]])
    steps = np.linspace(0.0, 1.0, 32, endpoint=False)[:, None]
    dense = np.vstack([a + steps * (b - a) for a, b in itertools.pairwise(closed)])
    uv = camera.project(dense, BALL_CENTRE_HEIGHT_MM)
    return np.round(uv).astype(np.int32)


@dataclass(frozen=True, slots=True, eq=False)
class TableView:
    """The playing surface as one camera sees it.

    Attributes:
        valid: (H, W) uint8 mask, 1 where a ball's pixels may lie (the playing surface at the
            ball-centre height, grown by a margin so balls frozen to a cushion are whole).
        radius_px: (H, W) float32 apparent ball radius at each pixel, pixels.
        camera: the camera, or None for an uncalibrated view (no table positions).
    """

    valid: NDArray[np.uint8]
    radius_px: NDArray[np.float32]
    camera: CameraModel | None

    @classmethod
    def from_calibration(cls, calibration: Calibration, margin_mm: float = 20.0) -> TableView:
        """Mask and radius map of a calibrated table; `margin_mm` grows the surface outline."""
        camera, table = calibration.camera, calibration.table
        width, height = camera.image_size
        valid = np.zeros((height, width), np.uint8)
        outline = _outline_px(camera, surface_outline_mm(table, margin_mm))
        cv2.fillPoly(valid, [outline], 1)
        us = np.arange(0, width + _RADIUS_GRID_PX, _RADIUS_GRID_PX, dtype=np.float64)
        vs = np.arange(0, height + _RADIUS_GRID_PX, _RADIUS_GRID_PX, dtype=np.float64)
        grid = np.stack(np.meshgrid(us, vs), axis=-1).reshape(-1, 2)
        xy_mm = camera.to_table(grid)
        coarse = camera.ball_radius_px(xy_mm, table.ball_radius_mm).reshape(len(vs), len(us))
        # The grid's last row/column lie at or past the image edge, so scaling by the grid
        # step keeps every grid point at its pixel.
        radius = cv2.resize(
            coarse.astype(np.float32),
            (len(us) * _RADIUS_GRID_PX, len(vs) * _RADIUS_GRID_PX),
            interpolation=cv2.INTER_LINEAR,
        )
        shift = _RADIUS_GRID_PX // 2
        radius = radius[shift : shift + height, shift : shift + width]
        return cls(valid=valid, radius_px=np.ascontiguousarray(radius), camera=camera)

    @classmethod
    def uncalibrated(
        cls, valid: NDArray[np.bool_] | NDArray[np.uint8], radius_px: float
    ) -> TableView:
        """A view of a region (e.g. the cloth found by colour) with one ball size everywhere."""
        mask = (np.asarray(valid, dtype=np.uint8) > 0).astype(np.uint8)
        radius = np.full(mask.shape, float(radius_px), np.float32)
        return cls(valid=mask, radius_px=radius, camera=None)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) px."""
        return (int(self.valid.shape[1]), int(self.valid.shape[0]))

    def bounds(self) -> Box:
        """The bounding box of the valid region."""
        rows = np.flatnonzero(self.valid.any(axis=1))
        cols = np.flatnonzero(self.valid.any(axis=0))
        if len(rows) == 0:
            return (0, 0, 0, 0)
        return (int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1)

    def typical_radius_px(self) -> float:
        """Median ball radius over the valid region, px."""
        inside = self.radius_px[self.valid > 0]
        return float(np.median(inside)) if inside.size else float(np.median(self.radius_px))


def lab_distance(
    lab: NDArray[np.uint8], cloth_lab: NDArray[np.uint8], shadow_weight: float
) -> NDArray[np.float32]:
    """(H, W) float32 colour distance of pixels from the cloth, CIE Lab units.

    Args:
        lab: (H, W, 3) uint8 OpenCV Lab image (L scaled to 0..255, a and b offset by 128).
        cloth_lab: (H, W, 3) uint8 expected cloth colour at each pixel, same encoding.
        shadow_weight: weight of lightness *below* the cloth's; lowering it keeps shadows on
            the cloth out of the foreground (and makes dark balls on dark cloth harder).
    """
    diff = lab.astype(np.float32) - cloth_lab.astype(np.float32)
    lightness = diff[..., 0] * (100.0 / 255.0)
    lightness = np.where(lightness < 0, lightness * shadow_weight, lightness)
    distance: NDArray[np.float32] = np.sqrt(
        lightness * lightness + diff[..., 1] * diff[..., 1] + diff[..., 2] * diff[..., 2]
    )
    return distance


@dataclass(frozen=True, slots=True, eq=False)
class ClothModel:
    """The cloth's colour at every pixel.

    Attributes:
        lab: (H, W, 3) uint8 expected cloth colour, OpenCV Lab encoding.
        noise: robust spread (1.4826 MAD) of cloth pixels' distance from it, Lab units.
    """

    lab: NDArray[np.uint8]
    noise: float

    @classmethod
    def learn(cls, image: NDArray[np.uint8], view: TableView, shadow_weight: float) -> ClothModel:
        """Learn the cloth from one BGR frame, leaving out what is far from its median.

        The first pass takes the median over the whole surface; pixels far from it (balls,
        hands) and a ball radius around them are dropped, and a second pass averages what
        is left over windows of a few ball diameters, so slow changes of light are followed.
        """
        lab = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2Lab), dtype=np.uint8)
        inside = view.valid > 0
        if not inside.any():
            raise ValueError("the table region is empty: cannot learn the cloth colour")
        median = np.median(lab[inside][::7], axis=0).astype(np.uint8)
        flat = np.broadcast_to(median, lab.shape)
        far = lab_distance(lab, np.ascontiguousarray(flat), shadow_weight) > 18.0
        radius = max(2, round(view.typical_radius_px()))
        far = cv2.dilate(far.astype(np.uint8), np.ones((2 * radius + 1,) * 2, np.uint8)) > 0
        keep = (inside & ~far).astype(np.float32)
        local = _masked_smooth(lab, keep, median, window_px=12 * radius)
        distance = lab_distance(lab, local, shadow_weight)[keep > 0]
        spread = (
            1.4826 * float(np.median(np.abs(distance - np.median(distance))))
            if distance.size
            else 2.0
        )
        return cls(lab=local, noise=max(spread, 0.5))


def _masked_smooth(
    lab: NDArray[np.uint8], keep: NDArray[np.float32], fallback: NDArray[np.uint8], window_px: int
) -> NDArray[np.uint8]:
    """Mean of the kept pixels over a window, on a coarse grid, back at full size."""
    height, width = keep.shape
    small_size = (max(1, width // _CLOTH_CELL_PX), max(1, height // _CLOTH_CELL_PX))
    weight = cv2.resize(keep, small_size, interpolation=cv2.INTER_AREA)
    values = cv2.resize(
        lab.astype(np.float32) * keep[..., None], small_size, interpolation=cv2.INTER_AREA
    )
    kernel = max(3, window_px // _CLOTH_CELL_PX) | 1
    weight_sum = cv2.blur(weight, (kernel, kernel))
    value_sum = cv2.blur(values, (kernel, kernel))
    mean = value_sum / np.maximum(weight_sum, 1e-6)[..., None]
    sparse = weight_sum < 0.05
    mean[sparse] = fallback.astype(np.float32)
    full = cv2.resize(mean, (width, height), interpolation=cv2.INTER_LINEAR)
    return np.asarray(np.clip(np.round(full), 0, 255), dtype=np.uint8)
