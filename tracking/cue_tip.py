"""A cue stick's tip read as the resting cue ball: strokes seen through it.

A whole-table search on the stroke frame can read the cue stick's white tip, over the spot
of the cue ball it just struck, as the resting cue ball: the camera then sees the cue ball
at rest while a ball it faces leaves fast, straight away from it, as a ball it hits does.
Such a sighting is doubtful (`tracking.disturbances.PendingDisturbance.doubt_until_s`): the
cue ball found far along soon after was struck, and the ball was hit first. The stroke came
as long before that ball left as the cue ball took to reach the contact point
(`CueTipCheck._stroke_limits`); a sighting on its spot after the latest it can have left is
the tip. Part of `tracking.starts.StartExplainer` (a mixin: `tracking.events.EventDetector`
holds the state).
"""

from __future__ import annotations

import math

import numpy as np

from calibration.table import TableSpec
from tracking.disturbances import CUE_HIDDEN_S, PendingDisturbance
from tracking.event_config import EventConfig
from tracking.fastnp import true_indices
from tracking.history import FloatArray, PositionHistory, fit_lines
from tracking.types import Event
from vision.types import CUE

Departure = tuple[float, float, FloatArray, float]
"""How a ball left its rest spot: (when s, speed mm/s, unit direction (2,), the most it can
have been going, mm/s: inf unless measured on `_MEASURED_SIGHTINGS` sightings or more)."""

_MEASURED_SIGHTINGS = 3
"""A ball's speed as it left is measured on this many sightings at least; on fewer (a ball
seen once or twice before it dropped or left the table, slowed by the jaws) it is only
known to be at least what they show."""


