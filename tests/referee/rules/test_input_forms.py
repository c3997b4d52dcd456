"""Scenario input written the other ways an author may write it (aliases.py, readers.py,
state_json.py): each form gives exactly the call of the canonical form of
scenarios-public.json, and a value that names nothing is still refused with its field."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from referee.rules import RulesInputError, initial_state, run_step
from tests.referee.rules.rule_cases import choice, facts, shot, state
from tests.referee.rules.runner import RESULT_KEYS

MID = state()  # A at the table, balls 3..10, in position
MADE = shot(facts(3, pocketed=[(3, "foot_left")]), {}, "", call=(3, "foot_left"))
"""Déroulement 1b: the called 3 made in its pocket, A continues."""
UNCALLED = shot(facts(3, pocketed=[(3, "foot_right")]), {}, "")
"""Déroulement 3: the lowest ball pocketed without a call, B's option."""

Edit = Callable[[dict[str, Any], dict[str, Any]], None]


def _results(initial: dict[str, Any], steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    game = initial_state({"initial_state": initial})
    out = []
    for step in steps:
        result, game = run_step(step, game)
        out.append({k: result.get(k) for k in RESULT_KEYS})
    return out


def _set(path: str, value: Any) -> Edit:
    """An edit of the step ("declarations.call") or, with a "state." prefix, of the state."""

    def edit(step: dict[str, Any], initial: dict[str, Any]) -> None:
        keys = path.split(".")
        target = initial if keys[0] == "state" else step
        for key in keys[1 if keys[0] == "state" else 0 : -1]:
            target = target[key]
        target[keys[-1]] = value

    return edit


def _rename(path: str, new: str) -> Edit:
    def edit(step: dict[str, Any], initial: dict[str, Any]) -> None:
        *parents, old = path.split(".")
        target = step
        for key in parents:
            target = target[key]
        target[new] = target.pop(old)

    return edit


def _flat_call(step: dict[str, Any], initial: dict[str, Any]) -> None:
    step["declarations"] = {"called_ball": 3, "called_pocket": "foot_left", "push_out": False}


SAME_AS_MADE: list[tuple[str, Edit]] = [
    ("type-capitalised", _set("type", "Shot")),
    ("call-text", _set("declarations.call", "3 in foot_left")),
    ("call-pair", _set("declarations.call", [3, "foot left"])),
    ("call-ball-to-pocket", _set("declarations.call", {"3": "foot_left"})),
    ("call-flat-keys", _flat_call),
    ("call-called-keys", _set("declarations.call", {"called_ball": 3, "called_pocket": "FL"})),
    ("call-ball-word", _set("declarations.call.ball", "ball 3")),
    ("pocket-corner", _set("declarations.call.pocket", "foot left corner")),
    ("pocket-short", _set("declarations.call.pocket", "FL")),
    ("pocketed-number-key", _set("shot.pocketed", [{"number": 3, "pocket": "foot_left"}])),
    ("first-contact-key", _rename("shot.first_object_ball_contacted", "first_ball_contacted")),
    ("pocketed-key", _rename("shot.pocketed", "balls_pocketed")),
    ("bool-text", _set("shot.cue_ball_pocketed", "false")),
    ("bool-number", _set("declarations.push_out", 0)),
    ("referee-fouls-map", _set("referee_fouls", {"slow_play": False})),
    ("referee-fouls-none", _set("referee_fouls", ["none"])),
    ("state-counts-text", _set("state.consecutive_fouls", {"A": "0", "B": "0"})),
    ("state-counts-pair", _set("state.consecutive_fouls", [0, 0])),
    ("state-warned-pair", _set("state.warned", ["false", False])),
    ("state-cue-words", _set("state.cue_ball", "In Position")),
    ("state-player-words", _set("state.turn", "Player A")),
    ("state-no-option-text", _set("state.pending_option", "none")),
    ("state-balls-key", lambda step, init: init.update(balls=init.pop("balls_on_table"))),
    ("state-fouls-key", lambda step, init: init.update(fouls=init.pop("consecutive_fouls"))),
    ("first-contact-float", _set("shot.first_object_ball_contacted", 3.0)),
    ("call-ball-float", _set("declarations.call.ball", 3.0)),
    ("pocketed-float", _set("shot.pocketed", [{"ball": 3.0, "pocket": "foot_left"}])),
    ("state-counts-float", _set("state.consecutive_fouls", {"A": 0.0, "B": 0})),
    ("state-balls-float", _set("state.balls_on_table", [3.0, 4, 5, 6, 7, 8, 9, 10.0])),
    ("step-facts-key", _rename("shot", "facts")),
    ("step-declaration-key", _rename("declarations", "declaration")),
]


@pytest.mark.parametrize("edit", [e for _, e in SAME_AS_MADE], ids=[i for i, _ in SAME_AS_MADE])
def test_other_forms_give_the_canonical_call(edit: Edit) -> None:
    step, initial = copy.deepcopy(MADE), copy.deepcopy(MID)
    edit(step, initial)
    assert _results(initial, [step]) == _results(MID, [MADE])


@pytest.mark.parametrize(
    "written",
    ["Hand back", "give the table back", "return_table", "make the opponent shoot", "redonner"],
)
def test_hand_back_in_words(written: str) -> None:
    """Déroulement 3: 'redonner la main au joueur précédent', however it is written."""
    canonical = _results(MID, [UNCALLED, choice("B", "hand_back", {}, "")])
    step = {"type": "Option Choice", "holder": "B", "decision": written}
    assert _results(MID, [UNCALLED, step]) == canonical
    assert canonical[1]["next_shooter"] == "A"


@pytest.mark.parametrize("written", ["accept the table", "play_on", "take"])
def test_shoot_in_words(written: str) -> None:
    """Déroulement 3: 'jouer le coup suivant'."""
    canonical = _results(MID, [UNCALLED, choice("B", "shoot", {}, "")])
    assert _results(MID, [UNCALLED, {**choice("B", "x", {}, ""), "choice": written}]) == canonical
    assert canonical[1]["next_shooter"] == "B"


def test_referee_fouls_as_a_map_of_flags() -> None:
    """Fautes 13 set true in a {name: flag} map is the slow-play foul; false ones are not."""
    step = {**copy.deepcopy(MADE), "referee_fouls": {"slow_play": True, "ball_touched": False}}
    result = _results(MID, [step])[0]
    assert result["fouls"] == ["F13"]


@pytest.mark.parametrize(
    ("written", "code"),
    [("out_of_turn", "F12"), ("Fautes 6", "F6"), ("double contact", "F7"), ("time foul", "F13")],
)
def test_referee_foul_other_names(written: str, code: str) -> None:
    step = {**copy.deepcopy(MADE), "referee_fouls": [written]}
    assert code in _results(MID, [step])[0]["fouls"]


@pytest.mark.parametrize(
    ("written", "declaration"),
    [("push_out", "push_out"), ("Push-out", "push_out"), ("pushout", "push_out")],
)
def test_a_step_typed_push_out_is_a_declared_push_out(written: str, declaration: str) -> None:
    """Push-out 1-4: a step typed as a push-out is the shot declared a push-out (even with a
    copied `"push_out": false`): legal touching nothing, A's option."""
    initial = state(list(range(1, 11)), turn="B", push_out_available=True)
    canonical = shot(facts(None), {}, "", push_out=True)
    typed = {**shot(facts(None), {}, ""), "type": written}
    result = _results(initial, [typed])
    assert result == _results(initial, [canonical])
    assert result[0]["option"] == {"holder": "A", "choices": ["shoot", "hand_back"]}


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("Warning given", "warning"),
        ("foul_warning", "warning"),
        ("push_out_response", "option_choice"),
        ("Option decision", "option_choice"),
        ("rack validation", "rack_check"),
        ("Re-rack", "stalemate"),
        ("next rack", "new_rack"),
    ],
)
def test_step_types_under_other_names(written: str, canonical: str) -> None:
    """Scenario conventions' step types (and I-33's re-rack) named otherwise."""
    from referee.rules.aliases import step_type

    assert step_type(written) == canonical


