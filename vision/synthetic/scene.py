"""Per-frame view of a planned, sampled clip: what to draw and the truth rows of each frame."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.camera import CameraModel
from vision.synthetic.nuisances import shot_overlays
from vision.synthetic.plan import PlannedShot, RackPlan
from vision.synthetic.players import PLAYER, with_players
from vision.synthetic.render import BallPoses, Overlay
from vision.synthetic.timeline import SUBSTEPS, Timeline
from vision.synthetic.truth import TrackRow, frame_at_or_after
from vision.types import NUM_CLASSES

BLUR_MIN_TRAVEL_MM = 3.0
"""A ball moving less than this over the exposure is drawn sharp (one sample)."""
MAX_BLUR_SAMPLES = 12


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
    attempt: int = 0
    """Which seeded rack (0 = the first) gave every shot."""

    def overlays(self, time_s: float) -> tuple[Overlay, ...]:
        radius = self.plan.table.ball_radius_mm
        out: list[Overlay] = []
        for shot in self.plan.shots:
            stroke = shot_overlays(shot, time_s, self.nuisances, radius)
            if PLAYER in self.nuisances:
                stroke = with_players(shot, time_s, self.camera, self.plan.table, stroke)
            out.extend(stroke)
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
        tracks = [self._exposure(ball, grid, samples) for ball in balls]
        count = max([len(t[0]) for t in tracks], default=1)
        centres = np.zeros((len(balls), count, 3))
        orientation = np.zeros((len(balls), count, 3, 3))
        for row, (centre, turn) in enumerate(tracks):
            pick = np.linspace(0, len(centre) - 1, count).round().astype(int)
            centres[row], orientation[row] = centre[pick], turn[pick]
        return BallPoses(
            balls.astype(np.int64),
            centres,
            orientation,
            motion.scale[grid, balls],
            motion.shade[grid, balls],
        )

    def _exposure(self, ball: int, grid: int, samples: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Sub-frame centres (K, 3) and orientations (K, 3, 3) over the exposure of a frame.

        The three grid points around the frame instant are joined by straight lines and
        sampled often enough (a quarter of the ball radius apart) that a fast ball blurs
        into a streak rather than a row of copies.
        """
        motion = self.timeline.motion
        usable = [s for s in samples if motion.drawn[s, ball]] or [grid]
        points = np.column_stack([motion.xy_mm[usable, ball], motion.height_mm[usable, ball]])
        turns = self.timeline.orientation[usable, ball]
        travel = float(np.sum(np.linalg.norm(np.diff(points, axis=0), axis=1)))
        if travel < BLUR_MIN_TRAVEL_MM:
            return points[[usable.index(grid)] if grid in usable else [0]], turns[:1]
        count = int(
            min(MAX_BLUR_SAMPLES, np.ceil(travel / (0.25 * self.plan.table.ball_radius_mm)))
        )
        where = np.linspace(0.0, len(points) - 1.0, count)
        low = np.minimum(where.astype(int), len(points) - 2)
        fraction = (where - low)[:, None]
        centres = points[low] * (1.0 - fraction) + points[low + 1] * fraction
        return centres, turns[np.round(where).astype(int)]

    def _rows(
        self, index: int, grid: int, time_s: float, overlays: tuple[Overlay, ...]
    ) -> tuple[TrackRow, ...]:
        motion, timeline = self.timeline.motion, self.timeline
        polygons = [self._polygon(o) for o in overlays if o.shade == 0]
        rows: list[TrackRow] = []
        for ball in range(NUM_CLASSES):
            out = timeline.out_of_play(ball, index)
            if out == "gone" or (out is None and not motion.drawn[grid, ball]):
                continue
            xy = motion.xy_mm[grid, ball]
            uv = self.camera.project(xy[None], motion.height_mm[grid, ball])[0]
            status = out or "on_table"
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
