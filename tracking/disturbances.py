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
from dataclasses import dataclass, field, replace

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
_HOLD_S = 0.3
"""A ball seen beyond the shift is watched this much longer before its disturbance counts:
a false ball (a player's body or arm) taking its name is seen beside it, and the ball is
seen back at its rest spot within moments, where a ball moved by hand stays moved."""
_RESTROKE_S = 1.0
"""A player needs longer than this to strike again (draw the cue back, settle, stroke): a
cue ball start sooner after the shot's own stroke is that stroke's ball rolling on."""
_IN_SHOT_SURE = 0.4
"""The confidence of a disturbance while other balls roll (more likely a missed contact):
below `referee.shot_facts.DISTURBED_MIN_CONFIDENCE`, no foul is called on it."""
CUE_HIDDEN_S = 0.5
"""A hard stroke can hide the cue ball (motion blur, the cue stick's tip over its spot) for
up to this long after it was struck; found again later, its stroke time is unknown."""


@dataclass(frozen=True, slots=True)
class PendingDisturbance:
    """A ``ball_disturbed`` waiting for the ball to show it really moved.

    Attributes:
        event: the event to report once confirmed (its time is the start's).
        rest_mm: (2,) where the ball rested before it started, mm.
        push: the history push at which it was seen leaving.
        held_at: the push at which it was first seen beyond the shift on enough sightings
            (-1: not yet); it is reported `_HOLD_S` later unless seen back at rest.
        moved_mm: (2,) where it was seen then, mm (NaN while ``held_at`` is -1).
        doubt_until_s: until when the cue ball may yet be found away from its spot (s;
            -inf: no doubt). The ball left fast, straight away from the resting cue ball,
            as a ball the cue ball hit does: the cue ball seen on its spot then may be the
            cue stick's tip over the spot of a struck cue ball the camera lost. Till then
            the disturbance is not reported; found away, the cue ball was struck
            (`tracking.strokes.HiddenStroke._cue_found_far`) and it is dropped.
    """

    event: Event
    rest_mm: FloatArray
    push: int
    held_at: int = -1
    moved_mm: FloatArray = field(default_factory=lambda: np.full(2, np.nan))
    doubt_until_s: float = -math.inf


