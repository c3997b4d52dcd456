"""Shared helpers for the rules tests: run a scenario the way `tenball rules run` does."""

from __future__ import annotations

from typing import Any

from referee.rules import RulesInputError, initial_state, run_step
from referee.rules.steps import scenario_config

RESULT_KEYS = {  # rules.md §5: every field of a shot result
    "foul",
    "fouls",
    "next_shooter",
    "cue_ball_next",
    "spot",
    "remain_pocketed",
    "option",
    "rack_winner",
    "consecutive_fouls",
    "warned",
    "warning_due",
    "push_out_available_next",
    "balls_on_table_after",
    "turn_ends",
}


def run_scenario(scenario: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(result, state after) per step, carrying the engine's own state; errors as results."""
    state = initial_state(scenario)
    config = scenario_config(scenario)
    out = []
    for step in scenario["steps"]:
        try:
            result, state = run_step(step, state, config)
        except RulesInputError as error:
            result = {"error": str(error), "field": error.field}
        out.append((result, state.to_json()))
    return out


def mismatches(expected: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    return {
        key: {"expected": want, "got": result.get(key, "<missing>")}
        for key, want in expected.items()
        if result.get(key, "<missing>") != want
    }