@pytest.mark.parametrize("written", ["break", "Break shot", "safety"])
def test_a_step_typed_break_or_safety_is_a_shot(written: str) -> None:
    """Casse 1: a step typed "break" is the break shot; I-13: "safety" is a shot with a safety
    intended, judged as any other (the lowest ball made unannounced: B's option, D3)."""
    brk = state(list(range(1, 11)), cue_ball="in_hand_behind_head_string", is_break=True)
    first = shot(facts(1, pocketed=[(3, "foot_left")], object_balls_to_cushion_on_break=5), {}, "")
    for initial, step in ((brk, first), (MID, UNCALLED)):
        assert _results(initial, [{**step, "type": written}]) == _results(initial, [step])


@pytest.mark.parametrize(
    "nothing",
    [{}, {"ball": None, "pocket": None, "source": None}, "none", "", False, []],
    ids=["empty-object", "null-items", "none-text", "empty-text", "false", "empty-list"],
)
def test_a_call_written_as_nothing_is_no_call(nothing: Any) -> None:
    """rules.md §4: a call 'or null'; a call object with neither ball nor pocket names no
    call either: the lowest ball made unannounced gives B the option (Déroulement 3)."""
    step = copy.deepcopy(UNCALLED)
    step["declarations"]["call"] = nothing
    assert _results(MID, [step]) == _results(MID, [UNCALLED])


