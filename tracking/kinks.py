"""Velocity changes of moving balls: the part of `EventDetector` that finds kinks in the
paths and explains each by a ball, a cushion or a pocket jaw.

A moving ball whose velocity, fitted over ``fit_window_s`` before and after a frame, changes
by more than noise allows (a peak over three analysis frames) met something: another ball
(change along the line of centres, and that ball changed too), a cushion (centre within a
radius of its line, change along its normal) or a jaw tip. `KinkExplainer` is a mixin:
`tracking.events.EventDetector` holds the state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from tracking import contacts, jaws
from tracking.fastnp import row_norms, true_indices
from tracking.history import FloatArray, WindowFits
from tracking.rail_contacts import APPROACH_SIGMAS
from tracking.rail_grazes import RAIL_SIGMAS, RailGrazes
from tracking.starts import Path
from tracking.types import Event, EventKind

_RAIL_SIGMAS = RAIL_SIGMAS


@dataclass(slots=True)
class Kink:
    """Velocity change of every ball at one analysis frame."""

    change: FloatArray
    threshold: FloatArray
    before: tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]]
    after: tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]]


class KinkExplainer(RailGrazes):
    """Kinks for `EventDetector` (which defines the state used here)."""

    _kinks: list[Kink]
    _window_fits: WindowFits
    _approach_velocity: FloatArray
    _rest_since: FloatArray
    _last_cushion: dict[tuple[int, str], float]

    def _near_rail(self, xy_mm: FloatArray) -> NDArray[np.bool_]:
        """(B,) centres within reach of a cushion line (a radius plus twice the tolerance)."""
        reach = self.table.ball_radius_mm + 2.0 * self.config.cushion_tolerance_mm
        x, y = xy_mm[:, 0], xy_mm[:, 1]
        gap = np.minimum(
            np.minimum(x, self.table.length_mm - x), np.minimum(y, self.table.width_mm - y)
        )
        result: NDArray[np.bool_] = gap <= reach
        return result

    def _beside_pinned(
        self,
        before: tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]],
        after: tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]],
    ) -> NDArray[np.bool_]:
        """(B,) moving balls whose kink corner (`contacts.path_corners`) lies within contact
        reach (a diameter plus the tolerance) of a resting ball less than a radius from a
        cushion (its centre within a diameter of the cushion line): hit, that ball is driven
        into the rail and back within a frame or two
        (`contacts.struck_into_rail`), moves a few millimetres and shows no start."""
        resting = ~self._moving & self._alive & np.isfinite(self._anchor[:, 0])
        result = np.zeros(len(resting), bool)
        if not resting.any():
            return result
        rest = self._anchor[resting]
        gap = np.minimum(
            np.minimum(rest[:, 0], self.table.length_mm - rest[:, 0]),
            np.minimum(rest[:, 1], self.table.width_mm - rest[:, 1]),
        )
        pinned = rest[gap <= 2.0 * self.table.ball_radius_mm]
        if not len(pinned):
            return result
        corner = contacts.path_corners(before[:3], after[:3])
        offset = corner[:, None, :] - pinned[None, :, :]
        distance = np.hypot(offset[..., 0], offset[..., 1])  # (B, P)
        reach = self.table.ball_diameter_mm + self.config.ball_contact_tolerance_mm
        near = np.nan_to_num(distance, nan=np.inf) <= reach
        beside: NDArray[np.bool_] = near.any(axis=1) & self._moving
        return beside

    def _analyse_kinks(self) -> list[Event]:
        k = self._fit_frames
        m = self._history.count - k
        if m - k < 0 or not (self._moving & self._alive).any():
            self._kinks = []
            return []
        grazes = self._rail_grazes() if self.config.rail_graze_check else []
        fits = self._window_fits
        before, after = fits.fit(self._history, m - k, m), fits.fit(self._history, m, m + k)
        change = row_norms(after[2] - before[2])
        speed = np.maximum(row_norms(after[2]), row_norms(before[2]))
        config = self.config
        noise_std = self._kink_noise_mm_s(k)
        noise = config.kink_noise_sigmas * noise_std
        threshold = config.kink_min_speed_change_mm_s + config.kink_relative_speed_change * speed
        threshold = threshold + noise
        # Near a rail the geometry itself vouches for a bounce: accept softer ones there, and
        # where the path turns back off the rail right at it, any change noise cannot make.
        # So does a resting ball against a rail beside the kink: struck, it moves too little
        # to show a start (`_pinned_to_rail`), and the striker turns off it as off the rail.
        softer = self._near_rail(before[1]) | self._beside_pinned(before, after)
        threshold = np.where(softer, 0.5 * threshold, threshold)
        bounced = self._turned_off_rail(before, after, APPROACH_SIGMAS * noise_std / np.sqrt(2.0))
        threshold = np.where(bounced, np.minimum(threshold, _RAIL_SIGMAS * noise_std), threshold)
        usable = (before[3] >= k - 1) & (after[3] >= k - 1) & self._alive
        self._approach_velocity = np.where(usable[:, None], before[2], self._approach_velocity)
        change = np.where(usable, change, 0.0)
        self._kinks = [*self._kinks[-2:], Kink(change, threshold, before, after)]
        if len(self._kinks) < 3:
            return []
        previous, middle, latest = self._kinks
        peak = (middle.change > middle.threshold) & (middle.change >= previous.change)
        peak &= (middle.change > latest.change) & ~self._resting_since_before(m - 2 * k)
        events = []
        for ball in true_indices(peak):
            events += self._explain_kink(int(ball), middle)
            bounce = self._left_rest_into_cushion(int(ball), middle)
            events += [] if bounce is None else [bounce]
        return events + grazes

    def _cushion_too(self, ball: int, kink: Kink, contact: tuple[int, float]) -> Event | None:
        """A cushion ``ball`` met in the same kink as its ``contact`` with another ball (both
        within a frame: a break at 30 fps), when its velocity change splits into a push off
        a cushion line it was heading into (`contacts.cushion_score`) and one away from the
        other ball (`contacts.split_change`), each beyond `_RAIL_SIGMAS` of the noise (the
        cushion's also beyond what a line of centres tilted by noise leaks into it), and it
        came into that cushion faster than noise (`APPROACH_SIGMAS`: not a ball rolling along
        the rail and hit along it) and left it no faster inward than noise allows.
        ``contact``: (the other ball, the kink's time s)."""
        before: Path = (float(kink.before[0][ball]), kink.before[1][ball], kink.before[2][ball])
        after_v = kink.after[2][ball]
        other, t_kink = contact
        xy = before[1] + before[2] * (t_kink - before[0])
        reach = self.table.ball_radius_mm + self.config.cushion_tolerance_mm
        side, _ = contacts.cushion_score(self.table, xy, (before[2], after_v), reach, self._dt)
        line = xy - self._where_at(other, kink, t_kink)
        distance = float(np.hypot(line[0], line[1]))
        if side < 0 or not np.isfinite(distance) or distance < 1e-6:
            return None
        normal = contacts.CUSHION_NORMALS[side]
        split = contacts.split_change(after_v - before[2], normal, line / distance)
        noise_std = self._kink_noise_mm_s(self._fit_frames)
        if split is None or min(split[0], split[1]) < _RAIL_SIGMAS * noise_std * split[2]:
            return None
        # The line of centres is known to within the centres' noise over their distance: a
        # push along it leaks that share into the cushion's (a rail drive hit along the rail).
        tilt = min(1.0, _RAIL_SIGMAS * np.sqrt(2.0) * self._noise_mm / distance)
        if split[0] < (_RAIL_SIGMAS * noise_std + abs(split[1]) * tilt) * split[2]:
            return None
        # It came at the rail (a ball rolling along one, hit along it, did not) and left it.
        approach = -float(before[2] @ normal)
        if approach < APPROACH_SIGMAS * noise_std / np.sqrt(2.0):
            return None
        if float(after_v @ normal) < -_RAIL_SIGMAS * noise_std:
            return None
        return self._cushion_contact(ball, side, before, t_kink)

    def _where_at(self, ball: int, kink: Kink, time_s: float) -> FloatArray:
        """(2,) where ``ball`` was at ``time_s`` by the fit before ``kink`` (its rest spot when
        it started there); NaN when that fit has fewer than two sightings."""
        if self._starting_here()[ball]:
            return np.asarray(self._anchor_before[ball], dtype=np.float64)
        t_ref, p, v, n = kink.before
        if n[ball] < 2:
            return np.full(2, np.nan)
        result: FloatArray = p[ball] + v[ball] * (time_s - t_ref[ball])
        return result

    def _resting_since_before(self, first: int) -> NDArray[np.bool_]:
        """(B,) balls at rest since before push ``first`` (the analysed fits' first frame):
        a kink of theirs is detector noise (a ball resting beside a rail jitters in and out
        across it), not a contact; a ball set moving is moving again by the time its kink
        is analysed (its start is seen within two frames), and one struck into a rail and
        back unseen to start keeps its change (`_changed_too`), not a kink of its own."""
        times = self._history.window(first, first + 1)[0]
        if not len(times):
            return np.zeros(len(self._moving), bool)
        result: NDArray[np.bool_] = ~self._moving & (self._rest_since <= times[0])
        return result

    def _turned_off_rail(
        self,
        before: tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]],
        after: tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]],
        approach_mm_s: float,
    ) -> NDArray[np.bool_]:
        """(B,) balls whose fitted paths meet at a cushion line (the corner within touching
        distance of where the ball touches it, `rail_touch_mm`) coming in faster than
        ``approach_mm_s`` and going back out: a ball reverses its motion across a cushion
        only by bouncing off it."""
        corner = contacts.path_corners(before[:3], after[:3])
        radius = self.table.ball_radius_mm
        x, y = corner[:, 0], corner[:, 1]
        # `contacts.inside_distances_mm` of every corner at once.
        inside = np.stack([x, self.table.length_mm - x, y, self.table.width_mm - y], axis=1)
        gaps = inside - radius
        side = np.argmin(gaps, axis=1)
        rows = np.arange(len(side))
        normal = contacts.CUSHION_NORMALS[side]
        toward = np.einsum("bi,bi->b", before[2], normal) < -approach_mm_s
        away = np.einsum("bi,bi->b", after[2], normal) > 0.0
        result: NDArray[np.bool_] = toward & away & (gaps[rows, side] <= self._rail_touch_mm)
        return result

    def _left_rest_into_cushion(self, ball: int, kink: Kink) -> Event | None:
        """A cushion met straight after a start from rest, before the ball was seen moving
        (`contacts.departure_cushion`): a ball beside a rail struck into it."""
        started = self._start_count.get(ball)
        rest = self._anchor_before[ball]
        recent = started is not None and self._history.count - started <= 3 * self._fit_frames
        before_v, after_v = kink.before[2][ball], kink.after[2][ball]
        if not recent or not np.isfinite(rest[0]):
            return None
        if np.linalg.norm(before_v) > 0.5 * np.linalg.norm(after_v):
            return None  # already on its way before this change
        after: Path = (float(kink.after[0][ball]), kink.after[1][ball], after_v)
        found = contacts.departure_cushion(
            self.table, rest, after, float(kink.before[0][ball]), self.table.ball_radius_mm
        )
        if found is None:
            return None
        xy = after[1] + after[2] * (found[1] - after[0])
        return self._cushion_event(ball, str(self.table.nearest_cushion(*xy)), found[1])

    def _explain_kink(self, ball: int, kink: Kink) -> list[Event]:
        """What met ``ball`` at its ``kink``: a ball (and a cushion too, `_cushion_too`), a
        cushion or a jaw; nothing when none explains the change of velocity."""
        before: Path = (float(kink.before[0][ball]), kink.before[1][ball], kink.before[2][ball])
        after: Path = (float(kink.after[0][ball]), kink.after[1][ball], kink.after[2][ball])
        t_kink = contacts.line_intersection_time(before, after)
        if t_kink is None:
            return []
        t_kink = min(max(t_kink, before[0]), after[0])
        xy = before[1] + before[2] * (t_kink - before[0])
        radius = self.table.ball_radius_mm
        side, cushion_fit = contacts.cushion_score(
            self.table,
            xy,
            (before[2], after[2]),
            radius + self.config.cushion_tolerance_mm,
            self._dt,
        )
        t_ref, p, v, n = kink.before
        others = np.where((n >= 2)[:, None], p + v * (t_kink - t_ref)[:, None], np.nan)
        others[self._starting_here()] = self._anchor_before[self._starting_here()]
        others[ball] = np.nan
        others[~self._alive] = np.nan
        reach = self.table.ball_diameter_mm + self.config.ball_contact_tolerance_mm
        other, ball_fit = contacts.ball_score(xy, after[2] - before[2], others, reach)
        if other >= 0 and self.config.first_in_way:
            change = after[2] - before[2]
            other, ball_fit = self._first_in_way(before, others, (other, ball_fit), change)
        jaw, jaw_fit = jaws.jaw_score(
            self._jaw_tips, xy, (before[2], after[2]), radius + self.config.cushion_tolerance_mm
        )
        if max(cushion_fit, ball_fit, jaw_fit) < self.config.explain_min_cosine:
            return []
        if jaw is not None and jaw_fit > max(cushion_fit, ball_fit):
            found = [self._cushion_event(ball, jaw, t_kink)]
        elif ball_fit < cushion_fit:
            found = [self._cushion_contact(ball, side, before, t_kink)]
        elif self._changed_too(other) or self._pinned_to_rail(other, before, t_kink):
            found = [
                self._ball_contact(ball, other, (before, t_kink), kink),
                self._cushion_too(ball, kink, (other, t_kink)),
            ]
        else:
            found = []
        return [event for event in found if event is not None]

    def _first_in_way(
        self, before: Path, others: FloatArray, best: tuple[int, float], change: FloatArray
    ) -> tuple[int, float]:
        """The ball ``before``'s path reached first (one diameter apart, after the fit's mean
        time) when it reached one before ``best`` (the ball `contacts.ball_score` chose, with
        its cosine) and that ball's line of centres there explains the ``change`` too
        (`explain_min_cosine`): a ball cannot pass through one to hit one behind it
        (`EventConfig.first_in_way`). ``others`` (11, 2): every ball's centre at the kink."""
        t_ref, p, v = before
        still = np.zeros(2)
        diameter = self.table.ball_diameter_mm
        first_s = contacts.touch_time(before, (t_ref, others[best[0]], still), diameter)
        if first_s is None:
            return best
        found = best
        size = max(float(np.hypot(change[0], change[1])), 1e-9)
        for other in true_indices(np.isfinite(others[:, 0])):
            touch = contacts.touch_time(before, (t_ref, others[other], still), diameter)
            if touch is None or not t_ref <= touch < first_s:
                continue
            line = others[other] - (p + v * (touch - t_ref))
            cosine = abs(float(line @ change)) / (diameter * size)
            if cosine >= self.config.explain_min_cosine:
                found, first_s = (int(other), cosine), touch
        return found

    def _starting_here(self) -> NDArray[np.bool_]:
        """(B,) balls whose start was seen within a fit window of the analysed frame: at the
        kink they were still at their rest spot, wherever the fit over their first
        displaced sightings puts them."""
        kink_at = self._history.count - 1 - self._fit_frames
        result = np.zeros(len(self._anchor), bool)
        for ball, started in self._start_count.items():
            result[ball] = abs(started - kink_at) <= self._fit_frames
        return result

    def _changed_too(self, other: int) -> bool:
        """Whether ``other`` also changed velocity (or started) around the analysis frame; a
        resting ball seen displaced once and then lost (sent off the table, or hidden at
        once) counts, and so does one whose start there was dismissed since."""
        if self._displaced[other] or any(b == other for b, _ in self._pending_starts):
            return True
        # A start seen within a fit window of the kink counts even when it was since
        # dismissed (a ball seen displaced once, lost, and found far away).
        if self._starting_here()[other]:
            return True
        return any(k.change[other] >= 0.5 * k.threshold[other] for k in self._kinks)

    def _pinned_to_rail(self, other: int, striker: Path, t_kink: float) -> bool:
        """Whether ``other`` rests against a rail that a striker on path ``striker`` drives it
        into, near enough to reach it and come back between two frames (within the distance
        it covers in a frame, or `rail_touch_mm`): it shows no start, yet it was hit."""
        rest = self._anchor[other]
        if self._moving[other] or not np.isfinite(rest[0]):
            return False
        at = striker[1] + striker[2] * (t_kink - striker[0])
        slowing = self.config.sliding_deceleration_mm_s2
        hit = contacts.struck_into_rail(self.table, rest, (at, striker[2]), slowing)
        if hit is None:
            return False
        speed = float(np.linalg.norm(striker[2]))
        return hit[1] <= self._dt or hit[1] * speed <= self._rail_touch_mm

    def _ball_contact(
        self, ball: int, other: int, before_at: tuple[Path, float], kink: Kink
    ) -> Event | None:
        before, t_kink = before_at
        t_ref, p, v, _ = kink.before
        other_path: Path = (float(t_ref[other]), p[other], v[other])
        touch = contacts.touch_time(before, other_path, self.table.ball_diameter_mm)
        near = touch is not None and abs(touch - t_kink) <= 2.0 * self._dt
        t_contact = touch if near and touch is not None else t_kink
        if not self._remember(frozenset((ball, other)), t_contact):
            return None
        faster = np.linalg.norm(before[2]) >= np.linalg.norm(other_path[2])
        balls = (ball, other) if faster else (other, ball)
        return Event(
            self._frame_of(t_contact), t_contact, EventKind.BALL_BALL, balls, confidence=0.9
        )

    def _cushion_contact(self, ball: int, side: int, before: Path, t_kink: float) -> Event | None:
        reach = contacts.cushion_reach_time(self.table, before, side, self.table.ball_radius_mm)
        t_contact = reach if reach is not None and abs(reach - t_kink) <= 2 * self._dt else t_kink
        xy = before[1] + before[2] * (t_contact - before[0])
        cushion = self.table.nearest_cushion(float(xy[0]), float(xy[1]))
        return self._cushion_event(ball, str(cushion), t_contact)
