"""The declarations file: parsing, keying by shot or time, and stated assumptions."""

from __future__ import annotations

import pytest

from referee.declarations import (
    DeclarationLog,
    DeclarationsError,
    ShotDeclarations,
    assume_call,
    parse_declarations,
)

EXAMPLE = """\
{"type": "match", "players": {"A": "Alice", "B": "Bob"}, "breaker": "B"}
{"shot": 1, "type": "break_announce_10", "pocket": "foot_left"}
{"shot": 2, "type": "call", "ball": 3, "pocket": "foot_left"}
{"shot": 3, "type": "push_out"}
{"shot": 3, "type": "option_choice", "choice": "shoot"}
{"shot": 5, "type": "referee_foul", "foul": "ball_touched"}
{"shot": 5, "type": "warning", "player": "A"}
{"shot": 6, "type": "safety"}
{"time_s": 20.0, "type": "call", "ball": 4, "pocket": "side_right", "source": "obvious"}
"""


def test_the_documented_example_parses() -> None:
    log = parse_declarations(EXAMPLE)
    assert log.players == {"A": "Alice", "B": "Bob"}
    assert log.breaker == "B"
    assert log.for_shot(1, 1.0, None).declarations == {
        "break_announce_10": True,
        "break_announce_10_pocket": "foot_left",
    }
    assert log.for_shot(2, 5.0, 1.0).declarations["call"] == {
        "ball": 3,
        "pocket": "foot_left",
        "source": "announced",
    }
    third = log.for_shot(3, 9.0, 5.0)
    assert third.declarations == {"push_out": True}
    assert third.option_choice == "shoot"
    fifth = log.for_shot(5, 15.0, 12.0)
    assert fifth.referee_fouls == ("ball_touched",)
    assert fifth.warnings == ("A",)
    assert log.for_shot(6, 18.0, 15.0).declarations == {"safety_intended": True}


@pytest.mark.parametrize(
    ("strike_s", "previous_s", "applies"),
    [(20.0, 18.0, True), (21.0, 18.0, True), (19.9, 18.0, False), (25.0, 20.0, False)],
    ids=["at-time", "after", "before", "previous-strike-took-it"],
)
def test_a_time_keyed_line_belongs_to_the_next_strike(
    strike_s: float, previous_s: float, applies: bool
) -> None:
    declared = parse_declarations(EXAMPLE).for_shot(7, strike_s, previous_s)
    assert declared.has_call == applies


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"shot": 2, "type": "call", "ball": 11, "pocket": "foot_left"}', "'ball'"),
        ('{"shot": 2, "type": "call", "ball": 3, "pocket": "corner"}', "'pocket'"),
        ('{"shot": 2, "type": "dance"}', "'type'"),
        ('{"type": "push_out"}', "'shot'"),
        ('{"shot": 0, "type": "push_out"}', "'shot'"),
        ('{"shot": 2, "type": "referee_foul", "foul": "rude"}', "'foul'"),
        ('{"shot": 2, "type": "option_choice", "choice": "maybe"}', "'choice'"),
        ('{"shot": 2, "type": "warning", "player": "C"}', "'player'"),
        ("not json", "not valid JSON"),
    ],
    ids=["ball", "pocket", "type", "no-key", "shot-zero", "foul", "choice", "player", "json"],
)
def test_a_bad_line_is_named_with_its_field(line: str, field: str) -> None:
    with pytest.raises(DeclarationsError, match=f"decl:2: .*{field}"):
        parse_declarations('{"type": "match"}\n' + line, "decl")


FACTS_POT = {
    "first_object_ball_contacted": 2,
    "pocketed": [{"ball": 2, "pocket": "side_left", "frame": 10}],
}
FACTS_COMBO = {
    "first_object_ball_contacted": 2,
    "pocketed": [
        {"ball": 10, "pocket": "foot_right", "frame": 10},
        {"ball": 5, "pocket": "head_left", "frame": 12},
    ],
}


FACTS_CUSHIONED = {
    "first_object_ball_contacted": 2,
    "cushion_after_first_contact": ["cue", 2],
    "pocketed": [{"ball": 2, "pocket": "side_left", "frame": 10}],
}
FACTS_CUE_CUSHION = {**FACTS_POT, "cushion_after_first_contact": ["cue"]}
FACTS_OTHER_DROPPED = {
    "first_object_ball_contacted": 2,
    "pocketed": [{"ball": 3, "pocket": "side_left", "frame": 10}],
}


@pytest.mark.parametrize(
    ("facts", "is_break", "expected_call", "said"),
    [
        (FACTS_POT, False, {"ball": 2, "pocket": "side_left", "source": "obvious"}, "assumed"),
        (
            FACTS_CUE_CUSHION,
            False,
            {"ball": 2, "pocket": "side_left", "source": "obvious"},
            "assumed",
        ),
        (FACTS_COMBO, False, None, "uncalled"),
        (FACTS_CUSHIONED, False, None, "uncalled"),
        (FACTS_OTHER_DROPPED, False, None, "uncalled"),
        (FACTS_POT, True, None, ""),
        ({"first_object_ball_contacted": 2, "pocketed": []}, False, None, ""),
    ],
    ids=[
        "single-ball-pot",
        "cue-ball-cushion-still-single",
        "two-balls-dropped",
        "object-ball-off-a-cushion",
        "another-ball-dropped",
        "break-not-called",
        "nothing-dropped",
    ],
)
def test_an_unknown_call_is_assumed_obvious_only_for_a_single_ball_pot(
    facts: dict[str, object], is_break: bool, expected_call: object, said: str
) -> None:
    """I-29: with no call known, only a single-ball shot is taken as obvious; every other
    pot is judged as uncalled, and either way the review says so."""
    filled, assumptions = assume_call(ShotDeclarations(), facts, is_break)
    assert filled.declarations.get("call") == expected_call
    assert bool(assumptions) == bool(said)
    if said == "assumed":
        assert assumptions[0].startswith("call not known: assumed obvious")
    elif said:
        assert "uncalled" in assumptions[0]


