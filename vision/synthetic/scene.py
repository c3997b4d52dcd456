"""Per-frame view of a planned, sampled clip: what to draw and the truth rows of each frame."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.camera import CameraModel
from vision.synthetic.nuisances import shot_overlays
from vision.synthetic.plan import PlannedShot, RackPlan
from vision.synthetic.render import BallPoses, Overlay
from vision.synthetic.timeline import SUBSTEPS, Timeline
from vision.synthetic.truth import TrackRow, frame_at_or_after
from vision.types import NUM_CLASSES

BLUR_MIN_TRAVEL_MM = 3.0
"""A ball moving less than this over the exposure is drawn sharp (one sample)."""


@dataclass(frozen=True, slots=True, eq=False)
class FrameScene:
    """One frame: balls and overlays to draw, and its tracks.csv rows."""

    index: int
    time_s: float
    poses: BallPoses
    overlays: tuple[Overlay, ...]
    rows: tuple[TrackRow, ...]


@dataclass(frozen=True, slots=True)
class ShotTruth:
    """A shot's truth record (a truth/shots.jsonl object)."""

    record: dict[str, Any]


@dataclass(frozen=True, slots=True, eq=False)
class Scene:
    """A clip ready to render: plan, sampled motion, camera and nuisances."""

    plan: RackPlan
    timeline: Timeline
    camera: CameraModel
    nuisances: tuple[str, ...]

    def overlays(self, time_s: float) -> tuple[Overlay, ...]:
        radius = self.plan.table.ball_radius_mm
        out: list[Overlay] = []
        for shot in self.plan.shots:
            out.extend(shot_overlays(shot, time_s, self.nuisances, radius))
            for script in shot.scripts:
                out.extend(script.overlays(time_s))
        return tuple(out)

    def frame(self, index: int) -> FrameScene:
        """What frame `index` shows (instant index / fps)."""
        timeline = self.timeline
        grid = timeline.frame_index(index)
        time_s = float(timeline.motion.time_s[grid])
        overlays = self.overlays(time_s)
        poses = self._poses(grid)
        rows = self._rows(index, grid, time_s, overlays)
        return FrameScene(index, time_s, poses, overlays, rows)

    def _poses(self, grid: int) -> BallPoses:
        motion = self.timeline.motion
        balls = np.flatnonzero(motion.drawn[grid])
        samples = [s for s in (grid - 1, grid, grid + 1) if 0 <= s < len(motion.time_s)]
        centres = np.zeros((len(balls), len(samples), 3))
        orientation = np.zeros((len(balls), len(samples), 3, 3))
        for row, ball in enumerate(balls):
            usable = [s if motion.drawn[s, ball] else grid for s in samples]
            xy = motion.xy_mm[usable, ball]
            if np.linalg.norm(xy[-1] - xy[0]) < BLUR_MIN_TRAVEL_MM:
                usable = [grid] * len(samples)
            centres[row, :, :2] = motion.xy_mm[usable, ball]
            centres[row, :, 2] = motion.height_mm[usable, ball]
            orientation[row] = self.timeline.orientation[usable, ball]
        return BallPoses(
            balls.astype(np.int64),
            centres,
            orientation,
            motion.scale[grid, balls],
            motion.shade[grid, balls],
        )

    def _rows(
        self, index: int, grid: int, time_s: float, overlays: tuple[Overlay, ...]
    ) -> tuple[TrackRow, ...]:
        motion, timeline = self.timeline.motion, self.timeline
        polygons = [self._polygon(o) for o in overlays]
        rows: list[TrackRow] = []
        for ball in range(NUM_CLASSES):
            removed = timeline.removed_s[ball]
            last = frame_at_or_after(float(removed), timeline.fps) if np.isfinite(removed) else None
            if last is not None and index > last:
                continue
            if last is None and not motion.drawn[grid, ball]:
                continue
            xy = motion.xy_mm[grid, ball]
            uv = self.camera.project(xy[None], motion.height_mm[grid, ball])[0]
            status = timeline.removal_kind[ball] if index == last else "on_table"
            if status == "on_table" and any(_inside(p, uv) for p in polygons):
                status = "occluded"
            rows.append(
                TrackRow(
                    index,
                    time_s,
                    ball,
                    float(xy[0]),
                    float(xy[1]),
                    float(uv[0]),
                    float(uv[1]),
                    status,
                )
            )
        return tuple(rows)

    def _polygon(self, overlay: Overlay) -> np.ndarray:
        points = overlay.points_mm
        uv: np.ndarray = self.camera.project(points[:, :2], points[:, 2]).astype(np.float32)
        return uv

    def shot_records(self) -> list[ShotTruth]:
        return [ShotTruth(_record(shot, self.plan.fps)) for shot in self.plan.shots]


def _inside(polygon: np.ndarray, uv: np.ndarray) -> bool:
    point = (float(uv[0]), float(uv[1]))
    return bool(cv2.pointPolygonTest(polygon.reshape(-1, 1, 2), point, False) >= 0)


def _record(shot: PlannedShot, fps: float) -> dict[str, Any]:
    return {
        "shot": shot.number,
        "frame_strike": frame_at_or_after(shot.strike_s, fps),
        "frame_end": frame_at_or_after(shot.end_s, fps),
        "is_break": shot.number == 1 and shot.kind == "break",
        "shooter": shot.shooter,
        "facts": shot.facts,
        "confidence": 1.0,
        "time_strike_s": round(shot.strike_s, 4),
        "time_end_s": round(shot.end_s, 4),
        "synthetic_kind": shot.kind,
    }


assert SUBSTEPS >= 2
