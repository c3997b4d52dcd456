"""Which detections are one ball seen twice, judged on the table as well as in the image.

Two ball centres are never nearer than a diameter on the table. The image alone cannot say
so at the far end of an angled view: there the table is foreshortened along the line of
sight, and the centres of two touching balls lie less than one apparent radius apart in
pixels (about 0.97 radii at the far end of a 9 ft corner view), so a rule in pixels takes
them for one ball seen twice. With a camera, two detections are the same ball only when
they are also nearer than a ball radius on the table (half the centre distance of touching
balls), whichever way the view foreshortens.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.camera import BALL_CENTRE_HEIGHT_MM, CameraModel

BALL_RADIUS_MM = BALL_CENTRE_HEIGHT_MM
"""A ball's radius, mm (its centre's height above the cloth)."""


def duplicate_pairs(
    xy_px: NDArray[np.float64],
    other_px: NDArray[np.float64],
    radius_px: NDArray[np.float64],
    camera: CameraModel | None,
) -> NDArray[np.bool_]:
    """(N, M) whether detection i of (N, 2) ``xy_px`` (apparent radii (N,), px) and
    detection j of (M, 2) ``other_px`` are one ball: nearer than i's radius in the image
    and, with a camera, nearer than a ball radius on the table (a pixel that cannot be
    mapped leaves the image rule alone)."""
    gaps = np.hypot(
        xy_px[:, None, 0] - other_px[None, :, 0], xy_px[:, None, 1] - other_px[None, :, 1]
    )
    same: NDArray[np.bool_] = gaps < radius_px[:, None]
    if camera is None or not same.any():
        return same
    xy_mm, other_mm = camera.to_table(xy_px), camera.to_table(other_px)
    apart_mm = np.hypot(
        xy_mm[:, None, 0] - other_mm[None, :, 0], xy_mm[:, None, 1] - other_mm[None, :, 1]
    )
    # NaN (a pixel beyond the lens model's range) compares False: the image rule stands.
    same &= ~(apart_mm >= BALL_RADIUS_MM)
    return same


def dedupe_on_table(
    xy_px: NDArray[np.float64],
    confidence: NDArray[np.float64],
    radius_px: NDArray[np.float64],
    camera: CameraModel | None,
) -> NDArray[np.bool_]:
    """(K,) keep mask: of two detections that are one ball (`duplicate_pairs`), the less
    confident goes.

    Args:
        xy_px: (K, 2) centres, frame px.
        confidence: (K,) their confidences.
        radius_px: (K,) the apparent ball radius at each, px.
        camera: the view's camera (None: pixels only).
    """
    keep = np.ones(len(xy_px), bool)
    if len(xy_px) < 2:
        return keep
    same = duplicate_pairs(xy_px, xy_px, radius_px, camera)
    np.fill_diagonal(same, False)
    if not same.any():
        return keep
    for i in np.argsort(-confidence):
        if keep[i]:
            keep &= ~same[i]
    return keep
