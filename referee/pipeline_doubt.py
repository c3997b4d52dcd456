"""Does a call rest on an uncertain fact? Ask the engine what it would call otherwise.

For each fact the camera is unsure of, plausible alternatives are tried (the fact absent, a
flag flipped, a count one off, a ball dropped from a list) and the shot is judged again from
the same state; if the decision changes, the call rests on that fact and is flagged, with
what the call would have been. A call that no alternative changes stays certain.

A ball lost from sight while moving and never found (`referee.shots.ShotRecord.unaccounted`)
is tried the same way: pocketed in each pocket, or off the table.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from calibration.table import Pocket
from referee.rules import GameState, RulesConfig, RulesInputError, Shot, decide

DECISION_KEYS = ("fouls", "next_shooter", "cue_ball_next", "spot", "option", "rack_winner")
"""The parts of a call that a different fact would have to change to matter."""


def _list_without_each(values: list[Any]) -> Iterator[list[Any]]:
    for k in range(len(values)):
        yield values[:k] + values[k + 1 :]


def alternatives(name: str, facts: dict[str, Any], on_table: tuple[int, ...]) -> Iterator[Any]:
    """Plausible other values of fact `name` (rules.md §4 names)."""
    value = facts.get(name)
    if isinstance(value, bool):
        yield not value
    elif name == "first_object_ball_contacted":
        tie = facts.get("simultaneous_first_contact") or []
        if tie:
            yield value  # the same ball first, and no tie: the camera's order was right
        yield from (b for b in (None, *on_table[:1], *tie) if b != value)
    elif name == "object_balls_to_cushion_on_break" and isinstance(value, int):
        yield from (v for v in (value - 1, value + 1) if v >= 0)
    elif isinstance(value, list):
        yield from _list_without_each(value)
        if name == "cushion_after_first_contact" and "cue" not in value:
            yield [*value, "cue"]
    elif value is None and name.startswith("cue_ball"):
        yield True


def _ball_words(ball: Any) -> str:
    return "the cue ball" if ball in ("cue", 0) else f"the {ball}"


def _balls_words(balls: list[Any]) -> str:
    names = [_ball_words(b) for b in balls]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def fact_words(name: str, value: Any) -> str:
    """A shot fact as a referee would say it (rules.md §4 names), e.g. "the cue ball hit the 3
    first"; a fact with no words of its own is said as its name and value."""
    if name == "first_object_ball_contacted":
        return (
            "the cue ball hit no object ball"
            if value is None
            else f"the cue ball hit the {value} first"
        )
    if name == "object_balls_to_cushion_on_break" and isinstance(value, int):
        return f"{value} object ball{'' if value == 1 else 's'} reached a cushion on the break"
    if name == "cushion_after_first_contact" and isinstance(value, list):
        if not value:
            return "no ball reached a cushion after the first contact"
        return f"{_balls_words(value)} reached a cushion after the first contact"
    if name == "pocketed" and isinstance(value, list):
        balls = [e.get("ball") if isinstance(e, dict) else e for e in value]
        return (
            "no object ball was pocketed"
            if not balls
            else f"{_balls_words(balls)} {'was' if len(balls) == 1 else 'were'} pocketed"
        )
    if name == "off_table" and isinstance(value, list):
        return (
            "no object ball left the table"
            if not value
            else f"{_balls_words(value)} left the table"
        )
    if name == "cue_ball_cushion_before_first_contact" and isinstance(value, bool):
        verb = "reached" if value else "did not reach"
        return f"the cue ball {verb} a cushion before its first contact"
    if name in ("cue_ball_pocketed", "cue_ball_off_table") and isinstance(value, bool):
        where = "pocketed" if name == "cue_ball_pocketed" else "off the table"
        return f"the cue ball {'was' if value else 'was not'} {where}"
    return f"{name.replace('_', ' ')}: {value!r}"


