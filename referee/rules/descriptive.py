"""Descriptive camera facts (rules.md §4, optional) folded into the facts that rules judge.

The camera may report more than the core facts: a ball that rode the rail top and fell back
(`returned_to_bed_after_rail_top`), how a ball left the table (`off_table_detail`), balls that
dropped after the balls came to rest (`late_drops`). These change what counts as off the table
(I-15) and as pocketed on the shot (I-20), so they are applied before the rules run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

LATE_DROP_WINDOW_S = 5.0
"""I-20 (WPA 5-second rule): a ball dropping within this time of all balls stopping counts."""

NON_TABLE_OBJECTS = ("lamp", "light", "person", "player", "spectator", "chalk", "floor", "object")
"""Words in an off-table detail that mean the ball touched something that is not the table."""


def _ball_of(entry: Any) -> Any:
    return entry.get("ball") if isinstance(entry, Mapping) else entry


def _same_ball(a: Any, b: Any) -> bool:
    return str(a) == str(b)


def _touched_non_table_object(entry: Any) -> bool:
    if not isinstance(entry, Mapping):
        return False
    words = " ".join(str(v).lower() for k, v in entry.items() if k != "ball")
    return any(word in words for word in NON_TABLE_OBJECTS)


_NOT_DELAYS = ("ball", "pocket", "frame")
"""Keys of a late-drop entry that are never its delay."""


def _delay_s(entry: Mapping[str, Any]) -> float | None:
    """Seconds from all balls stopping to the drop: the number under a key in seconds
    ("seconds_after_stop", "delay_s"), else the one number the entry holds ("t_after_rest")."""
    numbers = {
        key: float(value)
        for key, value in entry.items()
        if key not in _NOT_DELAYS
        and not key.startswith("frame")
        and isinstance(value, int | float)
        and not isinstance(value, bool)
    }
    timed = [v for k, v in numbers.items() if k.endswith("_s") or "sec" in k]
    if timed:
        return timed[0]
    return next(iter(numbers.values())) if len(numbers) == 1 else None


def _detail_entries(value: Any) -> list[Any]:
    if isinstance(value, Mapping):  # {"6": {...}} form
        return [
            {"ball": k, **v} if isinstance(v, Mapping) else {"ball": k, "detail": v}
            for k, v in value.items()
        ]
    return list(value) if isinstance(value, list) else []


def _apply_off_table(facts: dict[str, Any]) -> None:
    off = list(facts.get("off_table") or [])
    forced = [
        _ball_of(e)
        for e in _detail_entries(facts.get("off_table_detail"))
        if _touched_non_table_object(e)
    ]
    for ball in forced:  # I-15: touching a non-table object is off, even if it comes back
        if str(ball) in ("cue", "0"):
            facts["cue_ball_off_table"] = True
        elif not any(_same_ball(ball, b) for b in off):
            off.append(ball)
    returned = [
        b
        for b in facts.get("returned_to_bed_after_rail_top") or []
        if not any(_same_ball(b, f) for f in forced)
    ]
    for ball in returned:  # I-15: rode the rail top and fell back: not off the table
        if str(ball) == "cue":
            facts["cue_ball_off_table"] = False
        off = [b for b in off if not _same_ball(b, ball)]
    facts["off_table"] = off


def _apply_late_drops(facts: dict[str, Any]) -> None:
    pocketed = list(facts.get("pocketed") or [])
    for entry in facts.get("late_drops") or []:
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
        *(facts.get("cushion_after_first_contact") or []),
        *(_ball_of(p) for p in facts.get("pocketed") or []),
        *(facts.get("off_table") or []),
    ]
    return any(_same_ball(ball, b) for b in seen)


def _apply_frozen_cue_ball(facts: dict[str, Any]) -> None:
    """I-17: shooting into an object ball the cue ball is frozen to is a contact with it. A
    camera sees no meeting of two balls already touching, so when it reports no first ball
    but the frozen-to ball moved (reached a cushion, dropped, left the table), that ball was
    the first one hit. Shooting away from it, it does not move and nothing is inferred."""
    frozen = facts.get("cue_ball_frozen_to")
    balls = frozen if isinstance(frozen, list) else [frozen]
    moved = [b for b in balls if b is not None and str(b) != "cue" and _moved(facts, b)]
    if facts.get("first_object_ball_contacted") is None and len(moved) == 1:
        facts["first_object_ball_contacted"] = moved[0]


def apply_descriptive_facts(data: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a rules.md §4 facts object with the descriptive facts applied."""
    facts = dict(data)
    if "off_table_detail" in facts or "returned_to_bed_after_rail_top" in facts:
        _apply_off_table(facts)
    if "late_drops" in facts:
        _apply_late_drops(facts)
    if "cue_ball_frozen_to" in facts:
        _apply_frozen_cue_ball(facts)
    return facts
