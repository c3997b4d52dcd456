"""Strokes the camera did not see: which ball a hidden cue ball hit first, and when.

A hard stroke can smear the cue ball out of the detector's sight from the moment it is hit
until after it meets the first object ball (a break). The camera then sees the cue ball at
rest, nothing, and object balls leaving. The cue ball's straight path from its rest position
reaches some ball first; among the balls that left together, that is the one whose direct
line from the rest position passes no other of them within a diameter, nearest first.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking.cue_tip import CueTipCheck
from tracking.disturbances import CUE_HIDDEN_S, PendingDisturbance
from tracking.event_config import EventConfig
from tracking.fastnp import true_indices
from tracking.history import PositionHistory
from tracking.types import Event, EventKind
from vision.types import CUE

FloatArray = NDArray[np.float64]

_VANISH_S = CUE_HIDDEN_S
"""A cue ball last seen at rest this long before the first object ball left vanished when
it was struck (motion blur); hidden longer, the stroke time is unknown."""
_CUE_TOP_SPEED_MM_S = 12_000.0
"""No stroke sends the cue ball faster (a power break is some 9-11 m/s)."""


def first_reached(origin_mm: FloatArray, targets_mm: FloatArray, diameter_mm: float) -> int:
    """Index of the ball a straight path from ``origin_mm`` can reach first.

    A target is reachable when the segment from the origin to it passes no other target
    within one diameter before arriving; among reachable targets the nearest wins (the
    nearest overall when none is reachable). A target within half a diameter of the origin
    is the moving ball itself seen under another label: it is chosen only when it is the
    only one.

    Args:
        origin_mm: (2,) where the moving ball started, mm.
        targets_mm: (K, 2) centres of the candidate balls, mm (K >= 1).
        diameter_mm: ball diameter, mm.

    Returns:
        An index into ``targets_mm``.
    """
    targets = np.asarray(targets_mm, dtype=np.float64).reshape(-1, 2)
    if len(targets) == 0:
        raise ValueError("first_reached needs at least one target")
    offset = targets - np.asarray(origin_mm, dtype=np.float64)[None, :]
    distance = np.linalg.norm(offset, axis=1)
    unit = offset / np.maximum(distance, 1e-9)[:, None]
    # along[i, j]: how far along the path to i target j lies; across: how far off it.
    along = unit @ offset.T
    across = np.abs(unit[:, 0:1] * offset[None, :, 1] - unit[:, 1:2] * offset[None, :, 0])
    blocking = (along > 0.0) & (along < distance[:, None]) & (across < diameter_mm)
    np.fill_diagonal(blocking, False)
    # A ball cannot rest inside the moving one: a target that close was the moving ball
    # itself, seen under another label.
    apart = distance >= 0.5 * diameter_mm
    if not apart.any():
        apart[:] = True
    blocking &= apart[None, :]
    reachable = ~blocking.any(axis=1) & apart
    order = np.where(reachable, distance, np.inf)
    if not np.isfinite(order).any():
        order = np.where(apart, distance, np.inf)
    return int(np.argmin(order))


def _stroke_no_sooner(reached_s: float, way_mm: float, speed_mm_s: float) -> float:
    """The earliest a cue ball can have been struck that covered ``way_mm`` in a straight
    line by ``reached_s``, when it (or a ball it then hit: no ball leaves a contact faster
    than the ball that hit it) was going ``speed_mm_s`` there: it was at least that fast
    all the way (cloth only slows it), so it took at most way / speed. -inf when the
    speed is unknown (0).

    Args:
        reached_s: when it got there, s.
        way_mm: straight distance from its rest spot, mm (clipped at 0).
        speed_mm_s: its speed there, or the struck ball's speed after the contact, mm/s.

    Returns:
        A time, s (at most ``reached_s``).
    """
    if speed_mm_s <= 0.0 or not math.isfinite(speed_mm_s):
        return -math.inf
    return reached_s - max(way_mm, 0.0) / speed_mm_s


class HiddenStroke(CueTipCheck):
    """The unseen-stroke part of `tracking.starts.StartExplainer` (state lives there)."""

    table: TableSpec
    config: EventConfig
    _dt: float
    _last_time: float | None
    _in_shot: bool
    _quiet_since: float | None
    _alive: NDArray[np.bool_]
    _moving: NDArray[np.bool_]
    _displaced: NDArray[np.bool_]
    _displaced_at: NDArray[np.int64]
    _anchor: FloatArray
    _seen_xy: FloatArray
    _history: PositionHistory
    _pending_starts: list[tuple[int, int]]
    _pending_disturbances: list[PendingDisturbance]
    _start_count: dict[int, int]
    _start_floor: FloatArray

    @property
    def _fit_frames(self) -> int:
        raise NotImplementedError

    def _frame_of(self, time_s: float) -> int:
        raise NotImplementedError

    def _remember(self, pair: frozenset[int], time_s: float) -> bool:
        raise NotImplementedError

    def _cue_last_seen(self, time_s: float) -> float | None:
        """When the cue ball was last seen at its rest spot at or before ``time_s`` (None: not
        in the history)."""
        count = self._history.count
        times, _, xy = self._history.window(count - self._history.capacity, count)
        # Only sightings at its spot count: found far along, it already left unseen.
        near = np.linalg.norm(xy[:, CUE] - self._anchor[CUE], axis=1) <= 2.0 * self._diameter
        at_spot = near | ~np.isfinite(self._anchor[CUE, 0])
        seen = true_indices(np.isfinite(xy[:, CUE, 0]) & at_spot & (times <= time_s + 1e-9))
        return float(times[seen[-1]]) if len(seen) else None

    def _cue_unseen_at(self, time_s: float) -> bool:
        """Whether the cue ball was out of sight when a ball left at ``time_s``: not seen in
        the frame before, or not now. A start put before the history's first frame (a ball
        already moving, or a ghost's centre wandering, as the video begins) is judged from
        that frame: a cue ball seen on its spot there did not leave unseen (the cue ball
        600 mm off, at rest in every frame, was taken for the hidden striker of a shadow on
        the rail read as a ball, gleitreibungskoeffizient with the given calibration)."""
        count = self._history.count
        first_s = self._history.window(count - self._history.capacity, count)[0][:1]
        at = max(time_s, float(first_s[0])) if len(first_s) else time_s
        last = self._cue_last_seen(at)
        if last is None or at - last > 1.5 * self._dt:
            return True
        latest = self._history.window(count - 1, count)[2]
        return bool(len(latest) and not np.isfinite(latest[0, CUE, 0]))

    def _cue_found_far(
        self, times: FloatArray, cue_xy: FloatArray, speed_mm_s: float
    ) -> list[Event] | None:
        """The cue ball vanished from rest and is found far along while object balls leave:
        the stroke and its first contact happened out of sight (`_hidden_stroke`). With no
        ball seen leaving, a cue ball found rolling at a stroke's speed was still struck
        when it vanished (its first contact is told by the ball it meets, or was never seen:
        a ball sent at once into a pocket); found slower, it may have been put there."""
        seen = true_indices(np.isfinite(cue_xy[:, 0]))
        if self._in_shot or not len(seen) or not np.isfinite(self._anchor[CUE, 0]):
            return None
        found_s = float(times[seen[0]])
        last = self._cue_last_seen(found_s - 0.5 * self._dt)
        far = float(np.linalg.norm(cue_xy[seen[0]] - self._anchor[CUE])) > 2.0 * self._diameter
        if last is None or not (1.5 * self._dt < found_s - last <= _VANISH_S) or not far:
            return None
        leaving = self._left_since(last)
        # A ball that left before, while the cue ball was still seen on its spot, was hit
        # first if it left as the cue ball would have sent it.
        faced = self._struck_under_the_tip(found_s, cue_xy[seen[0]], min(leaving, default=None))
        if faced is not None:
            return faced
        if leaving:
            detected, ball = min(leaving)
            return self._hidden_stroke(ball, detected, found_s - self._dt)
        vanished = self._vanished_since(last, found_s, cue_xy[seen[0]])
        if vanished:
            t_gone, detected, ball = min(vanished)
            return self._hidden_stroke(ball, detected, t_gone)
        if speed_mm_s < self.config.strike_min_speed_mm_s:
            return None
        self._in_shot = True
        self._quiet_since = None
        self._moving[CUE] = True
        t_strike = min(last + 0.5 * self._dt, found_s)
        if self._came_straight(cue_xy[seen]):
            way = float(np.linalg.norm(cue_xy[seen[0]] - self._anchor[CUE]))
            t_strike = max(t_strike, _stroke_no_sooner(found_s, way, speed_mm_s))
        return [Event(self._frame_of(t_strike), t_strike, EventKind.STRIKE, (CUE,), confidence=0.6)]

    def _came_straight(self, found_mm: FloatArray) -> bool:
        """Whether the cue ball's sightings ``found_mm`` (K, 2), found again, lie on a
        straight way out from its rest spot (none came back off a cushion, which would make
        the way longer than the straight distance): each further out than the one before,
        within a radius of the line from the spot through the last."""
        rest = self._anchor[CUE]
        out = found_mm - rest
        reach = np.linalg.norm(out, axis=1)
        if len(found_mm) < 2 or np.any(np.diff(reach) <= 0.0):
            return False
        unit = out[-1] / reach[-1]
        across = np.abs(out[:, 0] * unit[1] - out[:, 1] * unit[0])
        return bool(np.all(across <= 0.5 * self._diameter))

    def _vanished_since(
        self, since_s: float, found_s: float, found_mm: FloatArray
    ) -> list[tuple[float, int, int]]:
        """(time, push, ball) for each resting object ball last seen on its spot while the
        cue ball was out of sight (after ``since_s``, its last sighting at rest, and before
        ``found_s``, when it was found again) and never since: a ball struck at once into a
        pocket at a low frame rate, never caught moving. Its time is half a frame after its
        last sighting, its push the first frame without it. Only balls on the side the cue
        ball went to (found at ``found_mm``) that it could have reached before they vanished,
        at `_CUE_TOP_SPEED_MM_S`, count."""
        count = self._history.count
        times, _, xy = self._history.window(count - self._history.capacity, count)
        first_push = count - len(times)
        seen = np.isfinite(xy[:, :, 0])
        rest = self._anchor[CUE]
        found = []
        for ball in true_indices(self._alive & ~self._moving & ~self._displaced):
            sightings = true_indices(seen[:, ball])
            if ball == CUE or not len(sightings) or not np.isfinite(self._anchor[ball, 0]):
                continue
            t_last = float(times[sightings[-1]])
            gap = float(np.linalg.norm(self._anchor[ball] - rest)) - self._diameter
            reach = (t_last + self._dt - since_s) * _CUE_TOP_SPEED_MM_S
            ahead = float((self._anchor[ball] - rest) @ (found_mm - rest)) > 0.0
            unseen = since_s < t_last < found_s - 1e-9 and sightings[-1] < len(times) - 1
            if unseen and gap <= reach and ahead:
                push = first_push + int(sightings[-1]) + 1
                found.append((t_last + 0.5 * self._dt, push, int(ball)))
        return found

    def _left_since(self, since_s: float) -> list[tuple[int, int]]:
        """(push of the first displaced sighting, ball) of each object ball that began to
        move after ``since_s``: still to be explained, or already explained (a ball whose
        start came first in the same frame is no less a candidate for the first contact),
        or seen displaced once and hidden since (a ball struck hard out of sight at once:
        into a pocket or off the table)."""
        count = self._history.count
        times, _, _ = self._history.window(count - self._history.capacity, count)
        first_push = count - len(times)
        pushes = {b: p for b, p in self._start_count.items() if self._moving[b]}
        for ball in true_indices(self._displaced & ~self._moving):
            pushes.setdefault(int(ball), int(self._displaced_at[ball]))
        found = []
        for ball, push in pushes.items():
            index = push - first_push
            if ball != CUE and 0 <= index < len(times) and float(times[index]) > since_s:
                found.append((push, ball))
        return found

    def _hidden_stroke(
        self, ball: int, detected: int, t_start: float, speed_mm_s: float = 0.0
    ) -> list[Event]:
        """A stroke out of sight: ``ball`` left its spot at ``t_start`` at ``speed_mm_s``
        (0: unknown) while the cue ball was not seen.

        When the cue ball was last seen at rest, its straight path from there met first the
        ball it reaches first (`first_reached`) among those leaving together, and it was
        struck when it vanished, or later when the way to that ball is too short to have
        taken that long (`_stroke_no_sooner`: a player's body hid it before the stroke);
        otherwise ``ball`` is the best guess and the stroke is put at its start. A shot is
        open either way.
        """
        self._in_shot = True
        self._quiet_since = None
        rest = self._anchor[CUE].copy()
        first, sure, t_strike = ball, 0.4, t_start
        if self._alive[CUE] and np.isfinite(rest[0]):
            near = {b for n, b in self._left_since(-np.inf) if abs(n - detected) <= 2}
            near |= {b for b, n in self._pending_starts if abs(n - detected) <= 2}
            displaced = {int(b) for b in true_indices(self._displaced)}
            together = sorted(({ball} | near | displaced) - {CUE})
            together = self._frozen_to(
                [b for b in together if np.isfinite(self._anchor[b, 0])] or [ball]
            )
            together = self._ahead_of_cue(rest, together)
            first = together[first_reached(rest, self._anchor[together], self._diameter)]
            earliest, latest = self._stroke_limits(first, ball, detected)
            # Seen on its spot later than it can have left, it was the cue stick's tip.
            last = self._cue_last_seen(min(t_start, latest))
            gap = float(np.linalg.norm(self._anchor[first] - rest)) - self._diameter
            soonest = earliest if math.isfinite(earliest) else -math.inf
            soonest = max(soonest, _stroke_no_sooner(min(t_start, latest), gap, speed_mm_s))
            if last is not None and t_start - last <= _VANISH_S:
                t_strike = max(min(last + 0.5 * self._dt, t_start, latest), soonest)
                sure = 0.6
            elif last is not None and math.isfinite(soonest):
                t_strike = max(last + 0.5 * self._dt, soonest)
        told = not self._remember(frozenset((CUE, first)), t_start)
        # It rolls on unseen: found again elsewhere, it has not started anew.
        self._moving[CUE] = self._alive[CUE]
        self._pending_starts = [s for s in self._pending_starts if s[0] != CUE]
        events = [
            Event(self._frame_of(t_strike), t_strike, EventKind.STRIKE, (CUE,), confidence=sure)
        ]
        if not told:  # the contact may already be known from the struck ball's start
            events.append(
                Event(
                    self._frame_of(t_start),
                    t_start,
                    EventKind.BALL_BALL,
                    (CUE, first),
                    confidence=sure,
                )
            )
        if first != ball and self._remember(frozenset((first, ball)), t_start):
            events.append(
                Event(
                    self._frame_of(t_start),
                    t_start,
                    EventKind.BALL_BALL,
                    (first, ball),
                    confidence=0.5,
                )
            )
        return events

    def _ahead_of_cue(self, rest: FloatArray, balls: list[int]) -> list[int]:
        """``balls`` on the side of the cue ball's rest spot it went to, when it was found
        far from there (a ball behind it cannot have been hit first: the cue ball would
        have had to come back past its spot); all of them when none is, or it was not."""
        found = self._seen_xy[CUE] - rest
        if float(np.linalg.norm(found)) <= 2.0 * self._diameter:
            return balls
        ahead = [b for b in balls if float((self._anchor[b] - rest) @ found) > 0.0]
        return ahead or balls

    def _frozen_to(self, balls: list[int]) -> list[int]:
        """``balls`` and every object ball resting against them, through any chain of
        touching balls (a rack passes the stroke on: its leading ball may barely move)."""
        rest = np.where(self._alive[:, None], self._anchor, np.nan)
        rest[CUE] = np.nan
        reach = self._diameter + self.config.ball_contact_tolerance_mm
        found, frontier = set(balls), list(balls)
        while frontier:
            distance = np.linalg.norm(rest - rest[frontier.pop()], axis=1)
            for other in true_indices(distance <= reach):
                if int(other) not in found:
                    found.add(int(other))
                    frontier.append(int(other))
        return sorted(found)
