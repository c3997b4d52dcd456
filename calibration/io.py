"""Calibration files (design.md §4, contract).

The minimum a person writes is the table size, the image size and the four cloth corners in
pixels. Fitted files add a "camera" block (intrinsics, pose, distortion) so that a reader need
not refit; unknown extra fields are kept as they are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import CameraModel
from calibration.table import TableSpec

SCHEMA = "tenball-calibration/1"
CORNER_NAMES = ("head_left", "head_right", "foot_right", "foot_left")


class CalibrationError(ValueError):
    """A calibration file or fit is unusable; the message says which field and why."""


@dataclass(frozen=True, slots=True, eq=False)
class Calibration:
    """A table seen by one camera.

    Attributes:
        table: the table's dimensions.
        camera: the fitted camera (maps table mm at any height to pixels and back).
        corners_px: the four playing-surface corners on the cloth plane, pixels, by name.
        extra: other fields of the file, kept for round trips (e.g. reprojection error).
    """

    table: TableSpec
    camera: CameraModel
    corners_px: dict[str, tuple[float, float]]
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def image_size(self) -> tuple[int, int]:
        return self.camera.image_size

    def to_json(self) -> dict[str, Any]:
        camera = self.camera
        out: dict[str, Any] = {
            "schema": SCHEMA,
            "table": {
                "length_mm": self.table.length_mm,
                "width_mm": self.table.width_mm,
                "ball_diameter_mm": self.table.ball_diameter_mm,
            },
            "image_size": list(camera.image_size),
            "corners_px": {k: [float(v[0]), float(v[1])] for k, v in self.corners_px.items()},
            "camera": {
                "camera_matrix": camera.camera_matrix.tolist(),
                "rotation": camera.rotation.tolist(),
                "translation_mm": camera.translation_mm.tolist(),
                "distortion": camera.distortion.tolist(),
            },
        }
        out.update({k: v for k, v in self.extra.items() if k not in out})
        return out

    def save(self, path: str | Path) -> None:
        """Write the file atomically (a crash never leaves half a calibration)."""
        target = Path(path)
        temporary = target.with_suffix(target.suffix + ".tmp")
        temporary.write_text(json.dumps(self.to_json(), indent=2) + "\n")
        temporary.replace(target)


def table_from_json(data: dict[str, Any]) -> TableSpec:
    table = data.get("table")
    if not isinstance(table, dict):
        raise CalibrationError("field 'table' is missing or not an object")
    try:
        return TableSpec(
            length_mm=float(table["length_mm"]),
            width_mm=float(table["width_mm"]),
            ball_diameter_mm=float(table.get("ball_diameter_mm", 57.15)),
        )
    except KeyError as missing:
        raise CalibrationError(f"field 'table.{missing.args[0]}' is missing") from None
    except (TypeError, ValueError) as error:
        raise CalibrationError(f"field 'table': {error}") from None


def corners_from_json(data: dict[str, Any]) -> dict[str, tuple[float, float]]:
    corners = data.get("corners_px")
    if not isinstance(corners, dict):
        raise CalibrationError("field 'corners_px' is missing or not an object")
    out: dict[str, tuple[float, float]] = {}
    for name in CORNER_NAMES:
        value = corners.get(name)
        if not (isinstance(value, list | tuple) and len(value) == 2):
            raise CalibrationError(f"field 'corners_px.{name}' must be [u, v], got {value!r}")
        out[name] = (float(value[0]), float(value[1]))
    return out


def camera_from_json(data: dict[str, Any], image_size: tuple[int, int]) -> CameraModel | None:
    block = data.get("camera")
    if block is None:
        return None
    try:
        return CameraModel(
            camera_matrix=np.asarray(block["camera_matrix"], dtype=np.float64),
            rotation=np.asarray(block["rotation"], dtype=np.float64),
            translation_mm=np.asarray(block["translation_mm"], dtype=np.float64),
            image_size=image_size,
            distortion=np.asarray(block.get("distortion", []), dtype=np.float64),
        )
    except (KeyError, ValueError, TypeError) as error:
        raise CalibrationError(f"field 'camera': {error}") from None


def load_calibration(path: str | Path) -> Calibration:
    """Read a calibration file; fit the camera from the corners when the file has none."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise CalibrationError(f"calibration file not found: {path}") from None
    except json.JSONDecodeError as error:
        raise CalibrationError(f"{path} is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise CalibrationError(f"{path}: expected a JSON object")
    return calibration_from_json(data)


def calibration_from_json(data: dict[str, Any]) -> Calibration:
    size = data.get("image_size")
    if not (isinstance(size, list | tuple) and len(size) == 2):
        raise CalibrationError(f"field 'image_size' must be [width, height], got {size!r}")
    image_size = (int(size[0]), int(size[1]))
    table = table_from_json(data)
    corners = corners_from_json(data)
    camera = camera_from_json(data, image_size)
    extra = {k: v for k, v in data.items() if k not in ("table", "corners_px", "camera")}
    if camera is None:
        from calibration.fit import fit_camera, prior_from_json

        by_hand = replace(prior_from_json(data.get("lens")), corners_by_hand=True)
        camera = fit_camera(corners, table, image_size, by_hand)
    return Calibration(table=table, camera=camera, corners_px=corners, extra=extra)
