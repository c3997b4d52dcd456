"""Shots and their facts: from a strike to the shot end, what the camera saw (rules.md §4).

`facts_from_events` is the pure core: the facts dict of one shot from its events alone (the
eval tool and the synthetic truth writer reuse it). `ShotSegmenter` cuts a live stream of
events into shots, adds what only the tracks know (balls on the table at the strike, balls
moving at the strike, whether the shot was a break) and hands back `ShotRecord`s.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking.types import Event, EventKind, TrackSet, TrackStatus
from vision.types import NUM_CLASSES

CUE = 0
SIMULTANEOUS_CONTACT_S = 0.004
"""Default time below which two first contacts cannot be ordered by a camera."""

STRIKE_TIME_TOLERANCE_S = 0.02
"""Events this much before the strike's estimated time still belong to the shot: a cue ball
frozen to an object ball hits it at once, and the two times come from different fits."""

LOST_AT_CONTACT_S = 0.05
"""A ball last seen this little before a contact it took part in vanished as it was hit."""

UNACCOUNTED_CONFIDENCE = 0.5
"""How sure a shot's facts are when a ball lost in motion is neither seen nor known removed."""

DISTURBED_MIN_CONFIDENCE = 0.6
"""A `ball_disturbed` event must be at least this sure to become a fact: the rules call a
foul (F6) on it, so a start that may be a missed contact is left out."""

FactsDict = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ShotConfig:
    """Tunables of `ShotSegmenter`, physical units.

    Attributes:
        moving_at_strike_speed_mm_s: a ball at least this fast when the cue ball is struck
            counts as moving (F9). Raising it ignores slower creeping balls.
        simultaneous_contact_s: first contacts closer than this in time are reported in
            `simultaneous_first_contact`. Raising it reports more ties (resolved for the
            shooter by the rules, I-07).
        rack_extent_mm: a shot is a break when all ten object balls lie within this distance
            of the foot spot at the strike. Raising it accepts looser racks.
        rack_min_balls: how many of the ten racked balls must be seen (the others hidden
            behind the rack from a low or corner camera, or missed by the detector), all
            within ``rack_extent_mm`` and no other object ball seen, for the shot to count as
            a break; all ten are then taken to be on the table. Lowering it recognises breaks
            seen worse, with more risk of calling a tight cluster a rack.
        history_s: how much track history is kept to look up the state at the strike.
    """

    moving_at_strike_speed_mm_s: float = 100.0
    simultaneous_contact_s: float = SIMULTANEOUS_CONTACT_S
    rack_extent_mm: float = 240.0
    rack_min_balls: int = 5
    history_s: float = 2.0


@dataclass(frozen=True, slots=True, eq=False)
class ShotRecord:
    """One shot, strike to shot end.

    Attributes:
        shot: 1-based shot number in the stream.
        frame_strike: frame of the strike; time_strike_s its time, s.
        frame_end: frame of the shot end; time_end_s its time, s.
        is_break: the shot was a break (full rack at the strike).
        balls_on_table_at_start: object balls (1..10) on the table at the strike.
        events: the shot's events, by time.
        facts: the rules.md §4 facts dict (see `facts_json`).
        fact_confidence: 0..1 per fact name.
        unaccounted: (ball, frame last seen) of each ball lost from sight while moving in
            the shot and never seen again, with no removal inferred: it may still be on the
            table, pocketed or off it.
    """

    shot: int
    frame_strike: int
    time_strike_s: float
    frame_end: int
    time_end_s: float
    is_break: bool
    balls_on_table_at_start: tuple[int, ...]
    events: tuple[Event, ...]
    facts: FactsDict = field(default_factory=dict)
    fact_confidence: dict[str, float] = field(default_factory=dict)
    unaccounted: tuple[tuple[int, int], ...] = ()

    @property
    def confidence(self) -> float:
        """The least sure fact's confidence (1.0 when there is none), lower when a ball is
        unaccounted for."""
        lost = UNACCOUNTED_CONFIDENCE if self.unaccounted else 1.0
        return min(lost, *self.fact_confidence.values())

    @property
    def uncertain(self) -> tuple[str, ...]:
        """What the facts cannot say, in words (the review shows them)."""
        return tuple(
            f"the {'cue ball' if ball == CUE else ball} was lost from sight while moving "
            f"(last seen on frame {frame}) and not seen again: it may have been pocketed or "
            "left the table"
            for ball, frame in self.unaccounted
        )

    def facts_json(self) -> FactsDict:
        """A fresh copy of the facts dict in the rules.md §4 format."""
        return _copy_facts(self.facts)

    def to_json(self) -> FactsDict:
        """The shots.jsonl fields this stage knows (design.md §5); the pipeline adds the rest."""
        return {
            "shot": self.shot,
            "frame_strike": self.frame_strike,
            "frame_end": self.frame_end,
            "is_break": self.is_break,
            "facts": self.facts_json(),
            "confidence": round(self.confidence, 4),
        }