@pytest.mark.parametrize("nothing", ["none", 0, ""])
def test_first_contact_written_as_nothing_is_a_miss(nothing: Any) -> None:
    """rules.md §4: null = no object ball touched -> Fautes 2 (I-09)."""
    step = copy.deepcopy(MADE)
    step["shot"]["first_object_ball_contacted"] = nothing
    assert _results(MID, [step])[0]["fouls"] == ["F2"]


def test_break_count_written_as_the_balls() -> None:
    """Casse 1: four balls listed to a cushion are a count of four (legal break)."""
    initial = state(list(range(1, 11)), cue_ball="in_hand_behind_head_string", is_break=True)
    step = shot(facts(1, object_balls_to_cushion_on_break=[2, 3, 5, 8]), {}, "")
    assert _results(initial, [step])[0]["fouls"] == []
    step["shot"]["object_balls_to_cushion_on_break"] = ["2", 3, 5]
    assert _results(initial, [step])[0]["fouls"] == ["CASSE1_FOUR_CUSHIONS"]
    step["shot"]["object_balls_to_cushion_on_break"] = 3.0  # a whole number as a float
    assert _results(initial, [step])[0]["fouls"] == ["CASSE1_FOUR_CUSHIONS"]


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        ("declarations.call.pocket", "bottom_left", "declarations.call.pocket"),
        ("shot.cue_ball_pocketed", "sometimes", "shot.cue_ball_pocketed"),
        ("declarations.call", "three in the corner", "declarations.call.ball"),
        ("referee_fouls", ["foul_of_some_kind"], "referee_fouls[0]"),
        ("type", "Shots", "type"),
    ],
    ids=["pocket", "flag", "call-text", "referee-foul", "step-type"],
)
def test_what_names_nothing_is_still_refused(path: str, value: Any, field: str) -> None:
    step = copy.deepcopy(MADE)
    _set(path, value)(step, {})
    with pytest.raises(RulesInputError) as refused:
        run_step(step, initial_state({"initial_state": MID}))
    assert refused.value.field == field


@pytest.mark.parametrize(
    ("key", "value"),
    [("cue_ball", "on the moon"), ("consecutive_fouls", {"A": "two"}), ("turn", "C")],
)
def test_bad_state_still_names_its_field(key: str, value: Any) -> None:
    with pytest.raises(RulesInputError) as refused:
        initial_state({"initial_state": {**MID, key: value}})
    assert refused.value.field.startswith(f"state.{key}")


