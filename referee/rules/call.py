"""What the engine answers for a step (rules.md §5), with its reasons as data."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from referee.rules.state import CueBall, GameState, PendingOption, Player


class FoulCode(StrEnum):
    """The foul codes of rules.md §5, in the order they are reported."""

    CASSE1_FIRST_CONTACT = "CASSE1_FIRST_CONTACT"
    CASSE1_FOUR_CUSHIONS = "CASSE1_FOUR_CUSHIONS"
    F1 = "F1"
    F2 = "F2"
    F3 = "F3"
    F4 = "F4"
    F5 = "F5"
    F6 = "F6"
    F7 = "F7"
    F8 = "F8"
    F9 = "F9"
    F10 = "F10"
    F11 = "F11"
    F12 = "F12"
    F13 = "F13"

    @property
    def clause(self) -> str:
        """The FFB clause the foul rests on ("Casse 1", "Fautes 2")."""
        return "Casse 1" if self.value.startswith("CASSE") else f"Fautes {self.value[1:]}"

    @property
    def rank(self) -> int:
        return list(FoulCode).index(self)


@dataclass(frozen=True, slots=True)
class Reason:
    """One ground of a call: a code, the clause it rests on, and a sentence for players.

    Attributes:
        code: a foul code ("F2"), or a decision code ("CONTINUE", "OPTION", "WIN", ...).
        clause: the rule or interpretation ("Fautes 2", "Déroulement 3", "I-10").
        text: a sentence a player understands.
    """

    code: str
    clause: str
    text: str

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "clause": self.clause, "text": self.text}


@dataclass(frozen=True, slots=True)
class Call:
    """The engine's ruling on one step (rules.md §5).

    Attributes:
        shooter: who played the step (or chose, for an option).
        fouls: all foul codes of the shot, in `FoulCode` order (one penalty, I-18).
        next_shooter: who shoots next; None while an option is pending or the rack is over.
        cue_ball_next: where that player's cue ball is; None once the rack is over.
        spot: balls put back on the foot spot (only ever the 10).
        remain_pocketed: object balls pocketed on the shot that stay down.
        option: the option now pending, else None.
        rack_winner: the winner once the rack is over.
        turn_ends: whether the shooter's inning ended.
        state: the state after the step (counts, warnings, balls, push-out availability).
        reasons: every ground of the call, in the order a referee would say them.
        summary: one sentence for the whole call.
    """

    shooter: Player | None
    fouls: tuple[FoulCode, ...]
    next_shooter: Player | None
    cue_ball_next: CueBall | None
    spot: tuple[int, ...]
    remain_pocketed: tuple[int, ...]
    option: PendingOption | None
    rack_winner: Player | None
    turn_ends: bool
    state: GameState
    reasons: tuple[Reason, ...]
    summary: str

    @property
    def foul(self) -> bool:
        return bool(self.fouls)

    def to_json(self) -> dict[str, Any]:
        """Every rules.md §5 field, plus `reasons` and `summary`."""
        state = self.state
        over = self.rack_winner is not None
        return {
            "foul": self.foul,
            "fouls": [f.value for f in self.fouls],
            "next_shooter": _name(self.next_shooter),
            "cue_ball_next": self.cue_ball_next.value if self.cue_ball_next else None,
            "spot": list(self.spot),
            "remain_pocketed": list(self.remain_pocketed),
            "option": self.option.public_json() if self.option else None,
            "rack_winner": _name(self.rack_winner),
            "consecutive_fouls": {p.value: state.consecutive_fouls[p] for p in Player},
            "warned": {p.value: state.warned[p] for p in Player},
            "warning_due": _name(state.warning_due),
            "push_out_available_next": state.push_out_available,
            "balls_on_table_after": None if over else list(state.balls_on_table),
            "turn_ends": self.turn_ends,
            "reasons": [r.to_json() for r in self.reasons],
            "summary": self.summary,
        }

    def explain(self) -> str:
        """The call in words: the summary, then one line per reason."""
        lines = [self.summary]
        lines += [f"  - [{r.clause}] {r.text}" for r in self.reasons]
        return "\n".join(lines)


def _name(player: Player | None) -> str | None:
    return player.value if player is not None else None
