"""The FFB rules engine (referee.rules) behind the live service's `RulesBackend` protocol."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.live.session import RulesError
from referee.rules import (
    GameState,
    Player,
    RulesConfig,
    RulesInputError,
    Shot,
    choose_option,
    decide,
    validate_declarations,
    warn,
)


class EngineRules:
    """`referee.rules` speaking the step format of scenarios-public.json.

    Args:
        config: rule options (FFB defaults).
    """

    def __init__(self, config: RulesConfig | None = None) -> None:
        self.config = config or RulesConfig()

    def rack_state(self, breaker: str) -> dict[str, Any]:
        return GameState.new_rack(Player(breaker)).to_json()

    def validate(self, state: Mapping[str, Any], declarations: Mapping[str, Any]) -> None:
        """Refuse declarations the rules do not allow before the stroke (I-12, I-05)."""
        try:
            game = GameState.from_json(state)
            step = {"declarations": dict(declarations), "shot": None}
            validate_declarations(Shot.from_json(step, game.balls_on_table).declarations, game)
        except RulesInputError as error:
            raise RulesError(str(error)) from error

    def step(
        self, state: Mapping[str, Any], step: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        try:
            game = GameState.from_json(state)
            kind = step.get("type")
            if kind == "shot":
                shot = Shot.from_json(step, game.balls_on_table)
                call, after = decide(shot, game, self.config)
            elif kind == "option_choice":
                player = step.get("player")
                holder = None if player is None else Player(player)
                call, after = choose_option(game, str(step.get("choice")), holder)
            elif kind == "warning":
                call, after = warn(game, Player(str(step.get("player"))))
            else:
                raise RulesError(f"unknown step type {kind!r}")
        except (RulesInputError, ValueError) as error:  # ValueError: a bad player name
            raise RulesError(str(error)) from error
        return call.to_json(), after.to_json()
