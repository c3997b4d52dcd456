"""Contacts nobody saw: a ball that left its spot and went off the table (into a pocket, over
a rail) while every ball that could have hit it was out of sight.

A cue ball struck hard is lost in its own blur: at 30 fps it crosses a metre in four frames
and is found again only after it has hit one ball and glanced into another. The first ball it
hit is seen leaving its spot for a frame or two and drops into a pocket; the second is seen
next to the cue ball, and its contact is found from the paths. The first contact is the one
lost, and with it the shot's first ball hit (a side pocket's neighbour, sent in at once).

`BlindHits` explains such a ball when it leaves the table and no contact explains its start:
a ball unseen from before it left until after it was seen leaving, whose last sighting before
and first sighting after fit a path through where it touched the struck ball (one diameter
back from its spot, against the way the struck ball left: equal masses leave along the line
of centres), at speeds a contact allows. The contact is reported with a low confidence
(`BLIND_CONFIDENCE`): nothing of it was seen. A mixin: `tracking.events.EventDetector` holds
the state.
"""

from __future__ import annotations

import math

import numpy as np

from tracking.fastnp import true_indices
from tracking.geometry import segment_point_distance_mm
from tracking.history import FloatArray
from tracking.kisses import KISS_TOP_SPEED_MM_S
from tracking.starts import StartExplainer
from tracking.types import Event, EventKind

BLIND_CONFIDENCE = 0.6
"""How sure a contact inferred from a striker's sightings before and after it is: it fits the
paths, nothing of it was seen."""

_MIN_CUT_COSINE = math.cos(math.radians(80.0))
"""A struck ball leaves along the line of centres, within 90 degrees of its striker's way
(less: a thinner cut than this is hard to tell from a ball that was not touched at all)."""

_MAX_UNSEEN_S = 0.5
"""The longest a striker can have been out of sight around the contact: a ball blurred by
its speed is found again within a few frames (longer, it was hidden, and went anywhere)."""

_SPEED_SLACK = 1.25
"""How much faster than its way in a striker may seem to leave a contact, or its struck ball
to leave it: the contact time between two frames is only bracketed."""


class BlindHits(StartExplainer):
    """The unseen striker of a ball leaving the table (state in `EventDetector`)."""

    _anchor_before: FloatArray

    def _blind_hit(self, ball: int) -> list[Event]:
        """The contact that sent ``ball``, now off the table, from its spot when no contact
        explains its start: [ball_ball] with `BLIND_CONFIDENCE`, or []."""
        rest = self._anchor_before[ball]
        if ball not in self._start_count or not self._in_shot or not np.isfinite(rest[0]):
            return []
        count = self._history.count
        times, _, xy = self._history.window(count - self._history.capacity, count)
        seen = true_indices(np.isfinite(xy[:, ball, 0]))
        near = np.linalg.norm(xy[seen, ball] - rest, axis=1) <= self.table.ball_radius_mm
        if not near.any() or near[-1]:
            return []  # not seen at its spot and then off it
        last = int(np.flatnonzero(near)[-1])
        off = seen[last + 1 :]
        t_rest = float(times[seen[last]])
        if any(ball in pair and t >= t_rest - 2.0 * self._dt for pair, t in self._recent):
            return []  # its start was explained
        way = xy[off[0], ball] - rest
        step = float(np.linalg.norm(way))
        leaving = (way / step, step, (t_rest, float(times[off[0]])))
        found = self._unseen_striker(ball, rest, leaving, (times, xy))
        if found is None or not self._remember(frozenset((found[0], ball)), found[1]):
            return []
        return [
            Event(
                self._frame_of(found[1]),
                found[1],
                EventKind.BALL_BALL,
                (found[0], ball),
                confidence=BLIND_CONFIDENCE,
            )
        ]

    def _unseen_striker(
        self,
        ball: int,
        rest: FloatArray,
        leaving: tuple[FloatArray, float, tuple[float, float]],
        history: tuple[FloatArray, FloatArray],
    ) -> tuple[int, float] | None:
        """(striker, contact time) of the slowest ball into the contact among those unseen
        while ``ball`` left ``rest`` (direction, first step mm, (last time at rest, first
        time off it)) whose sightings around that fit a path through the contact point."""
        direction, step, (t_rest, t_off) = leaving
        times, xy = history
        diameter = self.table.ball_diameter_mm
        contact = rest - diameter * direction
        best: tuple[float, int, float] | None = None
        for other in true_indices(self._alive):
            seen = true_indices(np.isfinite(xy[:, other, 0]))
            before = seen[times[seen] <= t_rest + 1e-9]
            after = seen[times[seen] >= t_off - 1e-9]
            if other == ball or not len(before) or not len(after):
                continue
            t_in, t_out = float(times[before[-1]]), float(times[after[0]])
            if t_out - t_in > _MAX_UNSEEN_S:
                continue
            if (seen > before[-1]).sum() and int(seen[seen > before[-1]][0]) < after[0]:
                continue  # seen while the ball left: the paths would have told
            t_c = max(t_rest, t_in) + 0.5 * (t_off - max(t_rest, t_in))
            way_in = contact - xy[before[-1], other]
            way_out = xy[after[0], other] - contact
            speed_in = float(np.linalg.norm(way_in)) / max(t_c - t_in, 1e-6)
            speed_out = float(np.linalg.norm(way_out)) / max(t_out - t_c, 1e-6)
            if not self.config.strike_min_speed_mm_s <= speed_in <= KISS_TOP_SPEED_MM_S:
                continue
            cut = float(way_in @ direction) / max(float(np.linalg.norm(way_in)), 1e-9)
            struck = step / max(t_off - t_rest, 1e-6)
            if cut < _MIN_CUT_COSINE or speed_out > _SPEED_SLACK * speed_in:
                continue
            if struck > _SPEED_SLACK * speed_in * cut + self.config.start_min_speed_mm_s:
                continue
            if self._way_blocked(xy[before[-1], other], contact, (ball, other)):
                continue
            if best is None or speed_in < best[0]:
                best = (speed_in, int(other), t_c)
        return None if best is None else (best[1], best[2])

    def _way_blocked(self, start: FloatArray, end: FloatArray, skip: tuple[int, int]) -> bool:
        """Whether a ball at rest lies within a diameter of the way from ``start`` to ``end``
        (short of ``end``): a striker along it would have hit that ball first."""
        resting = ~self._moving & self._alive & np.isfinite(self._anchor[:, 0])
        resting[list(skip)] = False
        if not resting.any():
            return False
        gaps = segment_point_distance_mm(start[None], end[None], self._anchor[resting])
        near_end = np.linalg.norm(self._anchor[resting] - end, axis=1) <= self.table.ball_radius_mm
        return bool(np.any((gaps[0] < self.table.ball_diameter_mm) & ~near_end))
