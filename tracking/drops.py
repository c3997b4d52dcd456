"""Balls leaving the table: the part of `EventDetector` that reports drops and what led to them.

A drop or a ball off the table comes from the tracker's status; just before it, a ball on a
pocket lip may have been hit away before it was seen moving (the contact is found from the
paths), and a dropping ball may have touched a cushion or a jaw too late for the usual fits.
`DropExplainer` is a mixin: `tracking.events.EventDetector` holds the state.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from tracking import contacts, jaws
from tracking.blind_hits import BlindHits
from tracking.fastnp import true_indices
from tracking.geometry import drop_crossing_s, line_crossing_s, nearest_pocket
from tracking.ghosts import ghost_path
from tracking.history import FloatArray, fit_lines
from tracking.starts import Path
from tracking.types import Event, EventKind, TrackSet, TrackStatus

_CROSSING_HORIZON_S = 0.2
"""A drop is put at most this long after the ball's last sighting: lost further from the
bed's edge, its path may have bent (a jaw, a cushion) before it dropped."""


_ROLL_FIT_S = 0.5
"""How far back a ball's last sightings are fitted with one free roll (constant deceleration)
to tell whether it reached a pocket's hole: long enough to measure a slow ball's
deceleration through the detector noise, short enough to hold few contacts."""

_ROLL_FIT_MIN = 8
"""Fewest sightings such a fit needs."""


def _roll_fit(
    time_s: FloatArray, xy_mm: FloatArray, noise_mm: float
) -> tuple[FloatArray, float, float] | None:
    """One free roll fitted to a ball's sightings: x(t) = p + v t + a t^2 / 2.

    Args:
        time_s: (K,) sighting times relative to the last, s (<= 0).
        xy_mm: (K, 2) the sighted centres, mm.
        noise_mm: the centres' noise, mm.

    Returns:
        (where it was at t = 0 (2,) mm, its speed then plus three standard deviations, mm/s,
        its deceleration along its path less three standard deviations, mm/s^2), or None
        with under `_ROLL_FIT_MIN` sightings or when they stray from one roll by more than
        three times the noise (a contact bent the path).
    """
    if len(time_s) < _ROLL_FIT_MIN:
        return None
    design = np.stack([np.ones_like(time_s), time_s, 0.5 * time_s**2], axis=1)
    params, *_ = np.linalg.lstsq(design, xy_mm, rcond=None)
    residual = xy_mm - design @ params
    rms = float(np.sqrt(np.mean(residual**2)))
    if rms > 3.0 * noise_mm:
        return None
    sigma = max(noise_mm, rms) * np.sqrt(np.diag(np.linalg.inv(design.T @ design)))
    velocity, acceleration = params[1], params[2]
    speed = float(np.linalg.norm(velocity))
    direction = velocity / max(speed, 1e-9)
    decel = -float(acceleration @ direction)
    return params[0], speed + 3.0 * float(sigma[1]), decel - 3.0 * float(sigma[2])


