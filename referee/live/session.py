"""A live match as a pure fold over its actions.

The rules engine is reached only through `RulesBackend` (the step format of
`scenarios-public.json`: a state of rules.md §3 plus a `shot`, `option_choice` or `warning`
step gives a result of rules.md §5 and the next state), so the service runs with any engine
that speaks it. Everything else a live match needs is here: the declarations the operator
made for the next shot, racks and the rack score, undo (an action is cancelled and the match
replayed) and corrections (a shot's facts or declarations are amended and everything after it
is judged again; actions that no longer make sense are reported, not applied).

No I/O, no clock: the same actions always give the same match.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

PLAYERS = ("A", "B")
DECLARATION_KINDS = frozenset(
    {"call", "push_out", "break_announce_10", "safety", "referee_foul", "clear_declarations"}
)
ENGINE_KINDS = frozenset({"shot", "option_choice", "warning", "new_rack"})
NEXT_SHOT_KINDS = DECLARATION_KINDS - {"referee_foul"}
"""Declarations about a shot not yet struck: made while a shot still rolls (payload
`for_next_shot`), they are kept for the shot after it. A referee foul is about the shot being
played, rolling or not."""


class RulesError(ValueError):
    """The rules refuse an action (e.g. an option choice with no option pending)."""


class RulesBackend(Protocol):
    """The rules engine, as the live service uses it."""

    def rack_state(self, breaker: str) -> dict[str, Any]:
        """The engine state (rules.md §3) before the break of a new rack."""
        ...

    def step(
        self, state: Mapping[str, Any], step: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Apply one step; returns (result of rules.md §5, next state).

        Raises:
            RulesError: the step is not allowed in this state; the message says why.
        """
        ...

    def validate(self, state: Mapping[str, Any], declarations: Mapping[str, Any]) -> None:
        """Refuse declarations the rules do not allow before the stroke.

        Raises:
            RulesError: naming the declaration and why.
        """
        ...


def other(player: str) -> str:
    return "B" if player == "A" else "A"


def _empty_declarations() -> dict[str, Any]:
    return {"call": None, "push_out": False, "break_announce_10": False, "referee_fouls": []}


@dataclass(slots=True)
class MatchView:
    """Where a match stands after some actions (JSON via `to_json`).

    Attributes:
        players: display names by player ("A", "B").
        rack: 1-based rack number.
        rack_breaker: who broke (or breaks) the current rack.
        rack_wins: racks won by each player.
        state: the rules engine state (rules.md §3) for the next shot.
        declarations: what the operator declared for the next shot.
        rack_over: the current rack has a winner; only `new_rack` (or undo) moves on.
        shots: shots judged in this match.
        last_call: the latest call (a `call` message body) or None.
        calls: every call, oldest first.
        invalidated: actions skipped on the last replay, with the engine's reason.
        last_result: the engine's result of the latest step that was not a shot (an option
            choice or a warning), with its summary in words; None when there is none.
        next_declarations: declarations tapped while the last shot still rolled, kept for the
            shot after it (None: none); they become `declarations` once that shot is judged,
            if the rules allow them then.
        race_to: racks a player needs to win the match (None: no limit, racks go on).
        match_winner: who reached `race_to` first; None while the match goes on.
    """

    players: dict[str, str]
    rack: int
    rack_breaker: str
    rack_wins: dict[str, int]
    state: dict[str, Any]
    declarations: dict[str, Any] = field(default_factory=_empty_declarations)
    rack_over: bool = False
    shots: int = 0
    last_call: dict[str, Any] | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)
    invalidated: list[dict[str, Any]] = field(default_factory=list)
    last_result: dict[str, Any] | None = None
    next_declarations: dict[str, Any] | None = None
    race_to: int | None = None
    match_winner: str | None = None

    def turn(self) -> str | None:
        """Who acts next: the holder of a pending option, else the shooter; None when over."""
        if self.rack_over:
            return None
        option = self.state.get("pending_option")
        if isinstance(option, Mapping) and option.get("holder") in PLAYERS:
            return str(option["holder"])
        turn = self.state.get("turn")
        return str(turn) if turn in PLAYERS else None

    def to_json(self) -> dict[str, Any]:
        return {
            "players": dict(self.players),
            "rack": self.rack,
            "rack_breaker": self.rack_breaker,
            "rack_wins": dict(self.rack_wins),
            "rack_over": self.rack_over,
            "race_to": self.race_to,
            "match_winner": self.match_winner,
            "turn": self.turn(),
            "shots": self.shots,
            "rules_state": copy.deepcopy(self.state),
            "declarations": copy.deepcopy(self.declarations),
            "next_declarations": copy.deepcopy(self.next_declarations),
            "last_call": copy.deepcopy(self.last_call),
            "invalidated": copy.deepcopy(self.invalidated),
        }


@dataclass(frozen=True, slots=True)
class Action:
    """An action to fold into a match: its store id, kind and JSON payload."""

    id: int
    kind: str
    payload: Mapping[str, Any]


