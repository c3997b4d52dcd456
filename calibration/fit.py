"""Fitting the camera from the four cloth corners.

The four playing-surface corners fix the homography of the cloth plane (8 degrees of freedom).
A pinhole camera with square pixels and a known principal point has 7 (focal length, rotation,
translation), so the corners determine the camera and leave one degree of freedom as a check
(the reprojection error). Seen from straight above the focal length is unobservable (a closer
camera with a wider lens gives the same picture); the fit then assumes a camera height and says
so in `CameraFit.assumptions`. Where the focal length to start from comes from (given,
estimated from the corners, or assumed from a camera height) is `calibration.fit_focal`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray
from scipy.optimize import least_squares

from calibration.camera import CameraModel, FloatArray
from calibration.fit_focal import (
    DEFAULT_CAMERA_HEIGHT_MM,
    FOCAL_SPREAD_LIMIT,
    assumed_focal,
    camera_matrix,
    estimate_focal,
    initial_focal,
    undistort,
)
from calibration.geometry import (
    check_corners,
    corner_array,
    fit_homography,
    pose_from_homography,
)
from calibration.io import CORNER_NAMES, CalibrationError
from calibration.table import TableSpec

__all__ = [
    "DEFAULT_CAMERA_HEIGHT_MM",
    "FOCAL_SPREAD_LIMIT",
    "MAX_REPROJECTION_FRACTION",
    "CameraFit",
    "CameraPrior",
    "check_fit",
    "fit_camera",
    "fit_camera_report",
    "prior_from_json",
]

MAX_REPROJECTION_FRACTION = 0.02
"""Largest RMS corner reprojection error, as a fraction of the table's diagonal in pixels, for
the corners to count as a table of the given size. Raising it accepts worse-fitting shapes."""


OFF_CENTRE_FROM_PX = 1.0
"""RMS corner reprojection error (px) of a camera with its principal point at the image
centre above which the principal point is freed (`_off_centre`): a picture cropped or
shifted off the lens's axis, which a centred camera misses by several pixels."""

CENTRE_WEIGHT = 0.01
"""Weight, in pixels of corner error per pixel, that keeps a freed principal point near the
image centre: the corners leave it one degree of freedom, this picks the nearest point."""


@dataclass(frozen=True, slots=True)
class CameraPrior:
    """What is known about the camera before the fit; every field is optional.

    Attributes:
        focal_px: focal length in pixels (square pixels). Given, it is not estimated.
        principal_point: (u, v) px; defaults to the image centre.
        distortion: OpenCV coefficients (k1, k2, p1, p2[, k3]); the corners are undistorted
            before the fit and the fitted camera carries them.
        camera_height_mm: height of the lens above the cloth, used only when the focal length
            cannot be measured (camera nearly straight over the table).
        corners_by_hand: the corners were placed by a person (a calibration file giving
            corners only), so they may be off by a pixel or two: a focal length that noise
            as large as their miss of a centred camera would move beyond the limit is not
            read from them (the camera is taken as straight down, as the table finder
            does) rather than explained by an off-centre image centre.
    """

    focal_px: float | None = None
    principal_point: tuple[float, float] | None = None
    distortion: tuple[float, ...] = ()
    camera_height_mm: float | None = None
    corners_by_hand: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class CameraFit:
    """A fitted camera with its evidence.

    Attributes:
        camera: the fitted camera.
        reprojection_error_px: RMS distance between the given corners and the fitted camera's
            projection of the table corners, px.
        focal_source: "given", "estimated" or "assumed" (camera nearly straight down).
        assumptions: human-readable statements of what the fit assumed.
    """

    camera: CameraModel
    reprojection_error_px: float
    focal_source: str
    assumptions: tuple[str, ...]

    def as_json(self) -> dict[str, object]:
        """The fields a calibration file stores beside the camera."""
        return {
            "reprojection_error_px": round(self.reprojection_error_px, 4),
            "focal_source": self.focal_source,
            "assumptions": list(self.assumptions),
        }


def prior_from_json(block: object) -> CameraPrior:
    """The optional "lens" block of a calibration file (fields of `CameraPrior`)."""
    if block is None:
        return CameraPrior()
    if not isinstance(block, dict):
        raise CalibrationError("field 'lens' must be an object")
    unknown = set(block) - {"focal_px", "principal_point", "distortion", "camera_height_mm"}
    if unknown:
        raise CalibrationError(f"field 'lens' has unknown keys: {sorted(unknown)}")
    try:
        point = block.get("principal_point")
        return CameraPrior(
            focal_px=_optional_float(block.get("focal_px")),
            principal_point=None if point is None else (float(point[0]), float(point[1])),
            distortion=tuple(float(v) for v in block.get("distortion", ())),
            camera_height_mm=_optional_float(block.get("camera_height_mm")),
        )
    except (TypeError, ValueError, IndexError) as error:
        raise CalibrationError(f"field 'lens': {error}") from None


