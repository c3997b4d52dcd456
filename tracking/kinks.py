"""Velocity changes of moving balls: the part of `EventDetector` that finds kinks in the
paths and explains each by a ball, a cushion or a pocket jaw.

A moving ball whose velocity, fitted over ``fit_window_s`` before and after a frame, changes
by more than noise allows (a peak over three analysis frames) met something: another ball
(change along the line of centres, and that ball changed too), a cushion (centre within a
radius of its line, change along its normal) or a jaw tip. `KinkExplainer` is a mixin:
`tracking.events.EventDetector` holds the state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from tracking import contacts, geometry, jaws
from tracking.history import FloatArray, fit_lines
from tracking.starts import Path
from tracking.types import Event, EventKind
from tracking.vanish import VanishWatcher

_RAIL_SIGMAS = 3.0
"""A path that turns back off a cushion right at it (`KinkExplainer._turned_off_rail`) met
it when its velocity changed by this many standard deviations of the change noise alone: the
place and the reversal already rule out most of what else could change a velocity (a curve
of a spinning ball does not reverse it at a rail), so the floor and the share of the speed
that guard kinks elsewhere are not needed; 3 sigmas keep a ball rolling along a rail with
nothing but noise from bouncing (one-sided 0.13 % per independent fit)."""


_STRUCK_CONFIDENCE = 0.8
"""How sure a cushion contact inferred for a resting ball struck into a rail beside it is
(`contacts.struck_into_rail`), or for one that bounced while unseen
(`geometry.bounce_across_gap`): the bounce itself was not seen."""

_APPROACH_SIGMAS = 2.0
"""...and when it came in at least this many standard deviations of a fitted velocity's
noise faster along the cushion's normal: a ball rolling along a rail, whose noisy normal
velocity turns from in to out by chance, is not taken for one bouncing (2 sigmas cut those
chance reversals 40-fold; f1_corner shot 4's ball came in at 3.3)."""


@dataclass(slots=True)
class Kink:
    """Velocity change of every ball at one analysis frame."""

    change: FloatArray
    threshold: FloatArray
    before: tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]]
    after: tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]]


