"""Shots and their facts: from a strike to the shot end, what the camera saw (rules.md §4).

`facts_from_events` (in `referee.shot_facts`, re-exported here) is the pure core: the facts
dict of one shot from its events alone (the eval tool and the synthetic truth writer reuse
it). `ShotSegmenter` cuts a live stream of events into shots, adds what only the tracks know
(balls on the table at the strike, balls moving at the strike, whether the shot was a
break, balls lost and never accounted for) and hands back `ShotRecord`s.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from referee.break_contact import BreakWatch
from referee.shot_facts import (
    CUE,
    DISTURBED_MIN_CONFIDENCE,
    SIMULTANEOUS_CONTACT_S,
    STRIKE_TIME_TOLERANCE_S,
    FactsDict,
    facts_from_events,
    facts_with_confidence,
)
from referee.shot_record import ShotConfig, ShotRecord
from tracking.types import Event, EventKind, TrackSet, TrackStatus
from vision.types import NUM_CLASSES

__all__ = [
    "CUE",
    "DISTURBED_MIN_CONFIDENCE",
    "SIMULTANEOUS_CONTACT_S",
    "STRIKE_TIME_TOLERANCE_S",
    "FactsDict",
    "ShotConfig",
    "ShotRecord",
    "ShotSegmenter",
    "facts_from_events",
    "facts_with_confidence",
]

LOST_AT_CONTACT_S = 0.05
"""A ball last seen this little before a contact it took part in vanished as it was hit."""

_STILL_SLACK_MM = 3.0
"""How much less than a ball at the moving speed would have gone a ball's centre may move
over the window before a strike and that ball still count as moving: two standard
deviations of a centre's noise (`EventConfig.position_noise_mm`, 1.5 mm)."""

_CUT_S = 1e-3
"""A shot end this little before a strike reported with it was cut short by that strike
(`tracking.disturbances`, `tracking.restrikes`: the end is put just before the strike)."""


@dataclass(slots=True)
class _OpenShot:
    strike: Event
    on_table: tuple[int, ...]
    is_break: bool
    moving: list[int]
    events: list[Event] = field(default_factory=list)
    watch: BreakWatch | None = None


@dataclass(slots=True)
class _HeldShot:
    """A shot cut short by the next strike, kept `ShotConfig.cut_hold_s` for events that
    happened before the cut but are reported after it."""

    shot: _OpenShot
    end: Event
    record: ShotRecord
    late: list[Event] = field(default_factory=list)


