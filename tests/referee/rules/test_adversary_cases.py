"""The third adversarial audit (adversary_cases.py): every step, every rules.md §5 field of a
shot; malformed input refused with its field named and the state left unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from referee.rules import RulesInputError, initial_state, run_step
from tests.referee.rules.adversary_cases import ADVERSARY_CASES, INPUT_ERRORS
from tests.referee.rules.runner import RESULT_KEYS, mismatches, run_scenario


def test_every_shot_step_pins_every_field() -> None:
    ids = [case["id"] for case in ADVERSARY_CASES]
    assert len(ids) == len(set(ids))
    for case in ADVERSARY_CASES:
        for i, step in enumerate(case["steps"]):
            assert step["why"], f"{case['id']} step {i}"
            if step.get("type", "shot") == "shot":
                assert set(step["expected"]) == RESULT_KEYS, f"{case['id']} step {i}"


@pytest.mark.parametrize("scenario", ADVERSARY_CASES, ids=[c["id"] for c in ADVERSARY_CASES])
def test_adversary_case(scenario: dict[str, Any]) -> None:
    results = run_scenario(scenario)
    for i, (step, (result, _)) in enumerate(zip(scenario["steps"], results, strict=True)):
        assert "error" not in result, f"step {i}: {result}"
        assert not mismatches(step["expected"], result), (
            f"step {i} ({step['why']}): {mismatches(step['expected'], result)}"
        )


@pytest.mark.parametrize(
    ("initial", "step", "field"),
    [pytest.param(s, step, f, id=i) for i, s, step, f in INPUT_ERRORS],
)
def test_malformed_input_names_its_field(
    initial: dict[str, Any], step: dict[str, Any], field: str
) -> None:
    state = initial_state({"initial_state": initial})
    with pytest.raises(RulesInputError) as refused:
        run_step(step, state)
    assert refused.value.field == field
    assert str(refused.value).startswith(field + ":")
    assert initial_state({"initial_state": initial}) == state  # nothing changed
