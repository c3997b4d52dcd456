"""Event values stay plain Python numbers whatever the inference code hands in."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from referee.shots import facts_from_events
from tracking.types import Event, EventKind


def test_event_turns_numpy_numbers_into_python_numbers() -> None:
    frame: Any = np.int64(7)
    time_s: Any = np.float64(0.12)
    balls: tuple[Any, ...] = (np.int64(0), np.intp(3))
    event = Event(frame, time_s, EventKind.BALL_BALL, balls)

    assert event.balls == (0, 3)
    assert all(type(b) is int for b in event.balls)
    assert type(event.frame) is int and type(event.time_s) is float


def test_facts_from_numpy_ball_numbers_serialise_to_json() -> None:
    # A shot whose contact came out of numpy (argmin over the rack) must still write to
    # shots.jsonl: review once stopped on "int64 is not JSON serializable".
    one: Any = np.int64(1)
    events = [
        Event(60, 1.0, EventKind.STRIKE, (0,)),
        Event(68, 1.13, EventKind.BALL_BALL, (0, one)),
        Event(80, 1.3, EventKind.BALL_CUSHION, (one,), cushion="foot"),
    ]

    facts = facts_from_events(events, range(1, 11), is_break=False)

    assert facts["first_object_ball_contacted"] == 1
    assert json.loads(json.dumps(facts))["first_object_ball_contacted"] == 1


def test_event_reason_round_trips_and_is_left_out_when_absent() -> None:
    inferred = Event(
        40, 1.3, EventKind.BALL_POCKET, (3,), pocket="foot_left", confidence=0.7, reason="lost"
    )
    assert inferred.to_json()["reason"] == "lost"
    assert Event.from_json(inferred.to_json()) == inferred
    seen = Event(40, 1.3, EventKind.BALL_POCKET, (3,), pocket="foot_left")
    assert "reason" not in seen.to_json()
