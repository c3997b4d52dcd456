"""Scenario steps (the format of scenarios-public.json) fed to the engine.

`run_step` is what `tenball rules run` does for one step and `apply_step` is what a `Match`
does; both are pure: they take the state and return the answer and the next state. A bad step
raises RulesInputError and changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any

from referee.rules.aliases import (
    CHOICE_KEYS,
    SHOT_STEP_DECLARATIONS,
    STATE_KEY_ALIASES,
    STEP_KEY_ALIASES,
    declarations_form,
    step_type,
    with_canonical_keys,
)
from referee.rules.call import Call, Reason
from referee.rules.config import RulesConfig
from referee.rules.engine import (
    DEFAULT_CONFIG,
    choose_option,
    concede,
    decide,
    next_rack,
    status_call,
    warn,
)
from referee.rules.errors import RulesInputError
from referee.rules.parse import option_choice_name, parse_shot
from referee.rules.rack import RackCheck, check_rack
from referee.rules.readers import as_bool, as_mapping, as_player
from referee.rules.state import GAME_BALL, GameState, Player

STEP_TYPES = (
    "shot", "option_choice", "warning", "rack_check", "new_rack", "visual_check", "stalemate",
    "concession", "lag",
)  # fmt: skip


def ready(state: GameState, config: RulesConfig = DEFAULT_CONFIG) -> GameState:
    """Once a rack is won, the next step belongs to the next rack (break order of I-23)."""
    return next_rack(state, config) if state.is_over else state


def apply_step(
    step: Any, state: GameState, config: RulesConfig = DEFAULT_CONFIG
) -> tuple[Call | RackCheck, GameState]:
    """Run one step and return the engine's answer with the state after it.

    Args:
        step: {"type": "shot" | "option_choice" | "warning" | "rack_check", ...} as in
            scenarios-public.json (a shot step: `declarations`, `shot`, `referee_fouls`,
            optional `player`; an option choice: `choice`, optional `player`; a warning:
            `player`; a rack check: `rack`); also `lag` (`winner`, optional `breaker`),
            `new_rack`, `stalemate`, `concession` (`player`) and `visual_check`.
        state: the engine's state before the step.
        config: rule options.

    Raises:
        RulesInputError: naming the offending field; nothing has changed.
    """
    d = with_canonical_keys(as_mapping(step, "step"), STEP_KEY_ALIASES)
    kind = step_kind(d)
    if isinstance(kind, str) and kind in SHOT_STEP_DECLARATIONS:
        d, kind = _declared_shot(d, SHOT_STEP_DECLARATIONS[kind]), "shot"
    if kind == "rack_check":
        return check_rack(d.get("rack", d)), state  # the rack's items, or the step's own
    if kind in ("lag", "new_rack", "stalemate"):
        return _rack_step(kind, d, state, config)
    state = ready(state, config)
    state, note = _with_state_before(state, d.get("state_before"))
    answer, new = _judge(kind, d, state, config)
    if note is not None and isinstance(answer, Call):
        answer = replace(answer, reasons=(note, *answer.reasons))
    return answer, new


_STATE_FIELDS = (
    "balls_on_table", "turn", "breaker", "is_break", "push_out_available", "cue_ball",
    "consecutive_fouls", "warned", "pending_option",
)  # fmt: skip
"""The rules.md §3 fields a step's `state_before` may state."""


def _public(state: GameState) -> dict[str, Any]:
    """The state as rules.md §3 states it (an option by its holder and previous shooter)."""
    data = state.to_json()
    option = state.pending_option
    data["pending_option"] = (
        None if option is None else (option.holder.value, option.previous_shooter.value)
    )
    return {k: data[k] for k in _STATE_FIELDS}


def _with_state_before(state: GameState, raw: Any) -> tuple[GameState, Reason | None]:
    """The state a step is judged in: the engine's own, unless the step's `state_before`
    (scenario conventions: "steps after the first carry a computed state_before") says
    otherwise, field by field; the step's expected call was computed from that state, so it
    is taken and the call says which fields differed. A `state_before` that cannot be read
    is no part of the step (it is for people) and is left aside."""
    if not isinstance(raw, Mapping) or state.is_over:
        return state, None
    given = with_canonical_keys(raw, STATE_KEY_ALIASES)
    merged = {**state.to_json(), **{k: v for k, v in given.items() if k in _STATE_FIELDS}}
    merged.pop("rack_winner", None)
    try:
        stated = GameState.from_json(merged)
    except RulesInputError:
        return state, None
    if GAME_BALL not in stated.balls_on_table:  # a rack in play has the 10 on the table
        return state, None
    ours, theirs = _public(state), _public(stated)
    differ = [k for k in _STATE_FIELDS if ours[k] != theirs[k]]
    if not differ:
        return state, None
    text = (
        f"The step's state_before differs from the engine's own state ({', '.join(differ)}): "
        "the step is judged from the state_before."
    )
    return stated, Reason("STATE_BEFORE", "scenario conventions", text)


