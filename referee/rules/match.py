"""A match: racks, score, history for undo, and operator corrections with an audit trail.

The live service and the review pipeline drive the engine through a `Match`. It holds every
step it was given (scenario-step JSON, see steps.py) with the state before and after, so undo
is exact and a correction replays the steps that followed. It never reads a clock or a file:
timestamps and operator names come in with the calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.rules.call import Call
from referee.rules.config import BreakOrder, RulesConfig, Variant
from referee.rules.engine import DEFAULT_CONFIG
from referee.rules.errors import RulesInputError
from referee.rules.rack import RackCheck
from referee.rules.readers import as_bool, as_mapping, as_player
from referee.rules.state import GameState, Player
from referee.rules.steps import apply_step, ready

NEW_RACK = "new_rack"


@dataclass(frozen=True, slots=True)
class MatchEntry:
    """One step of the match as it was judged.

    Attributes:
        rack: rack number, from 1.
        step: the step as given (JSON dict).
        answer: the engine's answer (`Call.to_json()` or `RackCheck.to_json()`).
        state_before: the state the step was judged in.
        state_after: the state it left.
    """

    rack: int
    step: Mapping[str, Any]
    answer: Mapping[str, Any]
    state_before: GameState
    state_after: GameState


@dataclass(frozen=True, slots=True)
class Correction:
    """An operator's correction of an earlier step, kept for the record.

    Attributes:
        index: which entry was corrected.
        old_step / new_step: the step before and after the correction.
        old_summary / new_summary: the call in words before and after.
        note: why (free text from the operator).
        by: who corrected it.
    """

    index: int
    old_step: Mapping[str, Any]
    new_step: Mapping[str, Any]
    old_summary: str
    new_summary: str
    note: str
    by: str

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "old_step": dict(self.old_step),
            "new_step": dict(self.new_step),
            "old_summary": self.old_summary,
            "new_summary": self.new_summary,
            "note": self.note,
            "by": self.by,
        }


class Match:
    """A match between two players, driven one step at a time.

    Args:
        players: display names, e.g. {"A": "Alice", "B": "Bob"}.
        breaker: who breaks the first rack (the lag winner's choice, Casse 1).
        config: rule options.
    """

    def __init__(
        self,
        players: Mapping[str, str] | None = None,
        breaker: Player = Player.A,
        config: RulesConfig = DEFAULT_CONFIG,
    ) -> None:
        self.players = {p: (players or {}).get(p.value, p.value) for p in Player}
        self.first_breaker = Player(breaker)
        self.config = config
        self._entries: list[MatchEntry] = []
        self._audit: list[Correction] = []

    @property
    def entries(self) -> tuple[MatchEntry, ...]:
        return tuple(self._entries)

    @property
    def audit(self) -> tuple[Correction, ...]:
        return tuple(self._audit)

    @property
    def state(self) -> GameState:
        if self._entries:
            return self._entries[-1].state_after
        return GameState.new_rack(self.first_breaker)

    @property
    def rack_number(self) -> int:
        return self._entries[-1].rack if self._entries else 1

    @property
    def score(self) -> dict[Player, int]:
        """Racks won by each player."""
        won = {p: 0 for p in Player}
        for entry in self._entries:
            winner = entry.answer.get("rack_winner")
            if winner is not None:
                won[Player(winner)] += 1
        return won

    def apply(self, step: Any) -> Call | RackCheck:
        """Judge one step (scenario format, or {"type": "new_rack"}) and record it.

        A step that arrives once the rack is won first opens the next rack.

        Raises:
            RulesInputError: naming the bad field; the match is unchanged.
        """
        entries, answer = self._judge(self._entries, as_mapping(step, "step"))
        self._entries = entries
        return answer

    def shot(self, step: Mapping[str, Any]) -> Call:
        """Judge a shot step (`declarations`, `shot`, `referee_fouls`, optional `player`)."""
        answer = self.apply({**step, "type": "shot"})
        assert isinstance(answer, Call)
        return answer

    def choose(self, choice: str, player: Player | None = None) -> Call:
        step: dict[str, Any] = {"type": "option_choice", "choice": choice}
        if player is not None:
            step["player"] = Player(player).value
        answer = self.apply(step)
        assert isinstance(answer, Call)
        return answer

    def warn(self, player: Player) -> Call:
        answer = self.apply({"type": "warning", "player": Player(player).value})
        assert isinstance(answer, Call)
        return answer

    def new_rack(self, breaker: Player | None = None, stalemate: bool = False) -> GameState:
        step: dict[str, Any] = {"type": NEW_RACK, "stalemate": stalemate}
        if breaker is not None:
            step["breaker"] = Player(breaker).value
        answer = self.apply(step)
        assert isinstance(answer, Call)
        return answer.state

    def undo(self) -> MatchEntry:
        """Take back the last step (and the automatic new rack that came with it, if any)."""
        if not self._entries:
            raise RulesInputError("undo", "nothing to undo")
        entry = self._entries.pop()
        if self._entries and self._entries[-1].step.get("automatic"):
            self._entries.pop()
        return entry

    def correct(self, index: int, step: Any, note: str, by: str = "operator") -> Call | RackCheck:
        """Replace step `index` and re-judge it and every step after it.

        Raises:
            RulesInputError: the index does not exist, or the corrected step (or a later one
                on the corrected table) is invalid; the match is unchanged.
        """
        if not 0 <= index < len(self._entries):
            raise RulesInputError("index", f"no step {index} (the match has {len(self._entries)})")
        old = self._entries[index]
        if old.step.get("automatic"):
            raise RulesInputError("index", "that step is an automatic new rack: correct the win")
        new_step = as_mapping(step, "step")
        entries, answer = self._judge(self._entries[:index], new_step)
        for later in self._entries[index + 1 :]:
            if not later.step.get("automatic"):
                entries, _ = self._judge(entries, later.step)
        self._audit.append(
            Correction(
                index,
                old.step,
                new_step,
                str(old.answer.get("summary", "")),
                str(_summary(answer)),
                note,
                by,
            )
        )
        self._entries = entries
        return answer

    def _judge(
        self, entries: list[MatchEntry], step: Mapping[str, Any]
    ) -> tuple[list[MatchEntry], Call | RackCheck]:
        """The entries after one more step, without touching `self` (so errors change nothing)."""
        entries = list(entries)
        before = entries[-1].state_after if entries else GameState.new_rack(self.first_breaker)
        rack = entries[-1].rack if entries else 1
        kind = step.get("type")
        if kind == NEW_RACK:
            answer, after = apply_step(step, before, self.config)
            entries.append(MatchEntry(rack + 1, dict(step), answer.to_json(), before, after))
            return entries, answer
        if before.is_over and kind != "rack_check":
            after = ready(before, self.config)
            auto = {"type": NEW_RACK, "automatic": True}
            entries.append(MatchEntry(rack + 1, auto, {"new_rack": after.to_json()}, before, after))
            before, rack = after, rack + 1
        answer, after = apply_step(step, before, self.config)
        entries.append(MatchEntry(rack, dict(step), answer.to_json(), before, after))
        return entries, answer

    def to_json(self) -> dict[str, Any]:
        """Everything needed to rebuild the match by replay (`from_json`)."""
        return {
            "schema": "tenball-match/1",
            "players": {p.value: name for p, name in self.players.items()},
            "breaker": self.first_breaker.value,
            "config": {
                "option_on_any_wrongful_pocket": self.config.option_on_any_wrongful_pocket,
                "variant": self.config.variant.value,
                "break_order": self.config.break_order.value,
            },
            "steps": [dict(e.step) for e in self._entries if not e.step.get("automatic")],
            "audit": [c.to_json() for c in self._audit],
        }

    @classmethod
    def from_json(cls, data: Any) -> Match:
        """Rebuild a match saved by `to_json` (replays its steps)."""
        d = as_mapping(data, "match")
        raw = as_mapping(d.get("config") or {}, "match.config")
        config = RulesConfig(
            option_on_any_wrongful_pocket=as_bool(
                raw.get("option_on_any_wrongful_pocket"), "config.option_on_any_wrongful_pocket"
            ),
            variant=Variant(raw.get("variant", "ffb")),
            break_order=BreakOrder(raw.get("break_order", "alternate")),
        )
        match = cls(d.get("players"), as_player(d.get("breaker", "A"), "breaker"), config)
        for step in d.get("steps") or []:
            match.apply(step)
        match._audit = [Correction(**c) for c in d.get("audit") or []]
        return match


def _summary(answer: Call | RackCheck) -> str:
    return answer.summary if isinstance(answer, Call) else str(answer.to_json()["summary"])