def start(
    players: Mapping[str, str], breaker: str, rules: RulesBackend, race_to: int | None = None
) -> MatchView:
    """The match before its first break (won by the first to win `race_to` racks, if given)."""
    if breaker not in PLAYERS:
        raise RulesError(f"breaker must be 'A' or 'B', got {breaker!r}")
    if race_to is not None and race_to < 1:
        raise RulesError(f"race_to must be at least 1, got {race_to}")
    return MatchView(
        players={p: str(players.get(p, p)) for p in PLAYERS},
        rack=1,
        rack_breaker=breaker,
        rack_wins=dict.fromkeys(PLAYERS, 0),
        state=rules.rack_state(breaker),
        race_to=race_to,
    )


def apply(view: MatchView, action: Action, rules: RulesBackend) -> MatchView:
    """The match after one action; `view` is left unchanged.

    Raises:
        RulesError: the action is not allowed now; nothing changed.
    """
    new = copy.deepcopy(view)
    if action.kind in DECLARATION_KINDS:
        _declare(new, action.kind, action.payload, rules)
    elif action.kind == "shot":
        _judge_shot(new, action, rules)
    elif action.kind == "option_choice":
        _choose_option(new, action.payload, rules)
    elif action.kind == "warning":
        _warn(new, action.payload, rules)
    elif action.kind == "new_rack":
        _new_rack(new, action.payload, rules)
    else:
        raise RulesError(f"unknown action kind {action.kind!r}")
    return new


def replay(
    players: Mapping[str, str],
    breaker: str,
    actions: Iterable[Action],
    rules: RulesBackend,
    race_to: int | None = None,
) -> MatchView:
    """Fold stored actions into a match; `undo` rows must already have been dropped.

    `correct` actions amend the shot they target before it is judged. An action that the rules
    now refuse (after an undo or a correction changed what came before) is skipped and listed
    in `invalidated`.
    """
    actions = list(actions)
    corrections: dict[int, list[Mapping[str, Any]]] = {}
    for action in actions:
        if action.kind == "correct":
            corrections.setdefault(int(action.payload["target"]), []).append(action.payload)
    view = start(players, breaker, rules, race_to)
    invalidated: list[dict[str, Any]] = []
    for action in actions:
        if action.kind == "correct":
            continue
        amended = corrected(action, corrections.get(action.id, []))
        try:
            view = apply(view, amended, rules)
        except RulesError as error:
            invalidated.append({"action_id": action.id, "kind": action.kind, "reason": str(error)})
    view.invalidated = invalidated
    return view


def corrected(action: Action, corrections: list[Mapping[str, Any]]) -> Action:
    """A shot action with its corrections merged in, later corrections winning."""
    if not corrections:
        return action
    payload = copy.deepcopy(dict(action.payload))
    for correction in corrections:
        payload["facts"] = {**payload.get("facts", {}), **correction.get("facts", {})}
        if correction.get("declarations") is not None:
            payload["declarations"] = dict(correction["declarations"])
        if correction.get("referee_fouls") is not None:
            payload["referee_fouls"] = list(correction["referee_fouls"])
    payload["corrected"] = True
    return Action(action.id, action.kind, payload)


def _require_open_rack(view: MatchView) -> None:
    if view.rack_over:
        raise RulesError("the rack is over: start a new rack (or undo)")


def _declare(view: MatchView, kind: str, payload: Mapping[str, Any], rules: RulesBackend) -> None:
    _require_open_rack(view)
    later = bool(payload.get("for_next_shot")) and kind in NEXT_SHOT_KINDS
    declarations = copy.deepcopy(view.next_declarations if later else view.declarations)
    declarations = declarations or _empty_declarations()
    if kind == "call":
        source = str(payload.get("source", "announced"))
        ball, pocket = int(payload["ball"]), str(payload["pocket"])
        declarations["call"] = {"ball": ball, "pocket": pocket, "source": source}
    elif kind == "push_out":
        declarations["push_out"] = True
    elif kind == "break_announce_10":
        declarations["break_announce_10"] = True
        if payload.get("pocket"):
            declarations["break_announce_10_pocket"] = str(payload["pocket"])
    elif kind == "safety":
        declarations["safety_intended"] = True
    elif kind == "referee_foul":
        declarations["referee_fouls"].append(str(payload["foul"]))
    else:  # clear_declarations
        declarations = _empty_declarations()
    if later:  # judged against the state after the rolling shot, once it is known
        view.next_declarations = declarations
        return
    rules.validate(view.state, {k: v for k, v in declarations.items() if k != "referee_fouls"})
    view.declarations = declarations