class KinkExplainer(VanishWatcher):
    """Kinks for `EventDetector` (which defines the state used here)."""

    _kinks: list[Kink]
    _approach_velocity: FloatArray
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

    def _analyse_kinks(self) -> list[Event]:
        k = self._fit_frames
        m = self._history.count - k
        if m - k < 0 or not (self._moving & self._alive).any():
            self._kinks = []
            return []
        t_b, _, xy_b = self._history.window(m - k, m)
        t_a, _, xy_a = self._history.window(m, m + k)
        before, after = fit_lines(t_b, xy_b), fit_lines(t_a, xy_a)
        change = np.linalg.norm(after[2] - before[2], axis=1)
        speed = np.maximum(np.linalg.norm(after[2], axis=1), np.linalg.norm(before[2], axis=1))
        config = self.config
        noise_std = self._kink_noise_mm_s(k)
        noise = config.kink_noise_sigmas * noise_std
        threshold = config.kink_min_speed_change_mm_s + config.kink_relative_speed_change * speed
        threshold = threshold + noise
        # Near a rail the geometry itself vouches for a bounce: accept softer ones there, and
        # where the path turns back off the rail right at it, any change noise cannot make.
        threshold = np.where(self._near_rail(before[1]), 0.5 * threshold, threshold)
        bounced = self._turned_off_rail(before, after, _APPROACH_SIGMAS * noise_std / np.sqrt(2.0))
        threshold = np.where(bounced, np.minimum(threshold, _RAIL_SIGMAS * noise_std), threshold)
        usable = (before[3] >= k - 1) & (after[3] >= k - 1) & self._alive
        self._approach_velocity = np.where(usable[:, None], before[2], self._approach_velocity)
        change = np.where(usable, change, 0.0)
        self._kinks = [*self._kinks[-2:], Kink(change, threshold, before, after)]
        if len(self._kinks) < 3:
            return []
        previous, middle, latest = self._kinks
        peak = (middle.change > middle.threshold) & (middle.change >= previous.change)
        peak &= middle.change > latest.change
        events = []
        for ball in np.flatnonzero(peak):
            event = self._explain_kink(int(ball), middle)
            bounce = self._left_rest_into_cushion(int(ball), middle)
            events += [e for e in (event, bounce) if e is not None]
        return events

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
        gaps = np.stack([contacts.inside_distances_mm(self.table, c) for c in corner]) - radius
        side = np.argmin(gaps, axis=1)
        rows = np.arange(len(side))
        normal = contacts.CUSHION_NORMALS[side]
        toward = np.einsum("bi,bi->b", before[2], normal) < -approach_mm_s
        away = np.einsum("bi,bi->b", after[2], normal) > 0.0
        result: NDArray[np.bool_] = toward & away & (gaps[rows, side] <= self._rail_touch_mm)
        return result

    @property
    def _rail_touch_mm(self) -> float:
        raise NotImplementedError

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

    def _explain_kink(self, ball: int, kink: Kink) -> Event | None:
        before: Path = (float(kink.before[0][ball]), kink.before[1][ball], kink.before[2][ball])
        after: Path = (float(kink.after[0][ball]), kink.after[1][ball], kink.after[2][ball])
        t_kink = contacts.line_intersection_time(before, after)
        if t_kink is None:
            return None
        t_kink = min(max(t_kink, before[0]), after[0])
        xy = before[1] + before[2] * (t_kink - before[0])
        radius = self.table.ball_radius_mm
        side, cushion_fit = contacts.cushion_score(
            self.table, xy, (before[2], after[2]), radius + self.config.cushion_tolerance_mm
        )
        t_ref, p, v, n = kink.before
        others = np.where((n >= 2)[:, None], p + v * (t_kink - t_ref)[:, None], np.nan)
        others[self._starting_here()] = self._anchor_before[self._starting_here()]
        others[ball] = np.nan
        others[~self._alive] = np.nan
        reach = self.table.ball_diameter_mm + self.config.ball_contact_tolerance_mm
        other, ball_fit = contacts.ball_score(xy, after[2] - before[2], others, reach)
        jaw, jaw_fit = jaws.jaw_score(
            self._jaw_tips, xy, (before[2], after[2]), radius + self.config.cushion_tolerance_mm
        )
        if max(cushion_fit, ball_fit, jaw_fit) < self.config.explain_min_cosine:
            return None
        if jaw is not None and jaw_fit > max(cushion_fit, ball_fit):
            return self._cushion_event(ball, jaw, t_kink)
        if ball_fit >= cushion_fit:
            if not (self._changed_too(other) or self._pinned_to_rail(other, before, t_kink)):
                return None
            return self._ball_contact(ball, other, (before, t_kink), kink)
        return self._cushion_contact(ball, side, before, t_kink)

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

    def _bounces_across_gaps(self) -> list[Event]:
        """Cushions met while a moving ball was unseen (`geometry.bounce_across_gap`), judged
        once it has been seen for two fit windows again (paths fitted over up to two windows
        either side of the gap): no kink can be fitted across the gap."""
        count = self._history.count
        times, _, xy = self._history.window(count - self._history.capacity, count)
        window = 2.0 * self.config.fit_window_s  # a slow ball's direction needs the length
        recent = times >= times[-1] - self.config.history_s
        events = []
        for ball in np.flatnonzero(self._moving & self._alive):
            seen = np.flatnonzero(np.isfinite(xy[:, ball, 0]) & recent)
            if len(seen) < 6 or seen[-1] != len(times) - 1:
                continue
            # Gaps (a one-frame gap leaves the kink fits enough sightings) whose path after
            # has become a full window long with this sighting.
            steps = np.diff(times[seen])
            due = (times[seen[-2]] - times[seen[1:]] < window) & (
                window <= times[-1] - times[seen[1:]]
            )
            for gap in np.flatnonzero((steps >= 2.5 * self._dt) & due):
                event = self._bounce_across(int(ball), (times, xy), self._gap_sides(seen, gap))
                events += [event] if event is not None else []
        return events

    def _gap_sides(
        self, seen: NDArray[np.int64], gap: int
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The sightings fitted either side of the gap after ``seen[gap]``: up to two fit
        windows (and two windows' frames) before it, one window's span after it."""
        count = self._history.count
        times = self._history.window(count - self._history.capacity, count)[0]
        window = 2.0 * self.config.fit_window_s
        before = seen[: gap + 1][-2 * self._fit_frames :]
        before = before[times[before] >= times[seen[gap]] - window]
        found_s = times[seen[gap + 1]]
        after = seen[(times[seen] >= found_s) & (times[seen] <= found_s + window)]
        return before, after

    def _bounce_across(
        self,
        ball: int,
        window: tuple[FloatArray, FloatArray],
        sides: tuple[NDArray[np.int64], NDArray[np.int64]],
    ) -> Event | None:
        times, xy = window
        before, after = sides
        if min(len(before), len(after)) < 3:
            return None
        t_b, p_b, v_b, _ = fit_lines(times[before], xy[before][:, [ball]])
        t_a, p_a, v_a, _ = fit_lines(times[after], xy[after][:, [ball]])
        lost_s, found_s = float(times[before[-1]]), float(times[after[0]])
        start = p_b[0] + v_b[0] * (lost_s - t_b[0])
        end = p_a[0] + v_a[0] * (found_s - t_a[0])
        slope_std = max(self._slope_std_mm_s(times[before]), self._slope_std_mm_s(times[after]))
        limits = (_APPROACH_SIGMAS * slope_std, self.table.ball_diameter_mm)
        found = geometry.bounce_across_gap(
            self.table, ((start, v_b[0]), (end, v_a[0])), found_s - lost_s, limits
        )
        if found is None or self._ball_beside(ball, xy[before[0] :], (start, found[1], end)):
            return None
        met = found[1]
        speed_in = float(np.linalg.norm(v_b[0]))
        t_contact = lost_s + float(np.linalg.norm(met - start)) / max(speed_in, 1e-6)
        cushion = str(self.table.nearest_cushion(float(met[0]), float(met[1])))
        return self._cushion_event(ball, cushion, t_contact, _STRUCK_CONFIDENCE)

    def _slope_std_mm_s(self, times: FloatArray) -> float:
        """Standard deviation of a velocity fitted to sightings at ``times``, mm/s."""
        spread = float(np.sum((times - times.mean()) ** 2))
        return self._noise_mm / math.sqrt(max(spread, 1e-12))

    def _ball_beside(
        self, ball: int, xy: FloatArray, route: tuple[FloatArray, FloatArray, FloatArray]
    ) -> bool:
        """Whether another ball was seen within a diameter (plus the contact tolerance) of the
        route ``ball`` took while unseen: a contact, not a cushion, may have turned it."""
        others = np.delete(xy, ball, axis=1).reshape(-1, 2)
        others = others[np.isfinite(others[:, 0])]
        if not len(others):
            return False
        starts = np.stack([route[0], route[1]])
        ends = np.stack([route[1], route[2]])
        distance = geometry.segment_point_distance_mm(starts, ends, others)
        reach = self.table.ball_diameter_mm + self.config.ball_contact_tolerance_mm
        return bool((distance <= reach).any())

    def _struck_into_rails(self, events: list[Event]) -> list[Event]:
        """Cushions met by resting balls beside a rail that this frame's contacts drove into
        it (`contacts.struck_into_rail`), at once and too briefly to show as a kink."""
        found = []
        for event in events:
            if event.kind != EventKind.BALL_BALL or len(event.balls) != 2:
                continue
            striker, struck = event.balls
            rest = self._rest_at_contact(struck, event.time_s)
            path = self._path_before(striker, event.time_s)
            if rest is None or path is None:
                continue
            hit = contacts.struck_into_rail(
                self.table, rest, path, self.config.sliding_deceleration_mm_s2
            )
            if hit is None:
                continue
            side, delay = hit
            at = rest.copy()  # where the line of that cushion passes the ball
            at[side // 2] = (0.0, self.table.length_mm, 0.0, self.table.width_mm)[side]
            cushion = str(self.table.nearest_cushion(float(at[0]), float(at[1])))
            t_contact = event.time_s + delay
            bounce = self._cushion_event(struck, cushion, t_contact, _STRUCK_CONFIDENCE)
            found += [bounce] if bounce is not None else []
        return found

    def _rest_at_contact(self, ball: int, time_s: float) -> FloatArray | None:
        """Where ``ball`` rested before a contact at ``time_s``: its rest spot, or the one it
        left from when it started within two fit windows of it; None when it was moving."""
        if not self._moving[ball] and np.isfinite(self._anchor[ball, 0]):
            return np.asarray(self._anchor[ball], dtype=np.float64)
        started = self._start_count.get(ball)
        if started is None:
            return None
        times = self._history.window(started, started + 1)[0]
        if not len(times) or abs(float(times[0]) - time_s) > 2.0 * self.config.fit_window_s:
            return None
        return np.asarray(self._anchor_before[ball], dtype=np.float64)

    def _path_before(self, ball: int, time_s: float) -> tuple[FloatArray, FloatArray] | None:
        """(position (2,) at ``time_s``, velocity (2,)) of ``ball`` fitted over the fit window
        up to ``time_s``; None with fewer than two sightings there."""
        count = self._history.count
        times, _, xy = self._history.window(count - self._history.capacity, count)
        inside = (times <= time_s) & (times >= time_s - self.config.fit_window_s - 0.5 * self._dt)
        t_ref, p, v, n = fit_lines(times[inside], xy[inside][:, [ball]])
        if n[0] < 2:
            return None
        return p[0] + v[0] * (time_s - t_ref[0]), v[0]

    def _cushion_event(
        self, ball: int, cushion: str, t_contact: float, confidence: float = 1.0
    ) -> Event | None:
        """A cushion contact, unless the same ball touched the same cushion just before."""
        merge_s = max(3.0 * self._dt, 2.0 * self.config.fit_window_s)
        if abs(t_contact - self._last_cushion.get((ball, cushion), -np.inf)) <= merge_s:
            return None
        self._last_cushion[(ball, cushion)] = t_contact
        frame = self._frame_of(t_contact)
        return Event(
            frame,
            t_contact,
            EventKind.BALL_CUSHION,
            (ball,),
            cushion=cushion,
            confidence=confidence,
        )
