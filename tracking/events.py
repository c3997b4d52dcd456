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

import itertools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking import contacts
from tracking.geometry import nearest_pocket
from tracking.history import FloatArray, PositionHistory, fit_lines
from tracking.types import Event, EventKind, TrackSet, TrackStatus
from vision.types import CUE, NUM_CLASSES

Path = tuple[float, FloatArray, FloatArray]
_TOUCHING_MM = 1.5
"""A ball at rest this close to a cushion line (beyond one radius) is touching it."""
_MAX_FPS = 250.0
"""Highest frame rate the history is sized for."""


@dataclass(frozen=True, slots=True)
class EventConfig:
    """Tunables of `EventDetector`, in physical units (mm, mm/s, s).

    Attributes:
        fit_window_s: span of the straight-line fits before and after a contact. Raising it
            averages more noise but blurs contacts that follow each other closely; events
            are reported about this much (plus one frame) late.
        start_distance_mm: a resting ball that moves this far from its rest position has
            started moving. Raising it ignores more detector jitter but misses gentle kisses.
        start_min_speed_mm_s: a start slower than this is not reported (a ball reappearing
            where it was moved while hidden). Raising it ignores slower nudges.
        strike_min_speed_mm_s: the cue ball must leave at least this fast for a strike.
        disturb_min_rest_s: a ball must have been at rest this long before a start with
            nothing touching it counts as ``ball_disturbed`` (sooner, it is still creeping to
            a stop). Raising it misses more quick disturbances but calls fewer false ones.
        disturb_clearance_mm: a ball that starts with another moving ball this close was
            hit by it (a contact reported with low confidence), not disturbed. Raising it
            calls fewer false disturbances (fouls) but misses some real ones.
        rest_radius_mm: a ball whose centre stays within this radius for ``rest_window_s``
            is at rest. Raising it declares balls at rest sooner.
        rest_window_s: see ``rest_radius_mm``. Raising it waits longer before a ball is at
            rest (and the shot can end).
        ball_contact_tolerance_mm: added to one diameter for the largest centre distance of
            a ball-ball contact. Raising it accepts contacts seen through more noise, and
            more false contacts between near misses.
        cushion_tolerance_mm: added to one radius for the largest distance of the centre
            from a cushion line at a cushion contact. Raising it accepts jaw hits further in.
        kink_min_speed_change_mm_s: smallest velocity change of a moving ball that counts as
            a contact. Raising it ignores noise and spin but misses soft contacts.
        kink_relative_speed_change: the velocity change must also exceed this fraction of
            the speed. Raising it ignores curves of fast balls.
        position_noise_mm: noise of the tracked centres; the velocity change must also exceed
            ``kink_noise_sigmas`` times the noise this gives a change measured over the fit
            windows. Raising either ignores more noise and misses more soft contacts.
        kink_noise_sigmas: see ``position_noise_mm``.
        explain_min_cosine: how well a contact's direction must match the change (cosine).
            Raising it rejects more ambiguous contacts.
        simultaneous_contact_s: first contacts closer than this in time are reported as
            simultaneous (the camera cannot order them). Raising it reports more ties.
        settle_s: every ball must have been at rest this long for the shot to end. Raising
            it waits longer (slow drops stay in the shot).
        history_s: how much history is kept. Must cover the fit windows.
    """

    fit_window_s: float = 0.08
    start_distance_mm: float = 8.0
    start_min_speed_mm_s: float = 30.0
    strike_min_speed_mm_s: float = 100.0
    disturb_min_rest_s: float = 0.5
    disturb_clearance_mm: float = 230.0
    rest_radius_mm: float = 3.0
    rest_window_s: float = 0.15
    ball_contact_tolerance_mm: float = 15.0
    cushion_tolerance_mm: float = 20.0
    kink_min_speed_change_mm_s: float = 100.0
    kink_relative_speed_change: float = 0.2
    position_noise_mm: float = 1.5
    kink_noise_sigmas: float = 4.0
    explain_min_cosine: float = 0.5
    simultaneous_contact_s: float = 0.004
    settle_s: float = 0.5
    history_s: float = 0.6


@dataclass(slots=True)
class _Kink:
    """Velocity change of every ball at one analysis frame."""

    change: FloatArray
    threshold: FloatArray
    before: tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]]
    after: tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]]


