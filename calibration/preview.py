"""Drawing a fitted table over its frame, so a person sees at a glance whether it is right.

Everything is drawn through the fitted camera (lens distortion included): a 10 cm grid on the
cloth, the six cushion noses at their height (where a person sees them), each pocket with its
mouth, the head string, the head and foot
spots, and the four corners with their names. Lines that sit on the real cushions and a grid of
even squares mean a good calibration.
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel, FloatArray
from calibration.io import Calibration
from calibration.table import Cushion, Pocket, TableSpec

GRID_MM = 100.0
NOSE_HEIGHT_MM = 36.3
"""Cushion nose height above the cloth (WPA: 63.5% of the ball diameter)."""
CUSHION_BGR = (0, 255, 255)
GRID_BGR = (255, 255, 255)
POCKET_BGR = (0, 0, 255)
STRING_BGR = (255, 200, 0)
SPOT_BGR = (255, 0, 255)
_SHIFT = 4


def draw_preview(
    image: NDArray[np.uint8], calibration: Calibration, nose_height_mm: float = NOSE_HEIGHT_MM
) -> NDArray[np.uint8]:
    """A copy of a BGR uint8 frame with the calibrated table drawn over it.

    Args:
        image: (H, W, 3) uint8 BGR frame.
        calibration: the fitted table and camera.
        nose_height_mm: height at which the cushion lines are drawn, so that they sit on the
            cushion noses a person sees (0 draws the playing surface's edge on the cloth).
    """
    camera, table = calibration.camera, calibration.table
    scale = max(1, round(max(image.shape[:2]) / 900))
    grid = image.copy()
    for segment in _grid_segments(table):
        _polyline(grid, camera, segment, GRID_BGR, 1)
    out = np.asarray(cv2.addWeighted(grid, 0.35, image, 0.65, 0.0), dtype=np.uint8)
    for cushion in Cushion:
        start, end = table.cushion_segment_mm(cushion)
        nose = np.array([[*start, nose_height_mm], [*end, nose_height_mm]])
        _polyline(out, camera, nose, CUSHION_BGR, scale)
    for pocket in Pocket:
        _polyline(out, camera, _mouth(table, pocket), POCKET_BGR, scale)
    string = np.array([[table.head_string_x_mm, 0.0], [table.head_string_x_mm, table.width_mm]])
    _polyline(out, camera, string, STRING_BGR, scale)
    for spot in (table.head_spot_mm, table.foot_spot_mm):
        _polyline(out, camera, _circle(spot, 15.0), SPOT_BGR, scale)
    _labels(out, calibration, scale)
    return np.asarray(out, dtype=np.uint8)


def _grid_segments(table: TableSpec) -> list[FloatArray]:
    xs = np.arange(0.0, table.length_mm + 1e-6, GRID_MM)
    ys = np.arange(0.0, table.width_mm + 1e-6, GRID_MM)
    segments = [np.array([[x, 0.0], [x, table.width_mm]]) for x in xs]
    segments += [np.array([[0.0, y], [table.length_mm, y]]) for y in ys]
    return segments


def _mouth(table: TableSpec, pocket: Pocket) -> FloatArray:
    """Jaw to jaw across the pocket's mouth, through the pocket point, table mm."""
    x, y = table.pocket_xy_mm(pocket)
    if pocket.is_corner():
        reach = table.corner_mouth_mm / math.sqrt(2.0)
        dx = reach if x == 0 else -reach
        dy = reach if y == 0 else -reach
        return np.array([[x + dx, y], [x, y], [x, y + dy]])
    half = table.side_mouth_mm / 2.0
    return np.array([[x - half, y], [x + half, y]])


def _circle(centre: tuple[float, float], radius_mm: float) -> FloatArray:
    angles = np.linspace(0.0, 2.0 * np.pi, 25)
    return np.column_stack(
        [centre[0] + radius_mm * np.cos(angles), centre[1] + radius_mm * np.sin(angles)]
    )


def _polyline(
    image: NDArray[np.uint8],
    camera: CameraModel,
    xy_mm: FloatArray,
    colour: tuple[int, int, int],
    thickness: int,
) -> None:
    """Draw table-frame points (x, y[, height]) joined by lines, each edge cut into 1 cm steps
    so that a distorted lens bends them as it bends the cushions."""
    points = _densify(xy_mm if xy_mm.shape[1] == 3 else np.column_stack([xy_mm, 0 * xy_mm[:, 0]]))
    uv = camera.project(points[:, :2], points[:, 2])
    if not np.all(np.isfinite(uv)) or camera.depth_mm(points[:, :2], points[:, 2]).min() <= 0:
        return
    fixed = np.round(uv * (1 << _SHIFT)).astype(np.int32)
    cv2.polylines(image, [fixed], False, colour, thickness, cv2.LINE_AA, _SHIFT)


def _densify(ends: FloatArray) -> FloatArray:
    parts = []
    for start, end in itertools.pairwise(ends):
        count = max(1, int(np.linalg.norm(end[:2] - start[:2]) / 10.0))
        parts.append(start + np.arange(count)[:, None] / count * (end - start))
    parts.append(ends[-1:])
    return np.concatenate(parts)


def _labels(image: NDArray[np.uint8], calibration: Calibration, scale: int) -> None:
    for name, (u, v) in calibration.corners_px.items():
        centre = (round(u), round(v))
        cv2.circle(image, centre, 4 * scale, POCKET_BGR, scale, cv2.LINE_AA)
        text = "".join(word[0].upper() for word in name.split("_"))
        origin = (centre[0] + 6 * scale, centre[1] - 6 * scale)
        for colour, width in (((0, 0, 0), 3 * scale), ((255, 255, 255), scale)):
            cv2.putText(
                image,
                text,
                origin,
                cv2.FONT_HERSHEY_SIMPLEX,
                0.6 * scale,
                colour,
                width,
                cv2.LINE_AA,
            )