class DisturbanceCheck:
    """The unexplained-start part of `tracking.starts.StartExplainer` (state lives there)."""

    table: TableSpec
    config: EventConfig
    _history: PositionHistory
    _dt: float
    _last_time: float | None
    _in_shot: bool
    _quiet_since: float | None
    _quiet_at_start: FloatArray
    _last_strike_s: float
    _last_contact_s: float
    _alive: NDArray[np.bool_]
    _moving: NDArray[np.bool_]
    _anchor: FloatArray
    _anchor_before: FloatArray
    _velocity: FloatArray
    _rest_since: FloatArray
    _start_count: dict[int, int]

    @property
    def _fit_frames(self) -> int:
        raise NotImplementedError

    @property
    def _start_distance_mm(self) -> FloatArray:
        raise NotImplementedError

    @property
    def _noise_mm(self) -> float:
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

    def _unexplained_start(
        self, ball: int, t_start: float, speed: float, seen_s: FloatArray | None = None
    ) -> list[Event] | None:
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
        if seen_s is not None and len(seen_s) >= 2:
            # Sightings spread wider than a fit window (a ball hidden as it left, seen again
            # once uncovered) pin its speed down better than a window's worth would.
            spread = float(np.sum((seen_s - np.mean(seen_s)) ** 2))
            noise_floor = min(noise_floor, 3.0 * self._noise_mm / math.sqrt(max(spread, 1e-12)))
        rested_s = t_start - self._rest_since[ball]
        # Soon after a rest, a start is the ball creeping on (or a slow bounce taken for a
        # rest), unless the cue ball leaves far faster than either: a stroke.
        creeping = rested_s < config.disturb_min_rest_s and (
            ball != CUE or speed < 3.0 * config.strike_min_speed_mm_s
        )
        # An object ball that left before the camera saw it at rest over two frames was
        # never seen at rest: nothing tells that anything moved it (a cue ball struck as the
        # review begins is still a stroke).
        unwatched = ball != CUE and t_start <= self._watched_since() + self._dt
        if speed < max(config.start_min_speed_mm_s, noise_floor) or creeping or unwatched:
            return None
        stroke = ball == CUE and speed >= config.strike_min_speed_mm_s
        if stroke and not self._still_away(ball):
            # Its centre was pulled aside and came back (a cue stick lined up over it): no
            # stroke yet. At rest again where it was, a real stroke starts it anew.
            self._moving[ball] = False
            return None
        ended = self._end_quiet_shot(ball, t_start)
        frame = self._frame_of(t_start)
        if stroke:
            if self._in_shot and self._rolling_on(t_start):
                return None
            # Struck with nothing touching it: a stroke, even while balls of the previous
            # shot still roll (that shot ends at this strike, which is then a foul).
            if self._in_shot:
                ended = [Event(frame, t_start - 1e-6, EventKind.SHOT_END)]
            self._in_shot = True
            self._quiet_since = None
            return [*ended, Event(frame, t_start, EventKind.STRIKE, (CUE,))]
        # With other balls rolling, an unexplained start is more likely a missed contact.
        sure = _IN_SHOT_SURE if self._rolling_others(ball).any() else 0.8
        event = Event(frame, t_start, EventKind.BALL_DISTURBED, (ball,), confidence=sure)
        left = self._start_count.get(ball, self._history.count - 1)
        rest = self._rest_spot(ball, left)
        pending = PendingDisturbance(event, rest, left)
        fast = speed >= config.strike_min_speed_mm_s
        if fast and not self._in_shot and self._cue_faces(ball, rest):
            # Waits out as long as a struck cue ball stays hidden, and its start's fit.
            wait = CUE_HIDDEN_S + config.fit_window_s + 3.0 * self._dt
            pending = replace(pending, doubt_until_s=t_start + wait)
        self._disturbances.append(pending)
        return ended

    def _watched_since(self) -> float:
        """When the camera began to watch: the time of the first frame while the history
        still holds it (-inf after). An object ball seen moving from the first frames on
        was never seen at rest (a player's shadow on a real clip's rail, read as the 8 from
        frame 0, its centre wandering, was reported disturbed at frame -2 and charged to
        the first shot as a foul)."""
        count = self._history.count
        if count == 0 or count > self._history.capacity:
            return -math.inf
        return float(self._history.window(0, 1)[0][0])

    def _cue_faces(self, ball: int, rest_mm: FloatArray) -> bool:
        """Whether ``ball``, seen last leaving ``rest_mm``, went straight away from the
        resting cue ball as a ball it hit would: the cue ball lies behind the contact point
        (the line of centres at a contact points along the struck ball's way, and the
        cue ball reaches that point from its side of the ball)."""
        cue = self._anchor[CUE]
        if ball == CUE or not self._alive[CUE] or self._moving[CUE] or not np.isfinite(cue[0]):
            return False
        count = self._history.count
        xy = self._history.window(count - self._fit_frames, count)[2][:, ball]
        seen = xy[np.isfinite(xy[:, 0])]
        if not len(seen):
            return False
        way = seen[-1] - rest_mm
        reach = float(np.linalg.norm(way))
        if reach <= 1e-9:
            return False
        along = float((rest_mm - cue) @ way) / reach
        return along >= self.table.ball_diameter_mm - self.config.ball_contact_tolerance_mm

    def _still_away(self, ball: int) -> bool:
        """Whether ``ball``'s latest sighting is still beyond the start distance from its
        rest spot (a ball that left is; a centre pulled aside for a frame or two is back)."""
        count = self._history.count
        xy = self._history.window(count - self._fit_frames, count)[2][:, ball]
        seen = xy[np.isfinite(xy[:, 0])]
        if not len(seen):
            return True  # out of sight: nothing says it came back
        gap = float(np.linalg.norm(seen[-1] - self._anchor[ball]))
        return gap > float(self._start_distance_mm[ball])

    def _rest_spot(self, ball: int, left: int) -> FloatArray:
        """(2,) mm where ``ball`` rested before it left at push ``left``: the median of its
        sightings then (the rest anchor can lie a few millimetres off them, fixed while the
        ball was still stopping, which would shrink a small nudge made away from that side),
        or its anchor when the history holds too few."""
        xy = self._history.window(left - self._history.capacity, left)[2][:, ball]
        seen = xy[np.isfinite(xy[:, 0])]
        anchor = self._anchor_before[ball]
        near = seen[np.linalg.norm(seen - anchor, axis=1) <= self._occlusion_shift_mm(ball)]
        if len(near) < _CONFIRM_SIGHTINGS:
            return np.asarray(anchor, dtype=np.float64).copy()
        rest: FloatArray = np.median(near, axis=0)
        return rest

    def _rolling_others(self, ball: int) -> NDArray[np.bool_]:
        """(11,) the balls other than ``ball`` still rolling: moving, and not hidden with
        the tracker no longer moving them (given up, as the shot's end does: a ball lost
        from sight in a pocket or off the table is no longer a possible toucher)."""
        count = self._history.count
        latest = self._history.window(count - 1, count)[2]
        hidden = ~np.isfinite(latest[0, :, 0]) if len(latest) else np.zeros(len(self._alive), bool)
        given_up = hidden & ~np.any(self._velocity != 0.0, axis=1)
        others: NDArray[np.bool_] = self._alive & self._moving & ~given_up
        others[ball] = False
        return others

    def _rolling_on(self, t_start: float) -> bool:
        """Whether a cue ball start is the shot's own stroke rolling on: too soon after it for
        a player to strike again, and the stroke already sent the cue ball into a ball (a
        break's cue ball coming back off the rack). Before any contact it may be the stroke
        itself after a false one (a cue stick pulling the cue ball's centre aside)."""
        recent = t_start - self._last_strike_s < _RESTROKE_S
        return recent and self._last_contact_s >= self._last_strike_s

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

    def _struck_after(self, strike_s: float) -> None:
        """A stroke at ``strike_s`` was found (late, when it was out of sight): a ball that
        left since, straight away from the cue ball's spot while it was still seen there
        (`PendingDisturbance.doubt_until_s`), was set off by it (by the cue ball, or a ball
        it sent on), not disturbed; any other start since was in the shot, with balls
        rolling, where an unexplained start is more likely a missed contact (as
        `_unexplained_start` rates one)."""
        kept = []
        for pending in self._disturbances:
            since = pending.event.time_s >= strike_s - self._dt
            if since and math.isfinite(pending.doubt_until_s):
                continue
            if since and pending.event.confidence > _IN_SHOT_SURE:
                pending = replace(pending, event=replace(pending.event, confidence=_IN_SHOT_SURE))
            kept.append(pending)
        self._disturbances[:] = kept

    def _confirm_disturbances(self) -> list[Event]:
        """The pending disturbances the camera now confirms; those it rules out are dropped."""
        events, keep = [], []
        now = float(self._last_time) if self._last_time is not None else -math.inf
        for pending in self._disturbances:
            if now < pending.doubt_until_s:
                keep.append(pending)  # the cue ball may yet be found struck
                continue
            verdict = self._moved_for_real(pending)
            if verdict is None:
                keep.append(pending)
            elif isinstance(verdict, PendingDisturbance):
                keep.append(verdict)
            elif verdict:
                events.append(pending.event)
        self._disturbances[:] = keep
        return events

    def _moved_for_real(self, pending: PendingDisturbance) -> bool | PendingDisturbance | None:
        """True when the ball was seen beyond `_occlusion_shift_mm` of its rest spot on
        `_CONFIRM_SIGHTINGS` sightings running and not back at its rest spot in the
        `_HOLD_S` after (`_held`); False when it came to rest (or left play, or the history
        moved past its start) without that; the pending disturbance, held, when first seen
        beyond; None while still undecided."""
        if pending.held_at >= 0:
            return self._held(pending)
        ball = pending.event.balls[0]
        reach = self._occlusion_shift_mm(ball)
        count = self._history.count
        xy = self._history.window(pending.push, count)[2]
        seen = xy[np.isfinite(xy[:, ball, 0]), ball]
        far = np.linalg.norm(seen - pending.rest_mm, axis=1) > reach
        tail = min(len(far), _CONFIRM_SIGHTINGS)
        moved = len(far) >= _CONFIRM_SIGHTINGS and bool(far[-_CONFIRM_SIGHTINGS:].all())
        if not moved and (not self._alive[ball] or not self._moving[ball]):
            # At rest (or gone) already: beyond the reach only if its last sightings were.
            moved = bool(len(far) and far[-tail:].all())
            if not moved or not self._alive[ball]:
                return moved
        if moved:
            where = np.median(seen[-tail:], axis=0)
            return replace(pending, held_at=count - 1, moved_mm=where)
        if count - pending.push >= self._history.capacity - 1:
            return False
        return None

    def _held(self, pending: PendingDisturbance) -> bool | None:
        """A disturbance seen beyond the shift: False when the ball is seen back nearer its
        rest spot than where it was seen moved on two sightings running (a false ball took
        its name for a while), True once `_HOLD_S` passed without that, else None."""
        ball = pending.event.balls[0]
        count = self._history.count
        xy = self._history.window(pending.held_at, count)[2][:, ball]
        seen = xy[np.isfinite(xy[:, 0])]
        back = np.linalg.norm(seen - pending.rest_mm, axis=1) < np.linalg.norm(
            seen - pending.moved_mm, axis=1
        )
        if np.any(back[1:] & back[:-1]):
            return False
        hold = max(_CONFIRM_SIGHTINGS, math.ceil(_HOLD_S / self._dt))
        return True if count - 1 - pending.held_at >= hold else None

    def _occlusion_shift_mm(self, ball: int) -> float:
        """How far a resting ball's detected centre can be pulled aside by something over
        part of it (about a radius on the table, see the module note), or by the noise the
        detector shows on it when that is larger."""
        return max(self.table.ball_radius_mm, float(self._start_distance_mm[ball]))
