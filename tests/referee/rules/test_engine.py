"""The engine's API: calls with reasons, input errors, declarations, config, JSON round trips."""

from __future__ import annotations

from typing import Any

import pytest

from referee.rules import (
    Call,
    CueBall,
    Declarations,
    FoulCode,
    GameState,
    Player,
    RulesConfig,
    RulesInputError,
    Shot,
    ShotFacts,
    Variant,
    choose_option,
    decide,
    push_out_allowed,
    validate_declarations,
    warn,
)
from tests.referee.rules.rule_cases import facts, state
from tests.referee.rules.runner import RESULT_KEYS

MID_RACK = GameState.from_json(state())


def _shot(data: dict[str, Any], **declarations: Any) -> Shot:
    return Shot.from_json({"declarations": declarations, "shot": data, "referee_fouls": []})


def test_a_foul_says_what_happened_and_who_has_ball_in_hand() -> None:
    call, _ = decide(_shot(facts(4, cushions=[4])), GameState.from_json(state([3, 4, 5, 10])))
    assert call.fouls == (FoulCode.F2,)
    f2 = next(r for r in call.reasons if r.code == "F2")
    assert f2.clause == "Fautes 2"
    assert f2.text == "Foul (Fautes 2): the cue ball hit the 4 first; the lowest ball was the 3."
    assert call.summary == (
        "Foul by A (Fautes 2): the cue ball hit the 4 first; the lowest ball was the 3. "
        "B has ball in hand anywhere."
    )
    assert {
        "code": "BALL_IN_HAND",
        "clause": "Fautes (intro)",
        "text": "B has ball in hand anywhere.",
    } in [r.to_json() for r in call.reasons]


def test_every_decision_names_its_clause() -> None:
    call, _ = decide(_shot(facts(3, pocketed=[(3, "foot_left")])), MID_RACK)
    assert [r.clause for r in call.reasons] == ["Déroulement 3"]
    option_call, _ = decide(
        _shot(
            facts(3, cushions=[3], pocketed=[(8, "side_left")]),
            call={"ball": 3, "pocket": "foot_left"},
        ),
        MID_RACK,
        RulesConfig(option_on_any_wrongful_pocket=True),
    )
    assert [r.clause for r in option_call.reasons] == ["I-10"]


def test_call_json_has_every_result_field() -> None:
    call, _ = decide(_shot(facts(3, cushions=[3])), MID_RACK)
    keys = set(call.to_json())
    assert RESULT_KEYS | {"reasons", "summary"} <= keys
    assert isinstance(call, Call) and "Déroulement 4" in call.explain()


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"pocketed": [2]}, "shot.pocketed[0]"),
        ({"pocketed": [{"ball": 3, "pocket": "middle"}]}, "shot.pocketed[0].pocket"),
        ({"pocketed": [3, 3]}, "shot.pocketed[1]"),
        ({"off_table": ["x"]}, "shot.off_table[0]"),
        ({"first_object_ball_contacted": True}, "shot.first_object_ball_contacted"),
        ({"cue_ball_pocketed": "sometimes"}, "shot.cue_ball_pocketed"),
        ({"cushion_after_first_contact": 3.5}, "shot.cushion_after_first_contact"),
        ({"pocketed": [3], "off_table": [3]}, "shot.off_table"),
        ({"object_balls_to_cushion_on_break": -1}, "shot.object_balls_to_cushion_on_break"),
        ([1, 2], "shot"),
    ],
    ids=[
        "not-on-table",
        "unknown-pocket",
        "twice",
        "not-a-ball",
        "bool-ball",
        "bool-field",
        "not-a-list",
        "pocketed-and-off",
        "negative-count",
        "not-an-object",
    ],
)
def test_bad_facts_name_the_field(data: Any, field: str) -> None:
    with pytest.raises(RulesInputError) as caught:
        ShotFacts.from_json(data, MID_RACK.balls_on_table)
    assert caught.value.field == field
    assert isinstance(caught.value, ValueError)


def test_pocketed_takes_plain_ints_and_dicts() -> None:
    parsed = ShotFacts.from_json({"pocketed": [3, {"ball": "5", "pocket": "side_left"}]})
    assert parsed.pocketed_balls == (3, 5)
    assert parsed.pocket_of(5) is not None and parsed.pocket_of(3) is None


