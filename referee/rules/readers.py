"""Readers of single JSON values (a ball, a pocket, a player, a list, a flag) for the rules input.

Each one returns the engine's value or raises `RulesInputError(field, problem)` naming the
field it was given; parse.py and descriptive.py build on them. None has side effects.
"""

from __future__ import annotations

import re
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


_TRUE_TEXT = ("true", "yes", "y", "1", "oui")
_FALSE_TEXT = ("false", "no", "n", "0", "non", "")


def as_bool(value: Any, where: str) -> bool:
    """true/false; also written as text ("true", "no") or as 1/0."""
    if value is None:
        return False
    if isinstance(value, str) and value.strip().lower() in _TRUE_TEXT + _FALSE_TEXT:
        return value.strip().lower() in _TRUE_TEXT
    if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
        return bool(value)
    if not isinstance(value, bool):
        raise RulesInputError(where, f"expected true or false, got {value!r}")
    return value


_BALL_TEXT = re.compile(r"^\s*(?:ball|bille)?[\s_#-]*(\d{1,2})[\s_-]*(?:ball)?\s*$", re.IGNORECASE)
"""A ball written as text: "3", "#3", "ball 3", "3-ball"."""


def whole_number(value: Any) -> Any:
    """A number written as a whole float (3.0, as some JSON writers put it) is that int;
    anything else is returned as it is."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def as_ball(value: Any, where: str) -> int:
    """An object ball 1..10 from an int (or 3.0) or text that names one ("3", "ball 3")."""
    match = _BALL_TEXT.match(value) if isinstance(value, str) else None
    if match:
        value = int(match.group(1))
    value = whole_number(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10:
        raise RulesInputError(where, f"expected an object ball 1..10, got {value!r}")
    return value


def is_cue(value: Any) -> bool:
    """The entry names the cue ball: "cue" (any case, or "cue_ball"), 0, or {"ball": "cue"}."""
    if isinstance(value, Mapping):
        value = entry_ball(value)
    if value == 0 and not isinstance(value, bool):
        return True  # ball 0: the cue ball, as cameras number it
    if not isinstance(value, str):
        return False
    return value.strip().lower().replace(" ", "_").replace("-", "_") in CUE_NAMES


BALL_KEYS = ("ball", "number", "ball_number", "id", "ball_id")
"""Keys that hold the ball of an entry written as an object."""


def entry_ball(entry: Any) -> Any:
    """A list entry's ball: the entry itself, or its "ball" (or "number") when written as
    an object."""
    if not isinstance(entry, Mapping):
        return entry
    return next((entry[k] for k in BALL_KEYS if k in entry), None)


def ball_or_cue(value: Any, where: str, on_table: tuple[int, ...] | None) -> int | str:
    """An entry of a list that may name the cue ball: "cue", or an object ball on the table."""
    if is_cue(value):
        return CUE
    ball = as_ball(entry_ball(value), where)
    if on_table is not None and ball not in on_table:
        raise RulesInputError(where, f"the {ball} was not on the table")
    return ball


_POCKET_WORDS = {"middle": "side", "center": "side", "centre": "side"}
_POCKET_NOISE = ("corner", "pocket", "poche", "the")
_POCKET_SHORT = {
    "hl": "head_left", "hr": "head_right", "sl": "side_left", "sr": "side_right",
    "fl": "foot_left", "fr": "foot_right",
}  # fmt: skip


def pocket_name(value: Any) -> Any:
    """ "Foot-Left", "foot left", "left_foot", "foot left corner", "middle left" and "FL"
    spell the pockets of rules.md §3 (foot_left, side_left)."""
    if not isinstance(value, str):
        return value
    words = value.strip().lower().replace("-", " ").replace("_", " ").split()
    words = [_POCKET_WORDS.get(w, w) for w in words if w not in _POCKET_NOISE]
    name = "_".join(words)
    if name in _POCKET_SHORT:
        return _POCKET_SHORT[name]
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


_PLAYER_TEXT = re.compile(r"^\s*(?:player|joueur)?[\s_-]*([ab])\s*$", re.IGNORECASE)
"""A player written as "A", "a", "Player A" or "player_b"."""


def as_player(value: Any, where: str) -> Player:
    match = _PLAYER_TEXT.match(value) if isinstance(value, str) else None
    try:
        return Player(match.group(1).upper() if match else value)
    except ValueError:
        raise RulesInputError(where, f"expected player 'A' or 'B', got {value!r}") from None
