"""A detector that reads a synthetic clip's truth instead of its pixels.

`tenball review --truth-detector CLIP_DIR` and the end-to-end tests use it to judge tracking,
events, shots and rules on their own: every ball the truth says is visible is detected exactly
where it is, with its identity certain, so any error left belongs to the later stages.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from calibration.camera import BALL_CENTRE_HEIGHT_MM
from calibration.io import Calibration
from referee.evaluate_io import STATUSES, read_tracks
from vision.types import NUM_CLASSES, Detections, Frame


class TruthDetector:
    """Detections at the truth's visible balls (status on_table) of each frame.

    Args:
        tracks_csv: the clip's truth/tracks.csv.
        calibration: the clip's calibration (pixels for rows without them, radii).
    """

    def __init__(self, tracks_csv: str | Path, calibration: Calibration) -> None:
        self._rows = read_tracks(Path(tracks_csv))
        visible = np.flatnonzero(self._rows.status == STATUSES.index("on_table"))
        frames = self._rows.frame[visible]
        order = np.argsort(frames, kind="stable")
        visible, frames = visible[order], frames[order]
        values, starts = np.unique(frames, return_index=True)
        parts = np.split(visible, starts[1:]) if len(visible) else []
        self._by_frame: dict[int, NDArray[np.int64]] = {
            int(v): p for v, p in zip(values, parts, strict=True)
        }
        self._camera = calibration.camera
        self._radius_mm = calibration.table.ball_radius_mm

    def detect(self, frame: Frame, hint_xy_px: NDArray[np.floating] | None = None) -> Detections:
        """The truth's visible balls at `frame.index` (the hint is ignored)."""
        index = self._by_frame.get(frame.index)
        if index is None:
            return Detections.empty()
        xy_mm = self._rows.xy_mm[index]
        xy_px = self._rows.uv_px[index].copy()
        missing = ~np.isfinite(xy_px).all(axis=1)
        if missing.any():
            xy_px[missing] = self._camera.project(xy_mm[missing], BALL_CENTRE_HEIGHT_MM)
        class_prob = np.zeros((len(index), NUM_CLASSES), np.float32)
        class_prob[np.arange(len(index)), self._rows.ball[index]] = 1.0
        return Detections(
            xy_px=xy_px.astype(np.float32),
            xy_mm=xy_mm.astype(np.float32),
            radius_px=self._camera.ball_radius_px(xy_mm, self._radius_mm).astype(np.float32),
            confidence=np.ones(len(index), np.float32),
            class_prob=class_prob,
        )
