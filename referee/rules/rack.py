"""Rack validation before the break (Mise en place 1-4)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.rules.call import Reason
from referee.rules.errors import RulesInputError
from referee.rules.readers import as_ball, as_bool

_CHECKS: tuple[tuple[str, Any, str, str], ...] = (
    ("apex_ball", 1, "Mise en place 1", "the 1 must be at the apex of the triangle"),
    ("apex_on_foot_spot", True, "Mise en place 1", "the apex ball must be on the foot spot"),
    (
        "rows_parallel_to_foot_rail",
        True,
        "Mise en place 2",
        "the rows behind the apex must be parallel to the foot cushion",
    ),
    (
        "ball_in_middle_of_three_row",
        10,
        "Mise en place 3",
        "the 10 must be in the middle of the three-ball row",
    ),
)


@dataclass(frozen=True, slots=True)
class RackCheck:
    """The verdict on a rack: valid or not, and why."""

    valid: bool
    reasons: tuple[Reason, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "rack_valid": self.valid,
            "reasons": [r.to_json() for r in self.reasons],
            "summary": "Valid rack." if self.valid else self._illegal_summary(),
        }

    def _illegal_summary(self) -> str:
        faults = [r.text.removeprefix("Illegal rack: ") for r in self.reasons if r.code == "RACK"]
        return "Illegal rack: " + " ".join(faults) + " Rack again."


def _balls_complete(rack: Mapping[str, Any]) -> Reason | None:
    """The ten balls 1..10, from the `balls` racked or their count (`ball_count`)."""
    count = _value(rack.get("ball_count", rack.get("number_of_balls")))
    if count is not None and count != 10:
        return Reason("RACK", "G1 / Mise en place 1", f"ten object balls are racked, got {count}.")
    balls = rack.get("balls")
    if balls is None:
        return None
    values = [_value(b) for b in balls] if isinstance(balls, list) else [balls]
    if sorted(str(b) for b in values) != sorted(str(b) for b in range(1, 11)):
        return Reason(
            "RACK", "Mise en place 1", f"all ten balls 1..10 must be racked, got {balls}."
        )
    return None


_SHAPE_KEYS = ("shape", "rack_shape", "formation")
"""Keys that may name the rack's shape (Mise en place 1: "un triangle équilatéral")."""
TRIANGLE_ROWS = [1, 2, 3, 4]
"""Balls per row of the ten-ball triangle, apex first."""


def _shape_fault(rack: Mapping[str, Any]) -> Reason | None:
    """A shape named other than a triangle (a nine-ball diamond, say), or rows that are not
    1, 2, 3 and 4 balls from the apex."""
    for key in _SHAPE_KEYS:
        shape = rack.get(key)
        if isinstance(shape, str) and "triang" not in shape.lower():
            text = f"the balls must be racked in a triangle (got {shape!r})"
            return Reason("RACK", "Mise en place 1", f"Illegal rack: {text}.")
    rows = rack.get("rows")
    if isinstance(rows, list) and [len(r) if isinstance(r, list) else 0 for r in rows] != (
        TRIANGLE_ROWS
    ):
        text = "the rows of the triangle must hold 1, 2, 3 and 4 balls from the apex"
        return Reason("RACK", "Mise en place 1", f"Illegal rack: {text} (got {rows!r}).")
    return None


def _with_rows(rack: Mapping[str, Any]) -> Mapping[str, Any]:
    """The items a `rows` layout ([[1], [2, 3], [4, 10, 5], [6, 7, 8, 9]], apex first) says,
    where the rack does not state them itself: the apex ball, the middle of the three-row,
    and the balls racked."""
    rows = rack.get("rows")
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        return rack
    derived: dict[str, Any] = {"balls": [_value(b) for r in rows for b in r]}
    if rows and len(rows[0]) == 1:
        derived["apex_ball"] = rows[0][0]
    if len(rows) > 2 and len(rows[2]) == 3:
        derived["ball_in_middle_of_three_row"] = rows[2][1]
    return {**derived, **rack}


