"""Starts nothing explains: a strike, or a ball disturbed, once the camera shows it moved.

A resting ball whose start no ball explains was moved by a hand, a sleeve or the cue (a
foul), or not moved at all: something passing over it (the cue lined up for the next
stroke, an arm) hides part of it and pulls its detected centre aside, in one frame or for
as long as it stays there. Such a shift stays within about half a radius in the image,
which the table plane's foreshortening at an angled camera stretches to about a radius on
the table. A ball the camera saw leave therefore counts as disturbed only once it is seen
beyond that on several sightings running (or comes to rest, or leaves play, beyond it); a
ball that settles back within it was never moved. Part of `tracking.starts.StartExplainer`
(a mixin: `tracking.events.EventDetector` holds the state).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking.event_config import EventConfig
from tracking.history import FloatArray, PositionHistory
from tracking.types import Event, EventKind
from vision.types import CUE

_CONFIRM_SIGHTINGS = 3
"""Sightings running beyond the shift a partial occlusion can cause that confirm a
disturbance (one or two can still be a detection pulled aside, or another ball)."""


@dataclass(frozen=True, slots=True)
class PendingDisturbance:
    """A ``ball_disturbed`` waiting for the ball to show it really moved.

    Attributes:
        event: the event to report once confirmed (its time is the start's).
        rest_mm: (2,) where the ball rested before it started, mm.
        push: the history push at which it was seen leaving.
    """

    event: Event
    rest_mm: FloatArray
    push: int


class DisturbanceCheck:
    """The unexplained-start part of `tracking.starts.StartExplainer` (state lives there)."""

    table: TableSpec
    config: EventConfig
    _history: PositionHistory
    _dt: float
    _in_shot: bool
    _quiet_since: float | None
    _quiet_at_start: FloatArray
    _alive: NDArray[np.bool_]
    _moving: NDArray[np.bool_]
    _anchor: FloatArray
    _anchor_before: FloatArray
    _rest_since: FloatArray
    _start_count: dict[int, int]

    @property
    def _fit_frames(self) -> int:
        raise NotImplementedError

    @property
    def _start_distance_mm(self) -> FloatArray:
        raise NotImplementedError

    def _frame_of(self, time_s: float) -> int:
        raise NotImplementedError

    def _kink_noise_mm_s(self, frames: int) -> float:
        raise NotImplementedError

    _pending_disturbances: list[PendingDisturbance]
    """Disturbances not yet confirmed (created by the detector's constructor)."""

    @property
    def _disturbances(self) -> list[PendingDisturbance]:
        return self._pending_disturbances

    def _unexplained_start(self, ball: int, t_start: float, speed: float) -> list[Event] | None:
        """A strike, a disturbance (reported once confirmed: `_confirm_disturbances`), or
        (too slow, too soon after stopping) no event: a ball creeping on after it was
        declared at rest, or detector noise.

        When every ball was already at rest as this one started (the shot was only waiting
        out ``settle_s``), the shot had ended: a ``shot_end`` at the time all came to rest
        comes first, so a nudge or the next stroke starts afresh instead of counting as a
        disturbance inside the finished shot.
        """
        config = self.config
        noise_floor = 3.0 * self._kink_noise_mm_s(self._fit_frames) / math.sqrt(2.0)
        rested_s = t_start - self._rest_since[ball]
        # Soon after a rest, a start is the ball creeping on (or a slow bounce taken for a
        # rest), unless the cue ball leaves far faster than either: a stroke.
        creeping = rested_s < config.disturb_min_rest_s and (
            ball != CUE or speed < 3.0 * config.strike_min_speed_mm_s
        )
        if speed < max(config.start_min_speed_mm_s, noise_floor) or creeping:
            return None
        ended = self._end_quiet_shot(ball, t_start)
        frame = self._frame_of(t_start)
        if ball == CUE and speed >= config.strike_min_speed_mm_s:
            # Struck with nothing touching it: a stroke, even while balls of the previous
            # shot still roll (that shot ends at this strike, which is then a foul).
            if self._in_shot:
                ended = [Event(frame, t_start - 1e-6, EventKind.SHOT_END)]
            self._in_shot = True
            self._quiet_since = None
            return [*ended, Event(frame, t_start, EventKind.STRIKE, (CUE,))]
        others = self._alive & self._moving
        others[ball] = False
        # With other balls rolling, an unexplained start is more likely a missed contact.
        sure = 0.4 if others.any() else 0.8
        event = Event(frame, t_start, EventKind.BALL_DISTURBED, (ball,), confidence=sure)
        rest = self._anchor_before[ball].copy()
        left = self._start_count.get(ball, self._history.count - 1)
        self._disturbances.append(PendingDisturbance(event, rest, left))
        return ended

    def _end_quiet_shot(self, ball: int, t_start: float) -> list[Event]:
        """A ``shot_end`` when the shot was open but every ball at rest as ``ball`` started."""
        quiet = float(self._quiet_at_start[ball])
        others = self._alive & self._moving
        others[ball] = False
        if not self._in_shot or not math.isfinite(quiet) or quiet > t_start or others.any():
            return []
        self._in_shot = False
        self._quiet_since = None
        return [Event(self._frame_of(quiet), quiet, EventKind.SHOT_END)]

    def _confirm_disturbances(self) -> list[Event]:
        """The pending disturbances the camera now confirms; those it rules out are dropped."""
        events, keep = [], []
        for pending in self._disturbances:
            verdict = self._moved_for_real(pending)
            if verdict is None:
                keep.append(pending)
            elif verdict:
                events.append(pending.event)
        self._disturbances[:] = keep
        return events

    def _moved_for_real(self, pending: PendingDisturbance) -> bool | None:
        """True when the ball was seen beyond `_occlusion_shift_mm` of its rest spot on
        `_CONFIRM_SIGHTINGS` sightings running; False when it came to rest (or left play, or
        the history moved past its start) without that; None while still undecided."""
        ball = pending.event.balls[0]
        reach = self._occlusion_shift_mm(ball)
        count = self._history.count
        xy = self._history.window(pending.push, count)[2]
        seen = xy[np.isfinite(xy[:, ball, 0]), ball]
        far = np.linalg.norm(seen - pending.rest_mm, axis=1) > reach
        if len(far) >= _CONFIRM_SIGHTINGS and far[-_CONFIRM_SIGHTINGS:].all():
            return True
        if not self._alive[ball] or not self._moving[ball]:
            # At rest (or gone) already: beyond the reach only if its last sightings were.
            return bool(len(far) and far[-min(len(far), _CONFIRM_SIGHTINGS) :].all())
        if count - pending.push >= self._history.capacity - 1:
            return False
        return None

    def _occlusion_shift_mm(self, ball: int) -> float:
        """How far a resting ball's detected centre can be pulled aside by something over
        part of it (about a radius on the table, see the module note), or by the noise the
        detector shows on it when that is larger."""
        return max(self.table.ball_radius_mm, float(self._start_distance_mm[ball]))
