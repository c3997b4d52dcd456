"""Contacts found late, after a fitted path could not: a soft touch seen long after (the
touched ball crept away), and a ball struck from rest that hit another within a frame or
two. Part of `tracking.starts.StartExplainer` (a mixin: `tracking.events.EventDetector`
holds the state).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking import contacts
from tracking.event_config import EventConfig
from tracking.fastnp import true_indices
from tracking.history import FloatArray, PositionHistory
from vision.types import CUE


class LateTouches:
    """The late-contact part of `tracking.starts.StartExplainer` (state lives there)."""

    table: TableSpec
    config: EventConfig
    _history: PositionHistory
    _dt: float
    _alive: NDArray[np.bool_]
    _moving: NDArray[np.bool_]
    _anchor: FloatArray
    _anchor_before: FloatArray
    _start_count: dict[int, int]
    _recent: list[tuple[frozenset[int], float]]

    @property
    def _fit_frames(self) -> int:
        raise NotImplementedError

    def _touch_by_pass(self, ball: int, detected: int) -> list[tuple[int, int, float, float]]:
        """A soft contact seen late: the ball whose sightings last came within a diameter
        of ``ball``'s rest position (coming from further away) since the history began.
        The touched ball crept away so slowly that it was seen displaced long after."""
        frames = math.ceil(self.config.history_s / self._dt)
        times, _, xy = self._history.window(detected - frames, detected + 1)
        diameter = self.table.ball_diameter_mm
        reach = diameter + self.config.ball_contact_tolerance_mm
        far = reach + self.config.start_distance_mm
        best: tuple[float, int] | None = None
        for other in true_indices(self._alive):
            if other == ball:
                continue
            path = (times, xy[:, other])
            t = contacts.last_pass_within(*path, self._anchor[ball], reach)
            distance = np.linalg.norm(xy[:, other] - self._anchor[ball], axis=1)
            if t is None or not np.any((times < t) & (distance > far)):
                continue  # it came from nearby: a neighbour's jitter, not a pass
            # Touching is one diameter apart; the tolerance only admits noisy passes.
            touch = contacts.last_pass_within(*path, self._anchor[ball], diameter)
            t = t if touch is None or touch < t else touch
            if best is None or t > best[0]:
                best = (t, int(other))
        return [] if best is None else [(best[1], ball, best[0], 0.7)]

    def _after_known_contacts(self, mover: int, ball: int, t_start: float) -> float:
        """When a contact the paths could not pin down, of the cue ball ``mover`` with
        ``ball`` seen leaving at ``t_start``, happened: after the cue ball's first contact of the
        stroke when that is known (found from the balls it set off: a rack ball whose
        centre jittered before the cue ball arrived, its start put too early, was not met
        first: corner_lip_stay's break with the real detector), else ``t_start``."""
        known = [t for p, t in self._recent if mover == CUE and CUE in p and ball not in p]
        if not known or t_start > min(known):
            return t_start
        return min(known) + 0.5 * self._dt

    def _touch_by_fresh_starter(
        self, ball: int, detected: int, t_start: float
    ) -> list[tuple[int, int, float, float]]:
        """A ball struck from rest that hit ``ball`` within a frame or two: too soon for a
        fitted path, so its path is the line from its rest position through its sightings
        since it started, and it must pass within a diameter of ``ball``. A ball resting on
        that line before ``ball`` (a rack's head ball) was met first and passed it on."""
        diameter = self.table.ball_diameter_mm
        tolerance = self.config.ball_contact_tolerance_mm
        target = self._anchor[ball]
        for other, started in self._start_count.items():
            if other == ball or not (detected - self._fit_frames - 2 <= started <= detected):
                continue
            times, _, xy = self._history.window(started, detected + 1)
            seen = true_indices(np.isfinite(xy[:, other, 0]))
            # Sightings after the contact are off the line: the path ends where it met ``ball``.
            before = seen[times[seen] <= t_start]
            after = xy[seen[times[seen] > t_start], other]
            seen = before if len(before) else seen
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
            aimed = across <= diameter + tolerance and reach >= travel - tolerance
            met = self._met_where_it_left(ball, detected, origin, (xy[seen, other], after))
            if aimed or met:
                first = self._first_on_line(other, started, (origin, u), ball)
                if first == ball:
                    return [(other, ball, t_start, 0.8)]
                return [(other, first, t_start, 0.8), (first, ball, t_start, 0.5)]
        return []

    def _met_where_it_left(
        self, ball: int, detected: int, origin: FloatArray, sightings: tuple[FloatArray, FloatArray]
    ) -> bool:
        """Whether a ball that left ``origin`` just now met ``ball`` where ``ball``'s own
        departure says it was hit. A struck ball leaves along the line of centres, so the
        striker was one diameter behind it on that line at the contact (the contact spot):
        the striker's sightings before the contact (``sightings[0]``, (K, 2) mm) lie on the
        line from ``origin`` to that spot, short of it, and its first sighting after
        (``sightings[1]``, (J, 2) mm) lies within contact reach of it. A cue ball's first
        blurred sighting, a few millimetres off its spot, aims it too loosely to tell
        which ball it was going to (a 30 fps top view: 12 mm off, 17 degrees, and the 1 it
        hit into a side pocket went unexplained); where the struck ball went does not.
        False when ``ball`` was not seen off its spot at push ``detected``."""
        before, after = sightings
        diameter = self.table.ball_diameter_mm
        tolerance = self.config.ball_contact_tolerance_mm
        _, _, xy = self._history.window(detected, detected + 1)
        left = xy[0, ball] - self._anchor[ball] if len(xy) else np.full(2, np.nan)
        moved = float(np.linalg.norm(left))
        if not len(after) or not moved > self.config.start_distance_mm:
            return False
        spot = self._anchor[ball] - diameter * left / moved
        way = spot - origin
        length = float(np.linalg.norm(way))
        if length <= diameter:
            return False
        u = way / length
        offset = before - origin
        along = offset @ u
        across = np.abs(offset @ np.array([-u[1], u[0]]))
        on_line = bool(
            np.all((along > 0.0) & (along <= length + tolerance) & (across <= tolerance))
        )
        return on_line and float(np.linalg.norm(after[0] - spot)) <= diameter + tolerance

    def _first_on_line(
        self, mover: int, started: int, line: tuple[FloatArray, FloatArray], ball: int
    ) -> int:
        """The ball ``mover``, leaving its rest spot along ``line`` (origin, unit direction)
        at push ``started``, meets first on its way to ``ball``: the nearest along the line
        of the balls then at rest whose centres lie within a diameter of it (not one on the
        mover's own spot: two balls cannot overlap, so that is a second sighting of it)."""
        still = self._alive & np.isfinite(self._anchor[:, 0])
        for other, began in self._start_count.items():
            still[other] &= began >= started or not self._moving[other]
        still[mover] = False
        origin, u = line
        offset = self._anchor - origin
        along = offset @ u
        across = np.abs(offset @ np.array([-u[1], u[0]]))
        diameter = self.table.ball_diameter_mm
        on_line = still & (across <= diameter) & (along > 0.5 * diameter)
        on_line &= along < along[ball]
        on_line[ball] = True
        return int(np.argmin(np.where(on_line, along, np.inf)))