_KEY_WORDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("middle",), "ball_in_middle_of_three_row"),
    (("apex", "spot"), "apex_on_foot_spot"),
    (("foot", "spot"), "apex_on_foot_spot"),
    (("apex",), "apex_ball"),
    (("parallel",), "rows_parallel_to_foot_rail"),
)
"""Words of a rack key that say which item of Mise en place 1-3 it states, first match wins
("ten_in_middle_of_three_row", "one_at_apex", "apex_on_spot", "rows_parallel")."""
_BALL_OF_ITEM = {"ball_in_middle_of_three_row": 10, "apex_ball": 1}


def _item_of(key: str) -> str | None:
    words = key.lower()
    return next((item for need, item in _KEY_WORDS if all(w in words for w in need)), None)


def _with_item_names(rack: Mapping[str, Any]) -> Mapping[str, Any]:
    """The items a rack states under other keys, by their names here: a flag for the ball
    items says whether the right ball is there (true: the 1 / the 10; false: not)."""
    named: dict[str, Any] = {}
    for key, value in rack.items():
        item = _item_of(key) if isinstance(key, str) else None
        if item is None or item in rack or item in named:
            continue
        if isinstance(value, list) and item == "ball_in_middle_of_three_row":
            value = value[1] if len(value) == 3 else None  # the three-ball row itself
        if value is None or isinstance(value, list | Mapping):
            continue
        if item in _BALL_OF_ITEM and isinstance(value, bool):
            value = _BALL_OF_ITEM[item] if value else f"not the {_BALL_OF_ITEM[item]} ({key})"
        named[item] = value
    return {**rack, **named}


def _value(raw: Any) -> Any:
    """A ball written as a string ("10") is that ball."""
    return int(raw) if isinstance(raw, str) and raw.strip().isdigit() else raw


def _item_value(raw: Any, wanted: Any) -> Any:
    """An item as the check compares it: a flag written as text ("true", "yes") or 1/0 is
    that flag, a ball written as text ("10", "ball 10") that ball, and a ball item set true
    says the right ball is there; what names neither is kept as it is (and so fails the
    check, never matches by accident: a false ball item is no ball)."""
    try:
        if isinstance(wanted, bool):
            return as_bool(raw, "rack") if raw is not None else raw
        if isinstance(raw, bool):
            return wanted if raw else "no"
        return as_ball(raw, "rack")
    except RulesInputError:
        return raw


def check_rack(rack: Any) -> RackCheck:
    """Judge a rack description (Mise en place 1-4).

    Args:
        rack: {"apex_ball": 1, "apex_on_foot_spot": true, "rows_parallel_to_foot_rail": true,
            "ball_in_middle_of_three_row": 10, ...}, or its `rows` from the apex; a `shape`
            other than a triangle is illegal (S1). Any other ball may sit anywhere (S4: no
            2 and 3 in the corners, unlike BCA/CSI), so `back_row_corners` is not judged.
            A missing item is reported as not checked.

    Raises:
        RulesInputError: the rack is not an object, or says nothing the rules judge.
    """
    if isinstance(rack, list) and rack and all(isinstance(row, list) for row in rack):
        rack = {"rows": rack}  # the rows themselves, apex first
    if not isinstance(rack, Mapping):
        raise RulesInputError("rack", f"expected an object, got {type(rack).__name__}")
    rack = _with_item_names(_with_rows(rack))
    if not any(key in rack for key, *_ in _CHECKS):
        names = ", ".join(key for key, *_ in _CHECKS)
        raise RulesInputError("rack", f"nothing to check: expected some of {names}")
    faults: list[Reason] = []
    notes: list[Reason] = []
    for key, wanted, clause, text in _CHECKS:
        if key not in rack:
            notes.append(Reason("NOT_CHECKED", clause, f"Not checked: {text}."))
        elif _item_value(rack[key], wanted) != wanted:
            faults.append(Reason("RACK", clause, f"Illegal rack: {text} (got {rack[key]!r})."))
    for fault in (_shape_fault(rack), _balls_complete(rack)):
        if fault is not None:
            faults.append(fault)
    if not faults:
        notes.append(
            Reason(
                "RACK_OK",
                "Mise en place 1-4",
                "The 1 is at the apex on the foot spot, the 10 "
                "in the middle of the three-ball row; the others may be anywhere (S4).",
            )
        )
    return RackCheck(not faults, tuple(faults + notes))
