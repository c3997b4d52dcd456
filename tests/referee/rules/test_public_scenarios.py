"""Every public scenario (tests/data/scenarios-public.json) passes, every expected key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.referee.rules.runner import mismatches, run_scenario

DATA = Path(__file__).resolve().parents[2] / "data" / "scenarios-public.json"
SCENARIOS: list[dict[str, Any]] = json.loads(DATA.read_text(encoding="utf-8"))["scenarios"]


def test_the_public_file_is_complete() -> None:
    assert len(SCENARIOS) == 26
    assert all(step.get("expected") for s in SCENARIOS for step in s["steps"])


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_public_scenario(scenario: dict[str, Any]) -> None:
    for i, (step, (result, _)) in enumerate(
        zip(scenario["steps"], run_scenario(scenario), strict=True)
    ):
        assert "error" not in result, f"step {i}: {result}"
        assert not mismatches(step["expected"], result), (
            f"step {i}: {mismatches(step['expected'], result)}"
        )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_engine_state_matches_state_before(scenario: dict[str, Any]) -> None:
    """The people-only `state_before` of later steps agrees with the engine's own state."""
    states = [state for _, state in run_scenario(scenario)]
    for i, step in enumerate(scenario["steps"][1:], start=1):
        if "state_before" in step:
            assert _contains(states[i - 1], step["state_before"]), f"step {i}: {states[i - 1]}"


def _contains(got: Any, want: Any) -> bool:
    """`got` has everything `want` has (the engine's state may add fields, design.md)."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(
            k in got and _contains(got[k], v) for k, v in want.items()
        )
    return bool(got == want)