def _optional_float(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


def fit_camera(
    corners_px: dict[str, tuple[float, float]],
    table: TableSpec,
    image_size: tuple[int, int],
    prior: CameraPrior | None = None,
) -> CameraModel:
    """Camera intrinsics and pose from the four playing-surface corners.

    Args:
        corners_px: pixel (u, v) of "head_left", "head_right", "foot_right", "foot_left".
        table: the table's playing-surface size.
        image_size: (width, height) px.
        prior: what is known of the camera (focal, principal point, distortion, height).

    Raises:
        CalibrationError: a corner is missing or outside the frame, the corners cross or are
            mirrored, or their shape fits no camera looking at a table of this size.
    """
    return fit_camera_report(corners_px, table, image_size, prior).camera


def fit_camera_report(
    corners_px: dict[str, tuple[float, float]],
    table: TableSpec,
    image_size: tuple[int, int],
    prior: CameraPrior | None = None,
    check_shape: bool = True,
) -> CameraFit:
    """`fit_camera` with the reprojection error and the assumptions made.

    Same arguments, plus `check_shape`: False returns the best camera even when the corners
    fit the table's shape badly (for callers that adjust the corners and check afterwards
    with `check_fit`).
    """
    prior = prior or CameraPrior()
    width, height = (int(v) for v in image_size)
    if width <= 0 or height <= 0:
        raise CalibrationError(f"image_size must be positive, got {image_size}")
    observed = corner_array(corners_px)
    check_corners(observed, (width, height))
    table_xy = np.array([table.corners_xy_mm()[n] for n in CORNER_NAMES], dtype=np.float64)
    centre = _principal_point(prior, (width, height))
    distortion = np.asarray(prior.distortion, dtype=np.float64).reshape(-1)
    focal, source, assumptions = initial_focal(observed, table_xy, centre, distortion, prior)
    lens = (focal, centre, distortion)
    camera, rms = _centred(observed, table_xy, lens, (width, height), source)
    if source == "estimated" and prior.principal_point is None and rms > OFF_CENTRE_FROM_PX:
        noisy = prior.corners_by_hand
        if noisy and estimate_focal(observed, table_xy, centre, distortion, rms) is None:
            # Corners that miss a centred camera by `rms` px are that noisy (clicked by
            # hand): a focal length that such noise moves beyond the limit was read from
            # the noise, so the camera is taken as straight down, as for a found table.
            focal, source, assumptions = assumed_focal(observed, table_xy, centre, prior)
            lens = (focal, centre, distortion)
            camera, rms = _centred(observed, table_xy, lens, (width, height), source)
        else:
            camera, note = _off_centre(camera, observed, table_xy, rms)
            assumptions = (*assumptions, note)
    fit = CameraFit(camera, rms, source, assumptions)
    if check_shape:
        check_fit(fit, observed, table)
    return fit


def _principal_point(prior: CameraPrior, image_size: tuple[int, int]) -> tuple[float, float]:
    if prior.principal_point is not None:
        return (float(prior.principal_point[0]), float(prior.principal_point[1]))
    return ((image_size[0] - 1) / 2.0, (image_size[1] - 1) / 2.0)


def _centred(
    observed: FloatArray,
    table_xy: FloatArray,
    lens: tuple[float, tuple[float, float], FloatArray],
    image_size: tuple[int, int],
    source: str,
) -> tuple[CameraModel, float]:
    """The camera of `lens` (focal px, principal point px, distortion) that best puts the
    table's corners at the (4, 2) `observed` pixels, its focal refined when `source` is
    "estimated", and its RMS corner error (px)."""
    focal, centre, distortion = lens
    matrix = camera_matrix(focal, centre)
    camera = _camera_from_homography(observed, table_xy, matrix, distortion, image_size)
    camera = _refine(camera, observed, table_xy, estimate_focal=source == "estimated")
    residual = camera.project(table_xy) - observed
    return camera, float(np.sqrt(np.mean(np.sum(residual**2, axis=1))))


def _camera_from_homography(
    observed: FloatArray,
    table_xy: FloatArray,
    matrix: FloatArray,
    distortion: FloatArray,
    image_size: tuple[int, int],
) -> CameraModel:
    ideal = undistort(observed, matrix, distortion)
    rotation, translation = pose_from_homography(fit_homography(table_xy, ideal), matrix)
    camera = CameraModel(matrix, rotation, translation, image_size, distortion)
    if camera.centre_mm[2] <= 0:
        raise CalibrationError(
            "corners are mirrored (they describe a table seen from below): "
            "swap head_left with head_right and foot_left with foot_right"
        )
    return camera


def _refine(
    camera: CameraModel, observed: FloatArray, table_xy: FloatArray, estimate_focal: bool
) -> CameraModel:
    """Least-squares polish of pose (and focal) on the corner reprojection error."""
    rvec, _ = cv2.Rodrigues(camera.rotation)
    focal = float(camera.camera_matrix[0, 0])
    start = np.concatenate([rvec.reshape(3), camera.translation_mm, [math.log(focal)]])

    def build(params: NDArray[np.float64]) -> CameraModel:
        matrix = camera.camera_matrix.copy()
        if estimate_focal:
            matrix[0, 0] = matrix[1, 1] = math.exp(params[6])
        rotation = np.asarray(cv2.Rodrigues(params[:3].reshape(3, 1))[0], dtype=np.float64)
        return CameraModel(matrix, rotation, params[3:6], camera.image_size, camera.distortion)

    def residuals(params: NDArray[np.float64]) -> NDArray[np.float64]:
        out: NDArray[np.float64] = (build(params).project(table_xy) - observed).reshape(-1)
        return out

    result = least_squares(residuals, start, method="lm", x_scale="jac")
    refined = build(result.x)
    before = np.sum(residuals(start) ** 2)
    return refined if np.sum(result.fun**2) <= before else camera


def _off_centre(
    camera: CameraModel, observed: FloatArray, table_xy: FloatArray, rms: float
) -> tuple[CameraModel, str]:
    """The camera that puts the corners where they are seen, its principal point free but
    kept as near the image centre as that allows (a cropped or shifted picture), and a note
    saying so; `camera` itself when that does not bring the corners closer."""
    centre = camera.camera_matrix[:2, 2].copy()
    rvec, _ = cv2.Rodrigues(camera.rotation)
    start = np.concatenate(
        [rvec.reshape(3), camera.translation_mm, [math.log(camera.camera_matrix[0, 0])], centre]
    )

    def build(params: NDArray[np.float64]) -> CameraModel:
        focal = math.exp(params[6])
        matrix = np.array([[focal, 0.0, params[7]], [0.0, focal, params[8]], [0.0, 0.0, 1.0]])
        rotation = np.asarray(cv2.Rodrigues(params[:3].reshape(3, 1))[0], dtype=np.float64)
        return CameraModel(matrix, rotation, params[3:6], camera.image_size, camera.distortion)

    def residuals(params: NDArray[np.float64]) -> NDArray[np.float64]:
        corners = (build(params).project(table_xy) - observed).reshape(-1)
        out: NDArray[np.float64] = np.concatenate([corners, CENTRE_WEIGHT * (params[7:] - centre)])
        return out

    result = least_squares(residuals, start, method="lm", x_scale="jac")
    moved = build(result.x)
    error = moved.project(table_xy) - observed
    moved_rms = float(np.sqrt(np.mean(np.sum(error**2, axis=1))))
    if not moved_rms < 0.5 * rms or moved.centre_mm[2] <= 0:
        return camera, "the principal point kept at the image centre"
    u, v = result.x[7:]
    return moved, (
        f"a camera with its principal point at the image centre misses the corners by "
        f"{rms:.1f} px: the principal point moved to ({u:.0f}, {v:.0f}) px (a cropped or "
        f"shifted picture), which puts them within {moved_rms:.2f} px"
    )


def check_fit(fit: CameraFit, observed: FloatArray, table: TableSpec) -> None:
    """Raise CalibrationError when the fit's reprojection error says the (4, 2) corners are
    not a table of this size (MAX_REPROJECTION_FRACTION of the diagonal, at least 2 px)."""
    rms_px = fit.reprojection_error_px
    diagonal = float(np.linalg.norm(observed[2] - observed[0]))
    limit = max(2.0, MAX_REPROJECTION_FRACTION * diagonal)
    if rms_px > limit:
        raise CalibrationError(
            f"the corners do not fit a {table.length_mm:.0f} x {table.width_mm:.0f} mm table "
            f"seen by any camera (reprojection error {rms_px:.1f} px > {limit:.1f} px): check "
            f"the table size, that head and foot are the short sides, and the corner order"
        )
