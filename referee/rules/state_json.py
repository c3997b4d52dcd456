"""The rules.md §3 state dict to a `GameState`, with errors that name the offending field.

Counts and flags may come as text ("1", "false") or per player as a pair [A, B]; players as
"A", "a" or "Player A"; the cue ball's place in any case and with spaces.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.rules.aliases import STATE_KEY_ALIASES, with_canonical_keys
from referee.rules.errors import RulesInputError
from referee.rules.readers import as_ball, as_bool, as_list, as_mapping, as_player, whole_number
from referee.rules.state import CueBall, GameState, PendingOption, Player

_NONE_TEXT = ("", "none", "null")


def _pending(data: Any) -> PendingOption | None:
    """The pending option; null, false, "none" or an object naming no holder ({}) is none; a
    player alone ("B") is the holder of an option whose previous shooter is the other."""
    if (
        data is None
        or data is False
        or (isinstance(data, str) and data.strip().lower() in _NONE_TEXT)
    ):
        return None
    if isinstance(data, str):
        data = {"holder": data}
    d = as_mapping(data, "state.pending_option")
    if d.get("holder") is None and d.get("previous_shooter") is None:
        return None
    holder = as_player(d.get("holder"), "state.pending_option.holder")
    previous = d.get("previous_shooter")
    return PendingOption(
        holder=holder,
        previous_shooter=holder.other()
        if previous is None
        else as_player(previous, "state.pending_option.previous_shooter"),
        after_push_out=as_bool(d.get("after_push_out"), "state.pending_option.after_push_out"),
    )


def _per_player(data: Any, where: str) -> Mapping[Any, Any]:
    """A per-player object; a pair [A, B] is read in that order."""
    if isinstance(data, list | tuple) and len(data) == 2:
        return {"A": data[0], "B": data[1]}
    return as_mapping(data if data is not None else {}, where)


def _count(value: Any, where: str) -> int:
    if value is None:
        return 0  # null: no fouls, as when the player is left out
    value = whole_number(value)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesInputError(where, f"expected a count, got {value!r}")
    return value


def _per_player_ints(data: Any, where: str) -> dict[Player, int]:
    return {
        as_player(k, where): _count(v, f"{where}.{k}") for k, v in _per_player(data, where).items()
    }


def _per_player_bools(data: Any, where: str) -> dict[Player, bool]:
    return {
        as_player(k, where): as_bool(v, f"{where}.{k}") for k, v in _per_player(data, where).items()
    }


_CUE_BALL_WORDS: tuple[tuple[tuple[str, ...], CueBall], ...] = (
    (("behind", "head", "kitchen", "string"), CueBall.IN_HAND_BEHIND_HEAD_STRING),
    (("hand", "anywhere"), CueBall.IN_HAND_ANYWHERE),
    (("position", "place", "lies", "table"), CueBall.IN_POSITION),
)
"""Words that say where the cue ball is, most restricted first: in hand behind the head
string (the break, Casse 1: 'derrière la ligne supérieure'), in hand anywhere (after a foul,
Fautes intro: 'sur l'ensemble de la surface de jeu'), or in position."""


def _cue_ball(raw: Any) -> CueBall:
    """rules.md §3 `cue_ball`, also in other words ("ball in hand", "kitchen", "in place")."""
    name = raw.strip().lower().replace("-", "_").replace(" ", "_") if isinstance(raw, str) else ""
    if name in {c.value for c in CueBall}:
        return CueBall(name)
    for words, place in _CUE_BALL_WORDS:
        if name and any(w in name for w in words):
            return place
    names = ", ".join(c.value for c in CueBall)
    raise RulesInputError("state.cue_ball", f"unknown value {raw!r} (expected one of {names})")


def _balls(value: Any, where: str) -> tuple[int, ...]:
    balls = [as_ball(v, f"{where}[{i}]") for i, v in enumerate(as_list(value, where))]
    if len(set(balls)) != len(balls):
        raise RulesInputError(where, f"a ball is listed twice: {balls}")
    return tuple(balls)


def _break_and_cue_ball(d: Mapping[str, Any], balls: tuple[int, ...]) -> tuple[bool, CueBall]:
    """`is_break` and `cue_ball`, each from the other when one is left out: a break has the
    cue ball in hand behind the head string (Casse 1), any other shot has it in position
    unless a foul gave ball in hand; with neither given, a full rack of ten is the break."""
    raw_cue, raw_break = d.get("cue_ball"), d.get("is_break")
    if raw_cue is not None:
        cue_ball = _cue_ball(raw_cue)
        default_break = cue_ball is CueBall.IN_HAND_BEHIND_HEAD_STRING
        is_break = as_bool(raw_break if raw_break is not None else default_break, "state.is_break")
        if is_break and cue_ball is CueBall.IN_HAND_ANYWHERE:
            cue_ball = CueBall.IN_HAND_BEHIND_HEAD_STRING  # "in hand" on the break: Casse 1
        return is_break, cue_ball
    is_break = (
        as_bool(raw_break, "state.is_break") if raw_break is not None else _full_rack(d, balls)
    )
    return is_break, CueBall.IN_HAND_BEHIND_HEAD_STRING if is_break else CueBall.IN_POSITION


def _full_rack(d: Mapping[str, Any], balls: tuple[int, ...]) -> bool:
    """Ten balls and no push-out pending (Push-out 1 comes after the break): the break."""
    return len(balls) == 10 and not as_bool(d.get("push_out_available"), "state.push_out_available")


def parse_state(data: Any) -> GameState:
    """Read a rules.md §3 state dict."""
    d = with_canonical_keys(as_mapping(data, "state"), STATE_KEY_ALIASES)
    balls = _balls(d.get("balls_on_table", list(range(1, 11))), "state.balls_on_table")
    is_break, cue_ball = _break_and_cue_ball(d, balls)
    winner = d.get("rack_winner")
    pending = _pending(d.get("pending_option"))
    raw_breaker = d.get("breaker")
    breaker = as_player("A" if raw_breaker is None else raw_breaker, "state.breaker")
    turn = pending.holder.value if pending else d.get("turn")
    if turn is None and winner is None:  # left out or null in play: the breaker (§3 default)
        turn = breaker.value
    return GameState(
        balls_on_table=balls,
        turn=None if turn is None else as_player(turn, "state.turn"),
        breaker=breaker,
        is_break=is_break,
        push_out_available=as_bool(d.get("push_out_available"), "state.push_out_available"),
        cue_ball=cue_ball,
        consecutive_fouls=_per_player_ints(d.get("consecutive_fouls"), "state.consecutive_fouls"),
        warned=_per_player_bools(d.get("warned"), "state.warned"),
        pending_option=pending,
        rack_winner=None if winner is None else as_player(winner, "state.rack_winner"),
    )
