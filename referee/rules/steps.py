"""Scenario steps (the format of scenarios-public.json) fed to the engine.

`run_step` is what `tenball rules run` does for one step; it is pure: it takes the state and
returns the result dict and the next state. A bad step raises RulesInputError.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.rules.config import RulesConfig
from referee.rules.engine import DEFAULT_CONFIG, choose_option, decide, next_rack, warn
from referee.rules.errors import RulesInputError
from referee.rules.parse import as_mapping, as_player, parse_shot
from referee.rules.rack import check_rack
from referee.rules.state import GameState

STEP_TYPES = ("shot", "option_choice", "warning", "rack_check")


def _ready(state: GameState, config: RulesConfig) -> GameState:
    """Once a rack is won, the next step belongs to the next rack (I-23 break order)."""
    return next_rack(state, config) if state.is_over else state


def run_step(
    step: Any, state: GameState, config: RulesConfig = DEFAULT_CONFIG
) -> tuple[dict[str, Any], GameState]:
    """Run one scenario step.

    Args:
        step: {"type": "shot" | "option_choice" | "warning" | "rack_check", ...}.
        state: the engine's state before the step.
        config: rule options.

    Returns:
        The result (every rules.md §5 field, plus `reasons` and `summary`; `rack_valid` for a
        rack check) and the state after the step.

    Raises:
        RulesInputError: naming the offending field; nothing has changed.
    """
    d = as_mapping(step, "step")
    kind = d.get("type")
    if kind == "rack_check":
        return check_rack(d.get("rack")).to_json(), state
    state = _ready(state, config)
    if kind == "shot":
        call, new = decide(parse_shot(d, state.balls_on_table), state, config)
    elif kind == "option_choice":
        player = d.get("player")
        call, new = choose_option(
            state, d.get("choice"), None if player is None else as_player(player, "player")
        )
    elif kind == "warning":
        call, new = warn(state, as_player(d.get("player"), "player"))
    else:
        raise RulesInputError("type", f"unknown step type {kind!r} (expected one of {STEP_TYPES})")
    return call.to_json(), new


def initial_state(scenario: Mapping[str, Any]) -> GameState:
    """The scenario's `initial_state` (a fresh rack, A to break, when absent)."""
    raw = scenario.get("initial_state")
    return GameState() if raw is None else GameState.from_json(raw)
