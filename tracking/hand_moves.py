"""Balls moved by hand: the part of `tracking.starts.StartExplainer` that tells a ball put
down elsewhere, or nudged a short way on a quiet table, from one set rolling.

A hand lifts a ball and puts it down (`tracking.placement.put_down`): the camera finds it at
rest far from its spot soon after it was last seen there, or further off than any ball can
roll in the time. A ball found at rest a short way off on a quiet table was nudged (a
disturbance, confirmed by `tracking.disturbances`). A mixin: `tracking.events.EventDetector`
holds the state.
"""

from __future__ import annotations

import numpy as np

from tracking import placement
from tracking.disturbances import DisturbanceCheck
from tracking.fastnp import true_indices
from tracking.history import FloatArray
from tracking.strokes import HiddenStroke
from tracking.types import Event
from vision.types import CUE

_MAX_ROLL_SPEED_MM_S = 15000.0
"""No ball on a pool table moves faster (a hard break sends the cue ball at about 14 m/s)."""

_NUDGE_REACH_DIAMETERS = 3.0
"""A hand nudges a ball a few centimetres: a resting object ball found at rest up to this many
diameters off (beyond one: `placement.put_down`) on a quiet table was moved by hand."""
_TAIL_SIGHTINGS = 3
"""At most this many sightings at the end of a start's fit window (two at least), all within
the start distance of the last, show a ball at rest there."""


class HandMoves(HiddenStroke, DisturbanceCheck):
    """The by-hand part of `tracking.starts.StartExplainer` (state lives there)."""

    _start_floor: FloatArray
    _anchor_weight: FloatArray

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
