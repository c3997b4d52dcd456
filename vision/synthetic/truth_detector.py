"""A fake ball detector fed by a synthetic clip's truth tracks (for fast CPU tests).

`TruthDetector.detect(frame)` returns the balls that truth/tracks.csv lists as `on_table` at
`frame.index`, optionally with seeded pixel noise, missed balls, false positives and
confused identities, in the same `Detections` form a real detector returns. Occluded balls
are not detected.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from calibration.io import Calibration, load_calibration
from vision.synthetic.truth import TrackRow, read_tracks
from vision.types import NUM_CLASSES, Detections, Frame


@dataclass(frozen=True, slots=True)
class TruthDetectorConfig:
    """How imperfect the fake detector is.

    Attributes:
        noise_px: standard deviation of the centre error, pixels.
        miss_rate: probability that a visible ball is not detected in a frame.
        false_positives_per_frame: mean number of spurious detections per frame (Poisson).
        identity_confusion: probability mass moved from the true class to the others.
        seed: seeds the noise.
    """

    noise_px: float = 0.0
    miss_rate: float = 0.0
    false_positives_per_frame: float = 0.0
    identity_confusion: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("miss_rate", "identity_confusion"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"TruthDetectorConfig.{name} must be in [0, 1], got {value}")
        if self.noise_px < 0 or self.false_positives_per_frame < 0:
            raise ValueError("noise_px and false_positives_per_frame must be non-negative")


class TruthDetector:
    """Detections from truth rows; the same `detect(frame, hint_xy_px=None)` as BallDetector."""

    def __init__(
        self,
        rows: list[TrackRow],
        calibration: Calibration,
        config: TruthDetectorConfig | None = None,
    ) -> None:
        self.calibration = calibration
        self.config = config or TruthDetectorConfig()
        self._rng = np.random.default_rng(self.config.seed)
        self._by_frame: dict[int, list[TrackRow]] = defaultdict(list)
        for row in rows:
            if row.status == "on_table":
                self._by_frame[row.frame].append(row)

    @classmethod
    def from_clip(
        cls, clip_dir: str | Path, config: TruthDetectorConfig | None = None
    ) -> TruthDetector:
        """Read truth/tracks.csv and calibration.json of a synthetic clip directory."""
        directory = Path(clip_dir)
        rows = read_tracks(directory / "truth" / "tracks.csv")
        return cls(rows, load_calibration(directory / "calibration.json"), config)

    def detect(self, frame: Frame, hint_xy_px: NDArray[np.floating] | None = None) -> Detections:
        """Detections of the balls on the table in `frame` (matched by `frame.index`)."""
        del hint_xy_px  # truth needs no search window
        rows = self._by_frame.get(frame.index, [])
        config, rng = self.config, self._rng
        keep = rng.random(len(rows)) >= config.miss_rate
        rows = [r for r, k in zip(rows, keep, strict=True) if k]
        uv = np.array([[r.u_px, r.v_px] for r in rows], dtype=np.float64).reshape(-1, 2)
        uv = uv + rng.normal(0.0, config.noise_px, uv.shape) if config.noise_px else uv
        labels = np.array([r.ball for r in rows], dtype=np.int64)
        spurious = int(rng.poisson(config.false_positives_per_frame))
        if spurious:
            uv = np.vstack([uv, self._random_points(spurious)])
            labels = np.concatenate([labels, np.full(spurious, -1)])
        return self._detections(uv, labels)

    def _random_points(self, count: int) -> NDArray[np.float64]:
        table = self.calibration.table
        xy = self._rng.uniform((0.0, 0.0), (table.length_mm, table.width_mm), (count, 2))
        points: NDArray[np.float64] = self.calibration.camera.project(xy, table.ball_radius_mm)
        return points

    def _detections(self, uv: NDArray[np.float64], labels: NDArray[np.int64]) -> Detections:
        camera, table = self.calibration.camera, self.calibration.table
        xy_mm = camera.to_table(uv) if len(uv) else np.zeros((0, 2))
        radius = camera.ball_radius_px(xy_mm, table.ball_radius_mm) if len(uv) else np.zeros(0)
        probabilities = np.full((len(labels), NUM_CLASSES), 1.0 / NUM_CLASSES)
        real = labels >= 0
        confusion = self.config.identity_confusion
        probabilities[real] = confusion / (NUM_CLASSES - 1)
        probabilities[np.flatnonzero(real), labels[real]] = 1.0 - confusion
        confidence = np.where(real, 0.99, 0.3)
        return Detections(
            xy_px=uv.astype(np.float32),
            xy_mm=xy_mm.astype(np.float32),
            radius_px=radius.astype(np.float32),
            confidence=confidence.astype(np.float32),
            class_prob=probabilities.astype(np.float32),
        )
