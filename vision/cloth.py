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
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import BALL_CENTRE_HEIGHT_MM, CameraModel
from calibration.io import Calibration
from calibration.table import TableSpec
from vision.shading import brightest_channel

Box = tuple[int, int, int, int]
"""(u0, v0, u1, v1) pixel box, end exclusive."""

_RADIUS_GRID_PX = 16
_CLOTH_CELL_PX = 8
_BAND_RADII = 4.0
"""Width of the band along the cushions where an angled camera sees cushion faces and pocket
jaws, in ball radii (about two diameters)."""


def _octagon(low: float, length: float, width: float, cut: float) -> NDArray[np.float64]:
    """(8, 2) the rectangle from (`low`, `low`) to (`length`, `width`) with its corners cut
    `cut` along each side, table mm."""
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


def surface_outline_mm(table: TableSpec, margin_mm: float) -> NDArray[np.float64]:
    """(8, 2) octagon of the playing surface: the rectangle with its corner pockets cut at
    the mouths' jaw line, grown by `margin_mm` on every side; table mm."""
    length, width = table.length_mm + margin_mm, table.width_mm + margin_mm
    low = -margin_mm
    cut = table.corner_mouth_mm / math.sqrt(2.0)
    return _octagon(low, length, width, cut)


def centre_outline_mm(table: TableSpec, inset_mm: float, shelf_mm: float) -> NDArray[np.float64]:
    """(8, 2) octagon where a ball's centre may lie, table mm: the rectangle `inset_mm` inside
    the cushion noses, its corners cut `shelf_mm` behind the corner pockets' jaw lines (a ball
    hanging on a corner pocket's lip rests on the shelf between the jaws, its centre past the
    jaw line, until its centre passes the hole's rim)."""
    jaw = table.corner_mouth_mm / math.sqrt(2.0) - math.sqrt(2.0) * shelf_mm
    cut = max(jaw - 2.0 * inset_mm, 0.0)
    low, length, width = inset_mm, table.length_mm - inset_mm, table.width_mm - inset_mm
    return _octagon(low, length, width, cut)


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
        centre_valid: (H, W) uint8 mask, 1 where a ball's centre may lie (the surface at the
            ball-centre height, shrunk by half a ball radius: a centre is a radius from the
            cushion noses, and pocket holes and cushion faces are left out; with a lip shelf
            (`from_calibration`) it reaches past a corner pocket's jaw line).
        edge_band: (H, W) uint8 mask, 1 on the valid region within about two ball diameters
            of the cushions, where an angled camera sees cushion faces and pocket jaws (in an
            uncalibrated view, as far inside the region's border).
        radius_px: (H, W) float32 apparent ball radius at each pixel, pixels.
        camera: the camera, or None for an uncalibrated view (no table positions).
        separation: (H, W) float32 shortest image distance between the centres of two
            touching balls at each pixel, in ball radii: 2 seen from straight above, less
            where an angled camera foreshortens the table (a ball behind another is then
            partly hidden by it).
    """

    valid: NDArray[np.uint8]
    centre_valid: NDArray[np.uint8]
    radius_px: NDArray[np.float32]
    camera: CameraModel | None
    edge_band: NDArray[np.uint8]
    separation: NDArray[np.float32]

    @classmethod
    def from_calibration(
        cls, calibration: Calibration, margin_mm: float = 20.0, lip_shelf_radii: float | None = None
    ) -> TableView:
        """Mask and radius map of a calibrated table; `margin_mm` grows the surface outline.

        `lip_shelf_radii` (off by default) lets a ball's centre lie that many radii past a
        corner pocket's jaw line, where a ball hangs on the lip (`centre_outline_mm`). Off:
        in review it found fresh s3_top's 10 on the lip but put false balls in the pocket
        mouths of angled views (broadcast_nudge ball-frame precision 0.977 -> 0.880,
        corner_offtable calls 3/3 -> 2/3).
        """
        camera, table = calibration.camera, calibration.table
        width, height = camera.image_size
        valid = np.zeros((height, width), np.uint8)
        outline = _outline_px(camera, surface_outline_mm(table, margin_mm))
        cv2.fillPoly(valid, [outline], 1)
        centre_valid = np.zeros((height, width), np.uint8)
        radius_mm = table.ball_radius_mm
        inner = _outline_px(
            camera,
            surface_outline_mm(table, -0.5 * radius_mm)
            if lip_shelf_radii is None
            else centre_outline_mm(table, 0.5 * radius_mm, lip_shelf_radii * radius_mm),
        )
        cv2.fillPoly(centre_valid, [inner], 1)
        us = np.arange(0, width + _RADIUS_GRID_PX, _RADIUS_GRID_PX, dtype=np.float64)
        vs = np.arange(0, height + _RADIUS_GRID_PX, _RADIUS_GRID_PX, dtype=np.float64)
        grid = np.stack(np.meshgrid(us, vs), axis=-1).reshape(-1, 2)
        xy_mm = camera.to_table(grid)
        coarse = camera.ball_radius_px(xy_mm, table.ball_radius_mm)
        gap = _touching_gap_px(camera, xy_mm, table.ball_radius_mm)
        separation = np.clip(np.nan_to_num(gap / np.maximum(coarse, 1e-6), nan=2.0), 0.5, 2.0)
        radius = _upsample(coarse.reshape(len(vs), len(us)), (height, width))
        separation_map = _upsample(separation.reshape(len(vs), len(us)), (height, width))
        core = np.zeros((height, width), np.uint8)
        inset_mm = -_BAND_RADII * table.ball_radius_mm
        cv2.fillPoly(core, [_outline_px(camera, surface_outline_mm(table, inset_mm))], 1)
        band = valid & (1 - core)
        return cls(valid, centre_valid, radius, camera, band, separation_map)

    @classmethod
    def uncalibrated(
        cls, valid: NDArray[np.bool_] | NDArray[np.uint8], radius_px: float
    ) -> TableView:
        """A view of a region (e.g. the cloth found by colour) with one ball size everywhere."""
        mask = (np.asarray(valid, dtype=np.uint8) > 0).astype(np.uint8)
        radius = np.full(mask.shape, float(radius_px), np.float32)
        reach = max(1, round(radius_px * 0.5))
        centre_valid = cv2.erode(mask, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))
        # Without a camera, the region's own border stands for the cushions: a region found
        # by colour takes in cushion tops and faces of the cloth's colour.
        band_reach = max(1, round(radius_px * _BAND_RADII))
        core = np.asarray(cv2.erode(mask, np.ones((2 * band_reach + 1,) * 2, np.uint8)))
        band = ((mask > 0) & (core == 0)).astype(np.uint8)
        separation = np.full(mask.shape, 2.0, np.float32)
        return cls(mask, np.asarray(centre_valid, np.uint8), radius, None, band, separation)

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


def _touching_gap_px(
    camera: CameraModel, xy_mm: NDArray[np.float64], ball_radius_mm: float
) -> NDArray[np.float64]:
    """(N,) shortest image distance, px, between the centres of two touching balls (2 radii
    apart on the table) around each table point: the projection's smallest stretch (the
    least singular value of its Jacobian, by central differences) times 2 radii."""
    step = 0.25 * ball_radius_mm
    columns = []
    for offset in ((step, 0.0), (0.0, step)):
        shift = np.array(offset)
        ahead = camera.project(xy_mm + shift, BALL_CENTRE_HEIGHT_MM)
        behind = camera.project(xy_mm - shift, BALL_CENTRE_HEIGHT_MM)
        columns.append((ahead - behind) / (2.0 * step))
    jacobian = np.stack(columns, axis=2)
    finite = np.all(np.isfinite(jacobian), axis=(1, 2))
    stretch = np.linalg.svd(np.where(finite[:, None, None], jacobian, 0.0), compute_uv=False)
    gap: NDArray[np.float64] = np.where(finite, 2.0 * ball_radius_mm * stretch[:, -1], np.nan)
    return gap


def _upsample(coarse: NDArray[np.float64], size: tuple[int, int]) -> NDArray[np.float32]:
    """A map sampled every `_RADIUS_GRID_PX` px from (0, 0), at full (height, width)."""
    rows, cols = coarse.shape
    # The grid's last row/column lie at or past the image edge, so scaling by the grid
    # step keeps every grid point at its pixel.
    full = cv2.resize(
        coarse.astype(np.float32),
        (cols * _RADIUS_GRID_PX, rows * _RADIUS_GRID_PX),
        interpolation=cv2.INTER_LINEAR,
    )
    shift = _RADIUS_GRID_PX // 2
    return np.ascontiguousarray(full[shift : shift + size[0], shift : shift + size[1]])


def cloth_distance(
    image: NDArray[np.uint8], cloth: NDArray[np.float32], dark_ratio: float
) -> NDArray[np.float32]:
    """(H, W) float32 how unlike the cloth each pixel is, in 8-bit colour units.

    A shadow on the cloth is the cloth's colour scaled down (as is a cushion face in shade),
    so, as in Horprasert et al.'s background subtraction, a pixel p is split along the
    cloth colour c into a brightness ratio a = p.c / c.c and a colour residual |p - a c|:
    the distance is the residual, plus any brightening beyond the cloth, plus darkening
    below `dark_ratio` of it (a black ball, a pocket), which no shadow reaches.

    Args:
        image: (H, W, 3) uint8 BGR pixels.
        cloth: (H, W, 3) float32 expected BGR cloth colour at each pixel.
        dark_ratio: brightness ratio below which darkness counts; raising it finds the black
            ball on dark cloth better and lets deep shadows in.
    """
    norm = np.sqrt(np.maximum(np.einsum("hwc,hwc->hw", cloth, cloth), 1.0)).astype(np.float32)
    unit = (cloth / norm[..., None]).astype(np.float32)
    return distance_along(image, unit, norm, dark_ratio)


_SUM_CHANNELS = np.ones((1, 3), np.float32)


def distance_along(
    image: NDArray[np.uint8],
    unit: NDArray[np.float32],
    norm: NDArray[np.float32],
    dark_ratio: float,
) -> NDArray[np.float32]:
    """`cloth_distance` with the cloth given as (H, W, 3) unit colour directions and
    (H, W) lengths (the fast form the detector uses every frame)."""
    pixels = image.astype(np.float32)
    along = cv2.transform(cv2.multiply(pixels, unit), _SUM_CHANNELS)
    squared = cv2.transform(cv2.multiply(pixels, pixels), _SUM_CHANNELS)
    residual = np.maximum(squared - along * along, 0.0)
    bright = np.maximum(along - norm, 0.0)
    dark = np.maximum(dark_ratio * norm - along, 0.0) * np.float32(1.0 / max(dark_ratio, 1e-3))
    distance: NDArray[np.float32] = np.sqrt(residual + bright * bright + dark * dark)
    return distance


@dataclass(frozen=True, slots=True, eq=False)
class ClothModel:
    """The cloth's colour at every pixel.

    Attributes:
        bgr: (H, W, 3) float32 expected BGR cloth colour.
        noise: robust spread (1.4826 MAD) of cloth pixels' distance from it.
        channel: the BGR channel in which the cloth is brightest (derived): balls of the
            cloth's hue differ from it most there (`vision.shading`).
    """

    bgr: NDArray[np.float32]
    noise: float
    unit: NDArray[np.float32] = field(init=False, repr=False)
    norm: NDArray[np.float32] = field(init=False, repr=False)
    channel: int = field(init=False)

    def __post_init__(self) -> None:
        squared = np.einsum("hwc,hwc->hw", self.bgr, self.bgr)
        norm = np.sqrt(np.maximum(squared, 1.0)).astype(np.float32)
        object.__setattr__(self, "norm", norm)
        object.__setattr__(self, "unit", (self.bgr / norm[..., None]).astype(np.float32))
        object.__setattr__(self, "channel", brightest_channel(self.bgr))

    @classmethod
    def learn(cls, image: NDArray[np.uint8], view: TableView, dark_ratio: float) -> ClothModel:
        """Learn the cloth from one BGR frame, leaving out what is far from its median.

        The first pass takes the median over the whole surface; pixels far from it (balls,
        hands) and a ball radius around them are dropped, and a second pass averages what
        is left over windows of a few ball diameters, so slow changes of light are followed.
        """
        inside = view.valid > 0
        if not inside.any():
            raise ValueError("the table region is empty: cannot learn the cloth colour")
        median = np.median(image[inside][::7], axis=0).astype(np.float32)
        radius = max(2, round(view.typical_radius_px()))
        rough = _median_map(image, inside, median, window_px=16 * radius)
        far = cloth_distance(image, rough, dark_ratio) > 30.0
        far = cv2.dilate(far.astype(np.uint8), np.ones((2 * radius + 1,) * 2, np.uint8)) > 0
        keep = (inside & ~far).astype(np.float32)
        local = _masked_smooth(image, keep, median, window_px=8 * radius)
        distance = cloth_distance(image, local, dark_ratio)[keep > 0]
        spread = (
            1.4826 * float(np.median(np.abs(distance - np.median(distance))))
            if distance.size
            else 2.0
        )
        return cls(bgr=local, noise=max(spread, 0.5))


def with_static_edges(
    cloth: ClothModel, image: NDArray[np.uint8], static: NDArray[np.bool_]
) -> ClothModel:
    """The cloth model with the frame's own (lightly smoothed) colour taken as background
    where `static` is set: cushion faces, pocket jaws and rail shadows near the cushions,
    which an angled camera sees and which never move."""
    merged = cloth.bgr.copy()
    merged[static] = cv2.blur(image, (3, 3)).astype(np.float32)[static]
    return ClothModel(bgr=merged, noise=cloth.noise)


def _median_map(
    image: NDArray[np.uint8], inside: NDArray[np.bool_], fill: NDArray[np.float32], window_px: int
) -> NDArray[np.float32]:
    """Median colour over windows (wider than a rack) on a coarse grid, at full size: a
    first cloth estimate that follows lamps and dark corners and ignores the balls."""
    height, width = inside.shape
    filled = image.copy()
    filled[~inside] = np.round(fill).astype(np.uint8)
    small_size = (max(1, width // _CLOTH_CELL_PX), max(1, height // _CLOTH_CELL_PX))
    small = cv2.resize(filled, small_size, interpolation=cv2.INTER_AREA)
    kernel = max(3, window_px // _CLOTH_CELL_PX) | 1
    smooth = cv2.medianBlur(small, min(kernel, 255))
    full = cv2.resize(smooth, (width, height), interpolation=cv2.INTER_LINEAR)
    return np.ascontiguousarray(full, dtype=np.float32)


def _masked_smooth(
    image: NDArray[np.uint8],
    keep: NDArray[np.float32],
    fallback: NDArray[np.float32],
    window_px: int,
) -> NDArray[np.float32]:
    """Mean of the kept pixels over a window, on a coarse grid, back at full size."""
    height, width = keep.shape
    small_size = (max(1, width // _CLOTH_CELL_PX), max(1, height // _CLOTH_CELL_PX))
    weight = cv2.resize(keep, small_size, interpolation=cv2.INTER_AREA)
    values = cv2.resize(
        image.astype(np.float32) * keep[..., None], small_size, interpolation=cv2.INTER_AREA
    )
    kernel = max(3, window_px // _CLOTH_CELL_PX) | 1
    weight_sum = cv2.blur(weight, (kernel, kernel))
    value_sum = cv2.blur(values, (kernel, kernel))
    mean = value_sum / np.maximum(weight_sum, 1e-6)[..., None]
    mean[weight_sum < 0.05] = fallback
    full = cv2.resize(mean, (width, height), interpolation=cv2.INTER_LINEAR)
    return np.ascontiguousarray(full, dtype=np.float32)
