"""Rack validation before the break (Mise en place 1-4)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.rules.call import Reason
from referee.rules.errors import RulesInputError

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
    balls = rack.get("balls")
    if balls is None:
        return None
    if sorted(balls) != list(range(1, 11)):
        return Reason(
            "RACK", "Mise en place 1", f"all ten balls 1..10 must be racked, got {balls}."
        )
    return None


def _value(raw: Any) -> Any:
    """A ball written as a string ("10") is that ball."""
    return int(raw) if isinstance(raw, str) and raw.strip().isdigit() else raw


def check_rack(rack: Any) -> RackCheck:
    """Judge a rack description (Mise en place 1-4).

    Args:
        rack: {"apex_ball": 1, "apex_on_foot_spot": true, "rows_parallel_to_foot_rail": true,
            "ball_in_middle_of_three_row": 10, ...}. Any other ball may sit anywhere (S4: no
            2 and 3 in the corners, unlike BCA/CSI), so `back_row_corners` is not judged.
            A missing item is reported as not checked.

    Raises:
        RulesInputError: the rack is not an object, or says nothing the rules judge.
    """
    if not isinstance(rack, Mapping):
        raise RulesInputError("rack", f"expected an object, got {type(rack).__name__}")
    if not any(key in rack for key, *_ in _CHECKS):
        names = ", ".join(key for key, *_ in _CHECKS)
        raise RulesInputError("rack", f"nothing to check: expected some of {names}")
    faults: list[Reason] = []
    notes: list[Reason] = []
    for key, wanted, clause, text in _CHECKS:
        if key not in rack:
            notes.append(Reason("NOT_CHECKED", clause, f"Not checked: {text}."))
        elif _value(rack[key]) != wanted or isinstance(rack[key], bool) != isinstance(wanted, bool):
            faults.append(Reason("RACK", clause, f"Illegal rack: {text} (got {rack[key]!r})."))
    missing = _balls_complete(rack)
    if missing is not None:
        faults.append(missing)
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
