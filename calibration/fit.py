"""Fitting the camera from the four cloth corners (issue 3 fills this in)."""

from __future__ import annotations

from calibration.camera import CameraModel
from calibration.table import TableSpec


def fit_camera(
    corners_px: dict[str, tuple[float, float]], table: TableSpec, image_size: tuple[int, int]
) -> CameraModel:
    """Camera intrinsics and pose from the four playing-surface corners."""
    raise NotImplementedError("fit_camera is being written (issue 3)")