def _decision(call: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(repr(call.get(k)) for k in DECISION_KEYS)


def _judge(step: dict[str, Any], state: GameState, config: RulesConfig) -> dict[str, Any] | None:
    try:
        call, _ = decide(Shot.from_json(step), state, config)
    except RulesInputError:
        return None
    return call.to_json()


def decision_differs(
    step_a: dict[str, Any], step_b: dict[str, Any], state: GameState, config: RulesConfig
) -> bool:
    """Whether two versions of a shot step get different decisions from the same state."""
    a, b = _judge(step_a, state, config), _judge(step_b, state, config)
    return a is None or b is None or _decision(a) != _decision(b)


def doubts(
    step: dict[str, Any],
    state: GameState,
    config: RulesConfig,
    weak: dict[str, float],
) -> list[str]:
    """Why the call of `step` (judged from `state`) is not certain, one sentence per fact.

    Args:
        step: the shot step given to the engine (declarations, shot facts, referee fouls).
        state: the state before the shot.
        config: the rules' options.
        weak: fact name -> confidence, for the facts the camera is unsure of.
    """
    base = _judge(step, state, config)
    if base is None:
        return []
    facts = step["shot"]
    out = []
    for name, confidence in sorted(weak.items()):
        for other in alternatives(name, facts, state.balls_on_table):
            alternative = {**facts, name: other}
            if name == "first_object_ball_contacted":
                alternative.pop("simultaneous_first_contact", None)  # one ball clearly first
            changed = _judge({**step, "shot": alternative}, state, config)
            if changed is not None and _decision(changed) != _decision(base):
                out.append(
                    f"the call rests on an uncertain fact: {_fact_said(name, facts)} "
                    f"(confidence {confidence:.2f}); if instead {fact_words(name, other)}, "
                    f"the call would be: {changed.get('summary', '')}"
                )
                break
    return out


def _fact_said(name: str, facts: dict[str, Any]) -> str:
    """`fact_words` of fact ``name`` in ``facts``; a first contact the camera could not
    order (``simultaneous_first_contact``) is said as such."""
    tie = facts.get("simultaneous_first_contact") if name == "first_object_ball_contacted" else None
    if tie:
        return f"the cue ball hit {_balls_words(list(tie))} too close together to tell which first"
    return fact_words(name, facts.get(name))


def _lost_alternatives(ball: int, frame: int, facts: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(words, facts) for each place a lost ball may have gone: a pocket or off the table."""
    if ball == 0:
        yield "pocketed", {**facts, "cue_ball_pocketed": True, "cue_ball_off_table": False}
        yield "off the table", {**facts, "cue_ball_off_table": True, "cue_ball_pocketed": False}
        return
    pocketed = [p for p in facts.get("pocketed") or [] if p.get("ball") != ball]
    off = [b for b in facts.get("off_table") or [] if b != ball]
    for pocket in Pocket:
        entry = {"ball": ball, "pocket": str(pocket), "frame": frame}
        yield f"pocketed in the {pocket} pocket", {**facts, "pocketed": [*pocketed, entry]}
    yield "off the table", {**facts, "pocketed": pocketed, "off_table": [*off, ball]}


def lost_ball_doubts(
    step: dict[str, Any],
    state: GameState,
    config: RulesConfig,
    unaccounted: tuple[tuple[int, int], ...],
) -> list[str]:
    """Why the call of `step` is not certain because of balls lost from sight, one sentence
    per lost ball whose fate would change the decision (none for one that would not).

    Args:
        step: the shot step given to the engine (declarations, shot facts, referee fouls).
        state: the state before the shot.
        config: the rules' options.
        unaccounted: (ball, frame last seen) of each ball lost while moving and never found.
    """
    base = _judge(step, state, config) if unaccounted else None
    if base is None:
        return []
    out = []
    for ball, frame in unaccounted:
        for words, facts in _lost_alternatives(ball, frame, step["shot"]):
            changed = _judge({**step, "shot": facts}, state, config)
            if changed is not None and _decision(changed) != _decision(base):
                name = "cue ball" if ball == 0 else str(ball)
                out.append(
                    f"the {name} was lost from sight while moving (last seen on frame "
                    f"{frame}) and not seen again; had it been {words}, the call would be: "
                    f"{changed.get('summary', '')}"
                )
                break
    return out