def test_a_refused_shot_changes_nothing() -> None:
    before = MID_RACK.to_json()
    bad = Shot(facts=ShotFacts.from_json({"pocketed": [1]}))
    with pytest.raises(RulesInputError, match="not on the table"):
        decide(bad, MID_RACK)
    assert MID_RACK.to_json() == before


def test_push_out_is_refused_before_the_stroke_when_not_allowed() -> None:
    assert not push_out_allowed(MID_RACK)[0]
    with pytest.raises(RulesInputError) as caught:
        validate_declarations(Declarations(push_out=True), MID_RACK)
    assert caught.value.field == "declarations.push_out" and "I-12" in str(caught.value)
    after_break = GameState.from_json(state(list(range(1, 11)), turn="B", push_out_available=True))
    validate_declarations(Declarations(push_out=True), after_break)  # allowed: no error
    in_hand = after_break.with_changes(cue_ball=CueBall.IN_HAND_ANYWHERE)
    assert "Push-out 5" in push_out_allowed(in_hand)[1]


def test_a_disallowed_push_out_played_anyway_is_a_normal_shot() -> None:
    call, _ = decide(_shot(facts(None), push_out=True), MID_RACK)
    assert call.fouls == (FoulCode.F2,)
    assert call.reasons[0].code == "PUSH_OUT_REFUSED" and call.reasons[0].clause == "I-12"


def test_declarations_are_checked_against_the_table() -> None:
    with pytest.raises(RulesInputError, match="already down"):
        Shot.from_json(
            {"declarations": {"call": {"ball": 1, "pocket": "foot_left"}}}, MID_RACK.balls_on_table
        )
    with pytest.raises(RulesInputError) as caught:
        Shot.from_json(
            {"declarations": {"call": {"ball": 3, "pocket": "nowhere"}}}, MID_RACK.balls_on_table
        )
    assert caught.value.field == "declarations.call.pocket"
    with pytest.raises(RulesInputError):
        validate_declarations(Declarations(break_announce_10=True), MID_RACK)


def test_a_step_with_nothing_to_judge_is_refused() -> None:
    with pytest.raises(RulesInputError) as caught:
        decide(Shot(facts=None), MID_RACK)
    assert caught.value.field == "shot"


def test_option_and_warning_errors() -> None:
    with pytest.raises(RulesInputError, match="no option"):
        choose_option(MID_RACK, "shoot")
    _, pending = decide(_shot(facts(3, pocketed=[(3, "foot_left")])), MID_RACK)
    with pytest.raises(RulesInputError) as caught:
        choose_option(pending, "shoot", Player.A)
    assert caught.value.field == "player"
    with pytest.raises(RulesInputError) as caught:
        choose_option(pending, "pass")
    assert caught.value.field == "choice"
    early, unchanged = warn(MID_RACK, Player.A)  # before the second foul: no effect
    assert unchanged == MID_RACK and "no effect" in early.summary


def test_the_rack_over_refuses_shots() -> None:
    _, over = decide(
        _shot(facts(10, pocketed=[(10, "foot_left")]), call={"ball": 10, "pocket": "foot_left"}),
        GameState.from_json(state([10])),
    )
    assert over.is_over and over.rack_winner is Player.A
    with pytest.raises(RulesInputError, match="rack is over"):
        decide(_shot(facts(3)), over)


def test_state_json_round_trip_and_errors() -> None:
    for data in [state(), state(pending_option={"holder": "B", "previous_shooter": "A"}, turn="B")]:
        assert GameState.from_json(GameState.from_json(data).to_json()) == GameState.from_json(data)
    with pytest.raises(RulesInputError) as caught:
        GameState.from_json({**state(), "cue_ball": "on_the_floor"})
    assert caught.value.field == "state.cue_ball"
    with pytest.raises(RulesInputError):
        GameState.from_json({**state(), "consecutive_fouls": {"A": 3, "B": 0}})


WPA = RulesConfig(variant=Variant.WPA)
BREAK = GameState()


@pytest.mark.parametrize(
    ("config", "winner"),
    [(RulesConfig(), "A"), (WPA, None)],
    ids=["ffb-announced-10-wins", "wpa-spots-it"],
)
def test_the_announced_10_on_the_break(config: RulesConfig, winner: str | None) -> None:
    shot = _shot(
        facts(1, pocketed=[(10, "foot_left")], object_balls_to_cushion_on_break=4),
        break_announce_10=True,
    )
    call, _ = decide(shot, BREAK, config)
    assert call.to_json()["rack_winner"] == winner


