"""A cue ball struck anew while it was out of sight and the last shot's balls still rolled.

The cue ball rolls out of sight (a player's body over it) in an open shot, stops there, and
is struck again while other balls still roll; it is found far away, rolling. Its track never
saw it rest, so its reappearance looks like the same roll going on, and two shots merge.
A ball only slows as it rolls: found faster than it was last seen (by more than a velocity
fit's error), or further off than the gentlest deceleration lets its last speed carry it,
something sent it off again. When no ball seen moving while it was hidden came within reach
of its way (from its last sighting to where its new path crosses the old one, and on to
where it was found), that was a stroke: the open shot ends and a new one begins, struck when
its new path left the old one. `CueRestrike` is a mixin: `tracking.events.EventDetector`
holds the state it declares.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking.event_config import EventConfig
from tracking.geometry import segment_point_distance_mm
from tracking.history import FloatArray, PositionHistory, fit_lines
from tracking.lost import cushion_ahead
from tracking.types import Event, EventKind
from vision.types import CUE

RESTRIKE_MIN_UNSEEN_S = 0.25
"""The cue ball must have been out of sight at least this long (and three frames) to have
stopped and been struck again unseen: shorter gaps are a roll seen through a cue or arm."""
_FASTER_FACTOR = 1.5
"""Found faster than this many times its last speed, plus `EventConfig.strike_min_speed_mm_s`
(a fresh track's fitted speed and a coasting filter's both err), it was sent off again."""
_GAP_RECORD_S = 8.0
"""How long a gap's sightings of the other balls are kept (a longer gap is not judged)."""
_RECENT_S = 0.3
"""The fastest the filter showed the cue ball over this long before it vanished bounds its
speed then: the filter lags a change (just off a cushion it passes through a slow speed
as its velocity turns), and a ball only slows between contacts."""
_SETTLED_ROLL_S = 0.5
"""The cue ball must have been seen rolling this long after its shot's strike before it
vanished: just struck, its filter still lags the stroke's speed (a hard stroke then lost
in its blur is found faster than its filter last said)."""


@dataclass(slots=True)
class CueGap:
    """What the detector knows of the cue ball's time out of sight in a shot.

    Attributes:
        last_s: when it was last seen before the gap, s.
        last_xy_mm: (2,) where, mm.
        last_velocity_mm_s: (2,) how fast it was going then (the tracker's filter), mm/s.
        top_speed_mm_s: the fastest the filter showed it over `_RECENT_S` before then, mm/s.
        frames: the other balls' sightings while it was hidden: (time s, (11, 2) mm with NaN
            where unseen, (11,) moving).
        found_push: the history push where it was found again (-1: not yet).
    """

    last_s: float
    last_xy_mm: FloatArray
    last_velocity_mm_s: FloatArray
    top_speed_mm_s: float
    frames: list[tuple[float, FloatArray, NDArray[np.bool_]]] = field(default_factory=list)
    found_push: int = -1


