"""The FFB rules engine (referee.rules) behind the live service's `RulesBackend` protocol."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.live.session import RulesError
from referee.rules.config import RulesConfig
from referee.rules.engine import DEFAULT_CONFIG, choose_option, decide, validate_declarations, warn
from referee.rules.errors import RulesInputError
from referee.rules.parse import parse_declarations
from referee.rules.shot import Shot
from referee.rules.state import GameState, Player


class EngineRules:
    """`referee.rules` speaking the step format of scenarios-public.json.

    Args:
        config: rule options (FFB defaults).
    """

    def __init__(self, config: RulesConfig = DEFAULT_CONFIG) -> None:
        self.config = config

    def rack_state(self, breaker: str) -> dict[str, Any]:
        return GameState.new_rack(Player(breaker)).to_json()

    def validate(self, state: Mapping[str, Any], declarations: Mapping[str, Any]) -> None:
        """Refuse declarations the rules do not allow before the stroke (I-12, I-05)."""
        try:
            game = GameState.from_json(state)
            validate_declarations(parse_declarations(declarations, game.balls_on_table), game)
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