class ShotSegmenter:
    """Cut the event stream into shots (strike to shot end) and state their facts.

    Args:
        table: the table (foot spot for recognising a break).
        config: tunables.
    """

    def __init__(self, table: TableSpec, config: ShotConfig | None = None) -> None:
        self.table = table
        self.config = config or ShotConfig()
        self._history: deque[TrackSet] = deque()
        self._loose: deque[Event] = deque(maxlen=256)
        self._open: _OpenShot | None = None
        self._held: list[_HeldShot] = []
        self._removed: set[int] = set()
        self._count = 0
        self._seen_frame = np.full(NUM_CLASSES, -1, np.int64)
        self._seen_s = np.full(NUM_CLASSES, -np.inf)
        self._seen_speed = np.zeros(NUM_CLASSES)
        self._seen_run = np.zeros(NUM_CLASSES, np.int64)
        self._run = np.zeros(NUM_CLASSES, np.int64)

    @property
    def open_shot_strike(self) -> Event | None:
        """The strike of the shot in progress, if any."""
        return None if self._open is None else self._open.strike

    def update(self, events: Iterable[Event], trackset: TrackSet) -> list[ShotRecord]:
        """Take one frame's new events and tracks; return the shots that ended."""
        self._remember(trackset)
        self._cancel_false_drops(trackset)
        if self._open is None:
            self._back_on_table(trackset)
        if self._open is not None and self._open.watch is not None:
            self._open.watch.see(trackset)
        records = self._take_all(events)
        due = [h for h in self._held if trackset.time_s >= h.end.time_s + self.config.cut_hold_s]
        return records + self._hand_on(len(due))

    def finish(self, events: Iterable[Event]) -> list[ShotRecord]:
        """Take events with no new tracks (those of the end of the input,
        `EventDetector.finish`, or of a frame whose tracks were taken); return the shots
        they end, and every cut shot still held (no more events can come for it)."""
        records = self._take_all(events)
        return records + self._hand_on(len(self._held))

    def _take_all(self, events: Iterable[Event]) -> list[ShotRecord]:
        ordered = sorted(events, key=lambda e: e.time_s)
        strikes = [e.time_s for e in ordered if e.kind == EventKind.STRIKE]
        records: list[ShotRecord] = []
        for event in ordered:
            # A shot end just before a strike in the same batch: the strike cut the shot.
            cut = event.kind == EventKind.SHOT_END and any(
                0.0 <= t - event.time_s <= _CUT_S for t in strikes
            )
            records += self._take(event, cut)
        return records

    def _back_on_table(self, trackset: TrackSet) -> None:
        """Balls removed by an earlier shot that are seen on the bed again (a spotted 10)."""
        if self._removed and len(trackset):
            seen = trackset.ball[trackset.status == TrackStatus.ON_TABLE]
            self._removed -= {int(b) for b in seen}

    def _cancel_false_drops(self, trackset: TrackSet) -> None:
        """Drop the removal events of balls seen back on the bed, away from every pocket:
        a ball lost near a pocket and called pocketed that rolls on was not pocketed."""
        shot = self._open
        if shot is None or not len(trackset):
            return
        removed = {e.balls[0] for e in shot.events if e.kind.removes_ball()}
        if not removed:
            return
        pockets = self.table.pockets_xy_mm()
        clear = self.table.corner_mouth_mm + self.table.ball_diameter_mm
        for ball, xy, status in zip(trackset.ball, trackset.xy_mm, trackset.status, strict=True):
            far = float(np.min(np.linalg.norm(pockets - xy, axis=1))) > clear
            if int(ball) in removed and status == TrackStatus.ON_TABLE and far:
                shot.events = [
                    e for e in shot.events if not (e.kind.removes_ball() and e.balls[0] == ball)
                ]

    def _remember(self, trackset: TrackSet) -> None:
        visible = trackset.status == TrackStatus.ON_TABLE
        balls = trackset.ball[visible]
        seen = np.zeros(NUM_CLASSES, bool)
        seen[balls] = True
        self._run = np.where(seen, self._run + 1, 0)
        self._seen_run[balls] = self._run[balls]
        self._seen_frame[balls] = trackset.frame
        self._seen_s[balls] = trackset.time_s
        self._seen_speed[balls] = np.linalg.norm(trackset.velocity_mm_s[visible], axis=1)
        self._history.append(trackset)
        while self._history and trackset.time_s - self._history[0].time_s > self.config.history_s:
            self._history.popleft()

    def _take(self, event: Event, cut: bool = False) -> list[ShotRecord]:
        if event.kind == EventKind.STRIKE and self._open is None:
            self._open = self._start(event)
            return []
        held = self._held_for(event)
        if held is not None:
            held.late.append(event)
            return []
        if self._open is None:
            self._loose.append(event)
            return []
        if event.kind == EventKind.SHOT_END:
            return self._finish(event, cut)
        self._open.events.append(event)
        return []

    def _held_for(self, event: Event) -> _HeldShot | None:
        """The cut shot an event reported late belongs to: it happened before that shot's
        end (a ball that dropped just before the next strike). A disturbance before a
        strike is the next shot's (rules.md F6), and strikes and ends make their own."""
        if event.kind in (EventKind.STRIKE, EventKind.SHOT_END, EventKind.BALL_DISTURBED):
            return None
        for held in reversed(self._held):
            early = held.shot.strike.time_s - STRIKE_TIME_TOLERANCE_S
            if early <= event.time_s < held.end.time_s:
                return held
        return None

    def _hand_on(self, count: int) -> list[ShotRecord]:
        """The first ``count`` held cut shots, their records redone with the events that
        came late; the balls those removed are no longer on the table for the open shot
        (nor moving at its strike)."""
        out = []
        for held in self._held[:count]:
            if not held.late:
                out.append(held.record)
                continue
            shot = held.shot
            shot.events += held.late
            removed = {e.balls[0] for e in held.late if e.kind.removes_ball()}
            self._removed |= removed
            facts, confidence = self._facts(shot)
            out.append(
                replace(
                    held.record,
                    events=(*sorted(shot.events, key=lambda e: e.time_s), held.end),
                    facts=facts,
                    fact_confidence=confidence,
                    unaccounted=tuple(u for u in held.record.unaccounted if u[0] not in removed),
                )
            )
            if self._open is not None:
                self._open.on_table = tuple(b for b in self._open.on_table if b not in removed)
                self._open.moving = [b for b in self._open.moving if b not in removed]
        del self._held[:count]
        return out

    def _tracks_before(self, frame: int) -> TrackSet:
        earlier = [t for t in self._history if t.frame < frame]
        if earlier:
            return earlier[-1]
        return self._history[0] if self._history else TrackSet.empty(frame)

    def _start(self, strike: Event) -> _OpenShot:
        tracks = self._tracks_before(strike.frame)
        in_play = (tracks.status == TrackStatus.ON_TABLE) | (tracks.status == TrackStatus.OCCLUDED)
        # A ball an earlier shot removed (by inference) may still be tracked as hidden.
        on_table = tuple(
            sorted(int(b) for b in tracks.ball[in_play] if b != CUE and b not in self._removed)
        )
        fast = in_play & self._moving_before(strike, tracks) & (tracks.ball != CUE)
        is_break = self._is_break(tracks, in_play)
        if is_break:
            on_table = tuple(range(1, 11))  # a rack holds all ten, seen or not
        shot = _OpenShot(strike, on_table, is_break, sorted(int(b) for b in tracks.ball[fast]))
        early = strike.time_s - STRIKE_TIME_TOLERANCE_S
        shot.events = [
            strike,
            *(e for e in self._loose if e.time_s >= early or e.kind == EventKind.BALL_DISTURBED),
        ]
        self._loose.clear()
        if self.config.break_way_check:
            extent = self.config.rack_extent_mm
            shot.watch = BreakWatch.at_strike(strike, tracks, self.table, extent)
        if shot.watch is not None:  # the frames since the strike, seen before its event came
            for later in (t for t in self._history if t.frame >= strike.frame):
                shot.watch.see(later)
        return shot

    def _moving_before(self, strike: Event, tracks: TrackSet) -> NDArray[np.bool_]:
        """(N,) per ball of `tracks`: at least the moving speed on every frame of the window
        before the strike (the frame just before it at least)."""
        start = strike.time_s - self.config.moving_at_strike_window_s
        window = [t for t in self._history if t.frame < strike.frame and t.time_s >= start]
        moving = np.ones(len(tracks), bool)
        for earlier in window or [tracks]:
            speed = np.zeros(len(tracks))
            for i, ball in enumerate(tracks.ball):
                row = np.flatnonzero(earlier.ball == ball)
                if len(row):
                    speed[i] = float(np.hypot(*earlier.velocity_mm_s[row[0]]))
            moving &= speed >= self.config.moving_at_strike_speed_mm_s
        if self.config.moving_needs_displacement and len(window) >= 2:
            moving &= self._displaced_over(window, tracks)
        return moving

    def _displaced_over(self, window: list[TrackSet], tracks: TrackSet) -> NDArray[np.bool_]:
        """(N,) per ball of `tracks`: its centre moved, from the first frame of ``window`` it
        is on to the last, at least as far as a ball at the moving speed goes in that time,
        less `_STILL_SLACK_MM`. A ball the filter gives a speed while its centre stays put
        is not rolling: a ball resting on a side pocket's lip, its centre past the cushion
        line, is pushed back onto it every frame while its filtered velocity grows without
        bound (a 7 ft top view's 7 on the lip: 6.6 m/s at the next strike, 36 m/s two
        shots later, every later shot a foul F9)."""
        out = np.ones(len(tracks), bool)
        for i, ball in enumerate(tracks.ball):
            seen = [
                (t.time_s, t.xy_mm[rows[0]])
                for t in window
                if len(rows := np.flatnonzero(t.ball == ball))
            ]
            if len(seen) < 2:
                continue
            span_s = seen[-1][0] - seen[0][0]
            gap = float(np.linalg.norm(seen[-1][1] - seen[0][1]))
            need = self.config.moving_at_strike_speed_mm_s * span_s - _STILL_SLACK_MM
            out[i] = not np.isfinite(gap) or gap >= need
        return out

    def _is_break(self, tracks: TrackSet, in_play: NDArray[np.bool_]) -> bool:
        objects = in_play & (tracks.ball != CUE)
        if not self.config.rack_min_balls <= int(objects.sum()) <= 10:
            return False
        distance = np.linalg.norm(
            tracks.xy_mm[objects] - np.asarray(self.table.foot_spot_mm), axis=1
        )
        return bool(distance.max() <= self.config.rack_extent_mm)

    def _finish(self, end: Event, cut: bool = False) -> list[ShotRecord]:
        """The record of the open shot, ended by ``end``; a shot ``cut`` short by the next
        strike is held (`ShotConfig.cut_hold_s`). Held shots are handed on first."""
        shot = self._open
        assert shot is not None
        self._open = None
        self._count += 1
        # A ball the camera missed at the strike (hidden in a rack seen from a corner) that
        # takes part in the shot was on the table, unless an earlier shot removed it.
        seen_in_shot = {b for e in shot.events for b in e.balls if b != CUE}
        shot.on_table = tuple(sorted(set(shot.on_table) | (seen_in_shot - self._removed)))
        facts, confidence = self._facts(shot)
        unaccounted = self._unaccounted(shot)
        self._removed |= {e.balls[0] for e in shot.events if e.kind.removes_ball()}
        record = ShotRecord(
            shot=self._count,
            frame_strike=shot.strike.frame,
            time_strike_s=shot.strike.time_s,
            frame_end=end.frame,
            time_end_s=end.time_s,
            is_break=shot.is_break,
            balls_on_table_at_start=shot.on_table,
            events=(*sorted(shot.events, key=lambda e: e.time_s), end),
            facts=facts,
            fact_confidence=confidence,
            unaccounted=unaccounted,
            cut_short=end.reason,
        )
        records = self._hand_on(len(self._held))
        if cut and self.config.cut_hold_s > 0.0:
            self._held.append(_HeldShot(shot, end, record))
            return records
        return [*records, record]

    def _facts(self, shot: _OpenShot) -> tuple[FactsDict, dict[str, float]]:
        if shot.watch is not None:
            shot.events = shot.watch.checked(shot.events)
        config, frame_s = self.config, self._frame_interval_s()
        tie_s = max(config.simultaneous_contact_s, config.simultaneous_contact_frames * frame_s)
        unsure = (config.unsure_contact_confidence, config.unsure_contact_frames * frame_s)
        facts, confidence = facts_with_confidence(
            shot.events, shot.on_table, shot.is_break, tie_s, unsure
        )
        facts["balls_moving_at_strike"] = [b for b in shot.moving if b in shot.on_table]
        return facts, confidence

    def _frame_interval_s(self) -> float:
        """The median time between the frames in the kept history, s (0 with under two)."""
        if len(self._history) < 2:
            return 0.0
        times = np.fromiter((t.time_s for t in self._history), np.float64, len(self._history))
        return float(np.median(np.diff(times)))

    def _unaccounted(self, shot: _OpenShot) -> tuple[tuple[int, int], ...]:
        """(ball, frame last seen) of the balls hidden now that were lost while moving in this
        shot (rolling, or hit as they vanished) and that no event removed. A ball last seen
        in a single frame is not counted: that sighting may have been another ball."""
        if not self._history:
            return ()
        latest = self._history[-1]
        hidden = latest.ball[latest.status == TrackStatus.OCCLUDED]
        removed = {e.balls[0] for e in shot.events if e.kind.removes_ball()}
        out = []
        for ball in (int(b) for b in hidden):
            seen_s = float(self._seen_s[ball])
            lost_in_shot = seen_s >= shot.strike.time_s - STRIKE_TIME_TOLERANCE_S
            steady = self._seen_run[ball] >= 2
            if (
                ball in removed
                or not (lost_in_shot and steady)
                or ball not in (CUE, *shot.on_table)
            ):
                continue
            hit = any(
                e.kind == EventKind.BALL_BALL and ball in e.balls
                for e in shot.events
                if e.time_s >= seen_s - LOST_AT_CONTACT_S
            )
            if hit or self._seen_speed[ball] >= self.config.moving_at_strike_speed_mm_s:
                out.append((ball, int(self._seen_frame[ball])))
        return tuple(sorted(out))