def test_a_file_without_this_shots_call_means_not_announced() -> None:
    """A declarations file is the record of what was declared: no call line, no call."""
    log = parse_declarations('{"shot": 3, "type": "option_choice", "choice": "shoot"}\n', "d")
    assert log.known
    filled, assumptions = assume_call(log.for_shot(2, 9.0, 5.0), FACTS_POT, False, log.known)
    assert "call" not in filled.declarations
    assert assumptions == ["no call declared for this shot: judged as not announced"]


def test_no_file_means_nothing_declared() -> None:
    assert DeclarationLog().for_shot(1, 0.0, None) == ShotDeclarations()
    assert not DeclarationLog().known


def test_a_declared_call_is_never_replaced() -> None:
    declared = ShotDeclarations({"call": {"ball": 7, "pocket": "foot_left", "source": "announced"}})
    filled, assumptions = assume_call(declared, FACTS_POT, False)
    assert filled is declared and assumptions == []


WRITTEN_BY_HAND = """\
{"type": "Match", "breaker": "b"}
{"shot": "2", "type": "Call", "ball": "3", "pocket": "foot left corner"}
{"shot": 3, "type": "pushout"}
{"shot": 3, "type": "option", "choice": "give the table back"}
{"shot": 4, "type": "foul", "fouls": ["F6", "out_of_turn"]}
{"shot": 4, "type": "warning", "player": "player a"}
{"shot": 5, "ball": 4, "pocket": "FR", "source": "obvious"}
{"shot": 6, "ball": 10, "source": "obvious"}
{"shot": 7, "choice": "accept"}
{"time": "20.5", "type": "referee_foul", "foul": "Fautes 13"}
"""


def test_lines_written_by_hand_read_as_the_documented_form() -> None:
    """What a referee types: other spellings of types, balls, pockets, fouls (codes too),
    choices and players; a line without a type is the kind its key says."""
    log = parse_declarations(WRITTEN_BY_HAND)
    assert log.breaker == "B"
    assert log.for_shot(2, 5.0, 1.0).declarations["call"] == {
        "ball": 3,
        "pocket": "foot_left",
        "source": "announced",
    }
    third = log.for_shot(3, 9.0, 5.0)
    assert third.declarations == {"push_out": True}
    assert third.option_choice == "hand_back"
    fourth = log.for_shot(4, 12.0, 9.0)
    assert fourth.referee_fouls == ("ball_touched", "played_out_of_turn")
    assert fourth.warnings == ("A",)
    assert log.for_shot(5, 14.0, 12.0).declarations["call"]["pocket"] == "foot_right"
    assert log.for_shot(6, 16.0, 14.0).declarations["call"] == {
        "ball": 10,
        "pocket": None,
        "source": "obvious",
    }  # D2 / I-29: an obvious call needs no pocket
    assert log.for_shot(7, 18.0, 16.0).option_choice == "shoot"
    assert log.for_shot(8, 21.0, 18.0).referee_fouls == ("slow_play",)


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"shot": 2, "type": "call", "ball": 3}', "'pocket'"),
        ('{"shot": 2, "type": "call", "ball": "three", "pocket": "foot_left"}', "'ball'"),
        ('{"shot": 2, "type": "foul", "fouls": ["rude", "loud"]}', "'foul'"),
        ('{"shot": "second", "type": "push_out"}', "'shot'"),
        ('{"shot": 2, "type": "warning", "player": "referee"}', "'player'"),
        ('{"shot": 2, "comment": "nice shot"}', "'type'"),
        ('{"rack": 2, "shot": 1, "type": "push_out"}', "'shot' counts over the whole match"),
    ],
    ids=[
        "announced-call-without-pocket",
        "ball-word",
        "fouls",
        "shot-word",
        "player",
        "no-type",
        "shot-in-rack",
    ],
)
def test_what_still_names_nothing_is_refused_with_line_and_field(line: str, field: str) -> None:
    with pytest.raises(DeclarationsError, match=f"decl:2: .*{field}"):
        parse_declarations('{"type": "match"}\n' + line, "decl")


def test_a_choice_keyed_by_time_answers_the_option_before_the_next_strike() -> None:
    """Push-out 4 / Déroulement 3: the holder chooses between two strikes; keyed by time,
    the choice belongs before the next strike, not after that shot's call."""
    log = parse_declarations(
        '{"time_s": 12.0, "type": "option_choice", "choice": "hand_back"}\n'
        '{"shot": 2, "type": "option_choice", "choice": "shoot"}\n'
    )
    second = log.for_shot(2, 10.0, 5.0)
    assert (second.option_choice, second.option_choice_before) == ("shoot", None)
    third = log.for_shot(3, 14.0, 10.0)
    assert (third.option_choice, third.option_choice_before) == (None, "hand_back")
    kept, _ = assume_call(third, {"pocketed": [{"ball": 3, "pocket": "foot_left"}]}, False)
    assert kept.option_choice_before == "hand_back"


def test_timed_calls_count_in_the_order_of_their_times() -> None:
    """I-28: of several calls before the stroke, the last one counts, by time, whatever the
    order of the lines in the file."""
    log = parse_declarations(
        '{"time_s": 9.5, "type": "call", "ball": 4, "pocket": "side_left"}\n'
        '{"time_s": 8.0, "type": "call", "ball": 3, "pocket": "foot_left"}\n'
    )
    assert log.for_shot(2, 10.0, 5.0).declarations["call"]["ball"] == 4