def _judge(
    kind: Any, d: Mapping[str, Any], state: GameState, config: RulesConfig
) -> tuple[Call, GameState]:
    """A step of the rack in play (shot, option choice, warning, concession, visual check)."""
    if kind == "visual_check":
        text = "Visual check of the disputed phase (replay): no change by itself."
        return status_call(state, (Reason("VISUAL_CHECK", "I-32", text),), text), state
    if kind == "shot":
        return decide(parse_shot(d, state.balls_on_table), state, config)
    if kind == "option_choice":
        player = d.get("player", d.get("holder"))
        return choose_option(
            state,
            option_choice_name(_choice(d)),
            None if player is None else as_player(player, "player"),
        )
    if kind == "warning":
        by = d.get("by")
        return warn(state, _warned_player(d, state), None if by is None else str(by))
    if kind == "concession":
        return concede(state, _conceding_player(d, state))
    raise RulesInputError(
        "type", f"unknown step type {kind!r} (expected one of {', '.join(STEP_TYPES)})"
    )


def _declared_shot(step: Mapping[str, Any], declaration: str) -> dict[str, Any]:
    """A step typed as what its shot declares ("push_out", "safety"): the shot step with that
    declaration set (the type says it, whatever a copied `"push_out": false` says)."""
    raw = step.get("declarations")
    declared = declarations_form(raw if raw is not None else {})
    if not isinstance(declared, Mapping):
        return dict(step)  # refused, field named, by parse_declarations
    return {**step, "declarations": {**declared, declaration: True}}


def _rack_step(
    kind: str, step: Mapping[str, Any], state: GameState, config: RulesConfig
) -> tuple[Call, GameState]:
    """A step that opens a rack: the lag (Casse 1), a new rack (I-23) or a stalemate (I-33)."""
    if kind == "lag":
        if not state.is_break:
            raise RulesInputError("type", "the lag decides the first breaker, before the break")
        new = GameState.new_rack(_lag_breaker(step))
        text = f"Lag: {new.breaker} breaks, ball in hand behind the head string."
        return status_call(new, (Reason("LAG", "Casse 1", text),), text), new
    new = new_rack_state(step, state, config, stalemate=kind == "stalemate")
    text = f"New rack: {new.breaker} breaks, ball in hand behind the head string."
    clause = "Casse 1 / I-23"
    if not state.is_over and step.get("breaker") is None:
        text = "Stalemate: the referee re-racks and the same player breaks. " + text
        clause = "I-33"
    return status_call(new, (Reason("NEW_RACK", clause, text),), text), new


def run_step(
    step: Any, state: GameState, config: RulesConfig = DEFAULT_CONFIG
) -> tuple[dict[str, Any], GameState]:
    """`apply_step`, answering with JSON: every rules.md §5 field plus `reasons` and `summary`
    (for a rack check: `rack_valid`, `reasons`, `summary`)."""
    answer, new = apply_step(step, state, config)
    return answer.to_json(), new


def new_rack_state(
    step: Mapping[str, Any], state: GameState, config: RulesConfig, stalemate: bool = False
) -> GameState:
    """A new rack: after a win (break order of I-23), a named `breaker`, or a re-rack by the
    referee after a stalemate (`"stalemate": true` or a `stalemate` step, I-33: the same
    breaker breaks again; the rack is new, so the foul counts start again, Fautes 3 fautes
    "lors d'une même manche")."""
    raw = step.get("breaker")
    if raw is not None:
        return GameState.new_rack(as_player(raw, "breaker"))
    if state.is_over:
        return next_rack(state, config)
    if stalemate or as_bool(step.get("stalemate"), "stalemate"):
        return GameState.new_rack(state.breaker)
    raise RulesInputError(
        "type", "the rack is not over: a new rack needs 'stalemate': true or a 'breaker'"
    )


_TARGET_KEYS = ("warned_player", "target", "to", "warned")
"""Keys that name the player warned, beside `player`."""


def step_kind(step: Mapping[str, Any]) -> Any:
    """The step's type (its keys already canonical: `STEP_KEY_ALIASES`); a step with no type
    but a shot's keys is a shot."""
    kind = step.get("type")
    if kind is None and any(k in step for k in ("shot", "declarations", "referee_fouls")):
        return "shot"
    return step_type(kind)