def _copy_facts(facts: FactsDict) -> FactsDict:
    out: FactsDict = {}
    for key, value in facts.items():
        if isinstance(value, list):
            out[key] = [dict(v) if isinstance(v, dict) else v for v in value]
        else:
            out[key] = value
    return out


def facts_from_events(
    events: Iterable[Event], balls_on_table_at_start: Iterable[int], is_break: bool
) -> FactsDict:
    """The rules.md §4 facts of one shot from its events alone.

    Args:
        events: the shot's events (any order); the first strike starts the shot.
        balls_on_table_at_start: object balls (1..10) on the table at the strike; events of
            other object balls are ignored.
        is_break: whether the shot is a break (fills `object_balls_to_cushion_on_break`).

    Returns:
        The facts dict; `balls_moving_at_strike` is left empty (events cannot tell it).
    """
    return facts_with_confidence(events, balls_on_table_at_start, is_break)[0]


def facts_with_confidence(
    events: Iterable[Event],
    balls_on_table_at_start: Iterable[int],
    is_break: bool,
    simultaneous_contact_s: float = SIMULTANEOUS_CONTACT_S,
) -> tuple[FactsDict, dict[str, float]]:
    """`facts_from_events` plus a 0..1 confidence per fact."""
    on_table = {int(b) for b in balls_on_table_at_start if int(b) != CUE}
    known = on_table | {CUE}
    ordered = sorted(
        (e for e in events if all(b in known for b in e.balls)), key=lambda e: e.time_s
    )
    strike_time = next((e.time_s for e in ordered if e.kind == EventKind.STRIKE), -np.inf)
    # A ball disturbed between the previous shot's end and this strike is this shot's fact.
    disturbances = [e for e in ordered if e.kind == EventKind.BALL_DISTURBED]
    ordered = [e for e in ordered if e.time_s >= strike_time - STRIKE_TIME_TOLERANCE_S]
    facts: FactsDict = {}
    confidence: dict[str, float] = {}
    first_time = _first_contact(ordered, simultaneous_contact_s, facts, confidence)
    _cushion_facts(ordered, first_time, is_break, facts, confidence)
    _removal_facts(ordered, facts, confidence)
    disturbed = [e for e in disturbances if e.confidence >= DISTURBED_MIN_CONFIDENCE]
    facts["balls_moving_at_strike"] = []
    facts["balls_disturbed"] = sorted({e.balls[0] for e in disturbed})
    confidence["balls_disturbed"] = min((e.confidence for e in disturbed), default=1.0)
    return facts, confidence


def _first_contact(
    ordered: Sequence[Event], window_s: float, facts: FactsDict, confidence: dict[str, float]
) -> float:
    """Fill the first-contact facts; returns the first contact time (inf when none)."""
    cue_hits = [
        e for e in ordered if e.kind == EventKind.BALL_BALL and CUE in e.balls and len(e.balls) == 2
    ]
    if not cue_hits:
        facts["first_object_ball_contacted"] = None
        confidence["first_object_ball_contacted"] = 1.0
        return float("inf")
    first = cue_hits[0]
    other = _other(first)
    tied = [e for e in cue_hits[1:] if e.time_s - first.time_s < window_s and _other(e) != other]
    facts["first_object_ball_contacted"] = other
    confidence["first_object_ball_contacted"] = first.confidence * (0.5 if tied else 1.0)
    if tied:
        facts["simultaneous_first_contact"] = sorted({other, *(_other(e) for e in tied)})
    return first.time_s


def _other(event: Event) -> int:
    return event.balls[1] if event.balls[0] == CUE else event.balls[0]


