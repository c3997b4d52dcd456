"""The round-12 clause walk (walk_cases.py): every step, every rules.md §5 field of a shot."""

from __future__ import annotations

from typing import Any

import pytest

from tests.referee.rules.runner import RESULT_KEYS, mismatches, run_scenario
from tests.referee.rules.walk_cases import WALK_CASES


@pytest.mark.parametrize("scenario", WALK_CASES, ids=[c["id"] for c in WALK_CASES])
def test_walk_case(scenario: dict[str, Any]) -> None:
    for i, step in enumerate(scenario["steps"]):
        if step.get("type", "shot") == "shot":
            assert set(step["expected"]) == RESULT_KEYS, f"step {i}"
    results = run_scenario(scenario)
    for i, (step, (result, _)) in enumerate(zip(scenario["steps"], results, strict=True)):
        assert "error" not in result, f"step {i}: {result}"
        assert not mismatches(step["expected"], result), (
            f"step {i} ({step['why']}): {mismatches(step['expected'], result)}"
        )
