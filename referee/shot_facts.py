"""The facts of one shot from its events alone (rules.md §4): the pure core of the shot stage.

`facts_from_events` gives the facts dict; `facts_with_confidence` adds a 0..1 confidence per
fact, from the confidences of the events each fact rests on. The eval tool, the synthetic
truth writer and `referee.shots.ShotSegmenter` all use them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from tracking.types import Event, EventKind

CUE = 0
SIMULTANEOUS_CONTACT_S = 0.004
"""Default time below which two first contacts cannot be ordered by a camera."""

STRIKE_TIME_TOLERANCE_S = 0.02
"""Events this much before the strike's estimated time still belong to the shot: a cue ball
frozen to an object ball hits it at once, and the two times come from different fits."""

UnsureContacts = tuple[float, float]
"""(confidence, seconds): cue-ball contacts less sure than that confidence are timed no better
than that many seconds (`facts_with_confidence`)."""

DISTURBED_MIN_CONFIDENCE = 0.6
"""A `ball_disturbed` event must be at least this sure to become a fact: the rules call a
foul (F6) on it, so a start that may be a missed contact is left out."""

FactsDict = dict[str, Any]


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
    unsure: UnsureContacts | None = None,
) -> tuple[FactsDict, dict[str, float]]:
    """`facts_from_events` plus a 0..1 confidence per fact.

    ``unsure``: first contacts closer than ``simultaneous_contact_s`` are a tie; so is the
    lowest ball's contact, when a contact with another ball is timed first, if either is
    less sure than ``unsure``'s confidence and they lie within its seconds: the camera
    cannot tell whether the lowest ball was hit first, and the rules resolve that for the
    shooter (I-07). Where the lowest ball is timed first, or not among them, the order
    changes no call and is kept."""
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
    lowest = min(on_table, default=None)
    first_time = _first_contact(
        ordered, (simultaneous_contact_s, unsure, lowest), facts, confidence
    )
    _cushion_facts(ordered, first_time, is_break, facts, confidence)
    _removal_facts(ordered, facts, confidence)
    disturbed = [e for e in disturbances if e.confidence >= DISTURBED_MIN_CONFIDENCE]
    facts["balls_moving_at_strike"] = []
    facts["balls_disturbed"] = sorted({e.balls[0] for e in disturbed})
    confidence["balls_disturbed"] = min((e.confidence for e in disturbed), default=1.0)
    return facts, confidence


def _first_contact(
    ordered: Sequence[Event],
    ties: tuple[float, UnsureContacts | None, int | None],
    facts: FactsDict,
    confidence: dict[str, float],
) -> float:
    """Fill the first-contact facts; returns the first contact time (inf when none).
    ``ties``: the simultaneous window, s, the unsure contacts' (confidence, window s) and the
    lowest ball on the table (`facts_with_confidence`)."""
    window_s, unsure, lowest = ties
    cue_hits = [e for e in ordered if is_cue_hit(e)]
    if not cue_hits:
        facts["first_object_ball_contacted"] = None
        confidence["first_object_ball_contacted"] = 1.0
        return float("inf")
    first = cue_hits[0]
    other = cue_hit_ball(first)

    def tie(e: Event) -> bool:
        gap_s, ball = e.time_s - first.time_s, cue_hit_ball(e)
        if ball == other:
            return False
        if gap_s < window_s:
            return True
        if unsure is None or ball != lowest:
            return False
        return min(first.confidence, e.confidence) < unsure[0] and gap_s < unsure[1]

    tied = [e for e in cue_hits[1:] if tie(e)]
    facts["first_object_ball_contacted"] = other
    confidence["first_object_ball_contacted"] = first.confidence * (0.5 if tied else 1.0)
    if tied:
        facts["simultaneous_first_contact"] = sorted({other, *(cue_hit_ball(e) for e in tied)})
    return first.time_s


def is_cue_hit(event: Event) -> bool:
    """Whether ``event`` is a contact of the cue ball with an object ball."""
    return event.kind == EventKind.BALL_BALL and CUE in event.balls and len(event.balls) == 2


def cue_hit_ball(event: Event) -> int:
    """The object ball of a cue-ball contact (`is_cue_hit`)."""
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
