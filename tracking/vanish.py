"""Balls that vanish: the part of `EventDetector` that notes each ball lost from sight and,
when the shot ends, reports where the ones never found again went (`tracking.lost`).

A rolling ball's velocity as it vanished comes from its last sightings. A resting ball that
vanishes as a moving ball reaches it was hit: it left along the line of centres at the
striker's speed along that line (equal masses), and the contact itself is reported (with a
low confidence) unless the paths already gave it. `VanishWatcher` is a mixin:
`tracking.events.EventDetector` holds the state.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from tracking import contacts
from tracking.accounting import gone_fate, reachable_pockets, rest_segment
from tracking.drops import DropExplainer
from tracking.fastnp import true_indices
from tracking.geometry import segment_point_distance_mm
from tracking.history import FloatArray
from tracking.kisses import KISS_TOP_SPEED_MM_S
from tracking.lost import Fate, Loss, LossBook, fate, median_velocity, taken_over
from tracking.types import Event, EventKind, TrackSet

_STRUCK_CONFIDENCE = 0.6
"""How sure a contact (and the struck ball's velocity) inferred from a ball vanishing as a
moving ball reached it is: nothing of the struck ball was seen after it."""

_COVER_DIAMETERS = 1.5
"""A ball seen at the shot's end this many diameters from where a lost ball can lie may
hide it, or be seen merged with it (two balls near touching look like one to a detector)."""
_OVER_DIAMETERS = 0.75
"""A ball seen this many diameters from where a ball was lost at rest overlaps that spot:
the lost ball is under it, or is it under another name."""

_VIEW_TABLE_FRACTION = 0.25
"""A ball hidden at rest blocks the view this far around it (a fraction of the table's
length: a player leaning over the table hides a stretch of it, not a spot)."""

_APPROACH_MARGIN = 2.0
"""How much faster than the fastest ball seen coming near a ball lost at rest that ball can
have been sent off: the filtered speed of a ball just struck, or just off a contact, lags
its true speed."""

_BLUR_S = 0.25
"""A ball that vanished this recently and is still unseen may be a fast ball in its own
blur: a resting ball lost meanwhile may have been hit by it."""


class VanishWatcher(DropExplainer):
    """Lost balls for `EventDetector` (which defines the state used here)."""

    _losses: LossBook
    _shot_strike_s: float = -math.inf
    _last_frame: int
    _vanish_contacts: list[tuple[int, int, int, float, float]]
    _velocity: FloatArray
    _anchor_at_strike: FloatArray

    def _watch_losses(self, trackset: TrackSet) -> list[Event]:
        """Note the balls lost on this frame; report the contacts due that vanishing showed."""
        found = max(3, math.ceil(self.config.lost_found_s / self._dt - 1e-9))
        lost = self._losses.observe(trackset, found)
        self._note_approaches()
        if not len(lost):
            return self._due_vanish_contacts()
        others = self._positions()
        count = self._history.count
        times, _, xy = self._history.window(count - 1, count)
        reach = self.table.ball_diameter_mm + self.config.ball_contact_tolerance_mm
        for ball in lost:
            loss = self._departure(int(ball))
            if self._ghost(int(ball)):
                self._losses.ghosts.add(int(ball))
            if taken_over(loss, float(times[0]), xy[0], reach):
                self._losses.add(replace(loss, taken_over=True), None)
            else:
                self._losses.add(loss, fate(self.table, loss, others, self.config))
            self._losses.blurred[int(ball)] = self._unseen_movers(int(ball))
        return self._due_vanish_contacts()

    def _unseen_movers(self, ball: int) -> list[tuple[int, FloatArray]]:
        """(ball, where last seen) of the other balls unseen as ``ball`` is lost that
        vanished within `_BLUR_S`: a fast ball lost in its own blur (a cue ball struck hard
        vanishes at once) may have hit ``ball`` out of sight; one found again far from
        there did move (`_hit_unseen`)."""
        assert self._last_time is not None
        unseen = self._alive & (self._seen_frame != self._last_frame)
        unseen &= self._seen_time >= self._last_time - _BLUR_S
        unseen[ball] = False
        return [(int(other), self._seen_xy[other].copy()) for other in true_indices(unseen)]

    def _hit_unseen(self, ball: int) -> bool:
        """Whether a ball that vanished as ``ball`` was lost is seen now more than two
        diameters from where it vanished: it moved while unseen, and may have hit ``ball``."""
        seen = self._seen_frame == self._last_frame
        far = 2.0 * self.table.ball_diameter_mm
        return any(
            bool(seen[other]) and float(np.linalg.norm(self._seen_xy[other] - spot)) > far
            for other, spot in self._losses.blurred.get(ball, [])
        )

    def _note_approaches(self) -> None:
        """Mark the balls lost at rest that a ball seen moving came within touching reach of
        (a diameter and the contact tolerance) between its last two sightings: it may have
        hit them out of sight (a rack's neighbours, moving off at once;
        `LossBook.approached`)."""
        waiting = self._losses.resting()
        count = self._history.count
        if not waiting or count < 2:
            return
        _, _, xy = self._history.window(count - 2, count)
        speed = np.hypot(self._velocity[:, 0], self._velocity[:, 1])
        movers = np.isfinite(xy[0, :, 0]) & np.isfinite(xy[1, :, 0])
        movers &= self._alive & (speed >= self.config.start_min_speed_mm_s)
        if not movers.any():
            return
        reach = self.table.ball_diameter_mm + self.config.ball_contact_tolerance_mm
        for loss in waiting:
            moving = movers.copy()
            moving[loss.ball] = False
            gaps = segment_point_distance_mm(xy[0, moving], xy[1, moving], loss.xy_mm[None])
            near = gaps[:, 0] <= reach
            if bool(np.any(near)):
                self._losses.approached.add(loss.ball)
                fastest = float(np.max(speed[moving][near]))
                known = self._losses.approach_speed.get(loss.ball, 0.0)
                self._losses.approach_speed[loss.ball] = max(known, fastest)

    def _positions(self) -> FloatArray:
        """(11, 2) where each ball in play is now: its rest position, else its last sighting."""
        resting = ~self._moving & np.isfinite(self._anchor[:, 0])
        where = np.where(resting[:, None], self._anchor, self._seen_xy)
        result: FloatArray = np.where(self._alive[:, None], where, np.nan)
        return result

    def _departure(self, ball: int) -> Loss:
        """How ``ball`` was moving as it vanished (hidden at rest: not at all)."""
        seen_s = float(self._seen_time[ball])
        if self._moving[ball]:
            velocity = self._departure_velocity(ball)
            return Loss(ball, seen_s, self._seen_xy[ball].copy(), velocity, 1.0)
        rest = self._anchor[ball] if np.isfinite(self._anchor[ball, 0]) else self._seen_xy[ball]
        struck = self._struck(ball, rest)
        if struck is None:
            return Loss(ball, seen_s, rest.copy(), np.zeros(2), 1.0)
        striker, t_contact, velocity = struck
        due = self._history.count + self._fit_frames + 2  # after the paths' own verdict
        self._vanish_contacts.append((due, striker, ball, t_contact, seen_s))
        leaving = self._seen_leaving(ball, rest, float(np.linalg.norm(velocity)))
        if leaving is not None:
            return Loss(ball, seen_s, self._seen_xy[ball].copy(), leaving, 1.0, striker)
        return Loss(ball, t_contact, rest.copy(), velocity, _STRUCK_CONFIDENCE, striker)

    def _seen_leaving(self, ball: int, rest: FloatArray, struck_mm_s: float) -> FloatArray | None:
        """(2,) mm/s: the velocity of a ball hit from rest at ``rest`` and caught once on its
        way before it vanished (seen displaced, not yet started), when that sighting proves
        the striker's speed along the line of centres (``struck_mm_s``) too slow: along the
        way from its spot to the sighting, as fast as that way takes since its last sighting
        at rest (a lower bound: it left later, and cloth only slows it). The speed of a
        striker that had itself just started, fitted over a sighting at its own rest spot,
        falls short (a 30 fps top view: the 7, sent over the rail at 2.6 m/s by the 2 three
        frames after the cue ball hit the 2, was given a cushion too soft to leave over and,
        gone at the shot's end, put in the nearest pocket). None otherwise, or when it was
        not seen off its spot."""
        if not self._displaced[ball]:
            return None
        way = self._seen_xy[ball] - rest
        distance = float(np.linalg.norm(way))
        took_s = float(self._seen_time[ball]) - float(self._start_floor[ball])
        if distance <= float(self._start_distance_mm[ball]) or took_s <= 0.0:
            return None
        if distance / took_s <= struck_mm_s:
            return None  # the striker's speed may be right: its line of centres is kept
        leaving: FloatArray = way / took_s
        return leaving

    def _departure_velocity(self, ball: int) -> FloatArray:
        """(2,) mm/s: a moving ball's velocity as it vanished, over its last frames but not
        back into its rest before a recent start (`lost.median_velocity`: one stray
        sighting does not count); with under three sightings since its start, one frame
        from before it too (a start is found a frame or two late: with two sightings, one
        stray one is the whole fit); its filtered velocity with under two."""
        count = self._history.count
        start = self._start_count.get(ball, 0)
        first = max(count - self._fit_frames - 1, start)
        times, _, xy = self._history.window(first, count)
        if int(np.isfinite(xy[:, ball, 0]).sum()) < 3 and first == start > 0:
            times, _, xy = self._history.window(first - 1, count)
        velocity, n = median_velocity(times, xy[:, ball])
        return velocity if n >= 2 else self._velocity[ball].copy()

    def _struck(self, ball: int, rest: FloatArray) -> tuple[int, float, FloatArray] | None:
        """(striker, contact time, velocity given to ``ball``) when a moving ball's path
        reached ``ball``'s rest position by now: equal masses, so ``ball`` left along the line
        of centres at the striker's speed along it. The striker's path runs through its last
        two sightings before ``ball`` was last seen, or, when it was itself unseen since
        (both balls blurred by their speed), from its last sighting before to its first
        after (it was found where it had struck ``ball``)."""
        count = self._history.count
        times, _, xy = self._history.window(count - self._history.capacity, count)
        recent = len(times) - 2 * self._fit_frames - 1
        seen_s = float(self._seen_time[ball])
        best: tuple[int, float, FloatArray] | None = None
        best_speed = self.config.strike_min_speed_mm_s
        for other in true_indices(self._alive):
            rows = true_indices(np.isfinite(xy[:, other, 0]))
            before = rows[times[rows] <= seen_s + 1e-9]
            if other == ball or len(before) < 1:
                continue
            pairs = [(int(before[-2]), int(before[-1]))] if len(before) >= 2 else []
            pairs = [pair for pair in pairs if pair[0] >= recent]
            after = rows[times[rows] > seen_s + 1e-9]
            if len(after) and after[0] > before[-1] + 1 and after[0] >= recent:
                pairs.append((int(before[-1]), int(after[0])))
            for first, last in pairs:
                v_in = (xy[last, other] - xy[first, other]) / (times[last] - times[first])
                if float(np.hypot(*v_in)) > KISS_TOP_SPEED_MM_S:
                    continue  # a track jumping between detections (a ghost), not a ball
                strike = self._strike_along((float(times[last]), xy[last, other], v_in), rest)
                if strike is not None and strike[1] > best_speed:
                    best_speed = strike[1]
                    best = (int(other), strike[0], strike[1] * strike[2])
        return best

    def _strike_along(
        self, path: tuple[float, FloatArray, FloatArray], rest: FloatArray
    ) -> tuple[float, float, FloatArray] | None:
        """(contact time, speed along the line of centres, that line (2,)) when the straight
        ``path`` (time, position, velocity of a moving ball) reached a ball resting at
        ``rest`` no sooner than a frame and a half before its sighting and by now."""
        seen_s = path[0]
        still = (seen_s, rest, np.zeros(2))
        diameter = self.table.ball_diameter_mm
        near = contacts.touch_time(path, still, diameter + self.config.ball_contact_tolerance_mm)
        assert self._last_time is not None
        if near is None or not seen_s - 1.5 * self._dt <= near <= self._last_time:
            return None
        touch = contacts.touch_time(path, still, diameter)
        t_contact = near if touch is None else touch
        gap = rest - (path[1] + path[2] * (t_contact - seen_s))
        normal = gap / max(float(np.linalg.norm(gap)), 1e-9)
        return t_contact, float(path[2] @ normal), normal

    def _due_vanish_contacts(self) -> list[Event]:
        """The contacts of balls that vanished as they were hit and are still unseen."""
        if not self._vanish_contacts:
            return []
        count = self._history.count
        due = [c for c in self._vanish_contacts if c[0] <= count]
        self._vanish_contacts = [c for c in self._vanish_contacts if c[0] > count]
        events = []
        for _, striker, ball, t_contact, lost_s in due:
            # Seen again since it was lost: its own start (or nothing) explains it. (Its last
            # sighting before may already show it leaving: after the contact.)
            if ball not in self._losses.losses or self._seen_time[ball] > lost_s:
                continue
            if self._remember(frozenset((striker, ball)), t_contact):
                frame = self._frame_of(t_contact)
                events.append(
                    Event(
                        frame,
                        t_contact,
                        EventKind.BALL_BALL,
                        (striker, ball),
                        confidence=_STRUCK_CONFIDENCE,
                    )
                )
        return events

    def _hidden_rolling(self, now_s: float) -> bool:
        """Whether a ball lost from sight while rolling (`LossBook`), not found since, may
        still roll where the camera cannot see it (a player's body over it, a dim corner):
        its path told no fate (no pocket, no leap over a cushion) and, slowing at the
        gentlest rolling deceleration, it would not have stopped yet, nor has
        `EventConfig.hidden_roll_max_s` passed since it was lost. The tracker gives up
        coasting a hidden ball within a moment; the shot must not end under it (a ball seen
        rolling again in a shot taken for over is a new stroke, or a foul)."""
        decel = self.config.rolling_deceleration_mm_s2
        for loss, where in self._losses.losses.values():
            speed = float(np.hypot(*loss.velocity_mm_s))
            rolling = speed >= self.config.start_min_speed_mm_s and not loss.taken_over
            if not rolling or where is not None or not self._alive[loss.ball]:
                continue
            if loss.ball in self._losses.ghosts:
                continue
            if now_s < loss.time_s + min(speed / decel, self.config.hidden_roll_max_s):
                return True
        return False

    def _resolve_losses(self, events: list[Event]) -> list[Event]:
        """At a shot end among ``events``: a removal for each ball lost (at least ``settle_s``
        before) and never found whose path led into a pocket or hard into a cushion (an
        inference, with its confidence)."""
        strike = next((e for e in events if e.kind == EventKind.STRIKE), None)
        if strike is not None:
            self._shot_strike_s = strike.time_s
        end = next((e for e in events if e.kind == EventKind.SHOT_END), None)
        if end is None:
            return []
        out = []
        ghosts = self._losses.ghosts
        hidden = [
            (loss.ball, loss.xy_mm) for loss in self._losses.resting() if loss.ball not in ghosts
        ]
        # A ball lost just now (a stroke ending the shot while balls roll) may yet be found.
        for loss, where in self._losses.take(end.time_s - self.config.settle_s):
            if loss.ball in self._losses.ghosts:
                continue  # a false detection's track, lost: nothing left the table
            if where is None and not self._in_view(loss, hidden):
                continue
            where = where or self._gone(loss, end.time_s)
            if where is None:
                continue
            self._losses.gone.add(loss.ball)
            time_s = min(where.time_s, end.time_s - 1e-6)
            out.append(
                Event(
                    self._frame_of(time_s),
                    time_s,
                    where.kind,
                    (loss.ball,),
                    pocket=where.pocket,
                    confidence=where.confidence,
                    reason=where.reason,
                )
            )
        return out

    def _gone(self, loss: Loss, end_s: float) -> Fate | None:
        """Where a ball lost in the shot now ending, whose path told nothing (`fate`), went:
        still unseen now, the table quiet for `EventConfig.settle_s`, it is gone
        (`accounting.gone_fate`). Not when it was lost before the shot's strike (`_BLUR_S`
        of slack), lost at rest
        with nothing near it moving since (hidden, not hit), or when a ball is seen now where
        it was lost at rest (it may lie hidden behind that one)."""
        ball = loss.ball
        if not self._alive[ball] or self._seen_time[ball] > end_s - self.config.settle_s:
            return None
        # A stroke found late (its cue ball lost in its blur) may follow its first losses.
        if loss.time_s < self._shot_strike_s - max(_BLUR_S, 2.0 * self._dt):
            return None
        moving = float(np.linalg.norm(loss.velocity_mm_s)) >= self.config.start_min_speed_mm_s
        hit = loss.struck_by is not None or ball in self._losses.approached
        if not moving and not hit and not self._hit_unseen(ball):
            return None
        if self._covered(loss) or self._too_slow_to_go(loss):
            return None
        # A ball it hit has moved on: where each rested at the strike, was seen last, is now.
        spots = np.concatenate([self._anchor_at_strike, self._seen_xy, self._positions()])
        spots[ball :: len(self._alive)] = np.nan
        return gone_fate(self.table, loss, self.config, not loss.taken_over, spots)

    def _too_slow_to_go(self, loss: Loss) -> bool:
        """Whether a ball lost at rest, known only to have had a ball come near it
        (`LossBook.approached`; not seen struck, no blurred ball found moved), was
        approached too slowly to have sent it into any pocket: no ball leaves a contact
        faster than the ball that hit it, so it rolled at most as far as
        `_APPROACH_MARGIN` times the approach's fastest speed carries a ball at the gentlest
        rolling deceleration (`accounting.reachable_pockets`). Such a ball was nudged, or
        not touched at all, and is hidden where it lay (a player's body over it)."""
        ball = loss.ball
        if np.any(loss.velocity_mm_s) or loss.struck_by is not None or self._hit_unseen(ball):
            return False
        speed = self._losses.approach_speed.get(ball)
        if speed is None:
            return False
        probe = replace(loss, velocity_mm_s=np.array([_APPROACH_MARGIN * speed, 0.0]))
        return not reachable_pockets(self.table, probe, self.config)

    def _in_view(self, loss: Loss, hidden: list[tuple[int, FloatArray]]) -> bool:
        """Whether the table where ``loss``'s ball can lie (`accounting.rest_segment`) is in
        view: no other ball lost there at rest, nothing moving near it, is still unseen
        (``hidden``: ball, where (2,) mm). Such a ball is behind something (a player's body,
        a cue); within `_VIEW_TABLE_FRACTION` of the table's length of it the lost ball may
        be hidden too, so its absence says nothing."""
        spots = [xy for ball, xy in hidden if ball != loss.ball]
        if not spots:
            return True
        start, end = rest_segment(self.table, loss, self.config)
        reach = _VIEW_TABLE_FRACTION * float(self.table.length_mm)
        gaps = segment_point_distance_mm(start[None], end[None], np.array(spots))
        return not bool(np.any(gaps <= reach))

    def _covered(self, loss: Loss) -> bool:
        """Whether another ball is seen now within `_COVER_DIAMETERS` of where
        ``loss``'s ball can lie if it stayed on the bed (`accounting.rest_segment`): it may
        be hidden behind that one, or seen merged with it; for a ball lost at rest, within
        `_OVER_DIAMETERS` of its spot (the ball that hit it may stop beside it)."""
        seen = (self._seen_frame == self._last_frame) & self._alive
        seen[loss.ball] = False
        if not seen.any():
            return False
        start, end = rest_segment(self.table, loss, self.config)
        at_rest = not np.any(loss.velocity_mm_s)
        reach = (_OVER_DIAMETERS if at_rest else _COVER_DIAMETERS) * self.table.ball_diameter_mm
        gaps = segment_point_distance_mm(start[None], end[None], self._seen_xy[seen])
        return bool(np.any(gaps <= reach))
