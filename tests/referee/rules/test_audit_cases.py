"""The adversarial audit cases of audit_cases.py: every step, every rules.md §5 field."""

from __future__ import annotations

from typing import Any

import pytest

from tests.referee.rules.audit_cases import AUDIT_CASES
from tests.referee.rules.runner import RESULT_KEYS, mismatches, run_scenario

DISAGREE: set[str] = set()
"""Cases where the engine disagreed with the text when they were written; each fix removes
its case from here (strict xfail: a case that starts passing must leave the set)."""


def test_every_shot_step_pins_every_field() -> None:
    ids = [case["id"] for case in AUDIT_CASES]
    assert len(ids) == len(set(ids))
    for case in AUDIT_CASES:
        for i, step in enumerate(case["steps"]):
            assert step["why"], f"{case['id']} step {i}"
            if step.get("type", "shot") == "shot":
                assert set(step["expected"]) == RESULT_KEYS, f"{case['id']} step {i}"


CASES = [
    pytest.param(
        case,
        id=case["id"],
        marks=[pytest.mark.xfail(strict=True)] if case["id"] in DISAGREE else [],
    )
    for case in AUDIT_CASES
]


@pytest.mark.parametrize("scenario", CASES)
def test_audit_case(scenario: dict[str, Any]) -> None:
    results = run_scenario(scenario)
    for i, (step, (result, _)) in enumerate(zip(scenario["steps"], results, strict=True)):
        assert "error" not in result, f"step {i}: {result}"
        assert not mismatches(step["expected"], result), (
            f"step {i} ({step['why']}): {mismatches(step['expected'], result)}"
        )
