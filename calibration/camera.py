"""Pinhole camera model over the table frame.

World coordinates are the table frame of design.md §3 with heights above the cloth. Internally
the third world axis points *down* into the table (x along, y across, z down is right-handed),
so a point `height_mm` above the cloth has z = -height_mm. Callers never see that axis: every
function takes table (x, y) in millimetres plus a height.

Camera convention is OpenCV's: X_cam = R X_world + t, x right, y down, z forward; pixels (u, v)
with pixel centres at integers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

BALL_CENTRE_HEIGHT_MM = 57.15 / 2.0
"""Height of a ball's centre above the cloth."""

FloatArray = NDArray[np.float64]


def _readonly(array: NDArray[np.float64]) -> NDArray[np.float64]:
    array.flags.writeable = False
    return array


@dataclass(frozen=True, slots=True, eq=False)
class CameraModel:
    """Intrinsics, pose and lens distortion of one camera.

    Attributes:
        camera_matrix: (3, 3) float64 K in pixels.
        rotation: (3, 3) float64 world-to-camera rotation R.
        translation_mm: (3,) float64 world-to-camera translation t, millimetres.
        image_size: (width, height) in pixels.
        distortion: (K,) float64 OpenCV distortion coefficients (k1, k2, p1, p2[, k3...]);
            empty for an ideal pinhole.
    """

    camera_matrix: FloatArray
    rotation: FloatArray
    translation_mm: FloatArray
    image_size: tuple[int, int]
    distortion: FloatArray = field(default_factory=lambda: np.zeros(0, dtype=np.float64))

    def __post_init__(self) -> None:
        shapes = {
            "camera_matrix": (self.camera_matrix, (3, 3)),
            "rotation": (self.rotation, (3, 3)),
            "translation_mm": (self.translation_mm, (3,)),
        }
        for name, (value, shape) in shapes.items():
            array = np.array(value, dtype=np.float64)
            if array.shape != shape:
                raise ValueError(f"{name} must have shape {shape}, got {array.shape}")
            object.__setattr__(self, name, _readonly(array))
        distortion = np.array(self.distortion, dtype=np.float64).reshape(-1)
        object.__setattr__(self, "distortion", _readonly(distortion))
        width, height = (int(v) for v in self.image_size)
        if width <= 0 or height <= 0:
            raise ValueError(f"image_size must be positive (width, height), got {self.image_size}")
        object.__setattr__(self, "image_size", (width, height))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CameraModel):
            return NotImplemented
        return (
            np.array_equal(self.camera_matrix, other.camera_matrix)
            and np.array_equal(self.rotation, other.rotation)
            and np.array_equal(self.translation_mm, other.translation_mm)
            and np.array_equal(self.distortion, other.distortion)
            and self.image_size == other.image_size
        )

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def look_at(
        cls,
        eye_mm: tuple[float, float, float],
        target_mm: tuple[float, float, float],
        image_size: tuple[int, int],
        focal_px: float,
        right_hint: tuple[float, float, float] = (1.0, 0.0, 0.0),
    ) -> CameraModel:
        """A camera at `eye_mm` looking at `target_mm`, principal point at the image centre.

        Args:
            eye_mm: camera centre as (x, y, height above the cloth), table mm.
            target_mm: point looked at, (x, y, height), table mm.
            image_size: (width, height) px.
            focal_px: focal length in pixels (square pixels).
            right_hint: table-frame direction (x, y, height) that should point right in the
                image; the default puts the head on the left and the foot on the right.
        """
        eye = _to_world(np.asarray(eye_mm, dtype=np.float64))
        target = _to_world(np.asarray(target_mm, dtype=np.float64))
        forward = target - eye
        forward /= np.linalg.norm(forward)
        hint = _to_world(np.asarray(right_hint, dtype=np.float64))
        right = hint - (hint @ forward) * forward
        norm = np.linalg.norm(right)
        if norm < 1e-9:
            raise ValueError("right_hint is parallel to the viewing direction")
        right /= norm
        down = np.cross(forward, right)
        rotation = np.stack([right, down, forward])
        width, height = image_size
        matrix = np.array(
            [[focal_px, 0.0, (width - 1) / 2.0], [0.0, focal_px, (height - 1) / 2.0], [0, 0, 1]]
        )
        return cls(matrix, rotation, -rotation @ eye, (width, height))

    @property
    def centre_mm(self) -> FloatArray:
        """(3,) camera centre as (x, y, height above the cloth), table mm."""
        return _to_world(-self.rotation.T @ self.translation_mm)

    def plane_homography(self, height_mm: float = 0.0) -> FloatArray:
        """(3, 3) homography from table (x, y, 1) at `height_mm` to undistorted pixels."""
        r = self.rotation
        columns = np.stack([r[:, 0], r[:, 1], self.translation_mm - height_mm * r[:, 2]], axis=1)
        h: FloatArray = self.camera_matrix @ columns
        normalised: FloatArray = h / h[2, 2]
        return normalised

    def project(
        self, xy_mm: NDArray[np.floating], height_mm: float | NDArray[np.floating] = 0.0
    ) -> FloatArray:
        """Pixels of table points.

        Args:
            xy_mm: (N, 2) table positions, mm.
            height_mm: scalar or (N,) heights above the cloth, mm.

        Returns:
            (N, 2) float64 pixel coordinates (u, v), lens distortion applied.
        """
        xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
        heights = np.broadcast_to(np.asarray(height_mm, dtype=np.float64), (len(xy),))
        world = np.column_stack([xy, -heights])
        cam = world @ self.rotation.T + self.translation_mm
        return self._camera_to_pixels(cam)

    def depth_mm(
        self, xy_mm: NDArray[np.floating], height_mm: float | NDArray[np.floating] = 0.0
    ) -> FloatArray:
        """(N,) distance along the optical axis of table points, mm."""
        xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
        heights = np.broadcast_to(np.asarray(height_mm, dtype=np.float64), (len(xy),))
        world = np.column_stack([xy, -heights])
        cam: FloatArray = world @ self.rotation.T + self.translation_mm
        return cam[:, 2].copy()

    def to_table(
        self, uv_px: NDArray[np.floating], height_mm: float = BALL_CENTRE_HEIGHT_MM
    ) -> FloatArray:
        """Table positions of pixels, on the plane `height_mm` above the cloth.

        With the default height, the pixel of a ball's centre maps to the ball's table position
        without parallax.

        Args:
            uv_px: (N, 2) pixel coordinates.
            height_mm: height of the plane above the cloth, mm.

        Returns:
            (N, 2) float64 table positions, mm; NaN for a pixel beyond the range where the
            lens model can be inverted (a strongly distorted image corner).
        """
        uv = np.asarray(uv_px, dtype=np.float64).reshape(-1, 2)
        if len(uv) == 0:
            return np.zeros((0, 2), dtype=np.float64)
        normalised = self._undistort_normalised(uv)
        rays_cam = np.column_stack([normalised, np.ones(len(uv))])
        rays_world = rays_cam @ self.rotation  # R^T d for each row
        centre = -self.rotation.T @ self.translation_mm
        plane_z = -height_mm
        scale = (plane_z - centre[2]) / rays_world[:, 2]
        points: FloatArray = centre + scale[:, None] * rays_world
        return points[:, :2].copy()

    def ball_radius_px(self, xy_mm: NDArray[np.floating], radius_mm: float) -> FloatArray:
        """(N,) apparent radius in pixels of a ball of `radius_mm` resting at `xy_mm`."""
        depth = self.depth_mm(xy_mm, radius_mm)
        focal = float(np.sqrt(self.camera_matrix[0, 0] * self.camera_matrix[1, 1]))
        return focal * radius_mm / np.maximum(depth, 1e-6)

    def _camera_to_pixels(self, cam: FloatArray) -> FloatArray:
        z = cam[:, 2:3]
        normalised = cam[:, :2] / np.where(np.abs(z) < 1e-9, 1e-9, z)
        if self.distortion.size:
            normalised = _distort(normalised, self.distortion)
        k = self.camera_matrix
        u = k[0, 0] * normalised[:, 0] + k[0, 1] * normalised[:, 1] + k[0, 2]
        v = k[1, 1] * normalised[:, 1] + k[1, 2]
        return np.column_stack([u, v])

    def _undistort_normalised(self, uv: FloatArray) -> FloatArray:
        k = self.camera_matrix
        y = (uv[:, 1] - k[1, 2]) / k[1, 1]
        x = (uv[:, 0] - k[0, 2] - k[0, 1] * y) / k[0, 0]
        normalised = np.column_stack([x, y])
        if not self.distortion.size:
            return normalised
        # Fixed-point inversion of the distortion model (as cv2.undistortPoints does).
        distorted = normalised.copy()
        estimate = normalised.copy()
        # Beyond the model's invertible range the iteration diverges to inf and NaN, which
        # is the answer there (no ray), not a numerical accident worth a warning.
        with np.errstate(over="ignore", invalid="ignore"):
            for _ in range(200):
                error = _distort(estimate, self.distortion) - distorted
                estimate -= error
                if float(np.max(np.abs(error))) < 1e-12:
                    break
        return estimate


def _to_world(point: FloatArray) -> FloatArray:
    """(x, y, height) <-> (x, y, z-down): the map is its own inverse."""
    return np.array([point[0], point[1], -point[2]], dtype=np.float64)


def _distort(normalised: FloatArray, coefficients: FloatArray) -> FloatArray:
    """OpenCV's radial-tangential model (k1, k2, p1, p2, k3) on normalised coordinates."""
    c = np.zeros(5)
    c[: min(5, coefficients.size)] = coefficients[:5]
    k1, k2, p1, p2, k3 = c
    x, y = normalised[:, 0], normalised[:, 1]
    r2 = x * x + y * y
    radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return np.column_stack([xd, yd])