class CueRestrike:
    """Cue balls struck anew out of sight for `EventDetector` (which holds the state)."""

    table: TableSpec
    config: EventConfig
    _dt: float
    _last_time: float | None
    _in_shot: bool
    _quiet_since: float | None
    _alive: NDArray[np.bool_]
    _moving: NDArray[np.bool_]
    _history: PositionHistory
    _velocity: FloatArray
    _last_strike_s: float
    _cue_gap: CueGap | None
    _cue_sighting: tuple[float, FloatArray, FloatArray, list[tuple[float, float]]] | None

    @property
    def _fit_frames(self) -> int:
        raise NotImplementedError

    def _frame_of(self, time_s: float) -> int:
        raise NotImplementedError

    def _watch_cue_gap(self, time_s: float, xy_mm: FloatArray, struck: bool) -> list[Event]:
        """Follow the cue ball's sightings on this frame (``xy_mm`` (11, 2), NaN unseen):
        open a gap when it is hidden rolling in a shot, note the other balls meanwhile, and
        once it has been seen again for a fit window, judge the gap (`_restruck`). A stroke
        told on this frame (``struck``) by other means closes the gap: a cue ball hidden at
        rest and found rolling is a start (`tracking.starts`), no business of this."""
        if struck:
            self._cue_gap = None
        gap = self._cue_gap
        if gap is None:
            self._open_cue_gap(time_s, xy_mm)
            return []
        if not self._follow_cue_gap(gap, time_s, xy_mm):
            return []
        self._cue_gap = None
        self._cue_sighting = None
        return self._restruck(gap)

    def _note_cue_sighting(self, time_s: float, xy_mm: FloatArray) -> None:
        """Keep the cue ball's sighting and its filter's speeds over `_RECENT_S` up to it."""
        velocity = self._velocity[CUE].copy()
        last = self._cue_sighting
        speeds = [] if last is None else [ts for ts in last[3] if ts[0] >= time_s - _RECENT_S]
        speeds.append((time_s, float(np.linalg.norm(velocity))))
        self._cue_sighting = (time_s, xy_mm[CUE].copy(), velocity, speeds)

    def _open_cue_gap(self, time_s: float, xy_mm: FloatArray) -> None:
        """Note the cue ball's sighting, or open a gap when it vanished rolling in a shot."""
        if np.isfinite(xy_mm[CUE, 0]):
            self._note_cue_sighting(time_s, xy_mm)
            return
        if not (self._in_shot and self._alive[CUE] and self._cue_sighting is not None):
            return
        last_s, last_xy, velocity, speeds = self._cue_sighting
        if self._moving[CUE] and last_s - self._last_strike_s >= _SETTLED_ROLL_S:
            top = max(speed for _, speed in speeds)
            self._cue_gap = CueGap(last_s, last_xy, velocity, top)

    def _follow_cue_gap(self, gap: CueGap, time_s: float, xy_mm: FloatArray) -> bool:
        """Note this frame in ``gap``; True once the cue ball has been seen again for a fit
        window after a gap long enough to judge (a shorter one is closed)."""
        if gap.found_push < 0:
            if not np.isfinite(xy_mm[CUE, 0]):
                if time_s - gap.last_s > _GAP_RECORD_S:
                    self._cue_gap = None
                else:
                    gap.frames.append((time_s, xy_mm.copy(), self._moving.copy()))
                return False
            unseen_s = time_s - gap.last_s - self._dt
            if unseen_s < max(RESTRIKE_MIN_UNSEEN_S, 3.0 * self._dt) or not self._in_shot:
                self._cue_gap = None
                self._note_cue_sighting(time_s, xy_mm)
                return False
            gap.found_push = self._history.count - 1
        return self._history.count >= gap.found_push + self._fit_frames

    def _restruck(self, gap: CueGap) -> list[Event]:
        """The ``shot_end`` and ``strike`` of a cue ball found again after ``gap`` rolling
        faster than it went, or further than it could roll, with no ball seen moving near
        its way; none otherwise (or when it is no longer thought moving: the start of a ball
        found at rest elsewhere is `tracking.hand_moves`')."""
        times, _, xy = self._history.window(gap.found_push, self._history.count)
        _, _, v, n = fit_lines(times, xy[:, [CUE]])
        speed = float(np.linalg.norm(v[0]))
        config = self.config
        if n[0] < 2 or speed < config.strike_min_speed_mm_s or not self._moving[CUE]:
            return []
        if not self._in_shot or self._last_strike_s > gap.last_s:
            return []  # a stroke already told while it was hidden
        first = int(np.argmax(np.isfinite(xy[:, CUE, 0])))
        found_s, found_xy = float(times[first]), xy[first, CUE].astype(np.float64)
        last_speed = gap.top_speed_mm_s
        reach = last_speed**2 / (2.0 * config.rolling_deceleration_mm_s2)
        distance = float(np.linalg.norm(found_xy - gap.last_xy_mm))
        faster = speed > _FASTER_FACTOR * last_speed + config.strike_min_speed_mm_s
        beyond = distance > reach + self.table.ball_diameter_mm
        if not (faster or beyond):
            return []
        rest = self._restruck_spot(gap, found_xy, v[0] / speed, reach)
        if self._touched_in_gap(gap, (rest, found_xy), (found_s, speed)):
            return []
        way = float(np.linalg.norm(found_xy - rest))
        t_strike = min(max(found_s - way / speed, gap.last_s + 0.5 * self._dt), found_s)
        self._in_shot = True
        self._quiet_since = None
        frame = self._frame_of(t_strike)
        why = "the cue ball was found rolling again, faster or further than its roll"
        return [
            Event(frame, t_strike - 1e-6, EventKind.SHOT_END, reason=why),
            Event(frame, t_strike, EventKind.STRIKE, (CUE,), confidence=0.6, reason=why),
        ]

    def _restruck_spot(
        self, gap: CueGap, found_xy: FloatArray, direction: FloatArray, reach_mm: float
    ) -> FloatArray:
        """(2,) mm: where the cue ball rested when struck again: on its old way (from its
        last sighting, along its last velocity, at most ``reach_mm``), where its new path
        (back from ``found_xy`` against ``direction``) passes nearest; its last sighting
        when the two ways run parallel."""
        start = gap.last_xy_mm
        speed = float(np.linalg.norm(gap.last_velocity_mm_s))
        if speed < 1e-6 or reach_mm <= 0.0:
            return start.copy()
        old = gap.last_velocity_mm_s / speed
        # Solve start + a old = found - b direction for (a, b); parallel ways: the start.
        matrix = np.column_stack([old, direction])
        if abs(float(np.linalg.det(matrix))) < 1e-3:
            return start.copy()
        a, _ = np.linalg.solve(matrix, found_xy - start)
        spot: FloatArray = start + old * float(np.clip(a, 0.0, reach_mm))
        return spot

    def _touched_in_gap(
        self, gap: CueGap, new_way: tuple[FloatArray, FloatArray], found: tuple[float, float]
    ) -> bool:
        """Whether a ball seen moving while the cue ball was hidden came within touching
        reach (a diameter, the contact tolerance and half its step between sightings) of
        where the cue ball could be then: on its old way as far as its last speed carried it
        by then (`_old_way`), or on its new way (rest spot to where it was found, ``found``:
        when, s, and its speed then, mm/s) no sooner than it can have left that point (it
        covered the rest of the way at least as fast as it was found going). Such a ball
        may have set it rolling again."""
        rest, found_xy = new_way
        found_s, speed = found
        reach = self.table.ball_diameter_mm + self.config.ball_contact_tolerance_mm
        slack_s = self.config.fit_window_s + 2.0 * self._dt
        previous: FloatArray | None = None
        for time_s, xy, moving in gap.frames:
            step = np.zeros(len(xy)) if previous is None else np.linalg.norm(xy - previous, axis=1)
            previous = xy
            movers = moving & np.isfinite(xy[:, 0])
            movers[CUE] = False
            if not movers.any():
                continue
            points = xy[movers]
            pad = reach + np.where(np.isfinite(step[movers]), 0.5 * step[movers], 0.0)
            near_old = segment_point_distance_mm(*self._old_way(gap, time_s), points)[0] <= pad
            # How far back from where it was found each point lies along the new way.
            back = np.clip((points - found_xy) @ (rest - found_xy), 0.0, None)
            back /= max(float(np.linalg.norm(rest - found_xy)), 1e-9)
            near_new = segment_point_distance_mm(rest[None], found_xy[None], points)[0] <= pad
            in_time = time_s >= found_s - back / speed - slack_s
            if bool(np.any(near_old | (near_new & in_time))):
                return True
        return False

    def _old_way(self, gap: CueGap, time_s: float) -> tuple[FloatArray, FloatArray]:
        """((1, 2), (1, 2)) mm: the stretch of its old way the cue ball can have reached by
        ``time_s``: from its last sighting along its last velocity, no further than that
        speed (it only slowed) or the gentlest deceleration carry it, nor past a cushion."""
        start = gap.last_xy_mm
        filtered = float(np.linalg.norm(gap.last_velocity_mm_s))
        if filtered < 1e-6:
            return start[None], start[None]
        direction, speed = gap.last_velocity_mm_s / filtered, gap.top_speed_mm_s
        stop = speed**2 / (2.0 * self.config.rolling_deceleration_mm_s2)
        length = min(speed * max(time_s - gap.last_s, 0.0), stop)
        length = min(length, cushion_ahead(self.table, start, direction)[0])
        return start[None], (start + direction * length)[None]
