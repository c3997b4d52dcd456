"""Shot facts written the other ways an author may write them (parse.py, descriptive.py):
a first contact left out, the cue ball as ball 0, late drops and off-table entries that say
when or how a ball left; each read as the rules.md §4 fact it states (I-09, I-15, I-20)."""

from __future__ import annotations

from typing import Any

import pytest

from referee.rules import initial_state, run_step
from tests.referee.rules.rule_cases import facts, shot, state
from tests.referee.rules.test_input_forms import MID, _results


@pytest.mark.parametrize(
    ("shot_facts", "referee_fouls", "fouls"),
    [
        ({}, ["no_foot_on_floor"], ["F4"]),
        ({"pocketed": [{"ball": 3, "pocket": "foot_left"}], "cue_ball_pocketed": True}, [], ["F1"]),
        ({"pocketed": [], "off_table": [6]}, ["double_hit"], ["F5", "F7"]),
        ({"first_object_ball_contacted": None}, ["no_foot_on_floor"], ["F2", "F4"]),
    ],
    ids=["empty-facts", "scratch-on-a-pot", "off-and-double-hit", "null-is-reported"],
)
def test_a_first_contact_left_out_is_not_judged(
    shot_facts: dict[str, Any], referee_fouls: list[str], fouls: list[str]
) -> None:
    """Facts that leave the first contact out (no key, not even null) say nothing about it:
    Fautes 2 and 3 are not judged on it; null says no ball was hit (I-09: Fautes 2)."""
    step = {"type": "shot", "shot": shot_facts, "referee_fouls": referee_fouls}
    result, _ = run_step(step, initial_state({"initial_state": MID}))
    assert result["fouls"] == fouls
    noted = any(r["code"] == "NOT_REPORTED" for r in result["reasons"])
    assert noted is ("first_object_ball_contacted" not in shot_facts)


def test_a_break_without_its_first_contact_is_judged_on_the_rest() -> None:
    """Casse 1: the four-cushion rule is still judged when the first contact is left out."""
    initial = state(list(range(1, 11)), cue_ball="in_hand_behind_head_string", is_break=True)
    legal = {"type": "shot", "shot": {"object_balls_to_cushion_on_break": 5}}
    short = {"type": "shot", "shot": {"object_balls_to_cushion_on_break": 2}}
    assert _results(initial, [legal])[0]["fouls"] == []
    assert _results(initial, [short])[0]["fouls"] == ["CASSE1_FOUR_CUSHIONS"]


def test_ball_zero_is_the_cue_ball_in_ball_lists() -> None:
    """Cameras number the cue ball 0: in `pocketed` it is a scratch (Fautes 1), in the
    cushion list it is the cue ball reaching a cushion (I-03: no Fautes 3)."""
    scratch = shot(facts(3, pocketed=[(3, "foot_left"), 0]), {}, "", call=(3, "foot_left"))
    assert _results(MID, [scratch])[0]["fouls"] == ["F1"]
    cushion = shot(facts(3, cushions=[0]), {}, "")
    assert _results(MID, [cushion])[0]["fouls"] == []


@pytest.mark.parametrize(
    ("late", "pocketed"),
    [
        ([{"ball": 3, "pocket": "foot_left", "time_s": 14.2, "balls_stopped_at_s": 10.0}], True),
        ([{"ball": 3, "pocket": "foot_left", "dropped_at_s": 16.5, "rest_time_s": 10.0}], False),
        ({"3": 6.5}, False),
        ({"3": {"pocket": "foot_left", "seconds_after_rest": 2}}, True),
    ],
    ids=["clock-times-inside", "clock-times-outside", "map-seconds", "map-entries"],
)
def test_late_drops_in_other_forms(late: Any, pocketed: bool) -> None:
    """I-20 (WPA 5-second rule): a ball that drops within 5 s of the balls stopping counts
    as pocketed on the shot, later it does not (put back on the lip)."""
    step = shot(facts(3, cushions=[3], late_drops=late), {}, "", call=(3, "foot_left"))
    result = _results(MID, [step])[0]
    assert (result["remain_pocketed"] == [3]) is pocketed
    assert result["next_shooter"] == ("A" if pocketed else "B")


@pytest.mark.parametrize(
    ("entry", "fouls"),
    [
        ({"ball": 6, "returned_to_bed": True}, []),
        ({"ball": 6, "touched": "lamp", "returned_to_bed": True}, ["F5"]),
        ({"ball": 6}, ["F5"]),
    ],
    ids=["rail-top-return", "touched-a-lamp", "plain"],
)
def test_an_off_table_entry_that_says_how_the_ball_left(
    entry: dict[str, Any], fouls: list[str]
) -> None:
    """I-15: a ball that rides the rail top and falls back is not off the table; one that
    touches a non-table object is, even if it comes back (Fautes 5)."""
    step = shot(facts(3, cushions=[3, 6], off_table=[entry]), {}, "")
    assert _results(MID, [step])[0]["fouls"] == fouls


@pytest.mark.parametrize(
    ("detail", "off", "fouls"),
    [
        ([{"ball": 6, "came_to_rest_on": "rail_top"}], [], ["F5"]),
        ([{"ball": 6, "stopped_on_rail": True}], [], ["F5"]),
        ({"6": "rode the rail top then back to the bed"}, [6], []),
        ([{"ball": 6, "note": "stopped against the cushion"}], [], []),
        ([{"ball": "cue", "came_to_rest_on": "rail top"}], [], ["F1"]),
    ],
    ids=["rests-on-rail-top", "stopped-on-rail", "back-to-bed-in-words", "against-cushion", "cue"],
)
def test_an_off_table_detail_that_says_where_the_ball_came_to_rest(
    detail: Any, off: list[int], fouls: list[str]
) -> None:
    """I-15: 'comes to rest anywhere but the bed or a pocket' is off the table (Fautes 5, or
    Fautes 1 for the cue ball), even when only the detail says so; a ball that rode the rail
    top and came back to the bed, said in words, is not; one resting against a cushion is on
    the bed."""
    step = shot(facts(3, cushions=[3, 6], off_table=off, off_table_detail=detail), {}, "")
    assert _results(MID, [step])[0]["fouls"] == fouls


@pytest.mark.parametrize(
    ("entry", "pocketed"),
    [
        ({"ball": 3, "pocket": "foot_left", "seconds_after_rest": 7}, False),
        ({"ball": 3, "pocket": "foot_left", "seconds_after_rest": 2.5}, True),
        ({"ball": 3, "pocket": "foot_left", "within_5s": False}, False),
        ({"ball": 3, "pocket": "foot_left", "frame": 412, "time_s": 14.0}, True),
        ({"ball": 3, "pocket": "foot_left", "after_window": True}, False),
        ({"ball": 3, "pocket": "foot_left", "beyond_5_seconds": True}, False),
        ({"ball": 3, "pocket": "foot_left", "inside_window": True}, True),
    ],
    ids=[
        "late",
        "in-window",
        "flag",
        "clock-time-is-no-delay",
        "after-window-flag",
        "beyond-flag",
        "inside-flag",
    ],
)
def test_a_pocketed_entry_that_says_when_it_dropped(entry: dict[str, Any], pocketed: bool) -> None:
    """I-20: a ball listed in `pocketed` with its delay after the balls stopped is judged as
    a late drop; a frame or clock time alone says nothing about the window."""
    step = shot(facts(3, cushions=[3], pocketed=[entry]), {}, "", call=(3, "foot_left"))
    assert (_results(MID, [step])[0]["remain_pocketed"] == [3]) is pocketed
