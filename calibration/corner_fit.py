"""From the table's four found corners to a fitted camera.

The finder (`calibration.find`) locates the cushion lines and names the corners; this module
fits the camera to them and corrects what the corners alone get wrong:

* `fit_corners`: working-image corners back at full size, checked to lie in the frame, and
  the camera fitted to them (`calibration.fit`).
* `rack_check`: the default head rule swapped for the other end when a rack stands where the
  rule put the head.
* `nose_height_refit`: a line seen at the cushion noses' height (the nose picked as the edge,
  or a camera behind that cushion) moved straight down onto the cloth, and the camera refitted.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel, FloatArray
from calibration.cloth import TableNotFoundError, intersect, line_through
from calibration.fit import CameraFit, CameraPrior, fit_camera_report
from calibration.io import CORNER_NAMES, CalibrationError
from calibration.orientation import rack_end
from calibration.table import TableSpec

__all__ = ["fit_corners", "nose_height_refit", "rack_check", "to_full"]


def to_full(points: FloatArray, scale: float) -> FloatArray:
    """Working-image pixels to full-frame pixels (pixel centres at integers in both)."""
    out: FloatArray = (points + 0.5) * scale - 0.5
    return out


def fit_corners(
    corners: FloatArray,
    scale: float,
    shape: tuple[int, ...],
    table: TableSpec,
    prior: CameraPrior,
) -> tuple[CameraFit, FloatArray]:
    """The camera fitted to (4, 2) working-image `corners` in CORNER_NAMES order, and the
    corners at full size (clipped into the frame of `shape`, (H, W, ...)).

    Raises:
        TableNotFoundError: a corner lies more than 3 px outside the frame, or no camera
            view of `table` fits the corners.
    """
    full = to_full(corners, scale)
    size = (int(shape[1]), int(shape[0]))
    margin = np.array(size, dtype=np.float64) - 0.5
    clipped = np.clip(full, -0.5, margin)
    if np.max(np.abs(clipped - full)) > 3.0:
        raise TableNotFoundError("a table corner falls outside the frame: the table is cut off")
    named = {n: (float(u), float(v)) for n, (u, v) in zip(CORNER_NAMES, clipped, strict=True)}
    try:
        fit = fit_camera_report(named, table, size, prior, check_shape=False)
    except CalibrationError as error:
        raise TableNotFoundError(f"the quadrilateral found is not this table: {error}") from None
    return fit, clipped


def rack_check(
    image: NDArray[np.uint8],
    fit: CameraFit,
    corners: FloatArray,
    order: NDArray[np.int64],
    context: tuple[float, TableSpec, CameraPrior],
) -> tuple[CameraFit, FloatArray, NDArray[np.int64], str | None]:
    """Swap head and foot when a rack stands at the end the rule called the head.

    `context` is the working image's scale, the table and the camera prior; returns the fit,
    the full-size corners, the corner order and a note (None: nothing swapped).
    """
    scale, table, prior = context
    if rack_end(image, fit.camera, table) != "head":
        return fit, to_full(corners[order], scale), order, None
    flipped = np.roll(order, 2)
    refit, full = fit_corners(corners[flipped], scale, image.shape, table, prior)
    return (
        refit,
        full,
        flipped,
        "a rack stands at the end the rule named head: head and foot swapped",
    )


def nose_height_refit(
    fit: CameraFit,
    corners: FloatArray,
    noses: tuple[bool, ...],
    table: TableSpec,
    lift: tuple[float, CameraPrior],
) -> tuple[CameraFit, FloatArray, str | None]:
    """Move the lines seen at nose height straight down onto the cloth, and refit.

    The playing surface ends below the nose. A camera above the middle sees the nose a little
    outside that line; one behind a rail sees the near nose well inside it. A line is at nose
    height when it was picked as the nose (`noses`, table side order) or when the camera is
    behind that cushion, so that its face and the bed's edge are hidden under the nose.
    `lift` is the noses' height above the cloth (mm; 0: every line lies on the cloth) and
    the camera prior.
    """
    nose_height_mm, prior = lift
    if nose_height_mm <= 0:
        return fit, corners, None
    seen = corners
    for _ in range(3):
        raised = [a or b for a, b in zip(noses, _outside_sides(fit.camera, table), strict=True)]
        if not any(raised):
            return fit, corners, None
        heights = [nose_height_mm if up else 0.0 for up in raised]
        corners = _lowered_corners(fit.camera, seen, heights)
        named = {n: (float(u), float(v)) for n, (u, v) in zip(CORNER_NAMES, corners, strict=True)}
        fit = fit_camera_report(named, table, fit.camera.image_size, prior, False)
    shift = float(np.max(np.linalg.norm(corners - seen, axis=1)))
    return (
        fit,
        corners,
        (
            f"cushion noses taken {nose_height_mm:.1f} mm above the cloth: corners moved "
            f"up to {shift:.1f} px onto the cloth plane"
        ),
    )


def _outside_sides(camera: CameraModel, table: TableSpec) -> list[bool]:
    """Per side in table order (head, right, foot, left): is the camera behind it?"""
    x, y, _ = camera.centre_mm
    return [x < 0.0, y > table.width_mm, x > table.length_mm, y < 0.0]


def _lowered_corners(camera: CameraModel, corners: FloatArray, heights: list[float]) -> FloatArray:
    """Corners after replacing each side's line, seen at its height, by its footprint on
    the cloth (sides in table order, side k from corner k to k + 1)."""
    lines = []
    for k in range(4):
        ends = np.array([corners[k], corners[(k + 1) % 4]])
        on_nose = camera.to_table(ends, heights[k])
        cloth = camera.project(on_nose, 0.0)
        lines.append(line_through(cloth[0], cloth[1]))
    out: FloatArray = np.array([intersect(lines[k - 1], lines[k]) for k in range(4)])
    return out
