"""Whether the window around a point shows plain cloth: no ball there, and nothing (an arm,
a body, a cue) that could hide one.

The tracker only learns of balls through detections, so a ball it no longer sees may be
hidden under a player or gone (dropped unseen, or its track lost onto nothing). The window
around the hidden ball's predicted place tells the two apart: under an arm the window is
largely foreground; where the ball is gone it is cloth. `BallDetector.plain_cloth` answers
this per point, and the tracker ends tracks whose windows stay plain
(`TrackerConfig.plain_cloth_end_s`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.cloth import ClothModel, TableView, distance_and_shade
from vision.detector_config import DetectorConfig
from vision.memory import window_boxes
from vision.mosaic import Box

PLAIN_MAX_BALL_SHARE = 0.25
"""A window is plain while its foreground covers less than this share of one ball's disc
(pi r^2): a quarter of a ball is no ball (noise, a ball's edge just inside the window),
while any ball, or a fingertip over one, passes it. Raising it calls more windows plain."""

PLAIN_MIN_VALID_SHARE = 0.5
"""A window whose table surface (`TableView.valid`) covers less than this share of it is
never called plain: most of it is off the table, or hidden behind the view's outline."""


def plain_windows(
    image: NDArray[np.uint8],
    where: tuple[TableView, ClothModel, Box],
    xy_px: NDArray[np.float64],
    config: DetectorConfig,
    threshold: float,
) -> NDArray[np.bool_]:
    """(K,) bool: which windows (`DetectorConfig.hint_window_radii` around each (K, 2)
    frame pixel ``xy_px``) of ``image`` (H, W, 3) uint8 BGR show plain cloth.

    Args:
        image: the frame.
        where: the view (surface mask, ball radius per pixel), the learned cloth and the
            table's bounding box in the frame (u0, v0, u1, v1).
        xy_px: (K, 2) float64 centres, frame px; non-finite rows are never plain.
        config: the detector's tunables (window size, shade ratios).
        threshold: the detector's foreground threshold (Lab units).
    """
    view, cloth, bounds = where
    plain = np.zeros(len(xy_px), bool)
    finite = np.all(np.isfinite(xy_px), axis=1)
    height, width = view.valid.shape
    inside = finite.copy()
    inside[finite] = (
        (xy_px[finite, 0] >= 0)
        & (xy_px[finite, 0] < width)
        & (xy_px[finite, 1] >= 0)
        & (xy_px[finite, 1] < height)
    )
    idx = np.flatnonzero(inside)
    if len(idx) == 0:
        return plain
    xy = xy_px[idx]
    cols, rows = xy[:, 0].astype(np.int64), xy[:, 1].astype(np.int64)
    radius = view.radius_px[rows, cols].astype(np.float64)
    boxes = window_boxes(xy, np.maximum(radius, 1.0) * config.hint_window_radii, bounds)
    for k, (u0, v0, u1, v1) in enumerate(boxes):
        valid = view.valid[v0:v1, u0:u1] > 0
        if valid.sum() < PLAIN_MIN_VALID_SHARE * max(valid.size, 1) or radius[k] <= 0:
            continue
        distance, _, _ = distance_and_shade(
            image[v0:v1, u0:u1],
            cloth.unit[v0:v1, u0:u1],
            cloth.norm[v0:v1, u0:u1],
            config.dark_ratio,
            config.shade_ratio,
        )
        foreground = int(np.count_nonzero((distance > threshold) & valid))
        plain[idx[k]] = foreground < PLAIN_MAX_BALL_SHARE * np.pi * radius[k] ** 2
    return plain
