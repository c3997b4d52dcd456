"""The static table image: floor, rails with diamonds, cushions, pocket holes and cloth.

Drawn once per clip. Each layer is painted top-down in a table-space texture (1 px per
`TEXTURE_PX_PER_MM` mm) and warped into the camera image with the camera model's own plane
homography at the layer's height, so the cloth's edges land exactly on the calibration
corners and the raised rails show their parallax in angled views.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from calibration.table import Cushion, TableSpec

FloatArray = NDArray[np.float64]

TEXTURE_PX_PER_MM = 1.0
CUSHION_WIDTH_MM = 50.0
RAIL_WIDTH_MM = 110.0
RAIL_HEIGHT_MM = 38.0
MARGIN_MM = CUSHION_WIDTH_MM + RAIL_WIDTH_MM + 40.0
CORNER_POCKET_RADIUS_MM = 62.0
CORNER_POCKET_DEPTH_MM = 41.7
SIDE_POCKET_RADIUS_MM = 64.5
SIDE_POCKET_DEPTH_MM = 68.5
"""Pocket hole sizes, as pooltool's default pocket table (its physics uses the same)."""

CLOTH_BGR: dict[str, tuple[int, int, int]] = {
    "green": (60, 125, 25),
    "blue": (150, 95, 20),
    "red": (40, 35, 135),
    "grey": (120, 118, 112),
}


@dataclass(frozen=True, slots=True)
class Lighting:
    """How the table is lit.

    Attributes:
        brightness: overall gain (1 = nominal).
        light_xy_mm: table position under the main lamp (the bright spot on the cloth).
        falloff_mm: distance at which the lamp's light on the cloth has dropped by half;
            lowering it makes the corners darker.
        light_dir: (x, y, height) direction from a surface toward the lamp (table frame).
        noise_sigma: sensor noise standard deviation, grey levels.
        shadow_strength: how much a ball's shadow darkens the cloth under it, 0..1.
    """

    brightness: float = 1.0
    light_xy_mm: tuple[float, float] = (1270.0, 635.0)
    falloff_mm: float = 2200.0
    light_dir: tuple[float, float, float] = (0.15, 0.1, 1.0)
    noise_sigma: float = 2.0
    shadow_strength: float = 0.55


def pocket_holes_mm(table: TableSpec) -> list[tuple[tuple[float, float], float]]:
    """(centre, radius) of the six pocket holes, table mm."""
    length, width = table.length_mm, table.width_mm
    c = CORNER_POCKET_DEPTH_MM / math.sqrt(2.0)
    s = SIDE_POCKET_DEPTH_MM
    r, rs = CORNER_POCKET_RADIUS_MM, SIDE_POCKET_RADIUS_MM
    return [
        ((-c, -c), r),
        ((-c, width + c), r),
        ((length / 2.0, -s), rs),
        ((length / 2.0, width + s), rs),
        ((length + c, -c), r),
        ((length + c, width + c), r),
    ]


def _texture_to_table() -> FloatArray:
    scale = 1.0 / TEXTURE_PX_PER_MM
    return np.array([[scale, 0, -MARGIN_MM], [0, scale, -MARGIN_MM], [0, 0, 1.0]])


def _texture_px(points_mm: FloatArray) -> NDArray[np.int32]:
    """Texture pixels (col, row) of table points (x, y) in mm, as int32 for cv2 drawing."""
    pts = (np.asarray(points_mm, dtype=np.float64) + MARGIN_MM) * TEXTURE_PX_PER_MM
    return np.round(pts).astype(np.int32)


def _texture_shape(table: TableSpec) -> tuple[int, int]:
    cols = math.ceil((table.length_mm + 2 * MARGIN_MM) * TEXTURE_PX_PER_MM)
    rows = math.ceil((table.width_mm + 2 * MARGIN_MM) * TEXTURE_PX_PER_MM)
    return rows, cols


def _rail_texture(table: TableSpec, cloth: tuple[int, int, int]) -> NDArray[np.uint8]:
    """Rails (wood), cushion tops (darker cloth), diamonds and holes, table-space BGR."""
    rows, cols = _texture_shape(table)
    texture = np.zeros((rows, cols, 3), np.uint8)
    outer = CUSHION_WIDTH_MM + RAIL_WIDTH_MM
    length, width = table.length_mm, table.width_mm
    box = np.array(
        [
            [-outer, -outer],
            [length + outer, -outer],
            [length + outer, width + outer],
            [-outer, width + outer],
        ]
    )
    cv2.fillPoly(texture, [_texture_px(box)], (30, 55, 95))
    inner = np.array(
        [
            [-CUSHION_WIDTH_MM, -CUSHION_WIDTH_MM],
            [length + CUSHION_WIDTH_MM, -CUSHION_WIDTH_MM],
            [length + CUSHION_WIDTH_MM, width + CUSHION_WIDTH_MM],
            [-CUSHION_WIDTH_MM, width + CUSHION_WIDTH_MM],
        ]
    )
    cv2.fillPoly(texture, [_texture_px(inner)], tuple(int(c * 0.7) for c in cloth))
    _draw_diamonds(texture, table)
    for centre, radius in pocket_holes_mm(table):
        cv2.circle(texture, tuple(_texture_px(np.array(centre))), int(radius), (12, 12, 12), -1)
    return texture


