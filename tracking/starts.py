"""Why a resting ball started moving: the part of `EventDetector` that explains starts.

A ball that leaves its rest position was hit by a ball whose straight path came within one
diameter of it (or through balls frozen together, a chain of touches from a moving ball);
with nothing near, the cue ball starting a shot is a strike and any other start a
disturbance once the camera confirms it (`tracking.disturbances`). `StartExplainer` is a
mixin: `tracking.events.EventDetector` holds the state.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.typing import NDArray

from tracking import contacts, placement
from tracking.disturbances import DisturbanceCheck
from tracking.event_config import EventConfig
from tracking.fastnp import true_indices
from tracking.history import FloatArray, fit_lines
from tracking.late_touches import LateTouches
from tracking.strokes import HiddenStroke
from tracking.types import Event, EventKind
from vision.types import CUE

_MAX_ROLL_SPEED_MM_S = 15000.0
"""No ball on a pool table moves faster (a hard break sends the cue ball at about 14 m/s)."""

_NUDGE_REACH_DIAMETERS = 3.0
"""A hand nudges a ball a few centimetres: a resting object ball found at rest up to this many
diameters off (beyond one: `placement.put_down`) on a quiet table was moved by hand."""
_TAIL_SIGHTINGS = 3
"""At most this many sightings at the end of a start's fit window (two at least), all within
the start distance of the last, show a ball at rest there."""

Path = tuple[float, FloatArray, FloatArray]
"""A straight path: (t_ref s, position (2,) mm at t_ref, velocity (2,) mm/s)."""


class StartExplainer(LateTouches, HiddenStroke, DisturbanceCheck):
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

    def _resolve_starts(self) -> list[Event]:
        k = self._fit_frames
        ready = [(b, n) for b, n in self._pending_starts if self._history.count >= n + k]
        self._pending_starts = [s for s in self._pending_starts if s not in ready]
        events: list[Event] = []
        for ball, detected in ready:
            if ball == CUE and any(e.kind == EventKind.STRIKE for e in events):
                # A start of this batch already found the stroke (one out of sight, from the
                # balls it set off): the cue ball's own start is that stroke, rolling on, not
                # a new one from where it was last seen.
                continue
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
            t_start = self._after_cue_left(t_start, float(times[0]))
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
        near = self._nearest_mover(ball, detected)
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

    def _after_cue_left(self, t_start: float, seen_s: float) -> float:
        """A start set off by an unseen stroke, no earlier than the cue ball's last sighting
        at rest before ``seen_s`` (a slow start's estimate can reach far back)."""
        last = self._cue_last_seen(seen_s)
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

    def _relocated(
        self, ball: int, seen: tuple[FloatArray, FloatArray], velocity: FloatArray
    ) -> bool:
        """Whether ``ball`` was put down elsewhere (by hand) rather than set rolling: its
        first new sighting is further from its rest position than any ball could roll in the
        time, it jumps further between two sightings than any ball rolls (the first sighting
        was only noise), or (after it was hidden) its path does not lead back to the rest
        position."""
        times, xy = seen
        first = int(np.argmax(np.isfinite(xy[:, 0])))
        offset = xy[first] - self._anchor[ball]
        elapsed = max(float(times[first]) - float(self._start_floor[ball]), self._dt)
        if float(np.linalg.norm(offset)) > _MAX_ROLL_SPEED_MM_S * elapsed:
            return True
        seen_at = true_indices(np.isfinite(xy[:, 0]))
        steps = np.linalg.norm(np.diff(xy[seen_at], axis=0), axis=1)
        if np.any(steps > _MAX_ROLL_SPEED_MM_S * np.maximum(np.diff(times[seen_at]), 1e-9)):
            return True  # a jump no roll could make, after a noisy first sighting
        if elapsed <= 2.5 * self._dt:
            return False  # seen leaving: a contact may already have bent the path
        speed = float(np.linalg.norm(velocity))
        across = abs(float(offset[0] * velocity[1] - offset[1] * velocity[0])) / speed
        return across > self.table.ball_diameter_mm

    def _by_hand_or_unseen(
        self, ball: int, seen: tuple[FloatArray, FloatArray], velocity: FloatArray
    ) -> list[Event] | None:
        """No events for a ball put down by hand (`_put_down`, `_relocated`: it rests where
        it was last seen), a hidden stroke's for a cue ball found far along
        (`_cue_found_far`), None for a start to explain."""
        times, xy = seen
        speed = float(np.linalg.norm(velocity))
        placed = self._put_down(ball, seen, speed)
        found = None if placed or ball != CUE else self._cue_found_far(times, xy, speed)
        if found is not None:
            return found
        if not (placed or self._relocated(ball, seen, velocity)):
            return None
        nudged = self._nudged(ball, seen, speed) if placed else None
        if nudged is not None:
            return nudged
        # Found far away but rolling on while the shot's balls still roll: its track had
        # lost it (or held a wrong sighting) and found it again mid-roll, as `_visibility`
        # keeps a ball lost and found in a shot moving; it was not put down, nor struck anew.
        self._moving[ball] = (
            self._in_shot
            and self._others_rolling(ball)
            and speed >= self.config.start_min_speed_mm_s
        )
        self._anchor[ball] = xy[true_indices(np.isfinite(xy[:, 0]))[-1]]
        self._anchor_weight[ball] = 1.0
        return []

    def _nudged(
        self, ball: int, seen: tuple[FloatArray, FloatArray], speed: float
    ) -> list[Event] | None:
        """A disturbance (`_unexplained_start`, confirmed once the ball is seen beyond the
        occlusion shift) for an object ball found at rest a short way off on a quiet table:
        a hand moved it (it did not roll there), within `_NUDGE_REACH_DIAMETERS` (further
        off, a sighting of another ball under its name is the likelier cause); None when it
        is not one."""
        times, xy = seen
        last = true_indices(np.isfinite(xy[:, 0]))[-1]
        distance = float(np.linalg.norm(xy[last] - self._anchor[ball]))
        if ball == CUE or self._rolling_others(ball).any():
            return None
        if distance > _NUDGE_REACH_DIAMETERS * self._diameter:
            return None
        floor = float(self._start_floor[ball])
        t_start = floor + 0.5 * self._dt
        # It covered the way in no more than the time since it was last seen at rest.
        moved = max(speed, distance / max(float(times[last]) - floor, self._dt))
        return self._unexplained_start(ball, t_start, moved)

    def _others_rolling(self, ball: int) -> bool:
        """Whether any ball on the table other than ``ball`` is still moving."""
        others = self._alive & self._moving
        others[ball] = False
        return bool(others.any())

    def _put_down(self, ball: int, seen: tuple[FloatArray, FloatArray], speed: float) -> bool:
        """Whether ``ball`` was found at rest far from its rest spot, soon after it was last
        seen there, with no ball beside it to have stopped it (`placement.put_down`): on its
        first sighting away, or on its last ones (a hand carrying it is seen once on the
        way, or pulls a detection aside, before the ball is found at rest where it was put:
        no roll stops dead that soon without a ball to stop it)."""
        times, xy = seen
        seen_at = true_indices(np.isfinite(xy[:, 0]))
        # Where the others rest, or (moving) where they left from.
        others = self._anchor[self._alive & (np.arange(len(self._alive)) != ball)]
        checks = [(int(seen_at[0]), speed)]
        tail = seen_at[-_TAIL_SIGHTINGS:]
        spread = np.linalg.norm(xy[tail] - xy[tail[-1]], axis=1).max()
        if len(tail) >= 2 and spread <= self._start_distance_mm[ball]:
            checks.append((int(tail[-1]), 0.0))  # at rest where it was put
        for index, now in checks:
            elapsed = max(float(times[index]) - float(self._start_floor[ball]), self._dt)
            jump = np.stack([self._anchor[ball], xy[index]])
            if placement.put_down(jump, elapsed, now, others, self._diameter):
                return True
        return False

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

    def _nearest_mover(self, ball: int, detected: int) -> int | None:
        """The nearest other rolling ball within ``disturb_clearance_mm`` of ``ball``, not one
        that started after it (see `_later_starters`), nor one lost from sight that the
        tracker no longer moves (`_rolling_others`: a ball never found again after the break,
        a dark ball on a cloth of its colour, would otherwise take every later stroke near
        where it was last seen for a contact)."""
        where = np.where(np.isfinite(self._seen_xy[:, :1]), self._seen_xy, self._anchor)
        distance = np.linalg.norm(where - self._anchor[ball], axis=1)
        movers = self._rolling_others(ball) & (distance <= self.config.disturb_clearance_mm)
        movers &= ~self._later_starters(ball, detected)
        if not movers.any():
            return None
        return int(np.argmin(np.where(movers, distance, np.inf)))

    def _later_starters(self, ball: int, detected: int) -> NDArray[np.bool_]:
        """(11,) balls seen leaving after ``ball`` (at push ``detected``): they cannot have set
        it moving; nor, outside a shot, can one that left with the cue ball (the cue ball
        starting is then the stroke, and it hit that ball)."""
        later = np.zeros(len(self._alive), bool)
        stroke = ball == CUE and not self._in_shot
        for other, started in self._start_count.items():
            if other != ball and (started > detected or (stroke and started == detected)):
                later[other] = True
        return later

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
        t_ref, p, v, n = self._paths_before(self._last_push_before(detected, t_start), frames)
        diameter = self.table.ball_diameter_mm
        at_start = p + v * (t_start - t_ref)[:, None]
        was_moving = np.linalg.norm(v, axis=1) > self.config.start_min_speed_mm_s
        usable = self._alive & (n >= 2)
        usable[ball] = True
        reach = diameter + self.config.ball_contact_tolerance_mm
        moving = was_moving | (self._cluster_push(t_start) & self._moving)
        moving[ball] = False
        moving &= ~self._later_starters(ball, detected)
        for mover in true_indices(moving & usable):
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
            slack = 2.0 * self._dt + self._start_slack_s
            if touch is not None and abs(touch - t_start) <= slack:
                t_contact = touch
        distance = np.linalg.norm(at_start - at_start[ball], axis=1)
        rivals = int((moving & usable & (distance <= reach)).sum()) - 1
        sure = 1.0 if rivals <= 0 and len(chain) == 2 else (0.8 if len(chain) > 2 else 0.7)
        touches = [(first, second, t_contact, sure)]
        touches += [(a, b, t_start, 0.8) for a, b in itertools.pairwise(chain[1:])]
        return touches

    def _last_push_before(self, detected: int, t_start: float) -> int:
        """Where the touchers' paths end: at ``detected``, or for a slow start seen long after
        it began, at ``t_start`` (a toucher's path after the contact is bent)."""
        if self._start_slack_s <= self._dt:
            return detected
        seen_s = float(self._history.window(detected, detected + 1)[0][0])
        return detected - max(0, math.floor((seen_s - t_start) / self._dt))

    def _stop_at_first_touch(
        self, path: Path, xy_mm: FloatArray, resting: NDArray[np.bool_], t_start: float
    ) -> FloatArray:
        """Where a moving ball was at ``t_start``, or where it first met a resting ball if
        that came earlier (its straight path ends there)."""
        first = t_start
        diameter = self.table.ball_diameter_mm
        for other in true_indices(resting):
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


def _roll_time(distance_mm: float, speed_mm_s: float, config: EventConfig) -> float:
    """The longest a ball now rolling at ``speed_mm_s`` can have taken to cover
    ``distance_mm`` from rest spot to first sighting, decelerating at least
    ``config.rolling_deceleration_mm_s2`` (it was faster before): bounded however slow the
    fitted speed, where distance / speed is not (a creeping ball once put a strike at -301 s).
    """
    decel = config.rolling_deceleration_mm_s2
    return (math.sqrt(speed_mm_s**2 + 2.0 * decel * distance_mm) - speed_mm_s) / decel
