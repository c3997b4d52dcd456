"""Camera presets for synthetic clips: `top`, `broadcast` and `corner`.

Each preset places a pinhole camera with `CameraModel.look_at`, then picks the focal length
and principal point that fit the whole table, rails included, centred in the image with a
small border (as a zoom and crop would).
"""

from __future__ import annotations

import numpy as np

from calibration.camera import CameraModel
from calibration.table import TableSpec
from vision.synthetic.table_image import CUSHION_WIDTH_MM, RAIL_HEIGHT_MM, RAIL_WIDTH_MM

PRESETS = ("top", "broadcast", "corner")
FILL = 0.92
"""Fraction of the image the table's outer rail spans in its tighter direction."""


def _outer_corners(table: TableSpec) -> np.ndarray:
    outer = CUSHION_WIDTH_MM + RAIL_WIDTH_MM
    length, width = table.length_mm, table.width_mm
    return np.array(
        [
            [-outer, -outer],
            [length + outer, -outer],
            [length + outer, width + outer],
            [-outer, width + outer],
        ]
    )


def _fit_intrinsics(camera: CameraModel, table: TableSpec) -> np.ndarray:
    """(3, 3) camera matrix whose image holds the outer rail, centred, filling `FILL`."""
    corners = _outer_corners(table)
    k = camera.camera_matrix
    normalised = (camera.project(corners, RAIL_HEIGHT_MM) - k[:2, 2]) / k[0, 0]
    low, high = normalised.min(axis=0), normalised.max(axis=0)
    width, height = camera.image_size
    focal = FILL * min(width / (high[0] - low[0]), height / (high[1] - low[1]))
    middle = (low + high) / 2.0
    return np.array(
        [
            [focal, 0.0, (width - 1) / 2.0 - focal * middle[0]],
            [0.0, focal, (height - 1) / 2.0 - focal * middle[1]],
            [0.0, 0.0, 1.0],
        ]
    )


def _pose(preset: str, table: TableSpec) -> tuple[tuple[float, float, float], ...]:
    length, width = table.length_mm, table.width_mm
    centre = (length / 2.0, width / 2.0, 0.0)
    poses = {
        # Straight over the table, head on the left of the image.
        "top": ((length / 2.0, width / 2.0, 2700.0), centre, (1.0, 0.0, 0.0)),
        # From beside the left long cushion, raised and tilted down (head on the right).
        "broadcast": (
            (length / 2.0, -1.55 * width, 2000.0),
            (length / 2.0, width * 0.55, 0.0),
            (-1.0, 0.0, 0.0),
        ),
        # A tripod beyond the head-left corner.
        "corner": ((-600.0, -550.0, 1500.0), (length * 0.5, width * 0.5, 0.0), (0.0, 0.0, 0.0)),
    }
    if preset not in poses:
        raise ValueError(f"unknown camera preset {preset!r}; expected one of {PRESETS}")
    return poses[preset]


def preset_camera(preset: str, table: TableSpec, image_size: tuple[int, int]) -> CameraModel:
    """The camera of a preset for a table and image size (width, height) in pixels."""
    eye, target, right = _pose(preset, table)
    if right == (0.0, 0.0, 0.0):
        # Level with the floor and square to the viewing direction (head toward the left).
        right = (-(target[1] - eye[1]), target[0] - eye[0], 0.0)
    probe = CameraModel.look_at(eye, target, image_size, 1.0, right)
    matrix = _fit_intrinsics(probe, table)
    return CameraModel(matrix, probe.rotation, probe.translation_mm, probe.image_size)
