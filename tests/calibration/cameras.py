"""Cameras and corner pixels shared by the calibration tests."""

from __future__ import annotations

import numpy as np

from calibration.camera import CameraModel
from calibration.io import CORNER_NAMES
from calibration.table import TableSpec

IMAGE_SIZE = (1280, 720)
TABLE = TableSpec()


def preset_cameras(table: TableSpec = TABLE) -> dict[str, CameraModel]:
    """Straight-down, end-on broadcast and corner views of the table, 1280x720."""
    length, width = table.length_mm, table.width_mm
    middle = (length / 2.0, width / 2.0, 0.0)
    return {
        "top": CameraModel.look_at((middle[0], middle[1], 2800.0), middle, IMAGE_SIZE, 1100.0),
        "tilted": CameraModel.look_at(
            (middle[0], -0.25 * width, 2800.0), middle, IMAGE_SIZE, 1000.0
        ),
        "broadcast": CameraModel.look_at(
            (-0.55 * length, middle[1], 2200.0), middle, IMAGE_SIZE, 900.0, right_hint=(0, 1, 0)
        ),
        "corner": CameraModel.look_at(
            (-0.3 * length, -0.7 * width, 2200.0),
            middle,
            IMAGE_SIZE,
            800.0,
            right_hint=(1.0, -0.7, 0.0),
        ),
    }


def corners_of(camera: CameraModel, table: TableSpec = TABLE) -> dict[str, tuple[float, float]]:
    """The table's four corners as the camera sees them, by calibration name."""
    xy = np.array([table.corners_xy_mm()[name] for name in CORNER_NAMES])
    uv = camera.project(xy)
    return {name: (float(u), float(v)) for name, (u, v) in zip(CORNER_NAMES, uv, strict=True)}