def test_wpa_allows_a_cushion_before_the_1_on_the_break() -> None:
    shot = _shot(
        facts(1, object_balls_to_cushion_on_break=5, cue_ball_cushion_before_first_contact=True)
    )
    assert decide(shot, BREAK, WPA)[0].fouls == ()
    assert decide(shot, BREAK)[0].fouls == (FoulCode.CASSE1_FIRST_CONTACT,)


def test_wpa_gives_the_option_on_any_wrongful_pocket() -> None:
    shot = _shot(
        facts(3, cushions=[3], pocketed=[(8, "side_left")]), call={"ball": 3, "pocket": "foot_left"}
    )
    assert decide(shot, MID_RACK, WPA)[0].option is not None
    assert decide(shot, MID_RACK)[0].option is None


@pytest.mark.parametrize(
    ("start", "offender"),
    [(state(turn="A"), Player.B), (state(turn="B", cue_ball="in_hand_anywhere"), Player.A)],
    ids=["A-to-play", "B-in-hand"],
)
def test_out_of_turn_without_a_player_charges_the_other_player(
    start: dict[str, Any], offender: Player
) -> None:
    """I-30: `played_out_of_turn` with no `player` key: the one who played is not the one
    whose turn it was, so he is charged and the player at the table gets ball in hand."""
    shot = Shot.from_json({"shot": facts(3, cushions=[3]), "referee_fouls": ["played_out_of_turn"]})
    call, new = decide(shot, GameState.from_json(start))
    assert call.fouls == (FoulCode.F12,) and call.shooter is offender
    assert new.consecutive_fouls[offender] == 1 and new.consecutive_fouls[offender.other()] == 0
    assert call.next_shooter is offender.other() and new.cue_ball is CueBall.IN_HAND_ANYWHERE


def test_out_of_turn_during_an_option_charges_the_player_who_did_not_hold_it() -> None:
    """I-30 while B holds the option after A's push-out: A plays again: A is charged."""
    pending = {"holder": "B", "choices": ["shoot", "hand_back"], "previous_shooter": "A"}
    start = GameState.from_json(state(turn="B", pending_option=pending))
    shot = Shot.from_json({"shot": facts(3, cushions=[3]), "referee_fouls": ["played_out_of_turn"]})
    call, new = decide(shot, start)
    assert call.shooter is Player.A and call.next_shooter is Player.B
    assert new.consecutive_fouls[Player.A] == 1 and new.pending_option is None


def test_an_obvious_call_may_leave_the_pocket_out() -> None:
    """D2: ball and pocket are announced "si elles ne sont pas évidentes"; an obvious call
    (I-29) without a pocket is made in whatever pocket the ball drops. An announced call
    without its pocket is no valid call: the shot is judged as not announced."""
    shot = Shot.from_json(
        {
            "declarations": {"call": {"ball": 3, "source": "obvious"}},
            "shot": facts(3, pocketed=[(3, "side_left")]),
        }
    )
    call, _ = decide(shot, MID_RACK)
    assert call.fouls == () and call.next_shooter is Player.A and not call.turn_ends
    assert shot.declarations.call is not None and shot.declarations.call.to_json()["pocket"] is None
    bare = Shot.from_json(
        {"declarations": {"call": {"ball": 3}}, "shot": facts(3, pocketed=[(3, "side_left")])}
    )
    call, _ = decide(bare, MID_RACK)
    assert call.option is not None and call.option.holder is Player.B  # Déroulement 3
    assert any(r.code == "CALL_INCOMPLETE" for r in call.reasons)


def test_a_scenario_config_keeps_the_options_the_engine_has() -> None:
    """Unknown options (a shot clock) are ignored; a bad value of a known one is refused."""
    from referee.rules.steps import scenario_config

    config = scenario_config(
        {"config": {"option_on_any_wrongful_pocket": True, "shot_clock_s": 45}}
    )
    assert config.any_wrongful_pocket_gives_option
    with pytest.raises(RulesInputError) as caught:
        scenario_config({"config": {"variant": "snooker"}})
    assert caught.value.field == "config"
