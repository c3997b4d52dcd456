"""A live match as a fold over stored actions, with the real FFB engine: replay, undo,
corrections, racks, and the store it lives in."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.live import session
from referee.live.rules_backend import EngineRules
from referee.live.service import LiveReferee
from referee.live.session import Action, RulesError
from referee.live.store import MatchStore
from tests.referee.live.helpers import BREAK_FACTS

RULES = EngineRules()
PLAYERS = {"A": "Alice", "B": "Bob"}


def _facts(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "first_object_ball_contacted": None,
        "cushion_after_first_contact": [],
        "pocketed": [],
        "off_table": [],
        "cue_ball_pocketed": False,
        "cue_ball_off_table": False,
    }
    return {**base, **changes}


def _referee(tmp_path: Path) -> tuple[LiveReferee, list[dict[str, Any]]]:
    published: list[dict[str, Any]] = []
    referee = LiveReferee(MatchStore(tmp_path / "m.sqlite3"), RULES, published.append)
    referee.start_match(PLAYERS, "A")
    return referee, published


def test_undo_restores_the_state_before_the_last_action(tmp_path: Path) -> None:
    referee, _ = _referee(tmp_path)
    referee.on_shot({"facts": BREAK_FACTS})
    before = referee.view.to_json() if referee.view else None
    referee.act("call", {"ball": 1, "pocket": "foot_left"})
    undone = referee.undo()
    assert undone["undone"]["kind"] == "call"
    assert referee.view is not None and referee.view.to_json() == before
    referee.undo()  # the break itself
    assert referee.view.state == RULES.rack_state("A")
    with pytest.raises(RulesError, match="nothing to undo"):
        referee.undo()


def test_a_correction_rejudges_the_shot_and_is_audited(tmp_path: Path) -> None:
    referee, published = _referee(tmp_path)
    call = referee.on_shot({"facts": BREAK_FACTS})
    assert call is not None and call["result"]["foul"] is False
    referee.correct({"facts": {"cue_ball_pocketed": True}, "reason": "scratch missed"})
    assert referee.view is not None
    last = referee.view.last_call
    assert last is not None and last["result"]["fouls"] == ["F1"] and last["corrected"]
    assert referee.view.turn() == "B"
    export = referee.store.export(1)
    assert [a["kind"] for a in export["audit"]] == ["correct"]
    audit = export["audit"][0]
    assert audit["correction"]["reason"] == "scratch missed"
    assert audit["changed_calls"][0]["before"]["result"]["foul"] is False
    assert audit["changed_calls"][0]["after"]["result"]["foul"] is True
    assert [c["superseded"] for c in export["calls"]] == [1, 0]
    assert any(m["type"] == "audit" for m in published)


def test_actions_made_impossible_by_a_correction_are_reported(tmp_path: Path) -> None:
    referee, _ = _referee(tmp_path)
    referee.on_shot({"facts": BREAK_FACTS})
    referee.act("push_out", {})  # legal break: the next shot may be a push-out
    referee.correct({"facts": {"first_object_ball_contacted": 2}, "reason": "hit the 2 first"})
    assert referee.view is not None
    assert [i["kind"] for i in referee.view.invalidated] == ["push_out"]
    assert referee.view.declarations["push_out"] is False


def test_declarations_refused_by_the_rules_store_nothing(tmp_path: Path) -> None:
    referee, _ = _referee(tmp_path)
    with pytest.raises(RulesError, match="push_out"):
        referee.act("push_out", {})
    with pytest.raises(RulesError, match="option"):
        referee.act("option_choice", {"choice": "shoot"})
    assert referee.store.actions(1) == []


@pytest.mark.parametrize(
    ("winner_breaks", "expected"), [(None, "B"), ("A", "A")], ids=["alternate", "named"]
)
def test_new_rack_after_a_win(tmp_path: Path, winner_breaks: str | None, expected: str) -> None:
    referee, _ = _referee(tmp_path)
    referee.act("break_announce_10", {})
    call = referee.on_shot(
        {"facts": {**BREAK_FACTS, "pocketed": [{"ball": 10, "pocket": "foot_left"}]}}
    )
    assert call is not None and call["result"]["rack_winner"] == "A"
    with pytest.raises(RulesError, match="rack is over"):
        referee.act("call", {"ball": 1, "pocket": "foot_left"})
    referee.act("new_rack", {} if winner_breaks is None else {"breaker": winner_breaks})
    assert referee.view is not None
    assert referee.view.rack == 2 and referee.view.rack_wins == {"A": 1, "B": 0}
    assert referee.view.state["breaker"] == expected and not referee.view.rack_over


def test_resume_after_restart_gives_the_same_match(tmp_path: Path) -> None:
    referee, _ = _referee(tmp_path)
    referee.on_shot({"facts": BREAK_FACTS})
    referee.act("call", {"ball": 1, "pocket": "side_left"})
    referee.on_shot(
        {"facts": _facts(first_object_ball_contacted=1, cushion_after_first_contact=[1])}
    )
    referee.act("referee_foul", {"foul": "ball_touched"})
    before = referee.state_message()
    referee.store.close()
    again = LiveReferee(MatchStore(tmp_path / "m.sqlite3"), RULES, lambda m: None)
    assert again.resume()
    assert again.state_message() == before


def test_store_uses_wal_and_commits_each_action(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "m.sqlite3")
    match_id = store.create_match(PLAYERS, "A")
    store.add_action(match_id, "call", {"ball": 2, "pocket": "foot_left"})
    other = sqlite3.connect(tmp_path / "m.sqlite3")  # another connection sees it at once
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert other.execute("SELECT kind FROM actions").fetchall() == [("call",)]
    other.close()
    store.close()


SHOT_FACTS = st.fixed_dictionaries(
    {
        "first_object_ball_contacted": st.none() | st.integers(1, 10),
        "cushion_after_first_contact": st.lists(
            st.sampled_from(["cue", 1, 2, 3]), max_size=2, unique=True
        ),
        "pocketed": st.just([]),
        "off_table": st.just([]),
        "cue_ball_pocketed": st.booleans(),
        "cue_ball_off_table": st.just(False),
        "object_balls_to_cushion_on_break": st.integers(0, 6),
    }
)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.one_of(SHOT_FACTS, st.just("undo-last")), min_size=1, max_size=8))
def test_replay_is_deterministic_and_one_call_per_shot(steps: list[Any]) -> None:
    actions: list[Action] = []
    view = session.start(PLAYERS, "A", RULES)
    for i, step in enumerate(steps, start=1):
        if step == "undo-last":
            if actions:
                actions.pop()
            view = session.replay(PLAYERS, "A", actions, RULES)
            continue
        action = Action(i, "shot", {"facts": step})
        try:
            view = session.apply(view, action, RULES)
        except RulesError:
            continue  # e.g. a shot while an option is pending: not stored as judged
        actions.append(action)
    replayed = session.replay(PLAYERS, "A", actions, RULES)
    again = session.replay(PLAYERS, "A", actions, RULES)
    assert replayed.to_json() == again.to_json()
    assert len(replayed.calls) == len({c["action_id"] for c in replayed.calls}) == replayed.shots


def test_a_shot_after_the_rack_is_won_is_audited_not_stored(tmp_path: Path) -> None:
    referee, published = _referee(tmp_path)
    referee.act("break_announce_10", {})
    ten = {**BREAK_FACTS, "pocketed": [{"ball": 10, "pocket": "foot_left"}]}
    assert referee.on_shot({"facts": ten}) is not None
    assert referee.on_shot({"facts": BREAK_FACTS}) is None  # practice after the win
    assert published[-1]["type"] == "alert" and "rack is over" in published[-1]["message"]
    export = referee.store.export(1)
    assert [a["kind"] for a in export["actions"]] == ["break_announce_10", "shot"]
    assert [a["kind"] for a in export["audit"]] == ["unjudged_shot"]
    referee.undo()  # the winning shot: the practice shot does not come back
    assert referee.view is not None and referee.view.shots == 0


STRIKE = {"frame": 10, "time_s": 0.33, "kind": "strike", "balls": ["cue"]}
SHOT_END = {"frame": 40, "time_s": 1.33, "kind": "shot_end", "balls": []}


def test_a_call_tapped_while_the_balls_roll_is_for_the_next_shot(tmp_path: Path) -> None:
    """The operator calls the 1 while the break still rolls: the break is judged without it,
    the next shot with it, and a restart finds it where it was."""
    referee, _ = _referee(tmp_path)
    referee.on_event(STRIKE)
    tapped = referee.act("call", {"ball": 1, "pocket": "side_left"})
    referee.act("referee_foul", {"foul": "ball_touched"})  # a foul is about the rolling shot
    assert tapped["for_next_shot"] is True
    assert tapped["match"]["declarations"]["call"] is None
    assert tapped["match"]["next_declarations"]["call"]["ball"] == 1
    referee.on_event(SHOT_END)
    call = referee.on_shot({"facts": BREAK_FACTS})
    assert call is not None and call["declarations"]["call"] is None
    assert call["referee_fouls"] == ["ball_touched"] and call["result"]["foul"] is True
    assert referee.view is not None and referee.view.declarations["call"]["ball"] == 1
    assert referee.view.next_declarations is None
    assert referee.act("call", {"ball": 1, "pocket": "foot_left"})["for_next_shot"] is False
    before = referee.state_message()
    referee.store.close()
    again = LiveReferee(MatchStore(tmp_path / "m.sqlite3"), RULES, lambda m: None)
    assert again.resume() and again.state_message() == before


def test_a_call_the_rolling_shot_made_impossible_is_dropped_and_said(tmp_path: Path) -> None:
    """Called the 3 while the break rolled, and the break pocketed the 3: the call is not
    kept, the operator is told why, and the next shot has no call."""
    referee, published = _referee(tmp_path)
    referee.on_event(STRIKE)
    referee.act("call", {"ball": 3, "pocket": "foot_left"})
    referee.on_event(SHOT_END)
    call = referee.on_shot({"facts": BREAK_FACTS})  # the 3 drops on the break
    assert call is not None and call["carried"]["refused"]
    alert = [m for m in published if m["type"] == "alert"][-1]
    assert "the call of the 3 in foot_left, tapped while the balls rolled" in alert["message"]
    assert referee.view is not None and referee.view.declarations["call"] is None
    referee.undo()  # the break: the call waits again for the shot after it
    assert referee.view.next_declarations is not None
    assert referee.view.next_declarations["call"]["ball"] == 3


def test_a_match_to_two_racks_ends_when_a_player_wins_two(tmp_path: Path) -> None:
    """Race to 2: A wins rack 1 (the announced 10 on the break) and rack 2 (the called 10
    after B's break); the match is over, a third rack is refused, an undo reopens it, and a
    restart finds the same match."""
    referee = LiveReferee(MatchStore(tmp_path / "m.sqlite3"), RULES, lambda m: None)
    referee.start_match(PLAYERS, "A", race_to=2)
    ten = [{"ball": 10, "pocket": "foot_left"}]
    referee.act("break_announce_10", {})
    referee.on_shot({"facts": {**BREAK_FACTS, "pocketed": ten}})
    referee.act("new_rack", {})  # B breaks rack 2
    referee.on_shot({"facts": {**BREAK_FACTS, "pocketed": []}})  # legal, nothing down: A on
    referee.act("call", {"ball": 10, "pocket": "foot_left"})
    referee.on_shot({"facts": _facts(first_object_ball_contacted=1, pocketed=ten,
                                     cushion_after_first_contact=[1])})  # fmt: skip
    assert referee.view is not None
    standing = referee.view.to_json()
    assert standing["rack_wins"] == {"A": 2, "B": 0} and standing["match_winner"] == "A"
    with pytest.raises(RulesError, match="the match is over: Alice won 2-0"):
        referee.act("new_rack", {})
    before = referee.state_message()
    referee.store.close()
    again = LiveReferee(MatchStore(tmp_path / "m.sqlite3"), RULES, lambda m: None)
    assert again.resume() and again.state_message() == before
    again.undo()  # the winning shot
    assert again.view is not None and again.view.match_winner is None
    assert again.view.rack_wins == {"A": 1, "B": 0}


def test_a_shot_played_before_the_option_was_entered_is_judged_once_it_is(
    tmp_path: Path,
) -> None:
    """A pushes out; Ben plays on before anyone taps his choice. The shot is held (not lost,
    as before) and judged the moment the operator taps Shoot."""
    referee, published = _referee(tmp_path)
    referee.on_shot({"facts": BREAK_FACTS})
    referee.act("push_out", {})
    referee.on_shot({"facts": _facts(first_object_ball_contacted=2)})  # the push-out
    assert referee.view is not None and referee.view.turn() == "B"  # Bob's option
    played = _facts(first_object_ball_contacted=1, cushion_after_first_contact=[1])
    assert referee.on_shot({"facts": played}) is None
    alert = published[-1]
    assert alert["type"] == "alert" and "Bob's option was open" in alert["message"]
    referee.store.close()  # a restart keeps the held shot
    referee = LiveReferee(MatchStore(tmp_path / "m.sqlite3"), RULES, published.append)
    assert referee.resume() and len(referee.held) == 1
    chosen = referee.act("option_choice", {"choice": "shoot"})
    assert [c["shot"] for c in chosen["held_calls"]] == [3]
    assert chosen["held_calls"][0]["shooter"] == "B"
    assert referee.view is not None and referee.view.shots == 3 and referee.held == []


def test_the_option_choice_keeps_the_call_tapped_while_the_push_out_rolled(
    tmp_path: Path,
) -> None:
    """A pushes out; while the push-out rolls the operator taps Bob's call (the 1 in the side)
    for the next shot. Bob takes the table: his call stays (the choice used to clear it), so
    potting the 1 there is a called ball down, and a restart finds the same."""
    referee, published = _referee(tmp_path)
    referee.on_shot({"facts": BREAK_FACTS})
    referee.act("push_out", {})
    referee.on_event(STRIKE)
    referee.act("call", {"ball": 1, "pocket": "side_left"})  # for the next shot
    referee.on_event(SHOT_END)
    referee.on_shot({"facts": _facts(first_object_ball_contacted=2)})  # the push-out
    assert referee.view is not None and referee.view.turn() == "B"
    with pytest.raises(RulesError, match="push-out"):  # no second push-out
        referee.act("push_out", {})
    referee.act("safety", {})  # tapped before the choice: kept with the call
    chosen = referee.act("option_choice", {"choice": "shoot"})
    assert chosen["match"]["declarations"]["call"]["ball"] == 1
    assert chosen["match"]["declarations"]["safety_intended"] is True
    assert chosen["result"]["dropped_declarations"] is None
    before = referee.state_message()
    referee.store.close()
    referee = LiveReferee(MatchStore(tmp_path / "m.sqlite3"), RULES, published.append)
    assert referee.resume() and referee.state_message() == before
    potted = [{"ball": 1, "pocket": "side_left"}]
    call = referee.on_shot({"facts": _facts(first_object_ball_contacted=1, pocketed=potted)})
    assert call is not None and call["shooter"] == "B"
    assert call["declarations"]["call"] == {"ball": 1, "pocket": "side_left",
                                            "source": "announced"}  # fmt: skip
    assert call["result"]["foul"] is False and call["result"]["next_shooter"] == "B"
