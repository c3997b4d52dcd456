"""Physical events from the track history: strikes, contacts, cushions, drops, shot ends.

`EventDetector.update` takes one `TrackSet` per frame and returns the events it has become
sure of. It looks back a few frames (``fit_window_s``), so events come a few frames late;
`Event.frame` and `Event.time_s` say when each happened, the time to a fraction of a frame:
where the straight paths before and after a contact meet, or when the path before it
reaches one diameter from the other ball (one radius from the cushion line).

A ball that starts moving from rest is explained by the ball that touched it (a moving ball
whose path came within one diameter, plus tolerance): a ``ball_ball`` event. With nothing
near, the cue ball starting a shot is a ``strike``; any other start is ``ball_disturbed``.
A moving ball whose velocity changes abruptly is explained by another ball (change along the
line of centres) or a cushion (centre within a radius of the line, change along its
normal); pocket jaws count as the cushion they end. Drops and balls off the table come from
the tracker's statuses; ``shot_end`` once every ball has been at rest for ``settle_s``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking import contacts, jaws
from tracking.disturbances import PendingDisturbance
from tracking.event_config import EventConfig
from tracking.fastnp import true_indices
from tracking.history import FloatArray, PositionHistory, WindowFits, fit_lines
from tracking.kinks import Kink
from tracking.kisses import KissBook
from tracking.lost import LossBook
from tracking.restrikes import CueGap, CueRestrike
from tracking.shot_end import ShotEnd
from tracking.status_masks import status_is
from tracking.types import Event, EventKind, TrackSet, TrackStatus
from vision.types import NUM_CLASSES

_TOUCHING_MM = 1.5
"""A ball at rest this close to a cushion line (beyond one radius) is touching it."""
_TOUCHING_SIGMAS = 3.0
"""...or within this many standard deviations of the measured position noise: a ball that
came to rest against a cushion is seen up to that far off it (broadcast_nudge shot 3: the
safety's ball stopped against the cushion was seen 3.7 mm off it)."""
_MAX_FPS = 250.0
"""Highest frame rate the history is sized for."""
_MIN_ANCHOR_GAIN = 0.02
"""A resting ball's rest position averages its sightings, at most the last ~1/this: a slow
drift (a soft kiss) then soon shows as a displacement instead of being followed."""


def _median(values: list[float]) -> float:
    """`np.median` of a short list (0.0 when empty), without numpy's per-call overhead."""
    if not values:
        return 0.0
    if any(math.isnan(v) for v in values):
        return math.nan
    ordered = sorted(values)
    half = len(ordered) // 2
    return ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2.0


class EventDetector(ShotEnd, CueRestrike):
    """Infer physical events from consecutive `TrackSet`s of one camera.

    Args:
        table: the table (cushion lines, pockets, ball size).
        config: tunables.
    """

    def __init__(self, table: TableSpec, config: EventConfig | None = None) -> None:
        self.table = table
        self.config = config or EventConfig()
        self._dt = 1.0 / 30.0
        self._last_time: float | None = None
        self._last_frame = 0
        self._history = PositionHistory(4)
        self._jaw_tips = jaws.jaw_tips_mm(table)
        self._alive = np.zeros(NUM_CLASSES, bool)
        self._moving = np.zeros(NUM_CLASSES, bool)
        self._anchor = np.full((NUM_CLASSES, 2), np.nan)
        self._anchor_weight = np.ones(NUM_CLASSES)
        self._seen_frame = np.zeros(NUM_CLASSES, np.int64)
        self._seen_time = np.zeros(NUM_CLASSES)
        self._previous_seen_time = np.zeros(NUM_CLASSES)
        self._start_floor = np.zeros(NUM_CLASSES)
        self._start_slack_s = 0.0
        self._displaced = np.zeros(NUM_CLASSES, bool)
        self._noise_var = np.zeros(NUM_CLASSES)
        self._noise_cache: tuple[FloatArray, NDArray[np.bool_], float] | None = None
        self._displaced_at = np.zeros(NUM_CLASSES, np.int64)
        self._seen_xy = np.zeros((NUM_CLASSES, 2))
        self._velocity = np.zeros((NUM_CLASSES, 2))
        self._pending_starts: list[tuple[int, int]] = []
        self._kinks: list[Kink] = []
        self._window_fits = WindowFits()
        self._recent: list[tuple[frozenset[int], float]] = []
        self._last_cushion: dict[tuple[int, str], float] = {}
        self._rest_since = np.full(NUM_CLASSES, -np.inf)
        self._approach_velocity = np.zeros((NUM_CLASSES, 2))
        self._start_count: dict[int, int] = {}
        self._anchor_before = np.zeros((NUM_CLASSES, 2))
        self._pending_disturbances: list[PendingDisturbance] = []
        self._in_shot = False
        self._quiet_since: float | None = None
        self._quiet_at_start = np.full(NUM_CLASSES, np.nan)
        self._anchor_at_strike = np.full((NUM_CLASSES, 2), np.nan)
        self._last_strike_s = -math.inf
        self._last_contact_s = -math.inf
        self._losses = LossBook()
        self._vanish_contacts: list[tuple[int, int, int, float, float]] = []
        self._kisses = KissBook(table.ball_diameter_mm)
        self._cue_gap: CueGap | None = None
        self._cue_sighting: tuple[float, FloatArray, FloatArray, list[tuple[float, float]]] | None
        self._cue_sighting = None

    @property
    def in_shot(self) -> bool:
        """True between a strike and its shot_end."""
        return self._in_shot

    def update(self, trackset: TrackSet) -> list[Event]:
        """Take the next frame's tracks; return the events that became certain, by time."""
        self._clock(trackset.time_s)
        self._last_frame = trackset.frame
        self._history.push(trackset)
        events = self._removals(trackset)
        self._visibility(trackset)
        events += self._motion(trackset)
        events += self._soft_kisses()
        events += self._resolve_starts()
        struck = any(e.kind == EventKind.STRIKE for e in events)
        events += self._watch_cue_gap(trackset.time_s, self._latest_xy(), struck)
        events += self._analyse_kinks()
        events += self._struck_into_rails(events) + self._bounces_across_gaps()
        events += self._watch_losses(trackset)
        events += self._shot_end(trackset, events)
        events += self._resolve_losses(events)
        if any(e.kind == EventKind.STRIKE for e in events):
            self._anchor_at_strike = self._anchor.copy()
            self._last_strike_s = max(e.time_s for e in events if e.kind == EventKind.STRIKE)
            self._struck_after(min(e.time_s for e in events if e.kind == EventKind.STRIKE))
        contacts_now = [e.time_s for e in events if e.kind == EventKind.BALL_BALL]
        if contacts_now:
            self._last_contact_s = max(self._last_contact_s, *contacts_now)
        return sorted(events, key=lambda e: (e.time_s, e.kind != EventKind.STRIKE, e.kind))

    def finish(self) -> list[Event]:
        """The end of the input: a shot still open (balls settling, a ball on a lip, balls
        rolling: then said, at confidence 0.5) ends at the last frame, its lost balls
        accounted for as at any shot's end, so what was seen is judged, not dropped."""
        if not self._in_shot or self._last_time is None:
            return []
        rolling = bool((self._moving & self._alive).any() or self._pending_starts)
        self._in_shot = False
        self._quiet_since = None
        why = "the video ended while balls were still moving" if rolling else None
        frame, time_s, sure = self._last_frame, self._last_time, 0.5 if rolling else 1.0
        end = Event(frame, time_s, EventKind.SHOT_END, confidence=sure, reason=why)
        events = [end, *self._resolve_losses([end])]
        return sorted(events, key=lambda e: (e.time_s, e.kind != EventKind.STRIKE, e.kind))

    # ----------------------------------------------------------------- bookkeeping
    def _latest_xy(self) -> FloatArray:
        """(11, 2) mm: this frame's sightings, NaN where a ball was not seen."""
        latest: FloatArray = self._history.window(self._history.count - 1, self._history.count)[2][
            0
        ]
        return latest

    def _clock(self, time_s: float) -> None:
        if self._last_time is not None and time_s > self._last_time:
            step = time_s - self._last_time
            self._dt = step if self._history.count < 3 else 0.9 * self._dt + 0.1 * step
        self._last_time = time_s
        if self._history.count == 0:
            frames = math.ceil(self.config.history_s * _MAX_FPS) + 2
            self._history = PositionHistory(max(frames, 8))

    @property
    def _fit_frames(self) -> int:
        return max(3, round(self.config.fit_window_s / self._dt))

    @property
    def _noise_mm(self) -> float:
        """Position noise: the configured floor or what resting balls show, if larger."""
        # Asked for many times a frame; it changes only when `_noise_var` or `_alive` does,
        # and both are only ever replaced by new arrays, never written in place.
        cached = self._noise_cache
        if cached is not None and cached[0] is self._noise_var and cached[1] is self._alive:
            return cached[2]
        typical = _median(self._noise_var[self._alive].tolist())
        noise = max(self.config.position_noise_mm, math.sqrt(typical))
        self._noise_cache = (self._noise_var, self._alive, noise)
        return noise

    @property
    def _start_distance_mm(self) -> FloatArray:
        """(11,) how far each ball must move to start: far balls are seen with more noise."""
        noise = np.sqrt(np.maximum(self._noise_var, self.config.position_noise_mm**2))
        result: FloatArray = np.maximum(self.config.start_distance_mm, 4.5 * noise)
        return result

    @property
    def _rail_touch_mm(self) -> float:
        """How far from a cushion line (beyond one radius) a centre seen touching it may lie."""
        return max(_TOUCHING_MM, _TOUCHING_SIGMAS * self._noise_mm)

    def _kink_noise_mm_s(self, frames: int) -> float:
        """Standard deviation of a velocity change between two ``frames``-long line fits."""
        offsets = (np.arange(frames) - 0.5 * (frames - 1)) * self._dt
        slope_std = self._noise_mm / math.sqrt(float(offsets @ offsets))
        return math.sqrt(2.0) * slope_std

    def _frame_of(self, time_s: float) -> int:
        """The first frame at or after ``time_s`` (frames assumed evenly spaced)."""
        assert self._last_time is not None
        steps = math.ceil((time_s - self._last_time) / self._dt - 1e-6)
        return int(self._last_frame + steps)

    def _visibility(self, trackset: TrackSet) -> None:
        alive = np.zeros(NUM_CLASSES, bool)
        visible = status_is(trackset.status, TrackStatus.ON_TABLE)
        in_play = visible | status_is(trackset.status, TrackStatus.OCCLUDED)
        alive[trackset.ball[in_play]] = True
        balls = trackset.ball[visible]
        self._previous_seen_time = self._seen_time.copy()
        self._seen_frame[balls] = trackset.frame
        self._seen_time[balls] = trackset.time_s
        self._seen_xy[balls] = trackset.xy_mm[visible]
        self._velocity[:] = 0.0
        self._velocity[trackset.ball] = trackset.velocity_mm_s
        returned = alive & ~self._alive
        self._anchor[returned] = np.nan
        self._rest_since[returned] = -np.inf
        self._moving[~alive] = False
        # Back in a shot (lost, then found rolling): still moving, not a fresh start.
        self._moving[returned] = self._in_shot
        self._alive = alive

    def _soft_kisses(self) -> list[Event]:
        """Contacts too soft to start the ball touched (`tracking.kisses`), in a shot; the
        touched ball rests where it was pushed to."""
        if not self._in_shot:
            self._kisses.passes.clear()
            return []
        gone = self._moving | ~self._alive
        self._kisses.note_passes(self._history, gone, self._anchor, self._noise_mm)
        events = []
        for kiss, where in self._kisses.judge(self._history, gone, self._noise_mm, self._dt):
            self._anchor[kiss.ball] = where
            if self._remember(frozenset((kiss.mover, kiss.ball)), kiss.time_s):
                frame, pair = self._frame_of(kiss.time_s), (kiss.mover, kiss.ball)
                events.append(Event(frame, kiss.time_s, EventKind.BALL_BALL, pair, confidence=0.6))
        return events

    def _remember(self, pair: frozenset[int], time_s: float) -> bool:
        """Record a ball-ball contact; False when the same pair was already reported."""
        window = max(3.0 * self._dt, 2.0 * self.config.fit_window_s)
        self._recent = [(p, t) for p, t in self._recent if abs(t - time_s) <= 4.0 * window]
        if any(p == pair and abs(t - time_s) <= window for p, t in self._recent):
            return False
        self._recent.append((pair, time_s))
        return True

    # ----------------------------------------------------------------- starts and stops
    def _motion(self, trackset: TrackSet) -> list[Event]:
        _, _, xy = self._history.window(self._history.count - 1, self._history.count)
        current = xy[0]
        visible = np.isfinite(current[:, 0]) & self._alive
        fresh = visible & ~np.isfinite(self._anchor[:, 0])
        self._anchor[fresh] = current[fresh]
        self._anchor_weight[fresh] = 1.0
        offset = current - self._anchor
        displacement = np.sqrt(offset[:, 0] * offset[:, 0] + offset[:, 1] * offset[:, 1])
        resting = visible & ~self._moving
        displaced = resting & (displacement > self._start_distance_mm)
        # Two displaced sightings in a row: one noisy detection does not start a ball.
        starts = displaced & self._displaced
        first_seen = displaced & ~self._displaced
        # A ball that was hidden may have started any time since it was last seen.
        self._start_floor[first_seen] = self._previous_seen_time[first_seen]
        self._displaced_at[first_seen] = self._history.count - 1
        self._displaced = displaced | (self._displaced & ~visible & ~self._moving)
        settle = resting & ~displaced & (displacement < 0.5 * self._start_distance_mm)
        gain = np.maximum(1.0 / (self._anchor_weight[settle] + 1.0), _MIN_ANCHOR_GAIN)
        self._anchor[settle] += gain[:, None] * (current[settle] - self._anchor[settle])
        self._anchor_weight[settle] += 1.0
        # Detector noise seen on each resting ball sets how far it must go to start.
        per_axis = np.where(settle, displacement**2 / 2.0, self._noise_var)
        self._noise_var = 0.97 * self._noise_var + 0.03 * per_axis
        for ball in true_indices(starts):
            self._moving[ball] = True
            self._displaced[ball] = False
            first = int(self._displaced_at[ball])
            self._pending_starts.append((int(ball), first))
            self._start_count[int(ball)] = first
            self._anchor_before[ball] = self._anchor[ball]
            # Whether every ball was at rest (since when) as this one began to move.
            quiet = self._quiet_since if self._in_shot else None
            self._quiet_at_start[ball] = np.nan if quiet is None else quiet
        return self._detect_rest()

    def _stopped_on_rail(self, ball: int, xy_mm: FloatArray) -> list[Event]:
        """A ball that rolled into a cushion and died there touched it, even too softly to
        bounce visibly."""
        assert self._last_time is not None
        gaps = contacts.inside_distances_mm(self.table, xy_mm) - self.table.ball_radius_mm
        side = int(np.argmin(gaps))
        toward = -float(self._approach_velocity[ball] @ contacts.CUSHION_NORMALS[side])
        touching = self._rail_touch_mm
        time_s, nearest, came = self._rail_approach(ball, side)
        # It came toward the cushion: heading in at the last fit, or nearer it by more than
        # the slack since earlier in the history (a soft touch rebounds it a little).
        approached = toward > 0.0 or came - nearest > touching
        if gaps[side] > touching or not approached:
            return []
        if contacts.in_rail_opening(self.table, xy_mm, side):
            return []  # at rest in a pocket's mouth (on its lip): no rail there to touch
        cushion = str(self.table.nearest_cushion(float(xy_mm[0]), float(xy_mm[1])))
        last = self._last_cushion.get((ball, cushion), -np.inf)
        if self._last_time - last <= 1.0:
            return []
        self._last_cushion[(ball, cushion)] = self._last_time
        frame = self._frame_of(time_s)
        return [
            Event(frame, time_s, EventKind.BALL_CUSHION, (ball,), cushion=cushion, confidence=0.7)
        ]

    def _rail_approach(self, ball: int, side: int) -> tuple[float, float, float]:
        """How ``ball`` came to cushion line ``side`` over the history: (when it was nearest,
        its gap to the touching position then, mm, and the largest gap before that, mm);
        without sightings, the start of the rest window and infinite gaps."""
        assert self._last_time is not None
        count = self._history.count
        times, _, xy = self._history.window(count - self._history.capacity, count)
        seen = true_indices(np.isfinite(xy[:, ball, 0]))
        if not len(seen):
            return self._last_time - self.config.rest_window_s, np.inf, np.inf
        coordinate = xy[seen, ball, side // 2]
        inside = coordinate if side % 2 == 0 else self._extent[side // 2] - coordinate
        gap = inside - self.table.ball_radius_mm
        nearest = int(np.argmin(gap))
        return float(times[seen[nearest]]), float(gap[nearest]), float(gap[: nearest + 1].max())

    @property
    def _extent(self) -> tuple[float, float]:
        return (self.table.length_mm, self.table.width_mm)

    def _detect_rest(self) -> list[Event]:
        frames = max(3, round(self.config.rest_window_s / self._dt))
        count = self._history.count
        if count < frames or not self._moving.any():
            return []
        times, _, xy = self._history.window(count - frames, count)
        pending = {b for b, _ in self._pending_starts}
        _, mean, velocity, seen = fit_lines(times, xy)
        # A third of the window's frames pin a line down: a ball the detector finds only
        # now and then (a dark ball on a cloth of its colour) must still come to rest.
        visible = seen >= max(3, frames // 3)
        # A line fitted over the window averages the detector noise out of the speed.
        slow = np.einsum("bi,bi->b", velocity, velocity) <= self.config.rest_speed_mm_s**2
        stopped = self._moving & visible & slow
        if stopped.any():
            # A bounce inside the window also fits a slow line: the ball must also stay put.
            offset = xy[:, stopped] - mean[None, stopped]
            distance = np.sqrt(offset[..., 0] * offset[..., 0] + offset[..., 1] * offset[..., 1])
            spread = np.nanmax(distance, axis=0, initial=0.0)
            limit = self.config.rest_speed_mm_s * (times[-1] - times[0]) + 3.0 * self._noise_mm
            stopped[stopped] = spread <= limit
        events: list[Event] = []
        for ball in true_indices(stopped):
            if int(ball) not in pending:
                self._moving[ball] = False
                self._anchor[ball] = mean[ball]
                self._anchor_weight[ball] = float(seen[ball])
                self._rest_since[ball] = self._last_time
                if self._in_shot:
                    events += self._stopped_on_rail(int(ball), mean[ball])
        return events