def _choice(step: Mapping[str, Any]) -> Any:
    """The choice of an option-choice step, under `choice` or another key that says it."""
    return next((step[k] for k in CHOICE_KEYS if step.get(k) is not None), None)


def _warned_player(step: Mapping[str, Any], state: GameState) -> Player:
    """The player a warning step warns: the one a target key names, else `player`, else the
    one whose warning is due. A `player` who is not on two fouls while his opponent's
    warning is due, and who is the warner (`by` names him or is absent), names the warner."""
    for key in _TARGET_KEYS:
        raw = step.get(key)
        if isinstance(raw, str):
            return as_player(raw, key)
    raw, due = step.get("player"), state.warning_due
    if raw is None:
        if due is None:
            raise RulesInputError("player", "no player named and no warning is due")
        return due
    named = as_player(raw, "player")
    by = step.get("by")
    warner = by is None or (isinstance(by, str) and by.strip().upper() == named.value)
    if due is named.other() and state.consecutive_fouls[named] < 2 and warner:
        return due
    return named


def _lag_breaker(step: Mapping[str, Any]) -> Player:
    """Casse 1: 'le gagnant du tirage à la bande choisit lequel des deux joueurs cassera le
    premier': the `breaker` he chose, else the lag `winner` (who breaks when he says nothing)."""
    for key in ("breaker", "winner", "lag_winner"):
        raw = step.get(key)
        if raw is not None:
            return as_player(raw, key)
    raise RulesInputError("winner", "a lag step names its 'winner' (and the 'breaker' he chose)")


def _conceding_player(step: Mapping[str, Any], state: GameState) -> Player:
    """Who concedes: `player` (or `by`), else the player at the table."""
    for key in ("player", "by"):
        raw = step.get(key)
        if raw is not None:
            return as_player(raw, key)
    assert state.turn is not None  # a rack in play has a player at the table
    return state.turn


_CONFIG_KEYS = ("config", "rules_config", "rule_options", "options")
"""Scenario keys that may hold the rule options."""


_CONFIG_WORDS: dict[str, tuple[tuple[str, str], ...]] = {
    "break_order": (("altern", "alternate"), ("winner", "winner"), ("loser", "loser")),
    "variant": (("ffb", "ffb"), ("wpa", "wpa")),
}
"""Words that name an option's value in a phrase ("winner breaks", "Alternating", "FFB
(default)"); a phrase naming none, or two, is left for RulesConfig to refuse."""


def _config_value(key: str, value: Any) -> Any:
    """A flag as text ("false") is that flag; a name in any case ("WPA") or in a phrase
    ("winner breaks") is that name."""
    if key == "option_on_any_wrongful_pocket":
        return as_bool(value, f"config.{key}")
    if not isinstance(value, str):
        return value
    word = value.strip().lower()
    named = {name for part, name in _CONFIG_WORDS.get(key, ()) if part in word}
    return named.pop() if len(named) == 1 else word


def scenario_config(scenario: Mapping[str, Any], base: RulesConfig = DEFAULT_CONFIG) -> RulesConfig:
    """`base` with the scenario's optional `config` object applied (an extension of the
    scenario format: {"option_on_any_wrongful_pocket": true, "variant": "wpa",
    "break_order": "winner"})."""
    raw = next((scenario[k] for k in _CONFIG_KEYS if scenario.get(k) is not None), None)
    if raw is None:
        return base
    d = as_mapping(raw, "config")
    known = {f.name for f in fields(RulesConfig)}
    values = {k: _config_value(k, v) for k, v in d.items() if k in known and v is not None}
    try:  # options this engine does not have (a shot clock, say) are not its business
        return replace(base, **values)
    except (TypeError, ValueError) as error:
        raise RulesInputError("config", str(error)) from None


_STATE_KEYS = ("initial_state", "state", "start_state", "initial", "state_before")
"""Scenario keys that may hold the state the first step starts from."""


def initial_state(scenario: Mapping[str, Any]) -> GameState:
    """The scenario's `initial_state`, else its first step's `state_before`, else a fresh
    rack with A to break."""
    raw = next((scenario[k] for k in _STATE_KEYS if scenario.get(k) is not None), None)
    steps = scenario.get("steps")
    if raw is None and isinstance(steps, list) and steps and isinstance(steps[0], Mapping):
        raw = steps[0].get("state_before")  # the first step's state, when written there
    return GameState() if raw is None else GameState.from_json(raw)