@pytest.mark.parametrize(
    ("rack", "valid"),
    [
        ({"one_at_apex": True, "apex_on_spot": True, "ten_in_middle": True}, True),
        ({"one_at_apex": True, "apex_on_spot": True, "ten_in_middle": False}, False),
        ({"apex_ball": 1, "apex_on_spot": False, "ten_in_middle": True}, False),
        ({"apex": 1, "rows_parallel": False, "middle_of_three_row": 10}, False),
        ({"apex": 2, "middle_of_three_row": 10}, False),
        ({"apex_ball": 1, "middle_row": [4, 10, 5]}, True),
        ({"apex_ball": 1, "middle_row": [4, 5, 10]}, False),
        ([[1], [2, 3], [4, 10, 5], [6, 7, 8, 9]], True),
        ([[1], [2, 3], [10, 4, 5], [6, 7, 8, 9]], False),
        (
            {
                "apex_ball": "1",
                "apex_on_foot_spot": "true",
                "rows_parallel_to_foot_rail": "yes",
                "ball_in_middle_of_three_row": "ball 10",
            },
            True,
        ),
        ({"apex_ball": 1, "apex_on_foot_spot": "false", "ball_in_middle_of_three_row": 10}, False),
        ({"apex_ball": True, "apex_on_foot_spot": 1, "ball_in_middle_of_three_row": True}, True),
        ({"apex_ball": 1, "apex_on_foot_spot": True, "ball_in_middle_of_three_row": False}, False),
    ],
    ids=[
        "flags",
        "ten-not-middle",
        "off-spot",
        "not-parallel",
        "apex-2",
        "row",
        "row-bad",
        "rows-alone",
        "rows-alone-bad",
        "text-values",
        "off-spot-text",
        "ball-items-as-flags",
        "ten-item-false",
    ],
)
def test_rack_items_under_other_keys(rack: Any, valid: bool) -> None:
    """Mise en place 1-3 stated with other keys: the 1 at the apex on the foot spot, rows
    parallel to the foot cushion, the 10 in the middle of the three-ball row."""
    result, _ = run_step({"type": "Rack Check", "rack": rack}, initial_state({}))
    assert result["rack_valid"] is valid


@pytest.mark.parametrize(
    ("written", "is_break", "cue_ball", "turn"),
    [
        ({"balls_on_table": list(range(3, 11)), "turn": "B"}, False, "in_position", "B"),
        (
            {"balls_on_table": list(range(1, 11)), "breaker": "B"},
            True,
            "in_hand_behind_head_string",
            "B",
        ),
        ({"is_break": False}, False, "in_position", "A"),
        ({"push_out_available": True, "turn": "B"}, False, "in_position", "B"),
        ({"cue_ball": "in_hand_anywhere", "turn": "B"}, False, "in_hand_anywhere", "B"),
        ({}, True, "in_hand_behind_head_string", "A"),
        ({"is_break": True, "cue_ball": "in hand"}, True, "in_hand_behind_head_string", "A"),
        (
            {"is_break": "true", "cue_ball": "in_hand_anywhere", "breaker": "B"},
            True,
            "in_hand_behind_head_string",
            "B",
        ),
        (
            {"balls_on_table": list(range(3, 11)), "turn": None, "breaker": "B"},
            False,
            "in_position",
            "B",
        ),
        ({"is_break": False, "turn": None, "breaker": None}, False, "in_position", "A"),
    ],
    ids=[
        "mid-rack",
        "full-rack",
        "not-break",
        "push-out-next",
        "in-hand",
        "empty",
        "break-in-hand",
        "break-in-hand-anywhere",
        "turn-null",
        "breaker-null",
    ],
)
def test_a_state_that_leaves_fields_out(
    written: dict[str, Any], is_break: bool, cue_ball: str, turn: str
) -> None:
    """Casse 1: the break, and only the break, has the cue ball in hand behind the head
    string; a state that gives one of the two implies the other; the breaker breaks."""
    game = initial_state({"initial_state": written}).to_json()
    assert (game["is_break"], game["cue_ball"], game["turn"]) == (is_break, cue_ball, turn)


