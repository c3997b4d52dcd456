"""Plane-to-image geometry: homographies, corner checks, focal length and pose from them.

Pure NumPy functions over small arrays; `calibration.fit` builds the camera from them.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray
from calibration.io import CORNER_NAMES, CalibrationError


def corner_array(corners_px: dict[str, tuple[float, float]]) -> FloatArray:
    """(4, 2) float64 corners in CORNER_NAMES order; names a missing or non-finite corner."""
    rows = []
    for name in CORNER_NAMES:
        if name not in corners_px:
            raise CalibrationError(f"corner '{name}' is missing")
        value = np.asarray(corners_px[name], dtype=np.float64).reshape(-1)
        if value.shape != (2,) or not np.all(np.isfinite(value)):
            raise CalibrationError(f"corner '{name}' must be two finite numbers (u, v)")
        rows.append(value)
    return np.stack(rows)


def check_corners(corners_px: FloatArray, image_size: tuple[int, int]) -> None:
    """Raise CalibrationError unless the (4, 2) corners are in the frame and in order.

    The order head_left, head_right, foot_right, foot_left must run around a convex
    quadrilateral, and run clockwise on the image (u right, v down), as every camera above the
    cloth sees it.
    """
    width, height = image_size
    for name, (u, v) in zip(CORNER_NAMES, corners_px, strict=True):
        if not (-0.5 <= u <= width - 0.5 and -0.5 <= v <= height - 0.5):
            raise CalibrationError(
                f"corner '{name}' at ({u:.1f}, {v:.1f}) is outside the {width}x{height} frame"
            )
    turns = _turns(corners_px)
    scale = float(np.max(np.ptp(corners_px, axis=0))) ** 2
    if np.any(np.abs(turns) < 1e-6 * max(scale, 1.0)):
        raise CalibrationError("corners are degenerate: three of them lie on one line")
    if np.all(turns > 0):
        raise CalibrationError(
            "corners are mirrored (they describe a table seen from below): "
            "swap head_left with head_right and foot_left with foot_right"
        )
    if not np.all(turns < 0):
        raise CalibrationError(
            "corners cross: head_left, head_right, foot_right, foot_left must go round the "
            "table in order (not a convex quadrilateral in that order)"
        )


def _turns(points: FloatArray) -> FloatArray:
    """(N,) z of the cross product of consecutive edges of a closed polygon."""
    edges = np.roll(points, -1, axis=0) - points
    following = np.roll(edges, -1, axis=0)
    turns: FloatArray = edges[:, 0] * following[:, 1] - edges[:, 1] * following[:, 0]
    return turns


def _normaliser(points: FloatArray) -> FloatArray:
    """Hartley's similarity: centroid to the origin, mean distance sqrt(2)."""
    centroid = points.mean(axis=0)
    spread = float(np.mean(np.linalg.norm(points - centroid, axis=1)))
    scale = np.sqrt(2.0) / max(spread, 1e-12)
    return np.array(
        [[scale, 0.0, -scale * centroid[0]], [0.0, scale, -scale * centroid[1]], [0, 0, 1.0]]
    )


def fit_homography(source: NDArray[np.floating], target: NDArray[np.floating]) -> FloatArray:
    """Normalised DLT homography H with target ~ H @ (source, 1).

    Args:
        source: (N, 2) points, N >= 4 (e.g. table mm).
        target: (N, 2) matching points (e.g. pixels).

    Returns:
        (3, 3) float64 H scaled so that H[2, 2] = 1 (or unit norm if that is ~0).
    """
    src = np.asarray(source, dtype=np.float64).reshape(-1, 2)
    dst = np.asarray(target, dtype=np.float64).reshape(-1, 2)
    if len(src) < 4 or len(src) != len(dst):
        raise ValueError(f"need N >= 4 matching points, got {len(src)} and {len(dst)}")
    t_src, t_dst = _normaliser(src), _normaliser(dst)
    a = _homogeneous(src) @ t_src.T
    b = _homogeneous(dst) @ t_dst.T
    rows = []
    for (x, y, w), (u, v, s) in zip(a, b, strict=True):
        rows.append([0, 0, 0, -s * x, -s * y, -s * w, v * x, v * y, v * w])
        rows.append([s * x, s * y, s * w, 0, 0, 0, -u * x, -u * y, -u * w])
    _, _, vt = np.linalg.svd(np.asarray(rows))
    h = np.linalg.inv(t_dst) @ vt[-1].reshape(3, 3) @ t_src
    out: FloatArray = h / h[2, 2] if abs(h[2, 2]) > 1e-12 else h / np.linalg.norm(h)
    return out


def apply_homography(homography: FloatArray, points: NDArray[np.floating]) -> FloatArray:
    """(N, 2) images of (N, 2) points under a (3, 3) homography."""
    mapped = _homogeneous(np.asarray(points, dtype=np.float64).reshape(-1, 2)) @ homography.T
    out: FloatArray = mapped[:, :2] / mapped[:, 2:3]
    return out


def _homogeneous(points: FloatArray) -> FloatArray:
    return np.column_stack([points, np.ones(len(points))])


def focal_from_homography(homography: FloatArray, centre: tuple[float, float]) -> float | None:
    """Focal length (px) of a square-pixel camera from its plane homography (Zhang).

    The first two columns of K⁻¹ H are the scaled rotation columns r1, r2, so r1·r2 = 0 and
    |r1| = |r2|; with K = diag(f, f, 1) after moving the principal point to the origin both are
    linear in w = 1/f². Returns None when no positive f fits (w <= 0).
    """
    shift = np.array([[1.0, 0.0, -centre[0]], [0.0, 1.0, -centre[1]], [0.0, 0.0, 1.0]])
    h = shift @ homography
    h1, h2 = h[:, 0], h[:, 1]
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    denominator = float(a @ a)
    if denominator <= 0:
        return None
    w = -float(a @ b) / denominator
    if not w > 0:
        return None
    return float(1.0 / np.sqrt(w))


def pose_from_homography(
    homography: FloatArray, camera_matrix: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """World-to-camera rotation (3, 3) and translation (3,) of a plane z = 0 homography.

    K⁻¹ H = λ [r1 r2 t]; λ makes r1, r2 unit on average and puts the plane in front of the
    camera; the rotation is projected onto SO(3).
    """
    m = np.linalg.solve(camera_matrix, homography)
    scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    if m[2, 2] * scale < 0:
        scale = -scale
    r1, r2 = m[:, 0] * scale, m[:, 1] * scale
    approx = np.column_stack([r1, r2, np.cross(r1, r2)])
    u, _, vt = np.linalg.svd(approx)
    rotation: FloatArray = u @ np.diag([1.0, 1.0, np.linalg.det(u @ vt)]) @ vt
    translation: FloatArray = m[:, 2] * scale
    return rotation, translation
