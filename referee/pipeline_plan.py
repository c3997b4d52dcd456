"""Where the pipeline's detector looks on the next frame (`referee.pipeline.Pipeline`).

The detector searches windows around the tracked balls (cheap), and the whole table (some
60 ms) every so often, and more often while a ball that may be moving is lost. `SearchPlan`
holds what that choice needs from frame to frame: it follows each frame's tracks and, for
the next frame, answers the hint (the windows' centres, or None for the whole table) and the
reach windows searched besides: round an unseen cue ball, where each fast ball will be, and
down the corridor a struck resting ball is sent (`referee.pipeline_lead`). The options are
`PipelineConfig`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from calibration.camera import BALL_CENTRE_HEIGHT_MM
from calibration.io import Calibration
from referee.pipeline_lead import (
    Knocks,
    knock_corridor,
    knocked_balls,
    lead_centres,
)
from referee.pipeline_search import (
    Reach,
    cue_in_hand,
    in_play,
    moving_ball_lost,
    reach_centres,
    struck_ball_lost,
)
from tracking.status_masks import status_is
from tracking.types import TrackSet, TrackStatus
from vision.types import CUE, Frame

if TYPE_CHECKING:  # a cycle at run time: the pipeline builds its plan
    from referee.pipeline import PipelineConfig


class SearchPlan:
    """The search of each frame, from the tracks of the frames before it.

    Args:
        calibration: the table and camera (table mm -> image pixels).
        config: the pipeline's options (`PipelineConfig`: the search fields).
    """

    def __init__(self, calibration: Calibration, config: PipelineConfig) -> None:
        self.calibration = calibration
        self.config = config
        self._hint: NDArray[np.float64] | None = None
        self._moving_ball_lost = False
        self._cue_seen_s = -np.inf
        self._cue_seen_before = True
        self._last_full_search_s = -np.inf
        self._periodic_slot = -1
        self._last_time_s: float | None = None
        self._seen_s: dict[int, float] = {}
        self._knocked: dict[int, tuple[float, NDArray[np.float64], NDArray[np.float64], float]] = {}
        """Balls a moving ball reached lately: when first, rest spot (2,) mm, line of centres
        (2,), the striker's speed mm/s (`_corridor`)."""
        self.reach_px = np.zeros((0, 2))
        """(R, 2) pixels whose windows the detector also searches this frame: unseen balls
        that may be moving (`PipelineConfig.reach_speed_mm_s`), struck balls' corridors and
        fast balls' next places (`referee.pipeline_lead`)."""
        self.full_searches = 0
        """How many frames the detector searched the whole table (the expensive search)."""

    def hint(self, frame: Frame) -> NDArray[np.float64] | None:
        """Where to look on ``frame`` (called once per frame, in order): (M, 2) pixels to
        search around the tracked balls, or None for the whole table when due."""
        lost_every = self.config.lost_search_every_s
        periodic = self._periodic_due(frame)  # called every frame: it follows the slots
        due = (
            periodic
            or self._hint is None
            or len(self._hint) == 0
            or (
                self._moving_ball_lost
                and lost_every > 0
                and frame.time_s - self._last_full_search_s >= lost_every - 1e-9
            )
        )
        if due:
            self._last_full_search_s = frame.time_s
            self.full_searches += 1
            return None
        return self._hint

    def follow(self, tracks: TrackSet) -> None:
        """Take one frame's tracks (pixels filled): where to look on the next frame."""
        step_s = tracks.time_s - self._last_time_s if self._last_time_s is not None else 0.0
        self._hint = self._hints(tracks)
        self.reach_px = np.vstack(
            [
                self._reach(tracks, step_s),
                self._corridor(tracks, step_s),
                self._ahead(tracks, step_s),
            ]
        )
        self._moving_ball_lost = (
            cue_in_hand(tracks)
            or moving_ball_lost(
                tracks,
                self.config.lost_ball_speed_mm_s,
                self.calibration.table,
                self._cue_lost(tracks),
            )
            or self._struck_lost(tracks)
        )

    def _struck_lost(self, tracks: TrackSet) -> bool:
        """Whether a ball lost moments ago may have been struck (`struck_ball_lost`,
        `PipelineConfig.struck_lost_s`)."""
        recent_s = self.config.struck_lost_s
        if recent_s <= 0.0:
            return False
        seen = np.array([self._seen_s.get(int(b), tracks.time_s) for b in tracks.ball])
        unseen_s = tracks.time_s - seen.reshape(-1)
        return struck_ball_lost(
            tracks,
            unseen_s,
            recent_s,
            self.config.lost_ball_speed_mm_s,
            self.calibration.table,
        )

    def _cue_lost(self, tracks: TrackSet) -> bool:
        """Whether the cue ball has been lost (hidden on the table) for at least
        ``lost_cue_wait_s``.

        Only a cue ball seen in two frames running counts as found: a single sighting of a
        lost cue ball is usually a rolling ball caught once in a full search, with no
        velocity yet, and leaving the searches would lose it again.
        """
        cue = tracks.ball == CUE
        on_bed = status_is(tracks.status, TrackStatus.ON_TABLE)
        seen = bool(np.any(cue & on_bed)) or not np.any(cue)
        if seen and self._cue_seen_before:
            self._cue_seen_s = tracks.time_s
        self._cue_seen_before = seen
        wait = self.config.lost_cue_wait_s
        return wait >= 0 and tracks.time_s - self._cue_seen_s >= wait - 1e-9

    def _hints(self, tracks: TrackSet) -> NDArray[np.float64]:
        """(M, 2) pixels to search around next frame: every ball in play, and where each
        ball fast enough to leave its window will be (`PipelineConfig.lead_hint_radii`)."""
        play = in_play(tracks)
        hints = tracks.xy_px[play]
        step_s = tracks.time_s - self._last_time_s if self._last_time_s is not None else 0.0
        self._last_time_s = tracks.time_s
        lead = self.config.lead_hint_radii
        if lead <= 0.0 or step_s <= 0.0 or not play.any():
            return hints
        step_mm = tracks.velocity_mm_s[play] * step_s
        fast = np.hypot(step_mm[:, 0], step_mm[:, 1]) > lead * self.calibration.table.ball_radius_mm
        fast &= np.all(np.isfinite(step_mm), axis=1)
        if not fast.any():
            return hints
        ahead_mm = tracks.xy_mm[play][fast] + step_mm[fast]
        ahead = self.calibration.camera.project(ahead_mm, BALL_CENTRE_HEIGHT_MM)
        return np.vstack([hints, ahead])

    def _reach(self, tracks: TrackSet, step_s: float) -> NDArray[np.float64]:
        """(R, 2) pixels whose windows the detector also searches next frame: where unseen
        balls that may be moving may be (`PipelineConfig.reach_speed_mm_s`)."""
        config = self.config
        on_bed = status_is(tracks.status, TrackStatus.ON_TABLE)
        for ball in tracks.ball[on_bed]:
            self._seen_s[int(ball)] = tracks.time_s
        if config.reach_speed_mm_s <= 0.0:
            return np.zeros((0, 2))
        if step_s <= 0.0:
            return np.zeros((0, 2))
        seen = np.array([self._seen_s.get(int(b), tracks.time_s) for b in tracks.ball])
        unseen_s = tracks.time_s - seen.reshape(-1)
        unseen_s[unseen_s > max(config.lost_cue_wait_s, 0.0)] = 0.0
        from vision.detector_config import DetectorConfig

        window = (config.detector or DetectorConfig()).hint_window_radii
        reach = Reach(config.reach_speed_mm_s, config.reach_max_radii, window)
        table = self.calibration.table
        centres = reach_centres(tracks, unseen_s, step_s, table, reach)
        if len(centres) == 0:
            return np.zeros((0, 2))
        return self.calibration.camera.project(centres, BALL_CENTRE_HEIGHT_MM)

    def _corridor(self, tracks: TrackSet, step_s: float) -> NDArray[np.float64]:
        """(C, 2) pixels whose windows the detector also searches next frame: along the
        corridor down which each resting ball a moving ball reached lately would be sent
        (`referee.pipeline_lead.knocked_balls`), until its own track sees it move or
        `PipelineConfig.knock_corridor_s` has passed since it was first reached."""
        if self.config.knock_corridor_s <= 0.0 or step_s <= 0.0:
            self._knocked.clear()
            return np.zeros((0, 2))
        self._remember_knocks(tracks, step_s)
        if not self._knocked:
            return np.zeros((0, 2))
        balls = np.array(list(self._knocked), np.int64)
        rows = list(self._knocked.values())
        knocks = Knocks(
            balls,
            np.array([row[1] for row in rows]),
            np.array([row[2] for row in rows]),
            np.array([row[3] for row in rows]),
        )
        elapsed = np.array([tracks.time_s - row[0] + 2.0 * step_s for row in rows])
        others = in_play(tracks) & ~np.isin(tracks.ball, balls)
        table = self.calibration.table
        window = self._window_radii()
        centres = knock_corridor(knocks, elapsed, table, window, tracks.xy_mm[others])
        if len(centres) == 0:
            return np.zeros((0, 2))
        return self.calibration.camera.project(centres, BALL_CENTRE_HEIGHT_MM)

    def _remember_knocks(self, tracks: TrackSet, step_s: float) -> None:
        """Add the balls a moving ball reaches this frame (their line of centres and the
        striker's speed refreshed, the time first reached kept); forget those whose track
        follows them moving, out of play, or reached too long ago."""
        min_speed = self.config.lost_ball_speed_mm_s
        corridor_s = self.config.knock_corridor_s
        now = tracks.time_s
        fresh = knocked_balls(tracks, step_s, min_speed, self.calibration.table)
        for row, ball in enumerate(fresh.ball.tolist()):
            first = self._knocked.get(ball, (now,))[0]
            self._knocked[ball] = (
                first,
                fresh.xy_mm[row],
                fresh.direction[row],
                float(fresh.speed_mm_s[row]),
            )
        speed = np.hypot(tracks.velocity_mm_s[:, 0], tracks.velocity_mm_s[:, 1])
        seen_moving = status_is(tracks.status, TrackStatus.ON_TABLE) & (speed > min_speed)
        waiting = set(tracks.ball[in_play(tracks) & ~seen_moving].tolist())
        for ball in list(self._knocked):
            if ball not in waiting or now - self._knocked[ball][0] > corridor_s + 1e-9:
                del self._knocked[ball]

    def _ahead(self, tracks: TrackSet, step_s: float) -> NDArray[np.float64]:
        """(F, 2) pixels where each fast ball will be next frame
        (`referee.pipeline_lead.lead_centres`)."""
        table = self.calibration.table
        ahead = lead_centres(
            tracks, step_s, table, self._window_radii(), self.config.lead_step_radii
        )
        if len(ahead) == 0:
            return np.zeros((0, 2))
        return self.calibration.camera.project(ahead, BALL_CENTRE_HEIGHT_MM)

    def _window_radii(self) -> float:
        """Half-size of a search window, ball radii (`DetectorConfig.hint_window_radii`)."""
        from vision.detector_config import DetectorConfig

        return (self.config.detector or DetectorConfig()).hint_window_radii

    def _periodic_due(self, frame: Frame) -> bool:
        """Whether the regular whole-table search falls on this frame: every
        `full_search_every_frames` frames when set, else on the first frame at or past each
        multiple of `full_search_every_s` (frame times a hair short of it count)."""
        every = self.config.full_search_every_frames
        if every > 0:
            return frame.index % every == 0
        period_s = self.config.full_search_every_s
        if period_s <= 0.0:
            return False
        slot = int(np.floor(frame.time_s / period_s + 1e-6))
        due = slot != self._periodic_slot
        self._periodic_slot = slot
        return due
