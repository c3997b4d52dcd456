"""A Match: racks, score, undo, operator corrections with an audit trail, persistence."""

from __future__ import annotations

from typing import Any

import pytest

from referee.rules import (
    BreakOrder,
    Call,
    GameState,
    Match,
    Player,
    RulesConfig,
    RulesInputError,
)
from tests.referee.rules.rule_cases import facts


def _shot(data: dict[str, Any], **declarations: Any) -> dict[str, Any]:
    return {"declarations": declarations, "shot": data}


BREAK_DRY = _shot(facts(1, object_balls_to_cushion_on_break=5))
BREAK_MAKES_2 = _shot(facts(1, pocketed=[(2, "foot_left")], object_balls_to_cushion_on_break=5))
BREAK_WINS = _shot(
    facts(1, pocketed=[(10, "foot_left")], object_balls_to_cushion_on_break=5),
    break_announce_10=True,
)
MISS = _shot(facts(None))


def test_a_match_plays_racks_and_keeps_the_score() -> None:
    match = Match({"A": "Alice", "B": "Bob"})
    assert match.players[Player.A] == "Alice" and match.rack_number == 1
    assert match.shot(BREAK_WINS).rack_winner is Player.A
    assert match.score == {Player.A: 1, Player.B: 0}
    call = match.shot(BREAK_DRY)  # opens rack 2: B breaks (alternate, I-23)
    assert match.rack_number == 2 and call.shooter is Player.B
    assert match.state.turn is Player.A and match.state.push_out_available


def test_break_order_winner() -> None:
    match = Match(config=RulesConfig(break_order=BreakOrder.WINNER))
    match.shot(BREAK_WINS)
    assert match.shot(BREAK_DRY).shooter is Player.A


def test_undo_restores_the_exact_state() -> None:
    match = Match()
    match.shot(BREAK_DRY)
    before = match.state
    match.shot(MISS)
    assert match.state.consecutive_fouls[Player.B] == 1
    match.undo()
    assert match.state == before
    match.undo()
    assert match.state.is_break
    with pytest.raises(RulesInputError):
        match.undo()


def test_undo_takes_back_an_automatic_new_rack() -> None:
    match = Match()
    match.shot(BREAK_WINS)
    match.shot(BREAK_DRY)
    match.undo()
    assert match.state.is_over and match.rack_number == 1


def test_a_correction_rejudges_replays_and_is_audited() -> None:
    match = Match()
    match.shot(BREAK_MAKES_2)  # A continues
    match.shot(_shot(facts(1, cushions=[1])))  # A misses legally: B to play
    assert match.state.turn is Player.B
    corrected = {"type": "shot", **BREAK_MAKES_2, "referee_fouls": ["no_foot_on_floor"]}
    answer = match.correct(0, corrected, note="referee saw no foot on the floor", by="ref")
    assert isinstance(answer, Call) and answer.fouls  # the break is now a foul: B had ball in hand
    assert match.entries[1].state_before.turn is Player.B  # ... and the miss replays as B's shot
    after: GameState = match.state
    assert after.turn is Player.A and len(match.entries) == 2
    record = match.audit[0]
    assert record.by == "ref" and record.index == 0 and "Fautes 4" in record.new_summary


def test_a_correction_that_breaks_a_later_step_changes_nothing() -> None:
    match = Match()
    match.shot(BREAK_MAKES_2)
    match.shot(_shot(facts(1, cushions=[1])))
    entries = match.entries
    makes_1 = {
        "type": "shot",
        **_shot(facts(1, pocketed=[(1, "foot_left")], object_balls_to_cushion_on_break=5)),
    }
    with pytest.raises(RulesInputError):  # the later shot hits the 1, now down
        match.correct(0, makes_1, note="the 1 dropped")
    assert match.entries == entries and not match.audit


def test_a_refused_step_leaves_the_match_unchanged() -> None:
    match = Match()
    match.shot(BREAK_DRY)
    entries = match.entries
    with pytest.raises(RulesInputError):
        match.choose("shoot")
    with pytest.raises(RulesInputError):
        match.apply({"type": "shot", **_shot(facts(1, pocketed=[11]))})
    assert match.entries == entries


def test_stalemate_rerack_keeps_the_breaker() -> None:
    match = Match(breaker=Player.B)
    match.shot(BREAK_DRY)
    with pytest.raises(RulesInputError):
        match.new_rack()
    state = match.new_rack(stalemate=True)
    assert state.breaker is Player.B and state.is_break and match.rack_number == 2


def test_persistence_by_replay() -> None:
    match = Match({"A": "Alice", "B": "Bob"})
    match.shot(BREAK_DRY)
    match.shot(_shot(facts(None), push_out=True))
    match.choose("hand_back", Player.A)
    match.correct(
        1,
        {"type": "shot", **_shot(facts(4, pocketed=[4]), push_out=True)},
        note="the 4 fell on the push-out",
    )
    assert match.state.balls_on_table == (1, 2, 3, 5, 6, 7, 8, 9, 10)
    restored = Match.from_json(match.to_json())
    assert restored.state == match.state
    assert restored.to_json() == match.to_json()


def test_a_concession_scores_the_rack_and_can_be_undone() -> None:
    """A conceding player loses the rack (WPA; the FFB text is silent): the score counts it,
    the next rack opens with the next breaker (I-23), and undo takes the concession back."""
    match = Match()
    match.shot(BREAK_DRY)
    call = match.apply({"type": "concession", "player": "B"})
    assert isinstance(call, Call) and call.rack_winner is Player.A and call.shooter is Player.B
    assert match.score == {Player.A: 1, Player.B: 0}
    assert match.shot(BREAK_DRY).shooter is Player.B and match.rack_number == 2
    match.undo()
    match.undo()
    assert match.score == {Player.A: 0, Player.B: 0} and match.state.turn is Player.B


def test_a_stalemate_step_re_racks_for_the_same_breaker() -> None:
    """I-33: the same breaker breaks again; no one scores; counts start again (new rack)."""
    match = Match()
    match.shot(BREAK_DRY)
    match.shot(MISS)
    assert match.state.consecutive_fouls[Player.B] == 1
    match.apply({"type": "stalemate"})
    assert match.state.is_break and match.state.turn is Player.A
    assert match.state.consecutive_fouls[Player.B] == 0 and match.score[Player.A] == 0
