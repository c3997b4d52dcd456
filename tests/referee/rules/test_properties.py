"""Invariants over random legal step sequences (hypothesis).

Always exactly one of: a shooter, a pending option, a winner; no ball comes back except the 10
on the spot; nobody reaches three fouls without losing the rack unless unwarned (T3); the
warning state machine (I-24); every call carries every rules.md §5 field; determinism.
"""

from __future__ import annotations

import random
from typing import Any, TypeVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.table import Pocket
from referee.rules import GameState, Player, RulesConfig, next_rack, run_step
from tests.referee.rules.runner import RESULT_KEYS

T = TypeVar("T")
POCKETS = [str(p) for p in Pocket]
REFEREE_FOULS = [
    "no_foot_on_floor",
    "ball_touched",
    "double_hit",
    "balls_moving",
    "slow_play",
    "bad_cue_ball_placement",
]


def _subset(rng: random.Random, balls: list[T], max_size: int) -> list[T]:
    return rng.sample(balls, rng.randint(0, min(max_size, len(balls))))


SEEDS = st.integers(0, 2**32 - 1)
"""Each step is built from one drawn seed: drawing every field as its own strategy cost
hypothesis ~0.5 s per sequence, and the sequences, not their shrinking, are the point."""


@st.composite
def shot_steps(draw: st.DrawFn, state: GameState) -> dict[str, Any]:
    """A shot on this table: every ball it names is on the table."""
    rng = random.Random(draw(SEEDS))
    balls = list(state.balls_on_table)
    pocketed = _subset(rng, balls, 3)
    off = _subset(rng, [b for b in balls if b not in pocketed], 1) if rng.randint(0, 9) == 0 else []
    cushions: list[Any] = _subset(rng, balls, 4) + (["cue"] if rng.random() < 0.5 else [])
    call = None
    if rng.random() < 0.5:
        call = {"ball": rng.choice(balls), "pocket": rng.choice(POCKETS)}
    step: dict[str, Any] = {
        "type": "shot",
        "declarations": {
            "call": call,
            "push_out": rng.randint(0, 4) == 0,
            "break_announce_10": rng.random() < 0.5,
        },
        "shot": {
            "first_object_ball_contacted": rng.choice([None, *balls]),
            "cushion_after_first_contact": cushions,
            "pocketed": [{"ball": b, "pocket": rng.choice(POCKETS)} for b in pocketed],
            "off_table": off,
            "cue_ball_pocketed": rng.randint(0, 5) == 0,
            "cue_ball_off_table": False,
            "object_balls_to_cushion_on_break": rng.randint(0, 10),
        },
        "referee_fouls": _subset(rng, REFEREE_FOULS, 1) if rng.randint(0, 5) == 0 else [],
    }
    if rng.randint(0, 15) == 0 and state.turn is not None:
        step["player"] = state.turn.other().value  # out of turn (I-30)
    return step


@st.composite
def next_steps(draw: st.DrawFn, state: GameState) -> dict[str, Any]:
    rng = random.Random(draw(SEEDS))
    option = state.pending_option
    if option is not None and rng.randint(0, 4) > 0:
        return {
            "type": "option_choice",
            "player": option.holder.value,
            "choice": rng.choice(["shoot", "hand_back"]),
        }
    due = state.warning_due
    if due is not None and rng.random() < 0.5:
        return {"type": "warning", "player": due.value}
    return draw(shot_steps(state))


def _check_state(state: GameState) -> None:
    shooters = (state.shooter is not None) + (state.pending_option is not None) + state.is_over
    assert shooters == 1, state
    for p in Player:
        assert 0 <= state.consecutive_fouls[p] <= 2
        assert not state.warned[p] or state.consecutive_fouls[p] == 2  # warned only on two
    due = state.warning_due
    assert (due is None) == all(state.consecutive_fouls[p] < 2 or state.warned[p] for p in Player)
    if not state.is_over:
        assert 10 in state.balls_on_table
    assert GameState.from_json(state.to_json()) == state


def _check_shot(
    step: dict[str, Any], before: GameState, after: GameState, result: dict[str, Any]
) -> None:
    assert set(result) >= RESULT_KEYS
    assert result["foul"] == bool(result["fouls"])
    assert set(result["spot"]) <= {10}
    player = Player(str(step.get("player") or before.turn))
    winner = result["rack_winner"]
    if winner is None:
        back = set(after.balls_on_table) - set(before.balls_on_table)
        assert not back, f"balls came back: {back}"
        assert result["cue_ball_next"] == ("in_hand_anywhere" if result["foul"] else "in_position")
    count, warned = before.consecutive_fouls[player], before.warned[player]
    if result["foul"] and count == 2 and warned:
        assert winner == player.other().value  # T1
    if result["foul"] and count == 2 and not warned:
        assert winner is None and after.consecutive_fouls[player] == 2  # T3
        assert after.warning_due is not None
    if result["foul"] and count < 2 and winner is None:
        assert after.consecutive_fouls[player] == count + 1
    if not result["foul"] and winner is None:
        assert after.consecutive_fouls[player] == 0 and not after.warned[player]  # I-19
    if after.push_out_available:
        assert before.is_break and not result["foul"]


def _play(data: st.DataObject, config: RulesConfig, steps: int) -> list[dict[str, Any]]:
    state, results = GameState.new_rack(Player.A), []
    for _ in range(steps):
        if state.is_over:
            state = next_rack(state, config)
        step = data.draw(next_steps(state))
        result, new = run_step(step, state, config)
        _check_state(new)
        if step["type"] == "shot":
            _check_shot(step, state, new, result)
        if step["type"] == "warning":
            assert new.warned[Player(step["player"])] and new.warning_due != Player(step["player"])
        results.append({"step": step, "result": result})
        state = new
    return results


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.booleans())
def test_invariants_hold_over_random_sequences(data: st.DataObject, any_wrongful: bool) -> None:
    _play(data, RulesConfig(option_on_any_wrongful_pocket=any_wrongful), 30)


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_the_engine_is_deterministic(data: st.DataObject) -> None:
    played = _play(data, RulesConfig(), 20)
    state = GameState.new_rack(Player.A)
    for entry in played:
        if state.is_over:
            state = next_rack(state)
        result, state = run_step(entry["step"], state)
        assert result == entry["result"]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_match_undoes_to_the_start_and_replays_from_json(data: st.DataObject) -> None:
    from referee.rules import Match

    match = Match()
    states = [match.state]
    for _ in range(15):
        match.apply(data.draw(next_steps(ready_state(match.state))))
        states.append(match.state)
    assert Match.from_json(match.to_json()).state == match.state
    while match.entries:
        match.undo()
        assert match.state in states
    assert match.state == states[0]


def ready_state(state: GameState) -> GameState:
    """The state the next step is drawn for (a won rack opens the next one)."""
    return next_rack(state) if state.is_over else state
