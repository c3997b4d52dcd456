"""Descriptive camera facts (rules.md §4, optional) folded into the facts that rules judge.

The camera may report more than the core facts: a ball that rode the rail top and fell back
(`returned_to_bed_after_rail_top`), how a ball left the table (`off_table_detail`), balls that
dropped after the balls came to rest (`late_drops`). These change what counts as off the table
(I-15) and as pocketed on the shot (I-20), so they are applied before the rules run. Each one
is checked first: a malformed one is refused with its field named, never silently dropped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from referee.rules.errors import RulesInputError
from referee.rules.readers import (
    as_ball,
    as_bool,
    as_list,
    as_pocket,
    ball_or_cue,
    entry_ball,
    is_cue,
)
from referee.rules.shot import CUE

LATE_DROP_WINDOW_S = 5.0
"""I-20 (WPA 5-second rule): a ball dropping within this time of all balls stopping counts."""

NON_TABLE_OBJECTS = (
    "lamp", "light", "person", "player", "spectator", "referee", "chalk", "floor", "object",
)  # fmt: skip
"""Words in an off-table detail that mean the ball touched something that is not the table."""

_SECONDS = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:s|sec|secs|second|seconds)?\s*$")
"""A delay written as text: "6", "6.5 s", "7 seconds"."""


def _ball_of(entry: Any) -> Any:
    return entry_ball(entry)


def _identity(ball: Any) -> Any:
    """One value per ball however it is written (3, "3", "ball 3"; "cue", 0)."""
    if is_cue(ball):
        return CUE
    try:
        return as_ball(ball, "")
    except RulesInputError:
        return str(ball)


def _same_ball(a: Any, b: Any) -> bool:
    return bool(_identity(a) == _identity(b))


def _touched_non_table_object(entry: Any) -> bool:
    """The detail names a non-table object, as a value ("touched": "lamp") or as a key set
    true ("touched_lamp": true, "touched_non_table_object": true)."""
    if not isinstance(entry, Mapping):
        return False
    texts = [str(v) for k, v in entry.items() if k != "ball" and not isinstance(v, bool)]
    texts += [str(k) for k, v in entry.items() if v is True]
    words = " ".join(texts).lower()
    return any(word in words for word in NON_TABLE_OBJECTS)


def _detail_words(entry: Mapping[str, Any]) -> str:
    """What a detail entry says in words: its keys set true, and its keys with their text."""
    parts = [str(k) for k, v in entry.items() if v is True]
    parts += [f"{k} {v}" for k, v in entry.items() if k != "ball" and isinstance(v, str)]
    return " ".join(parts).lower().replace("_", " ").replace("-", " ")


def _returned_to_bed(entry: Any) -> bool:
    """The detail says the ball came back to the bed ("returned_to_bed": true, or in words:
    "rail top then back to the bed")."""
    if not isinstance(entry, Mapping):
        return False
    if any(
        v is True and ("return" in k.lower() or "back_on" in k.lower()) for k, v in entry.items()
    ):
        return True
    words = _detail_words(entry)
    return "bed" in words and ("return" in words or "back" in words)


_REST_OFF_BED = ("rest", "stop", "settl", "remain", "stay", "lodg")
_RAIL_WORDS = (
    "rail top", "railtop", "top of the rail", "on the rail", "on rail", "cushion top",
    "top of the cushion", "on the cushion", "on top",
)  # fmt: skip
"""Where a ball rests off the bed: on the rail ("against the cushion" is on the bed)."""


def _rested_off_bed(entry: Any) -> bool:
    """I-15: the detail says the ball came to rest on the rail ("came_to_rest_on":
    "rail_top", "stopped_on_rail": true): off the table (it rests neither on the bed nor in
    a pocket)."""
    if not isinstance(entry, Mapping) or _returned_to_bed(entry):
        return False
    words = _detail_words(entry)
    rests = any(w in words for w in _REST_OFF_BED) and any(w in words for w in _RAIL_WORDS)
    return rests and "bed" not in words


_NOT_DELAYS = ("ball", "pocket", "frame")
"""Keys of a late-drop entry that are never its delay."""


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    match = _SECONDS.match(value) if isinstance(value, str) else None
    return float(match.group(1)) if match else None


def _window_flag(entry: Mapping[str, Any]) -> float | None:
    """A drop said to be inside or outside the window by a flag ("within_5s": false,
    "late": true) rather than timed: 0 s inside, infinitely late outside."""
    for key, value in entry.items():
        words = set(key.lower().replace("-", "_").replace(" ", "_").split("_"))
        if isinstance(value, bool) and words & _INSIDE_WORDS:
            return 0.0 if value else math.inf
        if isinstance(value, bool) and words & _OUTSIDE_WORDS:
            return math.inf if value else 0.0
    return None


_INSIDE_WORDS = {"within", "inside", "before"}
_OUTSIDE_WORDS = {"late", "outside", "after", "beyond", "past", "exceeded"}
"""Words of a flag that put a drop inside the window ("within_5s", "before_window") or
after it ("late", "after_window", "beyond_5_seconds")."""


def _delay_s(entry: Mapping[str, Any]) -> float | None:
    """Seconds from all balls stopping to the drop: the number under a key in seconds
    ("seconds_after_stop", "delay_s"), else the one number the entry holds ("t_after_rest"),
    else a flag that says inside or outside the window ("within_5s": true)."""
    numbers = {
        key: number
        for key, value in entry.items()
        if key not in _NOT_DELAYS
        and not key.startswith("frame")
        and (number := _number(value)) is not None
    }
    between = _between_times(numbers)
    if between is not None:
        return between
    timed = [v for k, v in numbers.items() if k.endswith("_s") or "sec" in k]
    if timed:
        return timed[0]
    return next(iter(numbers.values())) if len(numbers) == 1 else _window_flag(entry)


_REST_WORDS = ("stop", "rest", "still", "settle")
_DELAY_WORDS = ("after", "delay", "since", "late", "wait")


def _between_times(numbers: Mapping[str, float]) -> float | None:
    """The delay from two clock times: the drop's ("time_s", "dropped_at_s") minus the time
    the balls came to rest ("balls_stopped_at_s", "rest_time_s"); None unless the entry
    gives exactly those two (a key that is itself a delay, "seconds_after_stop", is not)."""
    if len(numbers) != 2 or any(w in k for k in numbers for w in _DELAY_WORDS):
        return None
    rest = [v for k, v in numbers.items() if any(w in k for w in _REST_WORDS)]
    drop = [v for k, v in numbers.items() if not any(w in k for w in _REST_WORDS)]
    return drop[0] - rest[0] if len(rest) == 1 and len(drop) == 1 else None


def _detail_entries(value: Any) -> list[Any]:
    if isinstance(value, Mapping) and "ball" in value:  # one entry
        return [value]
    if isinstance(value, Mapping):  # {"6": {...}} form
        return [
            {"ball": k, **v} if isinstance(v, Mapping) else {"ball": k, "detail": v}
            for k, v in value.items()
        ]
    return list(value) if isinstance(value, list) else []


def _late_entries(value: Any) -> list[Any]:
    """Late drops as a list; {"5": 6.5} (ball -> seconds) or {"5": {...}} as entries."""
    if isinstance(value, Mapping) and "ball" not in value:
        return [
            {"ball": k, **v} if isinstance(v, Mapping) else {"ball": k, "seconds": v}
            for k, v in value.items()
        ]
    return as_list(value, "shot.late_drops")


def _check_late_drops(value: Any, on_table: tuple[int, ...] | None) -> None:
    for i, entry in enumerate(_late_entries(value)):
        where = f"shot.late_drops[{i}]"
        if not isinstance(entry, Mapping):
            ball_or_cue(entry, where, on_table)
            continue
        ball_or_cue(entry.get("ball"), f"{where}.ball", on_table)
        if entry.get("pocket") is not None:
            as_pocket(entry["pocket"], f"{where}.pocket")
        delay = _delay_s(entry)
        if delay is not None and delay < 0:
            raise RulesInputError(where, f"a drop cannot come {-delay} s before the balls stop")


def _check_off_table_detail(value: Any, on_table: tuple[int, ...] | None) -> None:
    where = "shot.off_table_detail"
    if not isinstance(value, Mapping | list):
        raise RulesInputError(where, f"expected a list or an object, got {type(value).__name__}")
    for i, entry in enumerate(_detail_entries(value)):
        if not isinstance(entry, Mapping):
            raise RulesInputError(
                f"{where}[{i}]", f'expected an object with a "ball", got {entry!r}'
            )
        ball_or_cue(entry.get("ball"), f"{where}[{i}].ball", on_table)


def check_descriptive_facts(facts: Mapping[str, Any], on_table: tuple[int, ...] | None) -> None:
    """Refuse a malformed descriptive fact, naming its field (balls 1..10 on the table, or the
    cue ball where a list may name it; pockets; delays not negative; flags true or false).

    Raises:
        RulesInputError: naming the field, e.g. ``"shot.late_drops[0].ball"``.
    """
    if facts.get("late_drops") is not None:
        _check_late_drops(facts["late_drops"], on_table)
    if facts.get("off_table_detail") is not None:
        _check_off_table_detail(facts["off_table_detail"], on_table)
    for key in ("returned_to_bed_after_rail_top", "frozen_to_rail_at_start"):
        for i, entry in enumerate(as_list(facts.get(key), f"shot.{key}")):
            ball_or_cue(entry, f"shot.{key}[{i}]", on_table)
    for i, entry in enumerate(as_list(facts.get("cue_ball_frozen_to"), "shot.cue_ball_frozen_to")):
        where = f"shot.cue_ball_frozen_to[{i}]"
        ball = as_ball(_ball_of(entry), where)
        if on_table is not None and ball not in on_table:
            raise RulesInputError(where, f"the {ball} was not on the table")
    as_bool(facts.get("cue_ball_airborne"), "shot.cue_ball_airborne")


def _apply_off_table(facts: dict[str, Any]) -> None:
    """I-15 from the details: an `off_table_detail` entry, or an `off_table` entry written
    as an object ({"ball": 6, "returned_to_bed": true}), says how the ball left."""
    off = as_list(facts.get("off_table"), "shot.off_table")
    details = [
        *_detail_entries(facts.get("off_table_detail")),
        *(e for e in off if isinstance(e, Mapping)),
    ]
    forced = [_ball_of(e) for e in details if _touched_non_table_object(e) or _rested_off_bed(e)]
    for ball in forced:  # I-15: touching a non-table object is off, even if it comes back;
        # so is a ball that comes to rest on the rail
        if is_cue(ball) or str(ball) == "0":
            facts["cue_ball_off_table"] = True
        elif not any(_same_ball(ball, _ball_of(b)) for b in off):
            off.append(ball)
    said_returned = [_ball_of(e) for e in details if _returned_to_bed(e)]
    returned = [
        _ball_of(b)
        for b in [*as_list(facts.get("returned_to_bed_after_rail_top"), "shot."), *said_returned]
        if not any(_same_ball(_ball_of(b), f) for f in forced)
    ]
    for ball in returned:  # I-15: rode the rail top and fell back: not off the table
        if is_cue(ball):
            facts["cue_ball_off_table"] = False
        off = [b for b in off if not _same_ball(_ball_of(b), ball)]
    facts["off_table"] = off


def _timed_pocket(entry: Any) -> bool:
    """A `pocketed` entry that says when the ball dropped after the balls stopped
    ({"ball": 3, "seconds_after_rest": 7}): it is judged as a late drop (I-20)."""
    if not isinstance(entry, Mapping):
        return False
    words = (*_DELAY_WORDS, *_INSIDE_WORDS, *_OUTSIDE_WORDS)
    return any(w in str(k).lower() for k in entry for w in words)


def _apply_late_drops(facts: dict[str, Any]) -> None:
    pocketed = as_list(facts.get("pocketed"), "shot.pocketed")
    timed = [e for e in pocketed if _timed_pocket(e)]
    for entry in [*_late_entries(facts.get("late_drops")), *timed]:
        if not isinstance(entry, Mapping):
            continue  # a bare ball number says nothing about timing: trust `pocketed`
        ball, delay = entry.get("ball"), _delay_s(entry)
        if delay is None:
            continue
        listed = [p for p in pocketed if _same_ball(_ball_of(p), ball)]
        if delay > LATE_DROP_WINDOW_S:  # not pocketed: put back at the lip
            pocketed = [p for p in pocketed if p not in listed]
        elif not listed:
            pocketed.append({"ball": ball, "pocket": entry.get("pocket")})
    facts["pocketed"] = pocketed


def _moved(facts: Mapping[str, Any], ball: Any) -> bool:
    """The ball reached a cushion, dropped or left the table on the shot."""
    seen = [
        *(_ball_of(b) for b in as_list(facts.get("cushion_after_first_contact"), "shot")),
        *(_ball_of(p) for p in as_list(facts.get("pocketed"), "shot.pocketed")),
        *(_ball_of(b) for b in as_list(facts.get("off_table"), "shot.off_table")),
    ]
    return any(_same_ball(ball, b) for b in seen)


def _apply_frozen_cue_ball(facts: dict[str, Any]) -> None:
    """I-17: shooting into an object ball the cue ball is frozen to is a contact with it. A
    camera sees no meeting of two balls already touching, so when it reports no first ball
    but the frozen-to ball moved (reached a cushion, dropped, left the table), that ball was
    the first one hit. Shooting away from it, it does not move and nothing is inferred."""
    balls = [_ball_of(b) for b in as_list(facts.get("cue_ball_frozen_to"), "shot.")]
    moved = [b for b in balls if _moved(facts, b)]
    if facts.get("first_object_ball_contacted") is None and len(moved) == 1:
        facts["first_object_ball_contacted"] = moved[0]


def apply_descriptive_facts(
    data: Mapping[str, Any], on_table: tuple[int, ...] | None = None
) -> dict[str, Any]:
    """A copy of a rules.md §4 facts object with the descriptive facts checked and applied.

    Args:
        data: the shot facts as given.
        on_table: when given, every ball a descriptive fact names must be on the table.

    Raises:
        RulesInputError: a descriptive fact is malformed (its field named).
    """
    check_descriptive_facts(data, on_table)
    facts = dict(data)
    detailed = any(isinstance(e, Mapping) for e in as_list(facts.get("off_table"), "shot."))
    if "off_table_detail" in facts or "returned_to_bed_after_rail_top" in facts or detailed:
        _apply_off_table(facts)
    timed = any(_timed_pocket(e) for e in as_list(facts.get("pocketed"), "shot.pocketed"))
    if "late_drops" in facts or timed:
        _apply_late_drops(facts)
    if "cue_ball_frozen_to" in facts:
        _apply_frozen_cue_ball(facts)
    return facts