def test_a_break_from_a_state_written_in_hand_judges_the_placement() -> None:
    """Casse 1: the breaker's ball in hand is behind the head string, however the state
    writes it ("in hand"); a cue ball placed over the line is Fautes 10 (BRK-14)."""
    initial = {"balls_on_table": list(range(1, 11)), "is_break": True, "cue_ball": "in_hand"}
    step = shot(
        facts(1, pocketed=[(6, "foot_left")], object_balls_to_cushion_on_break=5),
        {},
        "",
        referee_fouls=["bad_cue_ball_placement"],
    )
    result = _results(initial, [step])[0]
    assert (result["fouls"], result["next_shooter"]) == (["F10"], "B")


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("consecutive_fouls", {"A": None, "B": "0"}),
        ("warned", {"A": None, "B": None}),
        ("pending_option", {}),
        ("pending_option", {"holder": None}),
        ("pending_option", False),
    ],
    ids=["count-null", "warned-null", "option-empty", "option-no-holder", "option-false"],
)
def test_state_items_written_as_nothing_are_their_defaults(key: str, value: Any) -> None:
    """rules.md §3: a null count is no foul, a null warning none, an option naming no holder
    no option: the state reads as the canonical one."""
    assert _results({**MID, key: value}, [MADE]) == _results(MID, [MADE])


def test_a_pending_option_written_as_its_holder() -> None:
    """Déroulement 3: the option named by its holder alone; the previous shooter is the other."""
    initial = {**MID, "turn": "B", "pending_option": "B"}
    hand_back = _results(initial, [choice("B", "hand_back", {}, "")])[0]
    assert hand_back["next_shooter"] == "A"


def test_the_first_steps_state_before_stands_for_a_missing_initial_state() -> None:
    step = {**copy.deepcopy(MADE), "state_before": MID}
    assert initial_state({"steps": [step]}) == initial_state({"initial_state": MID})


def test_a_later_steps_state_before_is_the_state_it_is_judged_in() -> None:
    """Conventions: 'steps after the first carry a computed state_before'. Its expected call
    was computed from that state: where it differs from the engine's own (here A warned
    after his second foul, with no warning step), the step is judged from it and the call
    says so. A: two fouls, warned -> the third loses the rack (Fautes, 3 fautes)."""
    miss = shot(facts(5), {}, "")
    warned = state(cue_ball="in_hand_anywhere", fouls=(2, 0), warned=(True, False))
    steps = [miss, {**shot(facts(4, cushions=[4]), {}, ""), "player": "B"}]
    steps.append({**miss, "state_before": warned})
    game = initial_state({"initial_state": state(fouls=(1, 0))})
    for step in steps:
        result, game = run_step(step, game)
    assert result["rack_winner"] == "B"
    assert result["reasons"][0]["code"] == "STATE_BEFORE"
    assert "warned" in result["reasons"][0]["text"]


@pytest.mark.parametrize(
    ("state_before", "next_shooter"),
    [({"turn": "B"}, "A"), ({"turn": "Z"}, "B"), ({"balls_on_table": []}, "B"), (MID, "B")],
    ids=["partial", "unreadable", "no-ten", "same"],
)
def test_a_state_before_states_only_what_it_gives(
    state_before: dict[str, Any], next_shooter: str
) -> None:
    """A partial state_before changes only its fields (B at the table: his legal miss gives
    A the table); one that cannot be read, or that agrees, leaves the engine's state."""
    step = {**shot(facts(3, cushions=[3]), {}, ""), "state_before": state_before}
    result, _ = run_step(step, initial_state({"initial_state": MID}))
    assert result["next_shooter"] == next_shooter
    assert (result["reasons"][0]["code"] == "STATE_BEFORE") is (next_shooter == "A")


@pytest.mark.parametrize(
    "announcement",
    [{"break_announce_10": "foot_left"}, {"announce_10": 10, "break_announce_10_pocket": "FL"}],
    ids=["pocket-as-value", "ball-as-value"],
)
def test_the_ten_announced_on_the_break_in_other_forms(announcement: dict[str, Any]) -> None:
    """Casse 4 / I-05: the 10 announced (in the foot-left pocket) and made there wins."""
    initial = state(list(range(1, 11)), cue_ball="in_hand_behind_head_string", is_break=True)
    step = shot(facts(1, pocketed=[(10, "foot_left")], object_balls_to_cushion_on_break=5), {}, "")
    step["declarations"] = announcement
    assert _results(initial, [step])[0]["rack_winner"] == "A"
    step["shot"]["pocketed"] = [{"ball": 10, "pocket": "foot_right"}]
    assert _results(initial, [step])[0]["spot"] == [10]  # announced elsewhere (I-05)