def _judge_shot(view: MatchView, action: Action, rules: RulesBackend) -> None:
    _require_open_rack(view)
    if isinstance(view.state.get("pending_option"), Mapping):
        holder = view.state["pending_option"].get("holder")
        raise RulesError(f"a shot was played while player {holder}'s option was pending")
    payload = action.payload
    declared = payload.get("declarations") or view.declarations
    step: dict[str, Any] = {
        "type": "shot",
        "declarations": {k: v for k, v in declared.items() if k != "referee_fouls"},
        "shot": dict(payload.get("facts", {})),
        "referee_fouls": list(payload.get("referee_fouls") or declared.get("referee_fouls", [])),
    }
    if payload.get("player") in PLAYERS:
        step["player"] = payload["player"]
    shooter = str(payload.get("player") or view.state.get("turn"))
    result, view.state = rules.step(view.state, step)
    view.shots += 1
    winner = result.get("rack_winner")
    if winner in PLAYERS:
        view.rack_wins[str(winner)] += 1
        view.rack_over = True
        if view.race_to is not None and view.rack_wins[str(winner)] >= view.race_to:
            view.match_winner = str(winner)
    view.last_call = {
        "action_id": action.id,
        "shot": view.shots,
        "rack": view.rack,
        "shooter": shooter,
        "declarations": step["declarations"],
        "referee_fouls": step["referee_fouls"],
        "facts": step["shot"],
        "result": result,
        "corrected": bool(payload.get("corrected", False)),
        "frame_strike": payload.get("frame_strike"),
        "frame_end": payload.get("frame_end"),
        "review_reasons": list(payload.get("review_reasons") or []),
        "coverage": payload.get("coverage"),
    }
    view.calls.append(view.last_call)
    view.last_call["carried"] = _carry_declarations(view, rules)


def _carry_declarations(view: MatchView, rules: RulesBackend) -> dict[str, Any] | None:
    """After a judged shot: the declarations tapped while it rolled become the next shot's,
    when the rules allow them in the new state (the called ball may have dropped, the rack
    may be over). Returns what was carried and, when refused, why; None when nothing was."""
    carried, view.next_declarations = view.next_declarations, None
    view.declarations = _empty_declarations()
    if carried is None:
        return None
    said = {k: v for k, v in carried.items() if k != "referee_fouls"}
    try:
        _require_open_rack(view)
        rules.validate(view.state, said)
    except RulesError as error:
        return {"declarations": said, "refused": str(error)}
    view.declarations = {**carried, "referee_fouls": []}
    return {"declarations": said, "refused": None}


def _option_holder(view: MatchView) -> str:
    option = view.state.get("pending_option")
    if not isinstance(option, Mapping):
        raise RulesError("no option is pending")
    return str(option.get("holder"))


def _choose_option(view: MatchView, payload: Mapping[str, Any], rules: RulesBackend) -> None:
    _require_open_rack(view)
    holder = _option_holder(view)
    step = {"type": "option_choice", "player": holder, "choice": str(payload["choice"])}
    view.last_result, view.state = rules.step(view.state, step)
    view.last_result["dropped_declarations"] = _keep_declarations(view, rules)


def _keep_declarations(view: MatchView, rules: RulesBackend) -> dict[str, Any] | None:
    """After an option choice: the declarations already made for the next shot (a call
    tapped while the push-out rolled, or before the choice) stay when the rules allow them in
    the new state; one refused (a push-out: none once the option is taken) is dropped alone.
    Returns what was dropped and why; None when everything was kept."""
    kept = {**_empty_declarations(), "referee_fouls": list(view.declarations["referee_fouls"])}
    dropped: dict[str, Any] = {}
    reasons: list[str] = []
    for key, value in view.declarations.items():
        if key == "referee_fouls" or key == "break_announce_10_pocket" or not value:
            continue
        part = {key: value}
        if key == "break_announce_10" and "break_announce_10_pocket" in view.declarations:
            part["break_announce_10_pocket"] = view.declarations["break_announce_10_pocket"]
        try:
            rules.validate(view.state, part)
        except RulesError as error:
            dropped.update(part)
            reasons.append(str(error))
            continue
        kept.update(part)
    view.declarations = kept
    return {"declarations": dropped, "refused": "; ".join(reasons)} if dropped else None


def _warn(view: MatchView, payload: Mapping[str, Any], rules: RulesBackend) -> None:
    _require_open_rack(view)
    step = {"type": "warning", "player": str(payload["player"])}
    view.last_result, view.state = rules.step(view.state, step)


def _new_rack(view: MatchView, payload: Mapping[str, Any], rules: RulesBackend) -> None:
    if view.match_winner is not None:
        wins = view.rack_wins
        raise RulesError(f"the match is over: {view.players[view.match_winner]} won "
                         f"{wins['A']}-{wins['B']} (start a new match, or undo)")  # fmt: skip
    # I-23: later racks alternate the break unless the operator names the breaker.
    breaker = payload.get("breaker") or other(view.rack_breaker)
    if breaker not in PLAYERS:
        raise RulesError(f"breaker must be 'A' or 'B', got {breaker!r}")
    view.rack += 1
    view.rack_breaker = str(breaker)
    view.state = rules.rack_state(str(breaker))
    view.declarations = _empty_declarations()
    view.next_declarations = None
    view.rack_over = False
