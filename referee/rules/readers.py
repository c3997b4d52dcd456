"""Readers of single JSON values (a ball, a pocket, a player, a list, a flag) for the rules input.

Each one returns the engine's value or raises `RulesInputError(field, problem)` naming the
field it was given; parse.py and descriptive.py build on them. None has side effects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calibration.table import Pocket
from referee.rules.errors import RulesInputError
from referee.rules.shot import CUE
from referee.rules.state import Player

CUE_NAMES = ("cue", "cue_ball", "cueball", "white", "blanche")
"""Ways a ball list names the cue ball ("cue" in rules.md §4; "Blanche" in the FFB text)."""


def as_mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise RulesInputError(where, f"expected an object, got {type(value).__name__}")
    return value


def as_list(value: Any, where: str) -> list[Any]:
    """A list; a lone ball or name (3, "cue", "slow_play") or a lone entry ({"ball": 6}) is
    a list of one."""
    if value is None:
        return []
    if isinstance(value, int | str | Mapping) and not isinstance(value, bool):
        return [value]
    if not isinstance(value, list | tuple):
        raise RulesInputError(where, f"expected a list, got {type(value).__name__}")
    return list(value)


def as_bool(value: Any, where: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise RulesInputError(where, f"expected true or false, got {value!r}")
    return value


def as_ball(value: Any, where: str) -> int:
    """An object ball 1..10 from an int or a numeric string ("3")."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10:
        raise RulesInputError(where, f"expected an object ball 1..10, got {value!r}")
    return value


def is_cue(value: Any) -> bool:
    """The entry names the cue ball: "cue" (any case, or "cue_ball"), or {"ball": "cue"}."""
    if isinstance(value, Mapping):
        value = value.get("ball")
    if not isinstance(value, str):
        return False
    return value.strip().lower().replace(" ", "_").replace("-", "_") in CUE_NAMES


def entry_ball(entry: Any) -> Any:
    """A list entry's ball: the entry itself, or its "ball" when written as an object."""
    return entry.get("ball") if isinstance(entry, Mapping) else entry


def ball_or_cue(value: Any, where: str, on_table: tuple[int, ...] | None) -> int | str:
    """An entry of a list that may name the cue ball: "cue", or an object ball on the table."""
    if is_cue(value):
        return CUE
    ball = as_ball(entry_ball(value), where)
    if on_table is not None and ball not in on_table:
        raise RulesInputError(where, f"the {ball} was not on the table")
    return ball


def pocket_name(value: Any) -> Any:
    """ "Foot-Left", "foot left" and "left_foot" spell the pocket foot_left."""
    if not isinstance(value, str):
        return value
    name = value.strip().lower().replace("-", "_").replace(" ", "_")
    side, _, end = name.partition("_")
    return f"{end}_{side}" if side in ("left", "right") and end else name


def as_pocket(value: Any, where: str) -> Pocket:
    try:
        return Pocket(pocket_name(value))
    except ValueError:
        names = ", ".join(p.value for p in Pocket)
        raise RulesInputError(
            where, f"unknown pocket {value!r} (expected one of {names})"
        ) from None


def as_player(value: Any, where: str) -> Player:
    try:
        return Player(value.strip().upper() if isinstance(value, str) else value)
    except ValueError:
        raise RulesInputError(where, f"expected player 'A' or 'B', got {value!r}") from None