@pytest.mark.parametrize(
    ("config", "option"),
    [
        ({"config": {"option_on_any_wrongful_pocket": "false"}}, False),
        ({"config": {"option_on_any_wrongful_pocket": "true"}}, True),
        ({"rules_config": {"variant": "WPA"}}, True),
        ({"config": {"variant": "WPA rules"}}, True),
        ({"config": {"variant": "FFB (default)", "option_on_any_wrongful_pocket": None}}, False),
    ],
    ids=["flag-false-text", "flag-true-text", "variant-capitals", "variant-phrase", "nulls"],
)
def test_scenario_options_written_as_text(config: dict[str, Any], option: bool) -> None:
    """I-10: an uncalled non-lowest ball gives the option only under the WPA reading."""
    from referee.rules.steps import scenario_config

    step = shot(facts(3, cushions=[3], pocketed=[(8, "side_left")]), {}, "", call=(3, "foot_right"))
    result, _ = run_step(step, initial_state({"initial_state": MID}), scenario_config(config))
    assert (result["option"] is not None) is option


@pytest.mark.parametrize(
    ("written", "order"),
    [("winner breaks", "winner"), ("Alternating", "alternate"), ("loser_breaks", "loser")],
)
def test_break_order_written_as_a_phrase(written: str, order: str) -> None:
    """I-23: who breaks later racks, named in a phrase."""
    from referee.rules.steps import scenario_config

    assert scenario_config({"config": {"break_order": written}}).break_order.value == order


def test_who_played_under_another_key() -> None:
    """Conventions: a shot step's 'player' is who actually played; written 'shooter' it is
    read the same: B playing in A's turn is Fautes 12 (I-30)."""
    played = _results(MID, [{**copy.deepcopy(MADE), "player": "B"}])
    assert played[0]["fouls"] == ["F12"]
    assert _results(MID, [{**copy.deepcopy(MADE), "shooter": "B"}]) == played


@pytest.mark.parametrize("key", ["state", "start_state", "initial"])
def test_the_initial_state_under_another_key(key: str) -> None:
    assert initial_state({key: MID, "steps": []}) == initial_state({"initial_state": MID})


def test_state_keys_under_other_names() -> None:
    """rules.md §3 written with other keys: 'balls', 'to_shoot', 'fouls', 'warnings'."""
    written = {
        "balls": [4, 5, 10],
        "to_shoot": "B",
        "fouls": {"A": 1, "B": 2},
        "warnings": {"B": True},
    }
    game = initial_state({"initial_state": written})
    assert game.balls_on_table == (4, 5, 10) and game.turn is not None and game.turn.value == "B"
    assert game.to_json()["consecutive_fouls"] == {"A": 1, "B": 2}
    assert game.to_json()["warned"] == {"A": False, "B": True}


def test_keys_no_rule_reads_are_said_in_the_call() -> None:
    """An author's own name for a field the engine does not know is not dropped in silence:
    the call lists it; the descriptive facts of rules.md §4 are never listed."""
    step = copy.deepcopy(MADE)
    step["declarations"]["target_ball"] = 3
    step["shot"].update(spin="draw", late_drops=[], cue_ball_airborne=False)
    result, _ = run_step(step, initial_state({"initial_state": MID}))
    notes = [r["text"] for r in result["reasons"] if r["code"] == "NOT_READ"]
    assert notes == ["Not read (keys the rules do not know): declarations.target_ball, shot.spin."]
    clean, _ = run_step(MADE, initial_state({"initial_state": MID}))
    assert not any(r["code"] == "NOT_READ" for r in clean["reasons"])


@pytest.mark.parametrize(
    ("written", "place"),
    [
        ("ball_in_hand_behind_head_string", "in_hand_behind_head_string"),
        ("in hand (kitchen)", "in_hand_behind_head_string"),
        ("ball in hand", "in_hand_anywhere"),
        ("Ball-In-Hand anywhere", "in_hand_anywhere"),
        ("in place", "in_position"),
        ("where it lies", "in_position"),
    ],
)
def test_the_cue_balls_place_in_other_words(written: str, place: str) -> None:
    """Casse 1: behind the head string on the break; Fautes intro: anywhere after a foul."""
    game = initial_state({"initial_state": {**MID, "cue_ball": written}})
    assert game.cue_ball.value == place
