"""Invariants of every call over random step sequences (hypothesis), beside test_properties.py.

What a referee would check on any call, whatever happened: the balls add up (what dropped
either stays down or is the spotted 10), a rack ends only with a winner, a foul never leaves
an option, an option always belongs to the shooter's opponent, the inning continues only
after a legal pocket, and a called 10 made in its pocket on a foul-free shot always wins.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules import CueBall, GameState, Player, RulesConfig, next_rack, run_step
from tests.referee.rules.test_properties import next_steps, shot_steps

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _dropped(step: dict[str, Any]) -> tuple[set[int], set[int]]:
    facts = step.get("shot") or {}
    return {p["ball"] for p in facts.get("pocketed", [])}, set(facts.get("off_table", []))


def _check_balls(step: dict[str, Any], before: GameState, result: dict[str, Any]) -> None:
    """The balls add up: nothing appears, nothing vanishes, only the 10 comes back."""
    pocketed, off = _dropped(step)
    spot, remain = set(result["spot"]), set(result["remain_pocketed"])
    assert spot <= {10} and not spot & remain
    assert spot | remain == pocketed | (off & spot)
    if 10 in spot:
        assert 10 in pocketed | off
    if result["rack_winner"] is None:
        expected = (set(before.balls_on_table) - pocketed - off) | spot
        assert set(result["balls_on_table_after"]) == expected


def _check_rack_end(result: dict[str, Any], before: GameState, player: Player) -> None:
    """A rack ends only with a winner, and then nothing is left to play."""
    over = result["rack_winner"] is not None
    assert (result["balls_on_table_after"] is None) == over
    assert (result["cue_ball_next"] is None) == over
    if over:
        assert result["next_shooter"] is None and result["option"] is None
        assert result["spot"] == [] and result["turn_ends"]
        three_fouls = result["foul"] and before.consecutive_fouls[player] == 2
        assert result["rack_winner"] == (player.other() if three_fouls else player).value


def _check_turn(result: dict[str, Any], player: Player) -> None:
    """Who plays next: a foul gives the opponent ball in hand; an option is the opponent's;
    the inning goes on only after a foul-free shot."""
    if result["rack_winner"] is not None:
        return
    option = result["option"]
    if result["foul"]:
        assert option is None and result["turn_ends"]
        assert result["next_shooter"] == player.other().value
        assert result["cue_ball_next"] == "in_hand_anywhere"
    if option is not None:
        assert option["holder"] == player.other().value and result["next_shooter"] is None
        assert option["choices"] == ["shoot", "hand_back"] and result["turn_ends"]
    if not result["turn_ends"]:
        assert not result["foul"] and result["next_shooter"] == player.value


def _check_called_ten(step: dict[str, Any], before: GameState, result: dict[str, Any]) -> None:
    """D5 / I-06: the called 10 made in the called pocket on a foul-free shot (not the break,
    not a push-out, which ends with the opponent's option) wins."""
    call = step["declarations"]["call"]
    pocketed = (step.get("shot") or {}).get("pocketed", [])
    made = (
        call is not None
        and call["ball"] == 10
        and {"ball": 10, "pocket": call["pocket"]} in pocketed
    )
    push_out = result["option"] is not None and before.push_out_available
    if made and not before.is_break and not result["foul"] and not push_out:
        assert result["rack_winner"] == Player(str(step.get("player") or before.turn)).value


@SETTINGS
@given(st.data())
def test_every_call_adds_up(data: st.DataObject) -> None:
    config = RulesConfig()
    state = GameState.new_rack(Player.A)
    for _ in range(25):
        if state.is_over:
            state = next_rack(state, config)
        step = data.draw(next_steps(state))
        result, new = run_step(step, state, config)
        if step["type"] == "shot":
            player = Player(str(step.get("player") or state.turn))
            _check_balls(step, state, result)
            _check_rack_end(result, state, player)
            _check_turn(result, player)
            _check_called_ten(step, state, result)
        state = new


@SETTINGS
@given(st.data())
def test_a_called_ten_made_on_a_clean_shot_wins(data: st.DataObject) -> None:
    """D5 directly: mid-rack, the lowest hit first, the called 10 in its pocket, no foul."""
    balls = sorted(data.draw(st.sets(st.integers(1, 9), max_size=8)) | {10})
    state = GameState(balls_on_table=tuple(balls), is_break=False, cue_ball=CueBall.IN_POSITION)
    step = data.draw(shot_steps(state))
    lowest = balls[0]
    step["declarations"] = {"call": {"ball": 10, "pocket": "foot_left"}, "push_out": False}
    step["shot"].update(
        first_object_ball_contacted=lowest,
        cue_ball_pocketed=False,
        off_table=[],
        pocketed=[p for p in step["shot"]["pocketed"] if p["ball"] != 10]
        + [{"ball": 10, "pocket": "foot_left"}],
    )
    step["referee_fouls"] = []
    step.pop("player", None)
    result, after = run_step(step, state)
    assert result["rack_winner"] == "A" and after.is_over
    assert 10 in result["remain_pocketed"] and result["fouls"] == []