class CueTipCheck:
    """The cue-stick-tip part of `tracking.strokes.HiddenStroke` (state lives in
    `tracking.events.EventDetector`)."""

    table: TableSpec
    config: EventConfig
    _dt: float
    _last_time: float | None
    _anchor: FloatArray
    _history: PositionHistory
    _pending_disturbances: list[PendingDisturbance]
    _start_floor: FloatArray

    @property
    def _fit_frames(self) -> int:
        raise NotImplementedError

    def _cue_last_seen(self, time_s: float) -> float | None:
        raise NotImplementedError

    def _left_since(self, since_s: float) -> list[tuple[int, int]]:
        raise NotImplementedError

    def _hidden_stroke(
        self, ball: int, detected: int, t_start: float, speed_mm_s: float = 0.0
    ) -> list[Event]:
        raise NotImplementedError

    def _struck_under_the_tip(
        self, found_s: float, found_mm: FloatArray, after: tuple[int, int] | None
    ) -> list[Event] | None:
        """The stroke of a cue ball found far along after an object ball left fast, straight
        away from it (`_faced_departure`), while it was still seen on its spot, no longer
        ago than a struck cue ball stays hidden: that sighting was the cue stick's tip over
        the spot (a whole-table search on the stroke frame reads the white tip as the
        resting ball), and the ball was hit first. The stroke came as long before that
        ball left as the cue ball took to reach the contact point at the speed the ball
        left with, passed on along the line of centres (a cue ball seen on its spot after
        that was the tip); the ball's disturbance waiting on this is dropped. None when no
        ball left so before ``after`` (push, ball: the first to leave after the cue ball's
        last sighting on its spot)."""
        faced = []
        # A ball waiting on this (`PendingDisturbance.doubt_until_s`) may be gone already.
        doubted = {(p.push, p.event.balls[0]) for p in self._pending_disturbances}
        doubted = {(n, b) for n, b in doubted if self._pending_doubt(b)}
        for push, ball in sorted(doubted | set(self._left_since(found_s - CUE_HIDDEN_S))):
            departure = self._faced_departure(ball, push, found_mm)
            if departure is not None and (after is None or push < after[0]):
                faced.append((departure, push, ball))
        if not faced:
            return None
        (t_left, speed, _, _), push, ball = min(faced, key=lambda f: f[0][0])
        events = self._hidden_stroke(ball, push, t_left, speed)
        struck = {b for _, _, b in faced}
        self._pending_disturbances[:] = [
            p for p in self._pending_disturbances if p.event.balls[0] not in struck
        ]
        return events

    def _stroke_limits(self, first: int, ball: int, detected: int) -> tuple[float, float]:
        """(earliest, latest) the resting cue ball can have been struck when ``ball``, first
        seen displaced at push ``detected``, left as the cue ball sends a ball it hits first
        (`_faced_departure`): it covered its way to the contact point at least as fast as
        the speed it passed on along the line of centres allows, and at most as fast as a
        ball that slid there, slowing at the cloth's strongest deceleration, arriving at
        the most the ball can have been going (with that unknown, a sighting on the spot
        after the ball left is the tip). No latest unless the cue ball was seen on its spot
        after the ball left (`_seen_on_spot_since`): only that shows a tip there. (-inf,
        inf) when ``first`` is another ball or ``ball`` did not leave so."""
        departure = self._left_spot(ball, detected) if first == ball else None
        if departure is None or not self._faces(ball, departure):
            return -math.inf, math.inf
        t_left, speed, unit, top = departure
        contact = self._anchor[ball] - self._diameter * unit
        path = float(np.linalg.norm(contact - self._anchor[CUE]))
        stretch = path / max(float((contact - self._anchor[CUE]) @ unit), 1e-9)
        earliest = t_left - path / (speed * stretch)
        if not self._seen_on_spot_since(t_left):
            return earliest, math.inf  # nothing shows a tip: every sighting may be the ball
        if not math.isfinite(top):
            return earliest, t_left
        arrival = top * stretch  # the most the cue ball's own speed at the contact can be
        decel = self.config.sliding_deceleration_mm_s2
        quickest = (math.sqrt(arrival**2 + 2.0 * decel * path) - arrival) / decel
        return earliest, t_left - quickest

    def _seen_on_spot_since(self, time_s: float) -> bool:
        """Whether the cue ball was seen within a radius of its rest spot at or after
        ``time_s`` (when a ball it hit left: it was at the contact point then, so that
        sighting was the cue stick's tip over the spot)."""
        count = self._history.count
        times, _, xy = self._history.window(count - self._history.capacity, count)
        gap = np.linalg.norm(xy[:, CUE] - self._anchor[CUE], axis=1)
        on_spot = (gap <= 0.5 * self._diameter) & (times >= time_s - 1e-9)
        return bool(on_spot.any())

    def _pending_doubt(self, ball: int) -> bool:
        """Whether a disturbance of ``ball`` waits on the cue ball being found struck."""
        now = -math.inf if self._last_time is None else self._last_time
        return any(
            p.event.balls[0] == ball and now < p.doubt_until_s for p in self._pending_disturbances
        )

    def _faced_departure(self, ball: int, push: int, found_mm: FloatArray) -> Departure | None:
        """How ``ball``, first seen displaced at push ``push``, left its rest spot, when it
        went as the resting cue ball, later found at ``found_mm``, would have sent it: at a
        stroke's speed at least, straight away from the cue ball's spot (which lies behind
        the contact point: `DisturbanceCheck._cue_faces`), and on the side the cue ball was
        found; None otherwise. Seen once before it was lost, its speed is the least that
        covers the way since it was last seen at rest, and it left half-way in between."""
        departure = self._left_spot(ball, push)
        if departure is None or not self._faces(ball, departure):
            return None
        ahead = float((found_mm - self._anchor[CUE]) @ (self._anchor[ball] - self._anchor[CUE]))
        return departure if ahead > 0.0 else None

    def _faces(self, ball: int, departure: Departure) -> bool:
        """Whether ``ball`` left at a stroke's speed at least, straight away from the cue
        ball's spot, which lies behind the contact point (`DisturbanceCheck._cue_faces`)."""
        _, speed, unit, _ = departure
        along = float((self._anchor[ball] - self._anchor[CUE]) @ unit)
        reach = self._diameter - self.config.ball_contact_tolerance_mm
        return speed >= self.config.strike_min_speed_mm_s and along >= reach

    def _left_spot(self, ball: int, push: int) -> Departure | None:
        """How ``ball`` left its rest spot (`Departure`), fitted on its sightings from push
        ``push`` on (a fit window's worth; at most the faster of that and the fastest step
        between two of them: a ball slowed in a pocket's jaws fits slower); from one
        sighting, the least speed that covers the way since it was last seen at rest,
        half-way in between. None without a sighting or a known rest spot."""
        count = self._history.count
        times, _, xy = self._history.window(push, min(push + self._fit_frames, count))
        rest = self._anchor[ball]
        seen = true_indices(np.isfinite(xy[:, ball, 0]))
        if not len(seen) or not np.isfinite(rest[0]):
            return None
        if len(seen) >= 2:
            t_ref, p, v, _ = fit_lines(times[seen], xy[seen][:, [ball]])
            speed = float(np.linalg.norm(v[0]))
            if speed > 1e-6:
                steps = np.linalg.norm(np.diff(xy[seen, ball], axis=0), axis=1)
                fastest = float(np.max(steps / np.maximum(np.diff(times[seen]), 1e-9)))
                t_left = min(float(t_ref[0] + (rest - p[0]) @ v[0] / speed**2), times[seen[0]])
                top = max(speed, fastest) if len(seen) >= _MEASURED_SIGHTINGS else math.inf
                return t_left, speed, v[0] / speed, top
        way = xy[seen[0], ball] - rest
        reach = float(np.linalg.norm(way))
        elapsed = max(float(times[seen[0]]) - float(self._start_floor[ball]), self._dt)
        if reach <= 1e-9:
            return None
        return float(times[seen[0]]) - 0.5 * elapsed, reach / elapsed, way / reach, math.inf

    @property
    def _diameter(self) -> float:
        return self.table.ball_diameter_mm