def _cushion_facts(
    ordered: Sequence[Event],
    first_time: float,
    is_break: bool,
    facts: FactsDict,
    confidence: dict[str, float],
) -> None:
    cushions = [e for e in ordered if e.kind == EventKind.BALL_CUSHION]
    before = [e for e in cushions if e.balls[0] == CUE and e.time_s < first_time]
    facts["cue_ball_cushion_before_first_contact"] = bool(before)
    confidence["cue_ball_cushion_before_first_contact"] = min(
        (e.confidence for e in before), default=1.0
    )
    after = [e for e in cushions if e.time_s > first_time]
    balls: list[int] = []
    for event in after:
        if event.balls[0] not in balls:
            balls.append(event.balls[0])
    facts["cushion_after_first_contact"] = ["cue" if b == CUE else b for b in balls]
    confidence["cushion_after_first_contact"] = min((e.confidence for e in after), default=1.0)
    if is_break:
        objects = {e.balls[0] for e in cushions if e.balls[0] != CUE}
        facts["object_balls_to_cushion_on_break"] = len(objects)
        confidence["object_balls_to_cushion_on_break"] = confidence["cushion_after_first_contact"]
    else:
        facts["object_balls_to_cushion_on_break"] = None


def _removal_facts(
    ordered: Sequence[Event], facts: FactsDict, confidence: dict[str, float]
) -> None:
    drops: dict[int, Event] = {}
    offs: dict[int, Event] = {}
    for event in ordered:
        target = drops if event.kind == EventKind.BALL_POCKET else offs
        if event.kind.removes_ball() and event.balls[0] not in drops | offs:
            target[event.balls[0]] = event
    facts["pocketed"] = [
        {"ball": b, "pocket": e.pocket, "frame": e.frame} for b, e in drops.items() if b != CUE
    ]
    facts["off_table"] = sorted(b for b in offs if b != CUE)
    facts["cue_ball_pocketed"] = CUE in drops
    facts["cue_ball_off_table"] = CUE in offs
    if CUE in drops:
        facts["cue_ball_pocket"] = drops[CUE].pocket
    # Each fact as sure as its own removals: an inferred drop of the 6 does not make the
    # cue ball's staying on the table uncertain.
    for name, removals in (
        ("pocketed", [e for b, e in drops.items() if b != CUE]),
        ("off_table", [e for b, e in offs.items() if b != CUE]),
        ("cue_ball_pocketed", [drops[CUE]] if CUE in drops else []),
        ("cue_ball_off_table", [offs[CUE]] if CUE in offs else []),
    ):
        confidence[name] = min((e.confidence for e in removals), default=1.0)


@dataclass(slots=True)
class _OpenShot:
    strike: Event
    on_table: tuple[int, ...]
    is_break: bool
    moving: list[int]
    events: list[Event] = field(default_factory=list)


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
        finished = []
        for event in sorted(events, key=lambda e: e.time_s):
            record = self._take(event)
            if record is not None:
                finished.append(record)
        return finished

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

    def _take(self, event: Event) -> ShotRecord | None:
        if event.kind == EventKind.STRIKE and self._open is None:
            self._open = self._start(event)
            return None
        if self._open is None:
            self._loose.append(event)
            return None
        if event.kind == EventKind.SHOT_END:
            return self._finish(event)
        self._open.events.append(event)
        return None

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
        speed = np.linalg.norm(tracks.velocity_mm_s, axis=1) if len(tracks) else np.zeros(0)
        fast = in_play & (speed >= self.config.moving_at_strike_speed_mm_s) & (tracks.ball != CUE)
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
        return shot

    def _is_break(self, tracks: TrackSet, in_play: NDArray[np.bool_]) -> bool:
        objects = in_play & (tracks.ball != CUE)
        if not self.config.rack_min_balls <= int(objects.sum()) <= 10:
            return False
        distance = np.linalg.norm(
            tracks.xy_mm[objects] - np.asarray(self.table.foot_spot_mm), axis=1
        )
        return bool(distance.max() <= self.config.rack_extent_mm)

    def _finish(self, end: Event) -> ShotRecord:
        shot = self._open
        assert shot is not None
        self._open = None
        self._count += 1
        # A ball the camera missed at the strike (hidden in a rack seen from a corner) that
        # takes part in the shot was on the table, unless an earlier shot removed it.
        seen_in_shot = {b for e in shot.events for b in e.balls if b != CUE}
        shot.on_table = tuple(sorted(set(shot.on_table) | (seen_in_shot - self._removed)))
        facts, confidence = facts_with_confidence(
            shot.events, shot.on_table, shot.is_break, self.config.simultaneous_contact_s
        )
        unaccounted = self._unaccounted(shot)
        self._removed |= {e.balls[0] for e in shot.events if e.kind.removes_ball()}
        facts["balls_moving_at_strike"] = [b for b in shot.moving if b in shot.on_table]
        return ShotRecord(
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
        )

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
