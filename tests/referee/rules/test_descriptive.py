"""Descriptive camera facts change what counts as off the table (I-15) and pocketed (I-20)."""

from __future__ import annotations

from typing import Any

import pytest

from referee.rules.descriptive import apply_descriptive_facts
from tests.referee.rules.runner import run_scenario

OPEN_TABLE: dict[str, Any] = {
    "balls_on_table": [3, 4, 5, 6, 7, 8, 9, 10],
    "turn": "A",
    "breaker": "B",
    "is_break": False,
    "push_out_available": False,
    "cue_ball": "in_position",
    "consecutive_fouls": {"A": 0, "B": 0},
    "warned": {"A": False, "B": False},
    "pending_option": None,
}


def _shot(**facts: Any) -> dict[str, Any]:
    base = {
        "first_object_ball_contacted": 3,
        "cushion_after_first_contact": [3],
        "pocketed": [],
        "off_table": [],
        "cue_ball_pocketed": False,
        "cue_ball_off_table": False,
    }
    base.update(facts)
    return {
        "type": "shot",
        "declarations": {"call": {"ball": 3, "pocket": "foot_left", "source": "announced"}},
        "shot": base,
        "referee_fouls": [],
    }


CASES = [
    # (id, facts, expected foul codes, expected balls still on the table)
    (
        "rail-top-and-back-is-not-off",
        {"off_table": [6], "returned_to_bed_after_rail_top": [6]},
        [],
        [3, 4, 5, 6, 7, 8, 9, 10],
    ),
    (
        "touched-lamp-and-came-back-is-off",
        {
            "returned_to_bed_after_rail_top": [6],
            "off_table_detail": [{"ball": 6, "touched": "lamp", "returned": True}],
        },
        ["F5"],
        [3, 4, 5, 7, 8, 9, 10],
    ),
    (
        "late-drop-after-5-s-is-not-pocketed",
        {
            "pocketed": [{"ball": 3, "pocket": "foot_left"}],
            "late_drops": [{"ball": 3, "pocket": "foot_left", "seconds_after_rest": 7.5}],
        },
        [],
        [3, 4, 5, 6, 7, 8, 9, 10],
    ),
    (
        "late-drop-within-5-s-is-pocketed",
        {"late_drops": [{"ball": 3, "pocket": "foot_left", "seconds_after_rest": 2.0}]},
        [],
        [4, 5, 6, 7, 8, 9, 10],
    ),
]


@pytest.mark.parametrize(
    ("facts", "fouls", "on_table"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_descriptive_facts_change_the_call(
    facts: dict[str, Any], fouls: list[str], on_table: list[int]
) -> None:
    scenario = {"id": "D", "initial_state": OPEN_TABLE, "steps": [_shot(**facts)]}
    [(result, _state)] = run_scenario(scenario)
    assert result["fouls"] == fouls
    assert result["balls_on_table_after"] == on_table


def test_facts_without_descriptive_keys_are_unchanged() -> None:
    facts = {"pocketed": [{"ball": 3, "pocket": "foot_left"}], "off_table": [6]}
    assert apply_descriptive_facts(facts) == facts
