"""Frames of a table drawn under a known camera, for testing the table finder.

A painter's-order drawing in 3D: bed on the cloth plane with a shadow band along each
cushion, vertical cushion faces up to the nose (36 mm), cushion tops and wooden rails at nose
height, dark pockets cut into them, diamonds, balls, a lighting gradient and sensor noise.
Polygons are filled at 4x with anti-aliasing and averaged down, so edges sit where the camera
puts them to a small fraction of a pixel.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from calibration.table import Cushion, Pocket, TableSpec

CLOTHS_BGR: dict[str, tuple[int, int, int]] = {
    "green": (60, 135, 35),
    "blue": (185, 115, 25),
    "red": (45, 40, 150),
    "grey": (125, 122, 118),
}
NOSE_HEIGHT_MM = 36.0
CUSHION_MM = 50.0
RAIL_MM = 120.0
SHADOW_MM = 25.0
SUPERSAMPLE = 4


def _shade(colour: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    return (
        int(min(255, colour[0] * factor)),
        int(min(255, colour[1] * factor)),
        int(min(255, colour[2] * factor)),
    )


class Painter:
    """Fills table-frame polygons (x, y, height mm) into a supersampled canvas."""

    def __init__(self, camera: CameraModel, background: tuple[int, int, int]) -> None:
        self.camera = camera
        width, height = camera.image_size
        self.canvas = np.empty((height * SUPERSAMPLE, width * SUPERSAMPLE, 3), np.uint8)
        self.canvas[:] = background

    def fill(self, xyh_mm: NDArray[np.float64], colour: tuple[int, int, int]) -> None:
        points = _densify(np.asarray(xyh_mm, dtype=np.float64))
        uv = self.camera.project(points[:, :2], points[:, 2])
        fixed = np.round((uv * SUPERSAMPLE + (SUPERSAMPLE - 1) / 2.0) * 16).astype(np.int32)
        cv2.fillPoly(self.canvas, [fixed], colour, cv2.LINE_AA, shift=4)

    def image(self) -> NDArray[np.uint8]:
        width, height = self.camera.image_size
        small = cv2.resize(self.canvas, (width, height), interpolation=cv2.INTER_AREA)
        return np.asarray(small, dtype=np.uint8)


def _densify(polygon: NDArray[np.float64], step_mm: float = 20.0) -> NDArray[np.float64]:
    """Subdivide edges so lens distortion bends them."""
    out = []
    for start, end in zip(polygon, np.roll(polygon, -1, axis=0), strict=True):
        count = max(1, int(np.linalg.norm(end[:2] - start[:2]) / step_mm))
        t = np.arange(count)[:, None] / count
        out.append(start + t * (end - start))
    return np.concatenate(out)


def _quad(
    a: tuple[float, float], b: tuple[float, float], h0: float, h1: float
) -> NDArray[np.float64]:
    return np.array([[*a, h0], [*b, h0], [*b, h1], [*a, h1]])


def _circle(centre: tuple[float, float], radius: float, height: float) -> NDArray[np.float64]:
    angles = np.linspace(0.0, 2.0 * np.pi, 48, endpoint=False)
    return np.column_stack(
        [
            centre[0] + radius * np.cos(angles),
            centre[1] + radius * np.sin(angles),
            np.full(48, height),
        ]
    )


def _outward(table: TableSpec, cushion: Cushion) -> tuple[float, float]:
    name = cushion.value
    if name == "head":
        return (-1.0, 0.0)
    if name == "foot":
        return (1.0, 0.0)
    return (0.0, -1.0) if name.startswith("left") else (0.0, 1.0)


def _cushion_top(table: TableSpec, cushion: Cushion) -> NDArray[np.float64]:
    (x0, y0), (x1, y1) = table.cushion_segment_mm(cushion)
    nx, ny = _outward(table, cushion)
    along = np.array([x1 - x0, y1 - y0]) / np.hypot(x1 - x0, y1 - y0)
    out0 = np.array([x0, y0]) + CUSHION_MM * np.array([nx, ny]) - CUSHION_MM * along
    out1 = np.array([x1, y1]) + CUSHION_MM * np.array([nx, ny]) + CUSHION_MM * along
    h = NOSE_HEIGHT_MM
    return np.array([[x0, y0, h], [x1, y1, h], [*out1, h], [*out0, h]])


def _shadow(table: TableSpec, cushion: Cushion) -> NDArray[np.float64]:
    """The band of bed in the cushion's shadow, SHADOW_MM wide, on the cloth."""
    (x0, y0), (x1, y1) = table.cushion_segment_mm(cushion)
    nx, ny = _outward(table, cushion)
    inner = -SHADOW_MM * np.array([nx, ny])
    return np.array(
        [
            [x0, y0, 0.0],
            [x1, y1, 0.0],
            [x1 + inner[0], y1 + inner[1], 0.0],
            [x0 + inner[0], y0 + inner[1], 0.0],
        ]
    )


