"""The table-driven cases of rule_cases.py: every rule of rules.md §1 and decision of §2."""

from __future__ import annotations

from typing import Any

import pytest

from referee.rules import initial_state
from tests.referee.rules.rule_cases import ALL_CASES, ERRORS
from tests.referee.rules.runner import mismatches, run_scenario


def test_case_ids_are_unique() -> None:
    ids = [case["id"] for case in ALL_CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("scenario", ALL_CASES, ids=[c["id"] for c in ALL_CASES])
def test_rule_case(scenario: dict[str, Any]) -> None:
    results = run_scenario(scenario)
    for i, (step, (result, _)) in enumerate(zip(scenario["steps"], results, strict=True)):
        wants_error = "field" in step["expected"]
        assert ("error" in result) is wants_error, f"step {i}: {result}"
        assert not mismatches(step["expected"], result), f"step {i} ({step['why']})"


@pytest.mark.parametrize("scenario", ERRORS, ids=[c["id"] for c in ERRORS])
def test_a_refused_step_leaves_the_state_unchanged(scenario: dict[str, Any]) -> None:
    (refused, state_after_refusal), _ = run_scenario(scenario)
    assert "error" in refused
    assert refused["field"] in refused["error"]
    assert state_after_refusal == initial_state(scenario).to_json()