def _draw_diamonds(texture: NDArray[np.uint8], table: TableSpec) -> None:
    offset = CUSHION_WIDTH_MM + RAIL_WIDTH_MM / 2.0
    length, width = table.length_mm, table.width_mm
    points = [
        (length * k / 8.0, y) for k in range(1, 8) if k != 4 for y in (-offset, width + offset)
    ]
    points += [(x, width * k / 4.0) for k in range(1, 4) for x in (-offset, length + offset)]
    for point in points:
        cv2.circle(
            texture, tuple(_texture_px(np.array(point))), 9, (215, 225, 230), -1, cv2.LINE_AA
        )


def _cloth_texture(
    table: TableSpec, cloth: tuple[int, int, int], rng: np.random.Generator
) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """Cloth colour (with a faint weave) and its coverage mask, table-space."""
    rows, cols = _texture_shape(table)
    mask = np.zeros((rows, cols), np.uint8)
    surface = np.array(
        [[0, 0], [table.length_mm, 0], [table.length_mm, table.width_mm], [0, table.width_mm]]
    )
    cv2.fillPoly(mask, [_texture_px(surface)], 255)
    for centre, radius in pocket_holes_mm(table):
        cv2.circle(mask, tuple(_texture_px(np.array(centre))), int(radius), 0, -1)
    weave = cv2.GaussianBlur(rng.normal(0.0, 6.0, (rows, cols)).astype(np.float32), (0, 0), 3.0)
    colour = np.clip(np.array(cloth, np.float32) + weave[..., None], 0, 255).astype(np.uint8)
    for cushion in Cushion:
        (x0, y0), (x1, y1) = table.cushion_segment_mm(cushion)
        cv2.line(
            colour,
            tuple(_texture_px(np.array((x0, y0)))),
            tuple(_texture_px(np.array((x1, y1)))),
            tuple(int(c * 0.6) for c in cloth),
            3,
        )
    return colour, mask


def _warp(texture: NDArray[np.uint8], camera: CameraModel, height_mm: float) -> NDArray[np.uint8]:
    homography = camera.plane_homography(height_mm) @ _texture_to_table()
    warped = cv2.warpPerspective(
        texture, homography, camera.image_size, flags=cv2.INTER_LINEAR, borderValue=0
    )
    return np.asarray(warped, dtype=np.uint8)


def illumination(camera: CameraModel, table: TableSpec, lighting: Lighting) -> NDArray[np.float32]:
    """(H, W) float32 light gain over the image (the lamp's pool of light on the cloth)."""
    width, height = camera.image_size
    grid_u, grid_v = np.meshgrid(np.arange(0, width, 8.0), np.arange(0, height, 8.0))
    uv = np.column_stack([grid_u.ravel(), grid_v.ravel()])
    xy = camera.to_table(uv, 0.0)
    distance = np.linalg.norm(xy - np.array(lighting.light_xy_mm), axis=1)
    gain = lighting.brightness / (1.0 + (distance / lighting.falloff_mm) ** 2) * 1.15
    small = gain.reshape(grid_u.shape).astype(np.float32)
    out: NDArray[np.float32] = cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)
    return out


def render_table(
    camera: CameraModel,
    table: TableSpec,
    cloth: str,
    lighting: Lighting,
    rng: np.random.Generator,
) -> NDArray[np.uint8]:
    """(H, W, 3) uint8 BGR image of the empty table seen by `camera`."""
    if camera.distortion.size and np.any(camera.distortion != 0):
        raise ValueError("the synthetic renderer supports pinhole cameras only (no distortion)")
    if cloth not in CLOTH_BGR:
        raise ValueError(f"unknown cloth {cloth!r}; expected one of {sorted(CLOTH_BGR)}")
    colour = CLOTH_BGR[cloth]
    width, height = camera.image_size
    floor = np.full((height, width, 3), (38, 40, 44), np.uint8)
    rails = _warp(_rail_texture(table, colour), camera, RAIL_HEIGHT_MM)
    rail_mask = _warp(np.full((*_texture_shape(table), 3), 255, np.uint8), camera, RAIL_HEIGHT_MM)
    image = np.where(rail_mask > 127, rails, floor)
    cloth_image, cloth_mask = _cloth_texture(table, colour, rng)
    warped_cloth = _warp(cloth_image, camera, 0.0)
    warped_mask = _warp(np.repeat(cloth_mask[..., None], 3, axis=2), camera, 0.0)
    alpha = warped_mask.astype(np.float32) / 255.0
    blended = image * (1.0 - alpha) + warped_cloth * alpha
    lit = blended * illumination(camera, table, lighting)[..., None]
    out: NDArray[np.uint8] = np.clip(lit, 0, 255).astype(np.uint8)
    return out
