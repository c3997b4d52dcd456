"""Which ball touched a resting ball that started: the part of
`tracking.starts.StartExplainer` that finds the toucher.

A ball that leaves its rest position was hit by a ball whose straight path came within one
diameter of it, or through balls frozen together (a rack) by a chain of touches from a
moving ball; a cue ball frozen to a ball passes a stroke on barely moving; a rolling ball
close by touched it where the paths cannot tell when. A mixin:
`tracking.events.EventDetector` holds the state.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.typing import NDArray

from tracking import contacts
from tracking.disturbances import DisturbanceCheck
from tracking.fastnp import true_indices
from tracking.history import FloatArray, fit_lines
from tracking.late_touches import LateTouches
from vision.types import CUE

Path = tuple[float, FloatArray, FloatArray]
"""A straight path: (t_ref s, position (2,) mm at t_ref, velocity (2,) mm/s)."""


class TouchFinder(LateTouches, DisturbanceCheck):
    """The toucher search of `tracking.starts.StartExplainer` (state lives there)."""

    _seen_xy: FloatArray
    _start_slack_s: float
    _in_shot: bool

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
