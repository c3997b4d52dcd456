"""The game state between shots (rules.md §3) and its JSON form."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from referee.rules.errors import RulesInputError

OBJECT_BALLS: tuple[int, ...] = tuple(range(1, 11))
GAME_BALL = 10


class Player(StrEnum):
    """The two players of a match."""

    A = "A"
    B = "B"

    def other(self) -> Player:
        return Player.B if self is Player.A else Player.A


class CueBall(StrEnum):
    """Where the next shooter's cue ball is."""

    IN_HAND_BEHIND_HEAD_STRING = "in_hand_behind_head_string"
    IN_HAND_ANYWHERE = "in_hand_anywhere"
    IN_POSITION = "in_position"

    def is_in_hand(self) -> bool:
        return self is not CueBall.IN_POSITION


class OptionChoice(StrEnum):
    """The two answers to an option (Push-out 4, Déroulement 3)."""

    SHOOT = "shoot"
    HAND_BACK = "hand_back"


OPTION_CHOICES: tuple[str, ...] = (OptionChoice.SHOOT.value, OptionChoice.HAND_BACK.value)


@dataclass(frozen=True, slots=True)
class PendingOption:
    """An open choice: the holder plays the table as it lies or hands it back.

    Attributes:
        holder: the player who chooses.
        previous_shooter: the player who shot last and plays again after a hand-back.
        after_push_out: True when the option follows a push-out (Push-out 4), False after an
            unannounced ball (Déroulement 3).
    """

    holder: Player
    previous_shooter: Player
    after_push_out: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "holder": self.holder.value,
            "choices": list(OPTION_CHOICES),
            "previous_shooter": self.previous_shooter.value,
            "after_push_out": self.after_push_out,
        }

    def public_json(self) -> dict[str, Any]:
        """The option as rules.md §5 reports it (`holder` and `choices`)."""
        return {"holder": self.holder.value, "choices": list(OPTION_CHOICES)}


def _per_player(value: Mapping[Player, Any] | None, default: Any) -> dict[Player, Any]:
    base = {Player.A: default, Player.B: default}
    if value:
        base.update(value)
    return base


@dataclass(frozen=True, slots=True)
class GameState:
    """The state of a rack at the start of a shot (rules.md §3).

    Attributes:
        balls_on_table: object balls on the table, ascending.
        turn: the player at the table (the holder while an option is pending); None once the
            rack is over.
        breaker: who broke this rack.
        is_break: the next shot is the break.
        push_out_available: the next shot may be a push-out (first shot after a legal break).
        cue_ball: where the next shooter's cue ball is.
        consecutive_fouls: per player, fouls on his own successive shots (I-19).
        warned: per player, whether he has been warned on two fouls (Fautes, avertissement).
        pending_option: an option waiting for its holder's choice, else None.
        rack_winner: who won the rack once it is over, else None.
    """

    balls_on_table: tuple[int, ...] = OBJECT_BALLS
    turn: Player | None = Player.A
    breaker: Player = Player.A
    is_break: bool = True
    push_out_available: bool = False
    cue_ball: CueBall = CueBall.IN_HAND_BEHIND_HEAD_STRING
    consecutive_fouls: Mapping[Player, int] = field(default_factory=dict)
    warned: Mapping[Player, bool] = field(default_factory=dict)
    pending_option: PendingOption | None = None
    rack_winner: Player | None = None

    def __post_init__(self) -> None:
        balls = tuple(sorted(set(self.balls_on_table)))
        if any(b not in OBJECT_BALLS for b in balls) or len(balls) != len(self.balls_on_table):
            raise RulesInputError(
                "state.balls_on_table", f"expected distinct balls 1..10, got {self.balls_on_table}"
            )
        object.__setattr__(self, "balls_on_table", balls)
        object.__setattr__(self, "consecutive_fouls", _per_player(self.consecutive_fouls, 0))
        object.__setattr__(self, "warned", _per_player(self.warned, False))
        for player, count in self.consecutive_fouls.items():
            if not 0 <= count <= 2:
                raise RulesInputError(
                    f"state.consecutive_fouls.{player}", f"expected 0, 1 or 2, got {count}"
                )
        if self.rack_winner is None and self.turn is None:
            raise RulesInputError("state.turn", "a rack in play needs a player at the table")

    @classmethod
    def new_rack(cls, breaker: Player) -> GameState:
        """A fresh rack: all ten balls, the breaker in hand behind the head string."""
        return cls(turn=breaker, breaker=breaker)

    @property
    def is_over(self) -> bool:
        return self.rack_winner is not None

    @property
    def shooter(self) -> Player | None:
        """The player to shoot now: None while an option is pending or once the rack is over."""
        if self.is_over or self.pending_option is not None:
            return None
        return self.turn

    @property
    def lowest_ball(self) -> int | None:
        return self.balls_on_table[0] if self.balls_on_table else None

    @property
    def warning_due(self) -> Player | None:
        """The player on two consecutive fouls who has not been warned (I-24).

        When both are, the one to play next comes first: his warning is the more urgent.
        """
        due = [p for p in Player if self.consecutive_fouls[p] >= 2 and not self.warned[p]]
        if len(due) > 1 and self.turn is not None:
            due.sort(key=lambda p: p is not self.turn)
        return due[0] if due else None

    def with_changes(self, **changes: Any) -> GameState:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        """The rules.md §3 dict (plus `rack_winner` once the rack is over)."""
        data: dict[str, Any] = {
            "balls_on_table": list(self.balls_on_table),
            "turn": self.turn.value if self.turn else None,
            "breaker": self.breaker.value,
            "is_break": self.is_break,
            "push_out_available": self.push_out_available,
            "cue_ball": self.cue_ball.value,
            "consecutive_fouls": {p.value: self.consecutive_fouls[p] for p in Player},
            "warned": {p.value: self.warned[p] for p in Player},
            "pending_option": self.pending_option.to_json() if self.pending_option else None,
        }
        if self.rack_winner is not None:
            data["rack_winner"] = self.rack_winner.value
        return data

    @classmethod
    def from_json(cls, data: Any) -> GameState:
        """Read the rules.md §3 dict; raises RulesInputError naming the bad field."""
        from referee.rules.state_json import parse_state

        return parse_state(data)