class DropExplainer(BlindHits):
    """Drops and what led to them, for `EventDetector` (which defines the state used here)."""

    _jaw_tips: tuple[FloatArray, tuple[str, ...]]
    _seen_frame: NDArray[np.int64]
    _seen_time: FloatArray
    _seen_xy: FloatArray
    _displaced: NDArray[np.bool_]
    _displaced_at: NDArray[np.int64]
    _last_time: float | None
    _anchor_at_strike: FloatArray
    _last_strike_s: float

    @property
    def _noise_mm(self) -> float:
        raise NotImplementedError

    @property
    def _rail_touch_mm(self) -> float:
        raise NotImplementedError

    def _cushion_event(self, ball: int, cushion: str, t_contact: float) -> Event | None:
        raise NotImplementedError

    def _cushion_contact(self, ball: int, side: int, before: Path, t_kink: float) -> Event | None:
        raise NotImplementedError

    def _removals(self, trackset: TrackSet) -> list[Event]:
        events = []
        kinds = {
            TrackStatus.POCKETED: EventKind.BALL_POCKET,
            TrackStatus.OFF_TABLE: EventKind.BALL_OFF_TABLE,
        }
        for ball, status in zip(trackset.ball, trackset.status, strict=True):
            if status not in kinds:
                continue
            hit = self._hit_into_pocket(int(ball))
            dropped = status == TrackStatus.POCKETED
            if dropped and not self._could_drop(int(ball), bool(hit)):
                continue  # it stopped short of the hole, or it was another ball all along
            if not hit and self.config.blind_hits:
                hit = self._blind_hit(int(ball))
            events += hit
            climbed = dropped and self.config.climbed_off_table and self._on_rail(int(ball))
            dropped &= not climbed
            if dropped:
                events += self._last_cushion_before_drop(int(ball)) or self._jaw_rub(int(ball))
            time_s = self._left_bed_s(int(ball), dropped)
            xy = (float(self._seen_xy[ball, 0]), float(self._seen_xy[ball, 1]))
            pocket = str(nearest_pocket(self.table, xy)) if dropped else None
            kind = EventKind.BALL_OFF_TABLE if climbed else kinds[status]
            events.append(Event(self._frame_of(time_s), time_s, kind, (int(ball),), pocket=pocket))
        return events

    def _on_rail(self, ball: int) -> bool:
        """Whether ``ball``, given up as pocketed, was last seen on a cushion: its centre
        beyond the line where a ball on the bed touches that cushion by more than the
        touching slack (`_rail_touch_mm`), where the cushion runs (not in a pocket's
        opening). No ball on the bed lies there: it was climbing the rail beside the mouth,
        and left the table over it (a 8 ft corner view's 2, driven at the foot rail 90 mm
        short of the corner pocket's jaw, seen 13.5 mm into the cushion, was called
        pocketed there)."""
        xy = self._seen_xy[ball]
        gaps = contacts.inside_distances_mm(self.table, xy) - self.table.ball_radius_mm
        side = int(np.argmin(gaps))
        into = -float(gaps[side])
        return into > self._rail_touch_mm and not contacts.in_rail_opening(self.table, xy, side)

    def _could_drop(self, ball: int, hit: bool) -> bool:
        """Whether a ball the tracker gave up as pocketed (lost in a pocket's mouth and never
        found) can have dropped. Not when, on the frame after its last sighting, another
        ball was seen within a radius of where it would have been: two balls are never that
        close, so the detector gave that ball another name and the lost one was it. Nor,
        unless a ball hit it as it vanished (``hit``), when it was rolling too slowly to reach
        the hole (`jaws.hole_gap_mm`) before it stopped: a ball at rest on the lip, in the
        dark of the jaws, is lost from sight as well (`_stops_short`)."""
        at_seen, velocity, _ = self._exit_path(ball)
        if self._seen_elsewhere(ball, at_seen, velocity) or self._ghost(ball):
            return False
        return hit or not self._stops_short(ball)

    def _ghost(self, ball: int) -> bool:
        """Whether ``ball``'s track was never a ball: it was not in play at its shot's strike
        (no rest position then: it first appeared during the shot) and its sightings since
        the strike went back and forth over a stretch of cloth (`tracking.ghosts.ghost_path`)
        the way a false detection on a player's arm moves with the arm. A ball of the table
        found only during the shot (one never tracked in the rack, sent into a pocket on the
        break) rolls one way, or turns off a cushion (or a ball)."""
        if not self._in_shot or np.isfinite(self._anchor_at_strike[ball, 0]):
            return False
        count = self._history.count
        times, frame, xy = self._history.window(count - self._history.capacity, count)
        rows = true_indices(
            (frame <= self._seen_frame[ball])
            & (times >= self._last_strike_s)
            & np.isfinite(xy[:, ball, 0])
        )
        return ghost_path(self.table, xy[rows, ball], self._noise_mm)

    def _seen_elsewhere(self, ball: int, at_seen: FloatArray, velocity: FloatArray) -> bool:
        """Whether another ball was seen, on the frame after ``ball``'s last sighting, within
        a radius of where ``ball`` would have been then, and on the frames after that as long
        as it takes to find a lost ball (`EventConfig.lost_found_s`): two balls are never
        that close, so the two names were one ball, and it stayed on the table. (A track
        that took the dropping ball's detections for a frame or two, and was lost with it
        in the pocket mouth, says nothing against the drop.)"""
        count = self._history.count
        times, frame, xy = self._history.window(count - self._history.capacity, count)
        after = true_indices(frame > self._seen_frame[ball])
        if not len(after):
            return False
        row = int(after[0])
        there = at_seen + velocity * (float(times[row]) - float(self._seen_time[ball]))
        gaps = np.linalg.norm(xy[row] - there, axis=1)
        gaps[ball] = np.inf
        other = int(np.argmin(np.nan_to_num(gaps, nan=np.inf)))
        if not gaps[other] < self.table.ball_radius_mm:
            return False
        found = max(3, math.ceil(self.config.lost_found_s / self._dt - 1e-9))
        stayed = xy[row : row + found, other, 0]
        return len(stayed) == found and bool(np.isfinite(stayed).all())

    def _stops_short(self, ball: int) -> bool:
        """Whether ``ball``, rolling freely over its last sightings, stopped before the hole
        of the pocket it was lost at: its stopping distance, from a constant deceleration
        fitted to those sightings (`_roll_fit`; no gentler than the configured rolling
        deceleration), its speed and deceleration both given three standard deviations
        of the benefit, falls short of the hole by more than the position noise. False when
        the sightings do not fit one free roll (a contact, a jaw)."""
        count = self._history.count
        first = max(self._start_count.get(ball, 0), count - self._history.capacity)
        times, frame, xy = self._history.window(first, count)
        seen_s = float(self._seen_time[ball])
        keep = true_indices(
            (frame <= self._seen_frame[ball])
            & (times >= seen_s - _ROLL_FIT_S)
            & np.isfinite(xy[:, ball, 0])
        )
        roll = _roll_fit(times[keep] - seen_s, xy[keep, ball], self._noise_mm)
        if roll is None:
            return False
        at_seen, speed, decel = roll
        decel = max(decel, self.config.rolling_deceleration_mm_s2)
        stop_mm = speed**2 / (2.0 * decel)
        xy_seen = (float(self._seen_xy[ball, 0]), float(self._seen_xy[ball, 1]))
        pocket = self.table.pocket_xy_mm(nearest_pocket(self.table, xy_seen))
        gap = jaws.hole_gap_mm(self.table, at_seen, pocket)
        return gap > stop_mm + 3.0 * self._noise_mm

    def _exit_path(self, ball: int) -> tuple[FloatArray, FloatArray, int]:
        """Where ``ball`` was at its last sighting (2,) mm and its velocity then (2,) mm/s,
        from a line fitted over its last sightings since it started, and how many sightings
        that fit used (under two: its last sighting, at rest)."""
        count = self._history.count
        times, frame, xy = self._history.window(self._start_count.get(ball, 0), count)
        keep = true_indices(frame <= self._seen_frame[ball])[-(self._fit_frames + 1) :]
        keep = self._off_its_spot(keep, xy[:, ball], ball)
        t_ref, p, v, n = fit_lines(times[keep], xy[keep][:, [ball]])
        if n[0] < 2:
            return self._seen_xy[ball].copy(), np.zeros(2), int(n[0])
        at_seen = p[0] + v[0] * (float(self._seen_time[ball]) - float(t_ref[0]))
        return at_seen, v[0], int(n[0])

    def _off_its_spot(
        self, rows: NDArray[np.int64], xy: FloatArray, ball: int
    ) -> NDArray[np.int64]:
        """``rows`` (K,) of ``ball``'s last sightings (``xy``, (F, 2) mm), or only its last
        two when it was struck from rest and lost after one sighting in motion (the
        sightings before lie within its start distance, the last beyond it): fitted over its
        rest, its speed would come out a fraction of what it was; from its spot it is at
        least as fast as that one step."""
        seen = rows[np.isfinite(xy[rows, 0])]
        if len(seen) < 3:
            return rows
        reach = float(self._start_distance_mm[ball])
        step = float(np.linalg.norm(xy[seen[-1]] - xy[seen[-2]]))
        spread = float(np.max(np.linalg.norm(xy[seen[:-1]] - xy[seen[-2]], axis=1)))
        return seen[-2:] if step > reach and spread <= reach else rows

    def _left_bed_s(self, ball: int, dropped: bool) -> float:
        """When a ball the tracker now calls pocketed (``dropped``) or off the table left
        the bed: where its path from its last sightings since it started reaches a pocket's
        hole (`geometry.drop_crossing_s`; the detector often loses a dropping ball a few
        frames before, in the dark of the pocket mouth) or, off the table or meeting no
        hole, a cushion line; no sooner than a frame after it was last seen, no later than
        now, and within `_CROSSING_HORIZON_S` of that sighting; a frame after it was last
        seen when its path since the start is unknown or slow."""
        assert self._last_time is not None
        seen_s = float(self._seen_time[ball])
        before_jaws = self._pre_jaw_crossing_s(ball) if dropped else None
        if before_jaws is not None:
            return min(max(before_jaws, seen_s + self._dt), self._last_time)
        at_seen, velocity, n = self._exit_path(ball)
        crossing = seen_s + self._dt
        if n >= 2 and float(np.linalg.norm(velocity)) >= self.config.start_min_speed_mm_s:
            ahead = drop_crossing_s(self.table, at_seen, velocity) if dropped else math.inf
            if not math.isfinite(ahead):
                ahead = line_crossing_s(self.table, at_seen, velocity)
            ahead = min(ahead, _CROSSING_HORIZON_S)
            crossing = max(crossing, seen_s + ahead)
        return min(crossing, self._last_time)

    def _pre_jaw_crossing_s(self, ball: int) -> float | None:
        """When a ball last seen in a pocket's jaws (`jaws.in_jaws`) reached the hole along
        its path before it entered them: the detector's centres of a ball in the jaws lag
        behind it (a jaw hides part of it), so its last steps there look slower than they
        were (a half-hidden ball's centroid, 0.42 radii off). None when it was last seen
        outside the jaws, with under two sightings before them since it started, when a
        sighting in the jaws fell further off that path (it truly slowed there, rubbing a
        jaw: fresh s3_top's 4 took 21 frames more to the hole), or when that path
        reached the hole before the ball was last seen (it rattled in the jaws) or only
        later than `_CROSSING_HORIZON_S` after."""
        count = self._history.count
        times, frame, xy = self._history.window(self._start_count.get(ball, 0), count)
        rows = true_indices((frame <= self._seen_frame[ball]) & np.isfinite(xy[:, ball, 0]))
        inside = jaws.in_jaws(self.table, xy[rows, ball])
        if not len(rows) or not inside[-1]:
            return None
        outside = true_indices(~inside)
        before = rows[outside[-(self._fit_frames + 1) :]] if len(outside) else rows[:0]
        if len(before) < 2:
            return None
        t_ref, p, v, _ = fit_lines(times[before], xy[before][:, [ball]])
        after = rows[rows > before[-1]]
        ahead = p[0] + v[0] * (times[after, None] - float(t_ref[0])) - xy[after, ball]
        # The centroid of a ball half hidden lies 4 r / (3 pi) off its centre.
        hidden = 4.0 * self.table.ball_radius_mm / (3.0 * math.pi) + 2.0 * self._noise_mm
        if float(np.max(np.linalg.norm(ahead, axis=1))) > hidden:
            return None  # it slowed in the jaws (rubbing one) by more than a jaw can hide
        t_out = float(times[before[-1]])
        at = p[0] + v[0] * (t_out - float(t_ref[0]))
        crossing = t_out + drop_crossing_s(self.table, at, v[0])
        seen_s = float(self._seen_time[ball])
        if not seen_s < crossing <= seen_s + _CROSSING_HORIZON_S:
            return None
        return crossing

    def _hit_into_pocket(self, ball: int) -> list[Event]:
        """The contact that sent a resting ball (one on a pocket lip) away before it had
        been seen moving long enough to start: it left the table within a frame or two."""
        if not self._in_shot or self._moving[ball] or not np.isfinite(self._anchor[ball, 0]):
            return []
        if any(b == ball for b, _ in self._pending_starts):
            return []
        count = self._history.count
        detected = int(self._displaced_at[ball]) if self._displaced[ball] else count - 1
        seen_s = float(self._seen_time[ball])
        left_s = float(self._start_floor[ball]) if self._displaced[ball] else seen_s
        t_start = left_s + 0.5 * self._dt
        touches = self._find_touchers(ball, detected, t_start, self._fit_frames)
        touches = touches or self._find_touchers(ball, detected, t_start, 2)
        return [
            Event(self._frame_of(t), t, EventKind.BALL_BALL, (a, b), confidence=conf)
            for a, b, t, conf in touches
            if self._remember(frozenset((a, b)), t)
        ]

    def _until_last_seen(self, ball: int, frames: int) -> tuple[FloatArray, FloatArray]:
        """The last ``frames`` frames of history up to ``ball``'s last sighting: times (K,) and
        every ball's centres (K, 11, 2). A ball lost from sight (motion blur) is often
        declared dropped many frames after it was last seen."""
        count = self._history.count
        times, frame, xy = self._history.window(count - self._history.capacity, count)
        keep = true_indices(frame <= self._seen_frame[ball])[-frames:]
        return times[keep], xy[keep]

    def _jaw_rub(self, ball: int) -> list[Event]:
        """A corner jaw the dropping ball was pressed against (`jaws.jaw_rub`)."""
        times, xy = self._until_last_seen(ball, 3 * self._fit_frames)
        xy_seen = (float(self._seen_xy[ball, 0]), float(self._seen_xy[ball, 1]))
        pocket = self.table.pocket_xy_mm(nearest_pocket(self.table, xy_seen))
        rub = jaws.jaw_rub(self.table, xy[:, ball], pocket)
        if rub is None:
            return []
        event = self._cushion_event(ball, rub[0], float(times[rub[1]]))
        return [] if event is None else [replace(event, confidence=0.7)]

    def _last_cushion_before_drop(self, ball: int) -> list[Event]:
        """A jaw or cushion hit just before a drop, too late for the usual after-window."""
        times, xy = self._until_last_seen(ball, 3 * self._fit_frames)
        seen = true_indices(np.isfinite(xy[:, ball, 0]))
        best: tuple[float, int] = (0.0, -1)
        for split in range(2, len(seen) - 1):
            before = fit_lines(times[seen[:split]], xy[seen[:split], ball][:, None])
            after = fit_lines(times[seen[split:]], xy[seen[split:], ball][:, None])
            change = float(np.linalg.norm(after[2][0] - before[2][0]))
            best = max(best, (change, split))
        if best[1] < 0:
            return []
        split = best[1]
        before = fit_lines(times[seen[:split]], xy[seen[:split], ball][:, None])
        after = fit_lines(times[seen[split:]], xy[seen[split:], ball][:, None])
        speed = max(float(np.linalg.norm(before[2][0])), float(np.linalg.norm(after[2][0])))
        threshold = (
            self.config.kink_min_speed_change_mm_s + self.config.kink_relative_speed_change * speed
        )
        if best[0] < threshold + 2.5 * self._kink_noise_mm_s(2):
            return []
        path_b: Path = (float(before[0][0]), before[1][0], before[2][0])
        t_kink = contacts.line_intersection_time(
            path_b, (float(after[0][0]), after[1][0], after[2][0])
        )
        if t_kink is None:
            return []
        at = path_b[1] + path_b[2] * (t_kink - path_b[0])
        reach = self.table.ball_radius_mm + self.config.cushion_tolerance_mm
        velocities = (before[2][0], after[2][0])
        side, fit = contacts.cushion_score(self.table, at, velocities, reach)
        jaw, jaw_fit = jaws.jaw_score(self._jaw_tips, at, velocities, reach)
        if max(fit, jaw_fit) < self.config.explain_min_cosine:
            return []
        if jaw is not None and jaw_fit > fit:
            event = self._cushion_event(ball, jaw, t_kink)
        else:
            event = self._cushion_contact(ball, side, path_b, t_kink)
        return [] if event is None else [event]
