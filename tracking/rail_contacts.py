"""Cushion contacts no kink shows: the part of `EventDetector` that finds bounces of balls
struck into a rail beside them (too short to fit) and bounces hidden in a gap of sightings.

A resting ball struck toward a rail within a radius of it reaches it unless friction stops
it first (`contacts.struck_into_rail`); a moving ball unseen for a while bounced when its
paths either side of the gap go into and out of one cushion line and meet there
(`geometry.bounce_across_gap`). `RailContacts` is a mixin: `tracking.events.EventDetector`
holds the state.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from tracking import contacts, geometry, lost
from tracking.fastnp import true_indices
from tracking.history import FloatArray, fit_lines
from tracking.types import Event, EventKind, TrackSet
from tracking.vanish import VanishWatcher

APPROACH_SIGMAS = 2.0
"""A path that turns back off a cushion at it, or across a gap, bounced only when it came in
(and went out) at least this many standard deviations of a fitted velocity's noise fast
along the cushion's normal: a ball rolling along a rail, whose noisy normal velocity turns
from in to out by chance, is not taken for one bouncing (2 sigmas cut those chance
reversals 40-fold; f1_corner shot 4's ball came in at 3.3)."""

_STRUCK_CONFIDENCE = 0.8
"""How sure a cushion contact inferred for a resting ball struck into a rail beside it is
(`contacts.struck_into_rail`), or for one that bounced while unseen
(`geometry.bounce_across_gap`): the bounce itself was not seen."""


class RailContacts(VanishWatcher):
    """Rail contacts for `EventDetector` (which defines the state used here)."""

    _last_cushion: dict[tuple[int, str], float]

    @property
    def _rail_touch_mm(self) -> float:
        raise NotImplementedError

    @property
    def _start_distance_mm(self) -> FloatArray:
        raise NotImplementedError

    def _removals(self, trackset: TrackSet) -> list[Event]:
        """The removals the tracker reported this frame, and the cushion each ball that left
        the table crossed (`_cushions_crossed`)."""
        events = super()._removals(trackset)
        exits = {}
        for event in events:
            if event.kind == EventKind.BALL_OFF_TABLE:
                ball = event.balls[0]
                at_seen, velocity, _ = self._exit_path(ball)
                exits[ball] = (float(self._seen_time[ball]), at_seen, velocity)
        return events + self._cushions_crossed(events, exits)

    def _resolve_losses(self, events: list[Event]) -> list[Event]:
        """The removals inferred for lost balls at a shot's end, and the cushion each ball
        judged to have left the table crossed (`_cushions_crossed`), from its loss's path."""
        losses = {ball: loss for ball, (loss, _) in self._losses.losses.items()}
        found = super()._resolve_losses(events)
        exits = {
            ball: (loss.time_s, loss.xy_mm, loss.velocity_mm_s) for ball, loss in losses.items()
        }
        return found + self._cushions_crossed(found, exits)

    def _cushions_crossed(
        self, events: list[Event], exits: dict[int, tuple[float, FloatArray, FloatArray]]
    ) -> list[Event]:
        """A cushion contact for each ball ``events`` send off the table: it left over a
        cushion, which it met hard (a ball climbs the rail only off the cushion's nose), often
        too fast and too close to its loss from sight for a kink. The cushion is the one its
        exit path ``exits[ball]`` ((time s, (2,) centre, (2,) velocity), last seen) meets
        first, or the nearest to where it was seen when it was not moving; the contact is
        when it reached it, at the latest when it left. None when that ball met a cushion
        seen as a kink shortly before (`_cushion_event` keeps one per cushion)."""
        found = []
        merge_s = max(3.0 * self._dt, 2.0 * self.config.fit_window_s)
        for event in events:
            if event.kind != EventKind.BALL_OFF_TABLE or event.balls[0] not in exits:
                continue
            ball = event.balls[0]
            at, t_contact = self._exit_point(exits[ball], event.time_s)
            seen = [t for (b, _), t in self._last_cushion.items() if b == ball]
            if any(abs(t_contact - t) <= merge_s for t in seen):
                continue  # its last cushion was seen: that one sent it off
            cushion = str(self.table.nearest_cushion(float(at[0]), float(at[1])))
            bounce = self._cushion_event(ball, cushion, t_contact, event.confidence)
            found += [bounce] if bounce is not None else []
        return found

    def _exit_point(
        self, exit_path: tuple[float, FloatArray, FloatArray], left_s: float
    ) -> tuple[FloatArray, float]:
        """Where and when a ball on ``exit_path`` ((time s, (2,) centre, (2,) velocity), last
        seen) met the cushion it left the table over (`lost.cushion_ahead`), at the latest
        when it left (``left_s``); where it was seen when it was not moving."""
        seen_s, xy, velocity = exit_path
        at = np.asarray(xy, dtype=np.float64)
        speed = float(np.hypot(velocity[0], velocity[1]))
        if speed < self.config.start_min_speed_mm_s:
            return at, left_s
        heading = np.asarray(velocity, dtype=np.float64) / speed
        distance = lost.cushion_ahead(self.table, at, heading)[0]
        if not math.isfinite(distance):
            return at, left_s
        return at + heading * distance, min(left_s, seen_s + distance / speed)

    def _bounces_across_gaps(self) -> list[Event]:
        """Cushions met while a moving ball was unseen (`geometry.bounce_across_gap`), judged
        once it has been seen for two fit windows again (paths fitted over up to two windows
        either side of the gap): no kink can be fitted across the gap."""
        count = self._history.count
        times, _, xy = self._history.window(count - self._history.capacity, count)
        window = 2.0 * self.config.fit_window_s  # a slow ball's direction needs the length
        recent = times >= times[-1] - self.config.history_s
        events = []
        for ball in self._maybe_gapped(true_indices(self._moving & self._alive), times, recent, xy):
            seen = true_indices(np.isfinite(xy[:, ball, 0]) & recent)
            if len(seen) < 6 or seen[-1] != len(times) - 1:
                continue
            # Gaps (a one-frame gap leaves the kink fits enough sightings) whose path after
            # has become a full window long with this sighting.
            steps = np.diff(times[seen])
            due = (times[seen[-2]] - times[seen[1:]] < window) & (
                window <= times[-1] - times[seen[1:]]
            )
            for gap in true_indices((steps >= 2.5 * self._dt) & due):
                event = self._bounce_across(int(ball), (times, xy), self._gap_sides(seen, gap))
                events += [event] if event is not None else []
        return events

    def _maybe_gapped(
        self,
        balls: NDArray[np.int64],
        times: FloatArray,
        recent: NDArray[np.bool_],
        xy: FloatArray,
    ) -> NDArray[np.int64]:
        """``balls`` that may have a gap in their recent sightings (most frames: none).

        ``recent`` (K,) marks the ``times`` within ``history_s`` of the latest. With the
        frames evenly spaced a gap leaves a frame unseen between two sightings, so a ball
        seen on every frame from its first recent sighting to now has none.
        """
        if len(balls) == 0 or np.max(np.diff(times[recent]), initial=0.0) >= 2.5 * self._dt:
            return balls
        sighted = np.isfinite(xy[:, balls, 0]) & recent[:, None]
        sightings = sighted.sum(axis=0)
        first = np.argmax(sighted, axis=0)
        gapped: NDArray[np.int64] = balls[sightings != len(times) - first]
        return gapped

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
        rest = self._rest_before_gap(ball, xy[before, ball])
        if rest is not None:
            return self._departure_across(ball, window, (before, after), rest)
        found = self._paths_meet(ball, window, (before, after))
        last_two = before[-2:]
        if found is None and times[last_two[1]] - times[last_two[0]] < 2.5 * self._dt:
            # The sightings before may span a contact just before the gap, or hold a stray
            # detection: the last two alone (a frame or two apart) still give its way in.
            found = self._paths_meet(ball, window, (last_two, after))
        if found is None:
            return None
        cushion = str(self.table.nearest_cushion(float(found[0][0]), float(found[0][1])))
        return self._cushion_event(ball, cushion, found[1], _STRUCK_CONFIDENCE)

    def _paths_meet(
        self,
        ball: int,
        window: tuple[FloatArray, FloatArray],
        sides: tuple[NDArray[np.int64], NDArray[np.int64]],
    ) -> tuple[FloatArray, float] | None:
        """Where and when ``ball``'s paths fitted to the sightings ``sides`` (before, after
        its gap) met at a cushion line (`geometry.bounce_across_gap`), with no other ball
        beside its route; None when they did not."""
        times, xy = window
        before, after = sides
        t_b, p_b, v_b, _ = fit_lines(times[before], xy[before][:, [ball]])
        t_a, p_a, v_a, _ = fit_lines(times[after], xy[after][:, [ball]])
        lost_s, found_s = float(times[before[-1]]), float(times[after[0]])
        start = p_b[0] + v_b[0] * (lost_s - t_b[0])
        end = p_a[0] + v_a[0] * (found_s - t_a[0])
        slope_std = max(self._slope_std_mm_s(times[before]), self._slope_std_mm_s(times[after]))
        limits = (APPROACH_SIGMAS * slope_std, self.table.ball_diameter_mm)
        found = geometry.bounce_across_gap(
            self.table, ((start, v_b[0]), (end, v_a[0])), found_s - lost_s, limits
        )
        if found is None:
            return None
        met = found[1]
        speed_in = float(np.linalg.norm(v_b[0]))
        met_s = lost_s + float(np.linalg.norm(met - start)) / max(speed_in, 1e-6)
        route = ((lost_s, start), (min(max(met_s, lost_s), found_s), met), (found_s, end))
        if self._ball_beside(ball, (times[before[0] :], xy[before[0] :]), route):
            return None
        return met, met_s

    def _rest_before_gap(self, ball: int, seen_xy: FloatArray) -> FloatArray | None:
        """The rest spot ``ball`` left while unseen: where it rested before its latest start,
        when all its sightings ``seen_xy`` (K, 2) before the gap lie there (within its start
        distance); else None (it was already moving)."""
        if ball not in self._start_count or not np.isfinite(self._anchor_before[ball, 0]):
            return None
        rest = np.asarray(self._anchor_before[ball], dtype=np.float64)
        offset = seen_xy - rest[None, :]
        if np.max(np.hypot(offset[:, 0], offset[:, 1])) > self._start_distance_mm[ball]:
            return None
        return rest

    def _departure_across(
        self,
        ball: int,
        window: tuple[FloatArray, FloatArray],
        sides: tuple[NDArray[np.int64], NDArray[np.int64]],
        rest: FloatArray,
    ) -> Event | None:
        """A cushion met by a ball that left its rest spot while unseen and was first seen
        coming back off it (`contacts.departure_cushion`: a rack ball driven into the foot
        cushion on the break, lost in its blur until it returned). Its first sightings give
        the path (the first fit window: a later contact must not bend it); no other ball may
        have been where it was on the way (`_met_on_route`)."""
        times, xy = window
        before, after = sides
        first = after[: max(3, self._fit_frames)]
        t_a, p_a, v_a, _ = fit_lines(times[first], xy[first][:, [ball]])
        lost_s, found_s = float(times[before[-1]]), float(times[after[0]])
        # Where it was first seen: by the fit's mean time it may already be back past the spot.
        seen_at = p_a[0] + v_a[0] * (found_s - t_a[0])
        path = (found_s, seen_at, v_a[0])
        found = contacts.departure_cushion(
            self.table, rest, path, lost_s, self.table.ball_radius_mm
        )
        speed = float(np.linalg.norm(v_a[0]))
        if found is None or speed < 1e-6:
            return None
        met = seen_at + v_a[0] * (found[1] - found_s)
        # It went out at least as fast as it came back (a cushion only takes speed away).
        left_s = found[1] - float(np.linalg.norm(met - rest)) / speed
        route = ((left_s, rest), (found[1], met), (found_s, seen_at))
        if self._met_on_route(ball, (times, xy), route, rest):
            return None
        cushion = str(self.table.nearest_cushion(float(met[0]), float(met[1])))
        return self._cushion_event(ball, cushion, found[1], _STRUCK_CONFIDENCE)

    def _met_on_route(
        self,
        ball: int,
        window: tuple[FloatArray, FloatArray],
        route: tuple[tuple[float, FloatArray], ...],
        rest: FloatArray,
    ) -> bool:
        """Whether another ball was seen within a diameter (plus the contact tolerance) of
        where ``ball`` was on its timed ``route`` ((time s, (2,) centre) knots, straight
        between them) at the same moment: a contact, not a cushion, may have turned it. The
        balls still resting beside its rest spot ``rest`` (its neighbours in a rack) are not
        on the way: it left them behind."""
        times, xy = window
        knot_t = np.array([t for t, _ in route])
        knot_xy = np.stack([p for _, p in route])
        during = (times >= knot_t[0]) & (times <= knot_t[-1])
        if not during.any():
            return False
        where = np.stack([np.interp(times[during], knot_t, knot_xy[:, i]) for i in (0, 1)], axis=1)
        others = np.delete(xy[during], ball, axis=1)  # (K, 10, 2)
        reach = self.table.ball_diameter_mm + self.config.ball_contact_tolerance_mm
        near = np.hypot(*np.moveaxis(others - where[:, None, :], 2, 0)) <= reach
        beside_rest = np.hypot(*np.moveaxis(others - rest[None, None, :], 2, 0)) <= reach
        return bool((near & ~beside_rest).any())

    def _slope_std_mm_s(self, times: FloatArray) -> float:
        """Standard deviation of a velocity fitted to sightings at ``times``, mm/s."""
        spread = float(np.sum((times - times.mean()) ** 2))
        return self._noise_mm / math.sqrt(max(spread, 1e-12))

    def _ball_beside(
        self,
        ball: int,
        window: tuple[FloatArray, FloatArray],
        route: tuple[tuple[float, FloatArray], ...],
    ) -> bool:
        """Whether another ball was seen within a diameter (plus the contact tolerance) of the
        timed route ``ball`` took while unseen ((time s, (2,) centre) knots: lost, met the
        cushion, found): a contact, not a cushion, may have turned it. A sighting within a
        radius of where the ball was on that route at the same moment was the ball itself
        under another name (two balls never overlap), not a ball it met."""
        times, xy = window
        others = np.delete(xy, ball, axis=1)  # (K, 10, 2)
        knot_t = np.array([t for t, _ in route])
        knot_xy = np.stack([p for _, p in route])
        where = np.stack([np.interp(times, knot_t, knot_xy[:, i]) for i in (0, 1)], axis=1)
        offset = others - where[:, None, :]
        itself = np.hypot(offset[..., 0], offset[..., 1]) < self.table.ball_radius_mm
        during = (times > knot_t[0]) & (times < knot_t[-1])
        others = others[~(itself & during[:, None])].reshape(-1, 2)
        others = others[np.isfinite(others[:, 0])]
        if not len(others):
            return False
        starts = knot_xy[:-1]
        ends = knot_xy[1:]
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
