"""The focal length a camera fit starts from (`calibration.fit`): given, estimated from the
four cloth corners, or assumed from the camera's height where the corners cannot tell it.

Seen from straight above, a closer camera with a wider lens gives the same picture, so the
focal length read from the corners' homography is trusted only when half a pixel of corner
noise moves it little (`FOCAL_SPREAD_LIMIT`); otherwise the camera is taken as straight down
at a height (`DEFAULT_CAMERA_HEIGHT_MM` or the one given) and the fit says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration.camera import FloatArray
from calibration.geometry import fit_homography, focal_from_homography, pose_from_homography
from calibration.io import CalibrationError

if TYPE_CHECKING:
    from calibration.fit import CameraPrior

DEFAULT_CAMERA_HEIGHT_MM = 2500.0
"""Assumed lens height above the cloth when the focal length cannot be measured (a camera
straight over the table). Raising it lowers the parallax correction near the rails."""

FOCAL_SPREAD_LIMIT = 0.15
"""Largest relative change of the estimated focal length under half-pixel corner noise for the
estimate to be trusted; above it the camera is too close to straight-down and the fit assumes
`DEFAULT_CAMERA_HEIGHT_MM` (or the given height). Raising it trusts noisier estimates."""


def undistort(uv: FloatArray, matrix: FloatArray, distortion: FloatArray) -> FloatArray:
    """(N, 2) ideal-pinhole pixels of distorted pixels (identity without distortion)."""
    if not distortion.size:
        return uv
    points = uv.reshape(-1, 1, 2).astype(np.float64)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)
    ideal = cv2.undistortPoints(points, matrix, distortion, None, None, matrix, criteria)
    out: FloatArray = ideal.reshape(-1, 2).astype(np.float64)
    return out


def camera_matrix(focal: float, centre: tuple[float, float]) -> FloatArray:
    """(3, 3) pinhole matrix of square pixels: `focal` px and principal point `centre` px."""
    return np.array([[focal, 0.0, centre[0]], [0.0, focal, centre[1]], [0.0, 0.0, 1.0]])


def initial_focal(
    observed: FloatArray,
    table_xy: FloatArray,
    centre: tuple[float, float],
    distortion: FloatArray,
    prior: CameraPrior,
) -> tuple[float, str, tuple[str, ...]]:
    """Focal length to start from, where it comes from, and what was assumed."""
    if prior.focal_px is not None:
        if not prior.focal_px > 0:
            raise CalibrationError(f"focal_px must be positive, got {prior.focal_px}")
        return float(prior.focal_px), "given", ()
    focal = estimate_focal(observed, table_xy, centre, distortion)
    if focal is not None:
        return focal, "estimated", ()
    return assumed_focal(observed, table_xy, centre, prior)


def assumed_focal(
    observed: FloatArray, table_xy: FloatArray, centre: tuple[float, float], prior: CameraPrior
) -> tuple[float, str, tuple[str, ...]]:
    """The focal length of a straight-down camera at the given or default height."""
    distortion = np.asarray(prior.distortion, dtype=np.float64).reshape(-1)
    height_mm = prior.camera_height_mm or DEFAULT_CAMERA_HEIGHT_MM
    if not height_mm > 0:
        raise CalibrationError(f"camera_height_mm must be positive, got {height_mm}")
    focal = focal_for_height(observed, table_xy, centre, distortion, height_mm)
    given = prior.camera_height_mm is not None
    note = (
        f"camera is nearly straight over the table, so its focal length cannot be measured; "
        f"assumed the lens is {height_mm:.0f} mm above the cloth"
        f"{'' if given else ' (default; give the camera height or focal length to change it)'}"
        f", which gives a focal length of {focal:.0f} px"
    )
    return focal, "assumed", (note,)


def estimate_focal(
    observed: FloatArray,
    table_xy: FloatArray,
    centre: tuple[float, float],
    distortion: FloatArray,
    noise_px: float = 0.5,
) -> float | None:
    """Focal length from the corners, or None when `noise_px` of noise on one corner
    coordinate moves it by more than `FOCAL_SPREAD_LIMIT`."""
    focal = float(np.hypot(*centre)) * 2.0
    for _ in range(5 if distortion.size else 1):
        ideal = undistort(observed, camera_matrix(focal, centre), distortion)
        estimate = focal_from_homography(fit_homography(table_xy, ideal), centre)
        if estimate is None:
            return None
        focal = estimate
    spread = 0.0
    for index in range(8):
        nudged = ideal.copy()
        nudged[index // 2, index % 2] += noise_px
        other = focal_from_homography(fit_homography(table_xy, nudged), centre)
        if other is None:
            return None
        spread = max(spread, abs(other - focal) / focal)
    return focal if spread <= FOCAL_SPREAD_LIMIT else None


def focal_for_height(
    observed: FloatArray,
    table_xy: FloatArray,
    centre: tuple[float, float],
    distortion: FloatArray,
    height_mm: float,
) -> float:
    """Focal length that puts the camera `height_mm` above the cloth (straight-down view)."""
    focal = float(np.hypot(*centre)) * 2.0
    for _ in range(5):
        ideal = undistort(observed, camera_matrix(focal, centre), distortion)
        homography = fit_homography(table_xy, ideal)
        rotation, translation = pose_from_homography(homography, camera_matrix(focal, centre))
        # Seen from straight above, focal / height is what the picture fixes.
        focal *= height_mm / abs(float((rotation.T @ translation)[2]))
    return focal