class EventDetector:
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
        self._jaw_tips = contacts.jaw_tips_mm(table)
        self._alive = np.zeros(NUM_CLASSES, bool)
        self._moving = np.zeros(NUM_CLASSES, bool)
        self._anchor = np.full((NUM_CLASSES, 2), np.nan)
        self._seen_frame = np.zeros(NUM_CLASSES, np.int64)
        self._seen_time = np.zeros(NUM_CLASSES)
        self._previous_seen_time = np.zeros(NUM_CLASSES)
        self._start_floor = np.zeros(NUM_CLASSES)
        self._seen_xy = np.zeros((NUM_CLASSES, 2))
        self._velocity = np.zeros((NUM_CLASSES, 2))
        self._pending_starts: list[tuple[int, int]] = []
        self._kinks: list[_Kink] = []
        self._recent: list[tuple[frozenset[int], float]] = []
        self._last_cushion: dict[tuple[int, str], float] = {}
        self._rest_since = np.full(NUM_CLASSES, -np.inf)
        self._approach_velocity = np.zeros((NUM_CLASSES, 2))
        self._start_count: dict[int, int] = {}
        self._anchor_before = np.zeros((NUM_CLASSES, 2))
        self._in_shot = False
        self._quiet_since: float | None = None

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
        events += self._resolve_starts()
        events += self._analyse_kinks()
        events += self._shot_end(trackset)
        return sorted(events, key=lambda e: (e.time_s, e.kind != EventKind.STRIKE, e.kind))

    # ----------------------------------------------------------------- bookkeeping
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

    def _kink_noise_mm_s(self, frames: int) -> float:
        """Standard deviation of a velocity change between two ``frames``-long line fits."""
        offsets = (np.arange(frames) - 0.5 * (frames - 1)) * self._dt
        slope_std = self.config.position_noise_mm / math.sqrt(float(offsets @ offsets))
        return math.sqrt(2.0) * slope_std

    def _frame_of(self, time_s: float) -> int:
        """The first frame at or after ``time_s`` (frames assumed evenly spaced)."""
        assert self._last_time is not None
        steps = math.ceil((time_s - self._last_time) / self._dt - 1e-6)
        return int(self._last_frame + steps)

    def _visibility(self, trackset: TrackSet) -> None:
        alive = np.zeros(NUM_CLASSES, bool)
        in_play = (trackset.status == TrackStatus.ON_TABLE) | (
            trackset.status == TrackStatus.OCCLUDED
        )
        alive[trackset.ball[in_play]] = True
        visible = trackset.status == TrackStatus.ON_TABLE
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
        self._moving[returned | ~alive] = False
        self._alive = alive

    def _removals(self, trackset: TrackSet) -> list[Event]:
        events = []
        kinds = {
            TrackStatus.POCKETED: EventKind.BALL_POCKET,
            TrackStatus.OFF_TABLE: EventKind.BALL_OFF_TABLE,
        }
        for ball, status in zip(trackset.ball, trackset.status, strict=True):
            if status not in kinds:
                continue
            if status == TrackStatus.POCKETED:
                events += self._last_cushion_before_drop(int(ball))
            frame = int(self._seen_frame[ball]) + 1
            time_s = float(self._seen_time[ball]) + self._dt
            xy = (float(self._seen_xy[ball, 0]), float(self._seen_xy[ball, 1]))
            pocket = str(nearest_pocket(self.table, xy)) if status == TrackStatus.POCKETED else None
            events.append(Event(frame, time_s, kinds[status], (int(ball),), pocket=pocket))
        return events

    def _last_cushion_before_drop(self, ball: int) -> list[Event]:
        """A jaw or cushion hit just before a drop, too late for the usual after-window."""
        count, k = self._history.count, self._fit_frames
        times, _, xy = self._history.window(count - 3 * k, count)
        seen = np.flatnonzero(np.isfinite(xy[:, ball, 0]))
        best: tuple[float, int] = (0.0, -1)
        for split in range(2, len(seen) - 1):
            before = fit_lines(times[seen[:split]], xy[seen[:split], ball][:, None])
            after = fit_lines(times[seen[split:]], xy[seen[split:], ball][:, None])
            change = float(np.linalg.norm(after[2][0] - before[2][0]))
            best = max(best, (change, split))
        if best[1] < 0:
            return []
        split = best[1]
        before = fit_lines(times[seen[:split]], xy[seen[:split], ball][:, None])
        after = fit_lines(times[seen[split:]], xy[seen[split:], ball][:, None])
        speed = max(float(np.linalg.norm(before[2][0])), float(np.linalg.norm(after[2][0])))
        threshold = (
            self.config.kink_min_speed_change_mm_s + self.config.kink_relative_speed_change * speed
        )
        if best[0] < threshold + 2.5 * self._kink_noise_mm_s(2):
            return []
        path_b: Path = (float(before[0][0]), before[1][0], before[2][0])
        t_kink = contacts.line_intersection_time(
            path_b, (float(after[0][0]), after[1][0], after[2][0])
        )
        if t_kink is None:
            return []
        at = path_b[1] + path_b[2] * (t_kink - path_b[0])
        reach = self.table.ball_radius_mm + self.config.cushion_tolerance_mm
        side, fit = contacts.cushion_score(self.table, at, (before[2][0], after[2][0]), reach)
        if fit < self.config.explain_min_cosine:
            return []
        event = self._cushion_contact(ball, side, path_b, t_kink)
        return [] if event is None else [event]

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
        displacement = np.linalg.norm(current - self._anchor, axis=1)
        resting = visible & ~self._moving
        starts = resting & (displacement > self.config.start_distance_mm)
        settle = resting & ~starts & (displacement < 0.5 * self.config.start_distance_mm)
        self._anchor[settle] += 0.1 * (current[settle] - self._anchor[settle])
        for ball in np.flatnonzero(starts):
            self._moving[ball] = True
            self._pending_starts.append((int(ball), self._history.count - 1))
            self._start_count[int(ball)] = self._history.count - 1
            self._anchor_before[ball] = self._anchor[ball]
            # A ball that was hidden may have started any time since it was last seen.
            self._start_floor[ball] = self._previous_seen_time[ball]
        return self._detect_rest()

    def _near_rail(self, xy_mm: FloatArray) -> NDArray[np.bool_]:
        """(B,) centres within reach of a cushion line (a radius plus twice the tolerance)."""
        reach = self.table.ball_radius_mm + 2.0 * self.config.cushion_tolerance_mm
        x, y = xy_mm[:, 0], xy_mm[:, 1]
        gap = np.minimum(
            np.minimum(x, self.table.length_mm - x), np.minimum(y, self.table.width_mm - y)
        )
        result: NDArray[np.bool_] = gap <= reach
        return result

    def _stopped_on_rail(self, ball: int, xy_mm: FloatArray) -> list[Event]:
        """A ball that rolled into a cushion and died there touched it, even too softly to
        bounce visibly."""
        assert self._last_time is not None
        gaps = contacts.inside_distances_mm(self.table, xy_mm) - self.table.ball_radius_mm
        side = int(np.argmin(gaps))
        toward = -float(self._approach_velocity[ball] @ contacts.CUSHION_NORMALS[side])
        if gaps[side] > _TOUCHING_MM or toward <= 0.0:
            return []
        cushion = str(self.table.nearest_cushion(float(xy_mm[0]), float(xy_mm[1])))
        last = self._last_cushion.get((ball, cushion), -np.inf)
        if self._last_time - last <= 1.0:
            return []
        self._last_cushion[(ball, cushion)] = self._last_time
        time_s = self._last_time - self.config.rest_window_s
        frame = self._frame_of(time_s)
        return [
            Event(frame, time_s, EventKind.BALL_CUSHION, (ball,), cushion=cushion, confidence=0.7)
        ]

    def _detect_rest(self) -> list[Event]:
        frames = max(3, round(self.config.rest_window_s / self._dt))
        count = self._history.count
        if count < frames or not self._moving.any():
            return []
        _, _, xy = self._history.window(count - frames, count)
        pending = {b for b, _ in self._pending_starts}
        seen = np.isfinite(xy[:, :, 0])
        visible = seen.sum(axis=0) >= frames - 1
        mean = (
            np.where(seen[:, :, None], xy, 0.0).sum(axis=0)
            / np.maximum(seen.sum(axis=0), 1)[:, None]
        )
        offset = np.where(seen[:, :, None], xy - mean[None], 0.0)
        spread = np.sqrt(np.einsum("kbi,kbi->kb", offset, offset).max(axis=0))
        stopped = self._moving & visible & (spread <= self.config.rest_radius_mm)
        events: list[Event] = []
        for ball in np.flatnonzero(stopped):
            if int(ball) not in pending:
                self._moving[ball] = False
                self._anchor[ball] = mean[ball]
                self._rest_since[ball] = self._last_time
                if self._in_shot:
                    events += self._stopped_on_rail(int(ball), mean[ball])
        return events

    def _resolve_starts(self) -> list[Event]:
        k = self._fit_frames
        ready = [(b, n) for b, n in self._pending_starts if self._history.count >= n + k]
        self._pending_starts = [s for s in self._pending_starts if s not in ready]
        events = []
        for ball, detected in ready:
            events += self._explain_start(ball, detected, k)
        return events

    def _explain_start(self, ball: int, detected: int, k: int) -> list[Event]:
        """Why a resting ball started moving: a ball that touched it, a strike or nothing."""
        times, _, xy = self._history.window(detected, detected + k)
        t_ref, p, v, n = fit_lines(times, xy[:, [ball]])
        anchor = self._anchor[ball]
        speed = float(np.linalg.norm(v[0]))
        if n[0] < 2 or speed < 1e-6:
            self._moving[ball] = False
            self._anchor[ball] = p[0] if n[0] else anchor
            return []
        t_start = float(t_ref[0] + (anchor - p[0]) @ v[0] / speed**2)
        floor = min(float(times[0]) - 1.5 * self._dt, float(self._start_floor[ball]))
        t_start = min(max(t_start, floor), float(times[0]))
        touches = self._find_touchers(ball, detected, t_start, self._fit_frames)
        if not touches:
            # A toucher that had just bounced is better seen over its last frames alone.
            touches = self._find_touchers(ball, detected, t_start, 2)
        if not touches and speed < self.config.start_min_speed_mm_s:
            self._moving[ball] = False
            self._anchor[ball] = p[0]
            return []
        if touches:
            return [
                Event(self._frame_of(t), t, EventKind.BALL_BALL, (a, b), confidence=conf)
                for a, b, t, conf in touches
                if self._remember(frozenset((a, b)), t)
            ]
        if not self._in_shot and ball != CUE and self._pushed_by_frozen_cue(ball, v[0]):
            # A cue ball frozen to this ball can pass the whole stroke on and barely move.
            self._in_shot = True
            self._quiet_since = None
            self._remember(frozenset((CUE, ball)), t_start)
            frame = self._frame_of(t_start)
            return [
                Event(frame, t_start, EventKind.STRIKE, (CUE,), confidence=0.8),
                Event(frame, t_start, EventKind.BALL_BALL, (CUE, ball), confidence=0.8),
            ]
        near = self._nearest_mover(ball)
        if near is not None and self._remember(frozenset((near, ball)), t_start):
            # Something moving was close: a contact the paths could not pin down, rather
            # than a ball touched by a hand (which would be a foul).
            frame = self._frame_of(t_start)
            return [Event(frame, t_start, EventKind.BALL_BALL, (near, ball), confidence=0.5)]
        event = self._unexplained_start(ball, t_start, speed)
        return [] if event is None else [event]

    def _pushed_by_frozen_cue(self, ball: int, velocity: FloatArray) -> bool:
        """Whether the resting cue ball touches ``ball`` and ``ball`` left straight away
        from it."""
        if not self._alive[CUE] or not np.isfinite(self._anchor[CUE, 0]):
            return False
        offset = self._anchor[ball] - self._anchor[CUE]
        distance = float(np.linalg.norm(offset))
        reach = self.table.ball_diameter_mm + self.config.ball_contact_tolerance_mm
        speed = float(np.linalg.norm(velocity))
        if distance > reach or speed < self.config.strike_min_speed_mm_s:
            return False
        return float(offset @ velocity) / (distance * speed) >= math.cos(math.radians(30.0))

    def _nearest_mover(self, ball: int) -> int | None:
        """The nearest other moving ball within ``disturb_clearance_mm`` of ``ball``."""
        where = np.where(np.isfinite(self._seen_xy[:, :1]), self._seen_xy, self._anchor)
        distance = np.linalg.norm(where - self._anchor[ball], axis=1)
        movers = self._alive & self._moving & (distance <= self.config.disturb_clearance_mm)
        movers[ball] = False
        if not movers.any():
            return None
        return int(np.argmin(np.where(movers, distance, np.inf)))

    def _unexplained_start(self, ball: int, t_start: float, speed: float) -> Event | None:
        """A strike, a disturbance, or (too slow, too soon after stopping) no event: a ball
        creeping on after it was declared at rest, or detector noise."""
        config = self.config
        noise_floor = 3.0 * self._kink_noise_mm_s(self._fit_frames) / math.sqrt(2.0)
        rested_s = t_start - self._rest_since[ball]
        if (
            speed < max(config.start_min_speed_mm_s, noise_floor)
            or rested_s < config.disturb_min_rest_s
        ):
            return None
        frame = self._frame_of(t_start)
        strike = ball == CUE and not self._in_shot
        if strike and speed >= config.strike_min_speed_mm_s:
            self._in_shot = True
            self._quiet_since = None
            return Event(frame, t_start, EventKind.STRIKE, (CUE,))
        return Event(frame, t_start, EventKind.BALL_DISTURBED, (ball,), confidence=0.8)

    def _paths_before(
        self, stop: int, frames: int
    ) -> tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]]:
        """Straight paths of every ball fitted on ``frames`` + 1 frames before push ``stop``."""
        times, _, xy = self._history.window(stop - frames - 1, stop)
        t_ref, p, v, n = fit_lines(times, xy)
        at_rest = ~self._moving & np.isfinite(self._anchor[:, 0])
        p = np.where(at_rest[:, None], self._anchor, p)
        v = np.where(at_rest[:, None], 0.0, v)
        n = np.where(at_rest, 2, n)
        return t_ref, p, v, n

    def _find_touchers(
        self, ball: int, detected: int, t_start: float, frames: int
    ) -> list[tuple[int, int, float, float]]:
        """The contacts that set ``ball`` moving: [(striker, struck, time_s, confidence)].

        Usually one moving ball whose path came within a diameter of ``ball``; through balls
        frozen together (a rack), a chain from a moving ball over resting ones.
        """
        t_ref, p, v, n = self._paths_before(detected, frames)
        diameter = self.table.ball_diameter_mm
        at_start = p + v * (t_start - t_ref)[:, None]
        was_moving = np.linalg.norm(v, axis=1) > self.config.start_min_speed_mm_s
        usable = self._alive & (n >= 2)
        usable[ball] = True
        reach = diameter + self.config.ball_contact_tolerance_mm
        moving = was_moving | (self._cluster_push(t_start) & self._moving)
        moving[ball] = False
        for mover in np.flatnonzero(moving & usable):
            at_start[mover] = self._stop_at_first_touch(
                (float(t_ref[mover]), p[mover], v[mover]), at_start, usable & ~moving, t_start
            )
        chain = contacts.contact_chain(at_start, moving, usable, ball, reach)
        if chain is None:
            return self._touch_by_fresh_starter(ball, detected, t_start)
        first, second = chain[0], chain[1]
        t_contact = t_start
        if was_moving[first]:
            path: Path = (float(t_ref[first]), p[first], v[first])
            still: Path = (t_start, at_start[second], np.zeros(2))
            touch = contacts.touch_time(path, still, diameter)
            if touch is not None and abs(touch - t_start) <= 2.0 * self._dt:
                t_contact = touch
        distance = np.linalg.norm(at_start - at_start[ball], axis=1)
        rivals = int((moving & usable & (distance <= reach)).sum()) - 1
        sure = 1.0 if rivals <= 0 and len(chain) == 2 else (0.8 if len(chain) > 2 else 0.7)
        touches = [(first, second, t_contact, sure)]
        touches += [(a, b, t_start, 0.8) for a, b in itertools.pairwise(chain[1:])]
        return touches

    def _touch_by_fresh_starter(
        self, ball: int, detected: int, t_start: float
    ) -> list[tuple[int, int, float, float]]:
        """A ball struck from rest that hit ``ball`` within a frame or two: too soon for a
        fitted path, so its path is the line from its rest position through its sightings
        since it started, and it must pass within a diameter of ``ball``."""
        diameter = self.table.ball_diameter_mm
        tolerance = self.config.ball_contact_tolerance_mm
        target = self._anchor[ball]
        for other, started in self._start_count.items():
            if other == ball or not (detected - self._fit_frames - 2 <= started <= detected):
                continue
            _, _, xy = self._history.window(started, detected + 1)
            seen = np.flatnonzero(np.isfinite(xy[:, other, 0]))
            if len(seen) == 0:
                continue
            origin, last = self._anchor_before[other], xy[seen[-1], other]
            travel = float(np.linalg.norm(last - origin))
            if travel < 1e-6:
                continue
            u = (last - origin) / travel
            along = float((target - origin) @ u)
            across = abs(float((target - origin) @ np.array([-u[1], u[0]])))
            reach = along - math.sqrt(max(diameter**2 - min(across, diameter) ** 2, 0.0))
            if across <= diameter + tolerance and reach >= travel - tolerance:
                return [(other, ball, t_start, 0.8)]
        return []

    def _stop_at_first_touch(
        self, path: Path, xy_mm: FloatArray, resting: NDArray[np.bool_], t_start: float
    ) -> FloatArray:
        """Where a moving ball was at ``t_start``, or where it first met a resting ball if
        that came earlier (its straight path ends there)."""
        first = t_start
        diameter = self.table.ball_diameter_mm
        for other in np.flatnonzero(resting):
            still: Path = (t_start, xy_mm[other], np.zeros(2))
            touch = contacts.touch_time(path, still, diameter)
            if touch is not None and path[0] - 2.0 * self._dt <= touch < first:
                first = touch
        result: FloatArray = path[1] + path[2] * (first - path[0])
        return result

    def _cluster_push(self, t_start: float) -> bool:
        """Whether a resting neighbour may have passed on a push: in a shot, just after a
        contact (balls frozen together in a rack move on without moving themselves)."""
        window = 2.0 * self.config.fit_window_s + 2.0 * self._dt
        return self._in_shot and any(abs(t - t_start) <= window for _, t in self._recent)

    # ----------------------------------------------------------------- kinks
    def _analyse_kinks(self) -> list[Event]:
        k = self._fit_frames
        m = self._history.count - k
        if m - k < 0 or not (self._moving & self._alive).any():
            self._kinks = []
            return []
        t_b, _, xy_b = self._history.window(m - k, m)
        t_a, _, xy_a = self._history.window(m, m + k)
        before, after = fit_lines(t_b, xy_b), fit_lines(t_a, xy_a)
        change = np.linalg.norm(after[2] - before[2], axis=1)
        speed = np.maximum(np.linalg.norm(after[2], axis=1), np.linalg.norm(before[2], axis=1))
        config = self.config
        noise = config.kink_noise_sigmas * self._kink_noise_mm_s(k)
        threshold = config.kink_min_speed_change_mm_s + config.kink_relative_speed_change * speed
        threshold = threshold + noise
        # Near a rail the geometry itself vouches for a bounce: accept softer ones there.
        threshold = np.where(self._near_rail(before[1]), 0.5 * threshold, threshold)
        usable = (before[3] >= k - 1) & (after[3] >= k - 1) & self._alive
        self._approach_velocity = np.where(usable[:, None], before[2], self._approach_velocity)
        change = np.where(usable, change, 0.0)
        self._kinks = [*self._kinks[-2:], _Kink(change, threshold, before, after)]
        if len(self._kinks) < 3:
            return []
        previous, middle, latest = self._kinks
        peak = (middle.change > middle.threshold) & (middle.change >= previous.change)
        peak &= middle.change > latest.change
        events = []
        for ball in np.flatnonzero(peak):
            event = self._explain_kink(int(ball), middle)
            if event is not None:
                events.append(event)
        return events

    def _explain_kink(self, ball: int, kink: _Kink) -> Event | None:
        before: Path = (float(kink.before[0][ball]), kink.before[1][ball], kink.before[2][ball])
        after: Path = (float(kink.after[0][ball]), kink.after[1][ball], kink.after[2][ball])
        t_kink = contacts.line_intersection_time(before, after)
        if t_kink is None:
            return None
        t_kink = min(max(t_kink, before[0]), after[0])
        xy = before[1] + before[2] * (t_kink - before[0])
        radius = self.table.ball_radius_mm
        side, cushion_fit = contacts.cushion_score(
            self.table, xy, (before[2], after[2]), radius + self.config.cushion_tolerance_mm
        )
        t_ref, p, v, n = kink.before
        others = np.where((n >= 2)[:, None], p + v * (t_kink - t_ref)[:, None], np.nan)
        others[ball] = np.nan
        others[~self._alive] = np.nan
        reach = self.table.ball_diameter_mm + self.config.ball_contact_tolerance_mm
        other, ball_fit = contacts.ball_score(xy, after[2] - before[2], others, reach)
        jaw, jaw_fit = contacts.jaw_score(
            self._jaw_tips, xy, (before[2], after[2]), radius + self.config.cushion_tolerance_mm
        )
        if max(cushion_fit, ball_fit, jaw_fit) < self.config.explain_min_cosine:
            return None
        if jaw is not None and jaw_fit > max(cushion_fit, ball_fit):
            return self._cushion_event(ball, jaw, t_kink)
        if ball_fit >= cushion_fit:
            if not self._changed_too(other):
                return None
            return self._ball_contact(ball, other, (before, t_kink), kink)
        return self._cushion_contact(ball, side, before, t_kink)

    def _changed_too(self, other: int) -> bool:
        """Whether ``other`` also changed velocity (or started) around the analysis frame."""
        if any(b == other for b, _ in self._pending_starts):
            return True
        return any(k.change[other] >= 0.5 * k.threshold[other] for k in self._kinks)

    def _ball_contact(
        self, ball: int, other: int, before_at: tuple[Path, float], kink: _Kink
    ) -> Event | None:
        before, t_kink = before_at
        t_ref, p, v, _ = kink.before
        other_path: Path = (float(t_ref[other]), p[other], v[other])
        touch = contacts.touch_time(before, other_path, self.table.ball_diameter_mm)
        near = touch is not None and abs(touch - t_kink) <= 2.0 * self._dt
        t_contact = touch if near and touch is not None else t_kink
        if not self._remember(frozenset((ball, other)), t_contact):
            return None
        faster = np.linalg.norm(before[2]) >= np.linalg.norm(other_path[2])
        balls = (ball, other) if faster else (other, ball)
        return Event(
            self._frame_of(t_contact), t_contact, EventKind.BALL_BALL, balls, confidence=0.9
        )

    def _cushion_contact(self, ball: int, side: int, before: Path, t_kink: float) -> Event | None:
        reach = contacts.cushion_reach_time(self.table, before, side, self.table.ball_radius_mm)
        t_contact = reach if reach is not None and abs(reach - t_kink) <= 2 * self._dt else t_kink
        xy = before[1] + before[2] * (t_contact - before[0])
        cushion = self.table.nearest_cushion(float(xy[0]), float(xy[1]))
        return self._cushion_event(ball, str(cushion), t_contact)

    def _cushion_event(self, ball: int, cushion: str, t_contact: float) -> Event | None:
        """A cushion contact, unless the same ball touched the same cushion just before."""
        merge_s = max(3.0 * self._dt, 2.0 * self.config.fit_window_s)
        if t_contact - self._last_cushion.get((ball, cushion), -np.inf) <= merge_s:
            return None
        self._last_cushion[(ball, cushion)] = t_contact
        frame = self._frame_of(t_contact)
        return Event(frame, t_contact, EventKind.BALL_CUSHION, (ball,), cushion=cushion)

    # ----------------------------------------------------------------- shot end
    def _shot_end(self, trackset: TrackSet) -> list[Event]:
        if not self._in_shot:
            return []
        latest = self._history.window(self._history.count - 1, self._history.count)[2][0]
        hidden = ~np.isfinite(latest[:, 0])
        # A ball hidden while moving keeps the shot open until the tracker gives it up.
        given_up = hidden & ~np.any(self._velocity != 0.0, axis=1)
        busy = bool((self._moving & self._alive & ~given_up).any() or self._pending_starts)
        if busy:
            self._quiet_since = None
            return []
        if self._quiet_since is None:
            self._quiet_since = trackset.time_s
        if trackset.time_s - self._quiet_since + 1e-9 < self.config.settle_s:
            return []
        self._in_shot = False
        self._quiet_since = None
        return [Event(trackset.frame, trackset.time_s, EventKind.SHOT_END)]
