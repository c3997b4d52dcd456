"""Why a resting ball started moving: the part of `EventDetector` that explains starts.

A ball that leaves its rest position was hit by a ball whose straight path came within one
diameter of it (or through balls frozen together, a chain of touches from a moving ball);
with nothing near, the cue ball starting a shot is a strike and any other start a
disturbance once the camera confirms it (`tracking.disturbances`). The toucher search lives
in `tracking.touchers`, balls moved by hand in `tracking.hand_moves`, strokes the camera did
not see in `tracking.strokes`. `StartExplainer` is a mixin: `tracking.events.EventDetector`
holds the state.
"""

from __future__ import annotations

import math

import numpy as np

from tracking.event_config import EventConfig
from tracking.fastnp import true_indices
from tracking.hand_moves import HandMoves
from tracking.history import FloatArray, fit_lines
from tracking.jumps import JumpCheck
from tracking.touchers import Path as Path  # re-exported: tracking.drops and kinks use it
from tracking.touchers import TouchFinder
from tracking.types import Event, EventKind
from vision.types import CUE


class StartExplainer(HandMoves, TouchFinder, JumpCheck):
    """Start explanation for `EventDetector` (which defines the state declared here and in
    `DisturbanceCheck`)."""

    _anchor_weight: FloatArray
    _seen_xy: FloatArray
    _start_floor: FloatArray
    _start_slack_s: float
    _quiet_at_start: FloatArray
    _pending_starts: list[tuple[int, int]]
    _recent: list[tuple[frozenset[int], float]]

    @property
    def _fit_frames(self) -> int:
        raise NotImplementedError

    def _frame_of(self, time_s: float) -> int:
        raise NotImplementedError

    def _remember(self, pair: frozenset[int], time_s: float) -> bool:
        raise NotImplementedError

    def _kink_noise_mm_s(self, frames: int) -> float:
        raise NotImplementedError

    def _ready_starts(self) -> list[tuple[int, int]]:
        """(ball, frame it was seen displaced) of the pending starts whose fit window is
        complete: those `_resolve_starts` explains now."""
        k = self._fit_frames
        return [(b, n) for b, n in self._pending_starts if self._history.count >= n + k]

    def _resolve_starts(self) -> list[Event]:
        k = self._fit_frames
        ready = self._ready_starts()
        self._pending_starts = [s for s in self._pending_starts if s not in ready]
        events: list[Event] = []
        for ball, detected in ready:
            if ball == CUE and any(e.kind == EventKind.STRIKE for e in events):
                # A start of this batch already found the stroke (one out of sight, from the
                # balls it set off): the cue ball's own start is that stroke, rolling on, not
                # a new one from where it was last seen.
                continue
            if not self._centre_jumped(ball, detected, k):
                events += self._explain_start(ball, detected, k)
        return events + self._confirm_disturbances()

    def _explain_start(self, ball: int, detected: int, k: int) -> list[Event]:
        """Why a resting ball started moving: a ball that touched it, a strike or nothing."""
        times, xy = self._start_window(ball, detected, k)
        t_ref, p, v, n = fit_lines(times, xy[:, [ball]])
        anchor = self._anchor[ball]
        speed = float(np.linalg.norm(v[0]))
        if n[0] < 2 or speed < 1e-6:
            struck = self._cue_seen_once(times, xy) if ball == CUE else None
            if struck is not None:
                return struck
            self._moving[ball] = False
            self._anchor[ball] = p[0] if n[0] else anchor
            self._anchor_weight[ball] = 1.0
            return []
        found = self._by_hand_or_unseen(ball, (times, xy[:, ball]), v[0])
        if found is not None:
            return found
        t_start = float(t_ref[0] + (anchor - p[0]) @ v[0] / speed**2)
        # A slow ball is first seen displaced long after it left: as long as it took to get
        # there at its speed (a fast one within a frame or two).
        first = int(np.argmax(np.isfinite(xy[:, ball, 0])))
        lag = _roll_time(float(np.linalg.norm(xy[first, ball] - anchor)), speed, self.config)
        floor = min(float(times[0]) - 1.5 * self._dt - lag, float(self._start_floor[ball]))
        t_start = min(max(t_start, floor), float(times[0]))
        rolling = speed >= self.config.start_min_speed_mm_s
        if rolling and not self._in_shot and ball != CUE and self._cue_unseen_at(t_start):
            # Balls leaving together outside a shot were all set off by the unseen stroke (a
            # ball found at rest far away after a while unseen shows no stroke now).
            t_start = self._after_cue_left(ball, detected, t_start)
            return self._hidden_stroke(ball, detected, t_start, speed)
        # How far the toucher's own touch time may lie from this estimate.
        self._start_slack_s = lag
        touches = self._find_touchers(ball, detected, t_start, self._fit_frames)
        if not touches:
            # A toucher that had just bounced is better seen over its last frames alone.
            touches = self._find_touchers(ball, detected, t_start, 2)
        self._start_slack_s = 0.0
        touches = touches or self._touch_by_pass(ball, detected)
        if not touches and speed < self.config.start_min_speed_mm_s:
            self._moving[ball] = False
            self._anchor[ball] = p[0]
            self._anchor_weight[ball] = 1.0
            return []
        if touches:
            return self._unseen_stroke(touches) + [
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
        near = self._toucher_nearby(ball, detected, speed)
        if near is not None and self._remember(frozenset((near, ball)), t_start):
            # Something moving was close: a contact the paths could not pin down, rather
            # than a ball touched by a hand (which would be a foul).
            t_touch = self._after_known_contacts(near, ball, t_start)
            frame = self._frame_of(t_touch)
            return [Event(frame, t_touch, EventKind.BALL_BALL, (near, ball), confidence=0.5)]
        seen_s = times[np.isfinite(xy[:, ball, 0])]
        event = self._unexplained_start(ball, t_start, speed, seen_s)
        return [] if event is None else event

    def _cue_seen_once(self, times: FloatArray, xy: FloatArray) -> list[Event] | None:
        """The stroke of a cue ball seen once since it vanished from rest (blurred by a hard
        stroke, caught once on its way, lost again): `_cue_found_far` on that one sighting,
        at the least speed that covers the way from the rest spot in the time since; None
        when that tells no stroke. A shot only waiting out a ball on a pocket lip (every ball
        at rest when the cue ball left) ends where the table fell quiet first."""
        seen = true_indices(np.isfinite(xy[:, CUE, 0]))
        if len(seen) != 1 or not np.isfinite(self._anchor[CUE, 0]):
            return None
        found_s = float(times[seen[0]])
        last = self._cue_last_seen(found_s - 0.5 * self._dt)
        if last is None:
            return None
        distance = float(np.linalg.norm(xy[seen[0], CUE] - self._anchor[CUE]))
        speed = distance / max(found_s - last, self._dt)
        quiet = float(self._quiet_at_start[CUE])
        was_in_shot = self._in_shot
        if was_in_shot and not (math.isfinite(quiet) and quiet <= found_s):
            return None
        self._in_shot = False
        found = self._cue_found_far(times, xy[:, CUE], speed)
        if found is None:
            self._in_shot = was_in_shot
            return None
        if not was_in_shot:
            return found
        return [Event(self._frame_of(quiet), quiet, EventKind.SHOT_END), *found]

    def _toucher_nearby(self, ball: int, detected: int, speed_mm_s: float) -> int | None:
        """The nearest rolling ball (`_nearest_mover`), if it was fast enough before push
        ``detected`` to send ``ball`` off at ``speed_mm_s``: a struck ball leaves no faster
        than its equal-mass striker came. A slow ball rolling by a cue ball struck at 4 m/s
        is not its toucher (a 30 fps top view's strike while balls still rolled was read as
        the 3 touching the cue ball). Twice the striker's speed plus
        `start_min_speed_mm_s` leaves room for a poorly fitted path."""
        mover = self._nearest_mover(ball, detected)
        if mover is None:
            return None
        _, _, v, n = self._paths_before(detected, self._fit_frames)
        came = float(np.linalg.norm(v[mover]))
        if n[mover] >= 2 and speed_mm_s > 2.0 * came + self.config.start_min_speed_mm_s:
            return None
        return mover

    def _start_window(self, ball: int, detected: int, k: int) -> tuple[FloatArray, FloatArray]:
        """(times (K,) s, xy (K, 11, 2) mm) of the history to fit a start on: ``k`` frames
        from push ``detected``, or, when those hold one sighting of ``ball`` (a fast ball
        caught once by a full search and lost again: its start was detected on a later
        sighting), up to its second sighting if both lie on one straight line from its rest
        spot (no contact bent the path in between) and the first is already over a diameter
        from it (nearer, it gives the line no direction)."""
        times, _, xy = self._history.window(detected, detected + k)
        if int(np.isfinite(xy[:, ball, 0]).sum()) >= 2:
            return times, xy
        all_times, _, all_xy = self._history.window(detected, self._history.count)
        seen = true_indices(np.isfinite(all_xy[:, ball, 0]))
        if len(seen) < 2:
            return times, xy
        rest = self._anchor[ball]
        first, second = all_xy[seen[0], ball] - rest, all_xy[seen[1], ball] - rest
        reach = float(np.linalg.norm(second))
        across = abs(float(first[0] * second[1] - first[1] * second[0])) / max(reach, 1e-9)
        ahead = float(first @ second) / max(reach, 1e-9)
        straight = across <= self.table.ball_radius_mm and ahead < reach
        near = float(np.linalg.norm(first)) <= self.table.ball_diameter_mm
        if (near or not straight) and (self._in_shot or self._others_rolling(ball) or ball == CUE):
            return times, xy
        # On a quiet table an object ball hidden as it left (a hand over it) is seen on the
        # way and again once uncovered: both sightings tell its start; one alone would put
        # its rest spot on the first and lose the move. (A cue ball seen once as it left was
        # struck: the hidden stroke finds it from the balls it sets off.)
        return all_times[: seen[1] + 1], all_xy[: seen[1] + 1]

    def _after_cue_left(self, ball: int, detected: int, t_start: float) -> float:
        """A start of ``ball`` (seen displaced at push ``detected``) set off by an unseen
        stroke, no earlier than the cue ball's last sighting at rest before then (a slow
        start's estimate can reach far back), one it can have left after (later, the cue
        stick's tip was seen on its spot: `_stroke_limits`)."""
        seen_s = float(self._history.window(detected, detected + 1)[0][0])
        latest = self._stroke_limits(ball, ball, detected)[1]
        last = self._cue_last_seen(min(seen_s, latest))
        return t_start if last is None else min(max(t_start, last + 0.5 * self._dt), seen_s)

    def _unseen_stroke(self, touches: list[tuple[int, int, float, float]]) -> list[Event]:
        """A ``strike`` when the cue ball hit a ball outside a shot and its own start gave
        none (it stopped dead on a ball a few millimetres away before it was seen moving)."""
        first, _, t_contact, sure = touches[0]
        if self._in_shot or first != CUE or any(b == CUE for b, _ in self._pending_starts):
            return []
        self._in_shot = True
        self._quiet_since = None
        return [
            Event(self._frame_of(t_contact), t_contact, EventKind.STRIKE, (CUE,), confidence=sure)
        ]


def _roll_time(distance_mm: float, speed_mm_s: float, config: EventConfig) -> float:
    """The longest a ball now rolling at ``speed_mm_s`` can have taken to cover
    ``distance_mm`` from rest spot to first sighting, decelerating at least
    ``config.rolling_deceleration_mm_s2`` (it was faster before): bounded however slow the
    fitted speed, where distance / speed is not (a creeping ball once put a strike at -301 s).
    """
    decel = config.rolling_deceleration_mm_s2
    return (math.sqrt(speed_mm_s**2 + 2.0 * decel * distance_mm) - speed_mm_s) / decel
