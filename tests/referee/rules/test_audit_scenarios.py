"""Every step of the independent audit scenarios (tests/data/scenarios-audit.json).

The file was written from the specification alone (rules.md §1-§5, decisions I-01..I-35, the
FFB text) in the format of scenarios-public.json; each step's `expected` holds every rules.md
§5 field of a shot, and every key must match. `ambiguous` scenarios say which reading they pin.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.referee.rules.runner import mismatches, run_scenario

DATA = Path(__file__).resolve().parents[2] / "data" / "scenarios-audit.json"
SCENARIOS: dict[str, dict[str, Any]] = {
    s["id"]: s for s in json.loads(DATA.read_text(encoding="utf-8"))["scenarios"]
}
STEPS = [(ident, i) for ident, s in SCENARIOS.items() for i in range(len(s["steps"]))]
SHOT_FIELDS = {
    "foul", "fouls", "next_shooter", "cue_ball_next", "spot", "remain_pocketed", "option",
    "rack_winner", "consecutive_fouls", "warned", "warning_due", "push_out_available_next",
    "balls_on_table_after", "turn_ends",
}  # fmt: skip


@cache
def _results(ident: str) -> tuple[dict[str, Any], ...]:
    return tuple(result for result, _ in run_scenario(SCENARIOS[ident]))


def test_the_audit_file_is_complete() -> None:
    """At least 60 scenarios; every shot step pins every result field, with a reason."""
    assert len(SCENARIOS) >= 60
    for ident, i in STEPS:
        step = SCENARIOS[ident]["steps"][i]
        assert step.get("why"), f"{ident} step {i}"
        if step["type"] == "shot":
            assert set(step["expected"]) == SHOT_FIELDS, f"{ident} step {i}"


@pytest.mark.parametrize(("ident", "index"), STEPS, ids=[f"{s}-{i}" for s, i in STEPS])
def test_audit_step(ident: str, index: int) -> None:
    result = _results(ident)[index]
    assert "error" not in result, result
    expected = SCENARIOS[ident]["steps"][index]["expected"]
    assert not mismatches(expected, result), mismatches(expected, result)


@pytest.mark.parametrize("ident", list(SCENARIOS), ids=list(SCENARIOS))
def test_audit_runs_are_deterministic(ident: str) -> None:
    again = [result for result, _ in run_scenario(SCENARIOS[ident])]
    assert json.dumps(again, sort_keys=True) == json.dumps(list(_results(ident)), sort_keys=True)