def _pocket_centre(table: TableSpec, pocket: Pocket) -> tuple[float, float]:
    x, y = table.pocket_xy_mm(pocket)
    dx = -1.0 if x == 0 else (1.0 if x == table.length_mm else 0.0)
    dy = -1.0 if y == 0 else 1.0
    reach = 0.5 * CUSHION_MM if pocket.is_corner() else 0.9 * CUSHION_MM
    return (x + dx * reach, y + dy * reach)


def draw_table(
    camera: CameraModel,
    table: TableSpec,
    cloth: str,
    balls_xy_mm: NDArray[np.float64] | None = None,
    seed: int = 0,
) -> NDArray[np.uint8]:
    """A BGR uint8 frame of the table seen by `camera`, cloth colour by name (CLOTHS_BGR)."""
    colour = CLOTHS_BGR[cloth]
    painter = Painter(camera, (70, 78, 84))
    length, width = table.length_mm, table.width_mm
    edge, outer = CUSHION_MM, CUSHION_MM + RAIL_MM
    bed = [
        (-edge, -edge),
        (length + edge, -edge),
        (length + edge, width + edge),
        (-edge, width + edge),
    ]
    painter.fill(np.array([[x, y, 0.0] for x, y in bed]), colour)
    for cushion in Cushion:
        painter.fill(_shadow(table, cushion), _shade(colour, 0.8))
    for cushion in Cushion:
        a, b = table.cushion_segment_mm(cushion)
        painter.fill(_quad(a, b, 0.0, NOSE_HEIGHT_MM), _shade(colour, 0.55))
    wood = (30, 55, 105)
    h = NOSE_HEIGHT_MM
    rails = [
        [(-outer, -outer), (length + outer, -outer), (length + outer, -edge), (-outer, -edge)],
        [
            (-outer, width + edge),
            (length + outer, width + edge),
            (length + outer, width + outer),
            (-outer, width + outer),
        ],
        [(-outer, -outer), (-edge, -outer), (-edge, width + outer), (-outer, width + outer)],
        [
            (length + edge, -outer),
            (length + outer, -outer),
            (length + outer, width + outer),
            (length + edge, width + outer),
        ],
    ]
    for rail in rails:
        painter.fill(np.array([[x, y, h] for x, y in rail], dtype=np.float64), wood)
    for cushion in Cushion:
        painter.fill(_cushion_top(table, cushion), _shade(colour, 1.12))
    for pocket in Pocket:
        radius = 0.62 * (table.corner_mouth_mm if pocket.is_corner() else table.side_mouth_mm)
        painter.fill(_circle(_pocket_centre(table, pocket), radius, h), (12, 12, 12))
    for k in range(1, 4):
        for y in (-edge - RAIL_MM / 2.0, width + edge + RAIL_MM / 2.0):
            painter.fill(_circle((k * length / 4.0, y), 9.0, h), (235, 235, 235))
    if balls_xy_mm is not None:
        for index, (x, y) in enumerate(np.asarray(balls_xy_mm).reshape(-1, 2)):
            shade = (240, 240, 240) if index == 0 else (30 + 40 * index % 200, 60, 220)
            painter.fill(_circle((x, y), table.ball_radius_mm, table.ball_radius_mm), shade)
    return _light(painter.image(), seed)


def _light(image: NDArray[np.uint8], seed: int) -> NDArray[np.uint8]:
    """A soft lighting falloff toward the frame edges and sensor noise."""
    height, width = image.shape[:2]
    v, u = np.mgrid[0:height, 0:width].astype(np.float32)
    r2 = ((u - width / 2) / width) ** 2 + ((v - height / 2) / height) ** 2
    gain = 1.08 - 0.5 * r2
    rng = np.random.default_rng(seed)
    noisy = image.astype(np.float32) * gain[..., None] + rng.normal(0, 2.0, image.shape)
    out: NDArray[np.uint8] = np.clip(noisy, 0, 255).astype(np.uint8)
    return out
