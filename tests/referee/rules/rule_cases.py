# ruff: noqa: E501  (the `why` texts are sentences; they read better unbroken)
"""Table-driven cases for every rule of rules.md §1 and every decision of §2.

They are written in the scenario format of scenarios-public.json (one `initial_state`, steps
with the subset of rules.md §5 fields they pin down in `expected`, and a `why` that cites the
clause), so they double as documentation and `tenball rules run` reads them too (see
test_cli.py, which writes them to a file). A scenario may carry a `config` object (an
extension of the format) to switch a `RulesConfig` option.
"""

from __future__ import annotations

from typing import Any

ALL = list(range(1, 11))


def state(
    balls: list[int] | None = None,
    turn: str = "A",
    cue_ball: str = "in_position",
    fouls: tuple[int, int] = (0, 0),
    warned: tuple[bool, bool] = (False, False),
    **extra: Any,
) -> dict[str, Any]:
    """A rules.md §3 state in the middle of a rack (A broke)."""
    return {
        "balls_on_table": list(range(3, 11)) if balls is None else balls,
        "turn": turn,
        "breaker": extra.pop("breaker", "A"),
        "is_break": extra.pop("is_break", False),
        "push_out_available": extra.pop("push_out_available", False),
        "cue_ball": cue_ball,
        "consecutive_fouls": {"A": fouls[0], "B": fouls[1]},
        "warned": {"A": warned[0], "B": warned[1]},
        "pending_option": extra.pop("pending_option", None),
        **extra,
    }


BREAK_STATE = state(ALL, cue_ball="in_hand_behind_head_string", is_break=True)


def facts(
    first: int | None = None,
    cushions: list[Any] | None = None,
    pocketed: list[Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """Shot facts (rules.md §4); a ball pocketed as (ball, pocket) or a bare int."""
    return {
        "first_object_ball_contacted": first,
        "cushion_after_first_contact": cushions or [],
        "pocketed": [
            {"ball": p[0], "pocket": p[1]} if isinstance(p, tuple) else p for p in pocketed or []
        ],
        "off_table": extra.pop("off_table", []),
        "cue_ball_pocketed": extra.pop("cue_ball_pocketed", False),
        "cue_ball_off_table": extra.pop("cue_ball_off_table", False),
        **extra,
    }


def shot(
    shot_facts: dict[str, Any] | None,
    expected: dict[str, Any],
    why: str,
    call: tuple[int, str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A shot step; `extra` takes push_out, referee_fouls, player, break_announce_10(_pocket)."""
    declarations: dict[str, Any] = {
        "call": None
        if call is None
        else {"ball": call[0], "pocket": call[1], "source": "announced"},
        "push_out": extra.pop("push_out", False),
    }
    for key in ("break_announce_10", "break_announce_10_pocket", "safety_intended"):
        if key in extra:
            declarations[key] = extra.pop(key)
    step = {
        "type": "shot",
        "declarations": declarations,
        "shot": shot_facts,
        "referee_fouls": extra.pop("referee_fouls", []),
        "expected": expected,
        "why": why,
    }
    step.update(extra)
    return step


def choice(player: str, picked: str, expected: dict[str, Any], why: str) -> dict[str, Any]:
    return {
        "type": "option_choice",
        "player": player,
        "choice": picked,
        "expected": expected,
        "why": why,
    }


def warning(player: str, expected: dict[str, Any], why: str) -> dict[str, Any]:
    return {"type": "warning", "player": player, "expected": expected, "why": why}


def scenario(
    ident: str, rules: list[str], initial: dict[str, Any], *steps: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    return {"id": ident, "rules": rules, "initial_state": initial, "steps": list(steps), **extra}


FOUL_TO_B = {
    "foul": True,
    "next_shooter": "B",
    "cue_ball_next": "in_hand_anywhere",
    "option": None,
    "turn_ends": True,
    "push_out_available_next": False,
}
PASS_TO_B = {
    "foul": False,
    "fouls": [],
    "next_shooter": "B",
    "cue_ball_next": "in_position",
    "option": None,
    "turn_ends": True,
}
CONTINUE_A = {
    "foul": False,
    "fouls": [],
    "next_shooter": "A",
    "cue_ball_next": "in_position",
    "option": None,
    "turn_ends": False,
}
OPTION_B = {
    "foul": False,
    "fouls": [],
    "next_shooter": None,
    "cue_ball_next": "in_position",
    "option": {"holder": "B", "choices": ["shoot", "hand_back"]},
    "turn_ends": True,
}
A_WINS: dict[str, Any] = {
    "rack_winner": "A",
    "next_shooter": None,
    "cue_ball_next": None,
    "spot": [],
    "balls_on_table_after": None,
    "consecutive_fouls": {"A": 0, "B": 0},
    "warned": {"A": False, "B": False},
    "warning_due": None,
}
B_WINS = {**A_WINS, "rack_winner": "B"}


def _rack(ident: str, rack: dict[str, Any], valid: bool, why: str) -> dict[str, Any]:
    full = {
        "apex_ball": 1,
        "apex_on_foot_spot": True,
        "rows_parallel_to_foot_rail": True,
        "ball_in_middle_of_three_row": 10,
        **rack,
    }
    step = {"type": "rack_check", "rack": full, "expected": {"rack_valid": valid}, "why": why}
    return scenario(ident, ["Mise en place 1-4"], BREAK_STATE, step)


RACK = [
    _rack("R-RACK-2AT-APEX", {"apex_ball": 2}, False, "Mise en place 1: the 1 at the apex."),
    _rack(
        "R-RACK-OFF-SPOT",
        {"apex_on_foot_spot": False},
        False,
        "Mise en place 1: apex on the foot spot.",
    ),
    _rack("R-RACK-ROWS", {"rows_parallel_to_foot_rail": False}, False, "Mise en place 2."),
    _rack(
        "R-RACK-10-CORNER",
        {"ball_in_middle_of_three_row": 5},
        False,
        "Mise en place 3: the 10 in the middle of the three-ball row.",
    ),
    _rack(
        "R-RACK-ANY-CORNERS",
        {"back_row_corners": [2, 3]},
        True,
        "Mise en place 4: the others at random.",
    ),
]

BREAK = [
    scenario(
        "R-BRK-LEGAL-POCKET",
        ["Casse 1", "Push-out 1"],
        BREAK_STATE,
        shot(
            facts(1, pocketed=[(2, "foot_left")], object_balls_to_cushion_on_break=5),
            {
                **CONTINUE_A,
                "push_out_available_next": True,
                "remain_pocketed": [2],
                "balls_on_table_after": [1, 3, 4, 5, 6, 7, 8, 9, 10],
            },
            "Casse 1: a ball pocketed on a legal break: the breaker continues; Push-out 1: he may push out.",
        ),
    ),
    scenario(
        "R-BRK-LEGAL-DRY",
        ["Casse 1", "Push-out 1"],
        BREAK_STATE,
        shot(
            facts(1, object_balls_to_cushion_on_break=5),
            {**PASS_TO_B, "push_out_available_next": True, "consecutive_fouls": {"A": 0, "B": 0}},
            "Casse 1: nothing pocketed, the inning ends; B comes to the table and may push out (Push-out 1).",
        ),
    ),
    scenario(
        "R-BRK-THREE-CUSHIONS",
        ["Casse 1", "Casse 2", "I-02"],
        BREAK_STATE,
        shot(
            facts(1, object_balls_to_cushion_on_break=3),
            {**FOUL_TO_B, "fouls": ["CASSE1_FOUR_CUSHIONS"], "consecutive_fouls": {"A": 1, "B": 0}},
            "Casse 1: fewer than four balls to a cushion and nothing pocketed: illegal break, a foul; B ball in hand anywhere (I-25).",
        ),
    ),
    scenario(
        "R-BRK-POCKET-COUNTS",
        ["I-02"],
        BREAK_STATE,
        shot(
            facts(1, pocketed=[(5, "side_right")], object_balls_to_cushion_on_break=2),
            {**CONTINUE_A, "push_out_available_next": True},
            "I-02: a pocketed ball satisfies the four-ball requirement.",
        ),
    ),
    scenario(
        "R-BRK-CUSHION-FIRST",
        ["Casse 1"],
        BREAK_STATE,
        shot(
            facts(
                1,
                pocketed=[(3, "foot_left")],
                object_balls_to_cushion_on_break=6,
                cue_ball_cushion_before_first_contact=True,
            ),
            {**FOUL_TO_B, "fouls": ["CASSE1_FIRST_CONTACT"], "remain_pocketed": [3]},
            "Casse 1: the cue ball must meet the 1 before any ball or cushion (unlike WPA).",
        ),
    ),
    scenario(
        "R-BRK-TOTAL-MISS",
        ["Casse 1", "Fautes 2", "I-09"],
        BREAK_STATE,
        shot(
            facts(None, object_balls_to_cushion_on_break=0),
            {
                **FOUL_TO_B,
                "fouls": ["CASSE1_FIRST_CONTACT", "CASSE1_FOUR_CUSHIONS", "F2"],
                "consecutive_fouls": {"A": 1, "B": 0},
            },
            "Every foul is reported, one penalty (I-18).",
        ),
    ),
    scenario(
        "R-BRK-10-UNANNOUNCED",
        ["Casse 4", "I-04"],
        BREAK_STATE,
        shot(
            facts(1, pocketed=[(10, "foot_right")], object_balls_to_cushion_on_break=4),
            {
                **CONTINUE_A,
                "spot": [10],
                "remain_pocketed": [],
                "push_out_available_next": True,
                "rack_winner": None,
                "balls_on_table_after": ALL,
            },
            "I-04: the 10 on a legal break without announcement is spotted, no foul, it counts as a pocketed ball: A continues and may push out.",
        ),
    ),
    scenario(
        "R-BRK-10-ANNOUNCED",
        ["Casse 4"],
        BREAK_STATE,
        shot(
            facts(
                1,
                pocketed=[(10, "foot_right"), (4, "side_left")],
                object_balls_to_cushion_on_break=4,
            ),
            {**A_WINS, "foul": False, "remain_pocketed": [4, 10]},
            "Casse 4: the 10 announced and pocketed on a legal break wins.",
            break_announce_10=True,
        ),
    ),
    scenario(
        "R-BRK-10-ANNOUNCED-POCKET",
        ["Casse 4", "I-05"],
        BREAK_STATE,
        shot(
            facts(1, pocketed=[(10, "foot_right")], object_balls_to_cushion_on_break=4),
            {**A_WINS, "foul": False},
            "I-05: the named pocket was respected.",
            break_announce_10=True,
            break_announce_10_pocket="foot_right",
        ),
    ),
    scenario(
        "R-BRK-10-WRONG-POCKET",
        ["I-05", "I-04"],
        BREAK_STATE,
        shot(
            facts(1, pocketed=[(10, "foot_left")], object_balls_to_cushion_on_break=4),
            {**CONTINUE_A, "spot": [10], "rack_winner": None, "push_out_available_next": True},
            "I-05: a pocket named with the announcement must be respected; otherwise as I-04.",
            break_announce_10=True,
            break_announce_10_pocket="foot_right",
        ),
    ),
    scenario(
        "R-BRK-BALL-OFF",
        ["Casse 3", "Fautes 5", "I-01"],
        BREAK_STATE,
        shot(
            facts(
                1, pocketed=[(2, "foot_left")], off_table=[4], object_balls_to_cushion_on_break=6
            ),
            {
                **FOUL_TO_B,
                "fouls": ["F5"],
                "spot": [],
                "remain_pocketed": [2],
                "balls_on_table_after": [1, 3, 5, 6, 7, 8, 9, 10],
            },
            "I-01: a ball jumped off on the break is a foul (Fautes 5); Casse 3: it is not returned.",
        ),
    ),
    scenario(
        "R-BRK-10-OFF",
        ["Casse 3", "I-01"],
        BREAK_STATE,
        shot(
            facts(1, off_table=[10], object_balls_to_cushion_on_break=6),
            {**FOUL_TO_B, "fouls": ["F5"], "spot": [10], "balls_on_table_after": ALL},
            "Casse 3: a 10 driven off on the break goes back on the foot spot.",
        ),
    ),
    scenario(
        "R-BRK-PUSH-REFUSED",
        ["I-12"],
        BREAK_STATE,
        shot(
            facts(1, object_balls_to_cushion_on_break=5),
            {**PASS_TO_B, "push_out_available_next": True},
            "I-12: no push-out on the break: judged as a normal break.",
            push_out=True,
        ),
    ),
    scenario(
        "R-BRK-SIMULTANEOUS",
        ["I-07"],
        BREAK_STATE,
        shot(
            facts(
                2,
                simultaneous_first_contact=[1, 2],
                pocketed=[(7, "side_left")],
                object_balls_to_cushion_on_break=5,
            ),
            {**CONTINUE_A, "push_out_available_next": True},
            "I-07: a hit the camera cannot order is resolved for the shooter.",
        ),
    ),
]

AFTER_DRY_BREAK = state(ALL, turn="B", push_out_available=True)
AFTER_BREAK_FOUL = state(ALL, turn="B", cue_ball="in_hand_anywhere", fouls=(1, 0))

PUSH_OUT = [
    scenario(
        "R-PO-BREAKER-PUSHES",
        ["Casse 1", "Push-out 1", "Push-out 4"],
        BREAK_STATE,
        shot(
            facts(1, pocketed=[(6, "foot_left")], object_balls_to_cushion_on_break=5),
            {**CONTINUE_A, "push_out_available_next": True},
            "Casse 1: A continues.",
        ),
        shot(
            facts(None),
            {**OPTION_B, "push_out_available_next": False},
            "Push-out 1: the breaker who pocketed a ball may push out on his first shot; B's option.",
            push_out=True,
        ),
    ),
    scenario(
        "R-PO-BALL-STAYS-DOWN",
        ["Push-out 2"],
        AFTER_DRY_BREAK,
        shot(
            facts(5, pocketed=[(4, "side_left")]),
            {
                "foul": False,
                "option": {"holder": "A", "choices": ["shoot", "hand_back"]},
                "next_shooter": None,
                "remain_pocketed": [4],
                "spot": [],
                "balls_on_table_after": [1, 2, 3, 5, 6, 7, 8, 9, 10],
            },
            "Push-out 2: object balls other than the 10 stay down.",
            push_out=True,
        ),
    ),
    scenario(
        "R-PO-10-SPOTTED",
        ["Push-out 2"],
        AFTER_DRY_BREAK,
        shot(
            facts(10, pocketed=[(10, "foot_left")]),
            {
                "foul": False,
                "option": {"holder": "A", "choices": ["shoot", "hand_back"]},
                "spot": [10],
                "remain_pocketed": [],
                "rack_winner": None,
                "balls_on_table_after": ALL,
            },
            "Push-out 2: a 10 pocketed on a push-out is spotted.",
            push_out=True,
            call=(10, "foot_left"),
        ),
    ),
    scenario(
        "R-PO-SCRATCH",
        ["Push-out 1c", "Fautes 1"],
        AFTER_DRY_BREAK,
        shot(
            facts(None, cue_ball_pocketed=True),
            {
                "foul": True,
                "fouls": ["F1"],
                "next_shooter": "A",
                "cue_ball_next": "in_hand_anywhere",
                "option": None,
                "consecutive_fouls": {"A": 0, "B": 1},
                "push_out_available_next": False,
            },
            "Push-out 1c: all other rules apply; a foul on a push-out gives ball in hand, no option.",
            push_out=True,
        ),
    ),
    scenario(
        "R-PO-NOT-AVAILABLE",
        ["Push-out 1", "I-12"],
        state(turn="A"),
        shot(
            facts(None),
            {**FOUL_TO_B, "fouls": ["F2"], "consecutive_fouls": {"A": 1, "B": 0}},
            "I-12: a push-out after the first shot is refused; played anyway it is a normal shot: a miss is Fautes 2.",
            push_out=True,
        ),
    ),
    scenario(
        "R-PO-AFTER-BREAK-FOUL",
        ["Push-out 5", "I-12"],
        AFTER_BREAK_FOUL,
        shot(
            facts(None),
            {
                "foul": True,
                "fouls": ["F2"],
                "next_shooter": "A",
                "option": None,
                "consecutive_fouls": {"A": 1, "B": 1},
            },
            "Push-out 5: no push-out with ball in hand after the break; judged as a normal shot.",
            push_out=True,
        ),
    ),
    scenario(
        "R-PO-ACCEPT",
        ["Push-out 4a"],
        AFTER_DRY_BREAK,
        shot(
            facts(None),
            {"option": {"holder": "A", "choices": ["shoot", "hand_back"]}},
            "Push-out 4.",
            push_out=True,
        ),
        choice(
            "A",
            "shoot",
            {
                "next_shooter": "A",
                "cue_ball_next": "in_position",
                "option": None,
                "push_out_available_next": False,
            },
            "Push-out 4a: A plays the table as it lies.",
        ),
        shot(
            facts(None),
            {**FOUL_TO_B, "fouls": ["F2"]},
            "Push-out 1: only the first shot after the break may be a push-out (I-12).",
            push_out=True,
        ),
    ),
    scenario(
        "R-PO-HAND-BACK-NO-SECOND",
        ["Push-out 4b", "I-35"],
        AFTER_DRY_BREAK,
        shot(
            facts(None),
            {"option": {"holder": "A", "choices": ["shoot", "hand_back"]}},
            "Push-out 4.",
            push_out=True,
        ),
        choice(
            "A",
            "hand_back",
            {
                "next_shooter": "B",
                "cue_ball_next": "in_position",
                "option": None,
                "push_out_available_next": False,
            },
            "Push-out 4b.",
        ),
        shot(
            facts(None),
            {
                "foul": True,
                "fouls": ["F2"],
                "next_shooter": "A",
                "cue_ball_next": "in_hand_anywhere",
                "consecutive_fouls": {"A": 0, "B": 1},
            },
            "I-35: after a hand-back the pusher shoots from position; no second push-out.",
            push_out=True,
        ),
    ),
    scenario(
        "R-PO-PLAYING-ACCEPTS",
        ["Push-out 4a"],
        AFTER_DRY_BREAK,
        shot(
            facts(None),
            {"option": {"holder": "A", "choices": ["shoot", "hand_back"]}},
            "Push-out 4.",
            push_out=True,
        ),
        shot(
            facts(1, cushions=[1], pocketed=[(1, "foot_left")]),
            {**CONTINUE_A, "remain_pocketed": [1]},
            "Decision: the holder who plays without stating a choice accepts the table (Push-out 4a).",
            call=(1, "foot_left"),
        ),
    ),
]

PLAY = [
    scenario(
        "R-D-COMBINATION",
        ["Déroulement 2", "Déroulement 1b"],
        state(),
        shot(
            facts(3, cushions=[3], pocketed=[(5, "foot_left")]),
            {**CONTINUE_A, "remain_pocketed": [5]},
            "D2: a combination must be called; called 5 made off the lowest 3: continue.",
            call=(5, "foot_left"),
        ),
    ),
    scenario(
        "R-D-WRONG-POCKET-OTHER",
        ["I-08", "I-10", "Déroulement 4"],
        state(),
        shot(
            facts(3, cushions=[3], pocketed=[(5, "side_left")]),
            {**PASS_TO_B, "remain_pocketed": [5], "balls_on_table_after": [3, 4, 6, 7, 8, 9, 10]},
            "I-08: a called ball in another pocket is not announced; not the lowest: D4, no option (I-10).",
            call=(5, "foot_left"),
        ),
    ),
    scenario(
        "R-D-WRONG-POCKET-LOWEST",
        ["I-08", "Déroulement 3"],
        state(),
        shot(
            facts(3, pocketed=[(3, "side_left")]),
            {**OPTION_B, "remain_pocketed": [3]},
            "I-08: the lowest ball called but made in another pocket: Déroulement 3 option.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "R-D-CALLED-PLUS-10",
        ["I-06", "I-11", "Déroulement 1c"],
        state(),
        shot(
            facts(3, pocketed=[(3, "foot_left"), (10, "side_right")]),
            {
                **CONTINUE_A,
                "spot": [10],
                "remain_pocketed": [3],
                "rack_winner": None,
                "balls_on_table_after": [4, 5, 6, 7, 8, 9, 10],
            },
            "I-06: an uncalled 10 is not legally pocketed: spotted; the called 3 was made: continue.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "R-D-EARLY-10",
        ["I-06", "Déroulement 5", "G1"],
        state(),
        shot(
            facts(3, cushions=[3], pocketed=[(10, "side_right")]),
            {**A_WINS, "foul": False, "remain_pocketed": [10]},
            "I-06 / G1: a called 10 made on a legal shot wins at any time.",
            call=(10, "side_right"),
        ),
    ),
    scenario(
        "R-D-10-WRONG-POCKET",
        ["I-06", "Déroulement 4"],
        state(),
        shot(
            facts(3, cushions=[3], pocketed=[(10, "side_left")]),
            {
                **PASS_TO_B,
                "spot": [10],
                "rack_winner": None,
                "remain_pocketed": [],
                "balls_on_table_after": [3, 4, 5, 6, 7, 8, 9, 10],
            },
            "I-06: a called 10 in the wrong pocket is spotted; nothing else made: D4.",
            call=(10, "side_right"),
        ),
    ),
    scenario(
        "R-D-LAST-10-WRONG-POCKET",
        ["I-06", "I-08", "Déroulement 3"],
        state([10]),
        shot(
            facts(10, pocketed=[(10, "side_left")]),
            {
                **OPTION_B,
                "spot": [10],
                "rack_winner": None,
                "remain_pocketed": [],
                "balls_on_table_after": [10],
            },
            "Decision: the 10 is then the lowest ball: spotted (I-06) and, made unannounced, the opponent's option (D3, I-08).",
            call=(10, "side_right"),
        ),
    ),
    scenario(
        "R-D-CALLED-PLUS-LOWEST",
        ["I-11"],
        state(),
        shot(
            facts(3, pocketed=[(5, "foot_left"), (3, "side_left")]),
            {**CONTINUE_A, "remain_pocketed": [3, 5]},
            "I-11: the called ball was made: D3 does not apply; extra balls need no call (D2).",
            call=(5, "foot_left"),
        ),
    ),
    scenario(
        "R-D-FOUL-BEATS-OPTION",
        ["I-34", "Fautes 1"],
        state(),
        shot(
            facts(3, pocketed=[(3, "foot_left")], cue_ball_pocketed=True),
            {**FOUL_TO_B, "fouls": ["F1"], "remain_pocketed": [3]},
            "I-34: a foul with an unannounced lowest ball: ball in hand, no option.",
        ),
    ),
    scenario(
        "R-D-SAFETY-MISS",
        ["I-13", "Déroulement 4"],
        state(),
        shot(
            facts(3, cushions=["cue"]),
            PASS_TO_B,
            "I-13: a safety needs no call; a legal miss passes the turn.",
            safety_intended=True,
        ),
    ),
    scenario(
        "R-D-OBVIOUS",
        ["I-29", "Déroulement 1b"],
        state(),
        {
            **shot(
                facts(3, pocketed=[(3, "foot_left")]),
                {**CONTINUE_A},
                "I-29: an 'obvious' call confirmed by the referee is a call.",
            ),
            "declarations": {
                "call": {"ball": 3, "pocket": "foot_left", "source": "obvious"},
                "push_out": False,
            },
        },
    ),
    scenario(
        "R-D-SIMULTANEOUS",
        ["I-07"],
        state(),
        shot(
            facts(5, simultaneous_first_contact=[3, 5], cushions=[5]),
            PASS_TO_B,
            "I-07: a simultaneous hit on the lowest ball and another is resolved for the shooter.",
        ),
    ),
    scenario(
        "R-D-UNCALLED-OTHER-OPTION-FLAG",
        ["I-10"],
        state(),
        shot(
            facts(3, cushions=[3], pocketed=[(8, "side_left")]),
            {**OPTION_B, "remain_pocketed": [8]},
            "I-10 with option_on_any_wrongful_pocket: any ball pocketed without the called shot gives the option.",
            call=(3, "foot_right"),
        ),
        config={"option_on_any_wrongful_pocket": True},
    ),
    scenario(
        "R-D-LATE-DROP",
        ["I-20"],
        state(),
        shot(
            facts(3, cushions=[3], late_drops=[3]),
            {**PASS_TO_B, "balls_on_table_after": [3, 4, 5, 6, 7, 8, 9, 10]},
            "I-20: a ball dropping after the settle window is not pocketed on the shot (put back at the lip).",
            call=(3, "foot_left"),
        ),
    ),
]


def _referee_foul(name: str, code: str) -> dict[str, Any]:
    return scenario(
        f"R-{code}-{name.upper()}",
        [f"Fautes {code[1:]}"],
        state(),
        shot(
            facts(3, pocketed=[(3, "foot_left")]),
            {
                **FOUL_TO_B,
                "fouls": [code],
                "remain_pocketed": [3],
                "consecutive_fouls": {"A": 1, "B": 0},
            },
            f"Fautes {code[1:]}: a foul only a person can see, entered by the referee; the called 3 stays down.",
            call=(3, "foot_left"),
            referee_fouls=[name],
        ),
    )


FOULS = [
    *(
        _referee_foul(name, code)
        for name, code in [
            ("no_foot_on_floor", "F4"),
            ("ball_touched", "F6"),
            ("double_hit", "F7"),
            ("push_shot", "F8"),
            ("balls_moving", "F9"),
            ("cue_on_table", "F11"),
            ("slow_play", "F13"),
        ]
    ),
    scenario(
        "R-F1-OFF-TABLE",
        ["Fautes 1"],
        state(),
        shot(
            facts(3, cushions=[3], cue_ball_off_table=True),
            {**FOUL_TO_B, "fouls": ["F1"]},
            "Fautes 1: the cue ball driven off the table.",
        ),
    ),
    scenario(
        "R-F3-NO-CUSHION",
        ["Fautes 3"],
        state(),
        shot(
            facts(3),
            {**FOUL_TO_B, "fouls": ["F3"]},
            "Fautes 3: no ball to a cushion after the legal contact.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "R-F3-CUE-BALL-COUNTS",
        ["Fautes 3", "I-03"],
        state(),
        shot(
            facts(3, cushions=["cue"]),
            PASS_TO_B,
            "I-03: any ball, the cue ball included, satisfies Fautes 3.",
        ),
    ),
    scenario(
        "R-F3-AFTER-F2",
        ["Fautes 2", "I-03"],
        state(),
        shot(
            facts(6),
            {**FOUL_TO_B, "fouls": ["F2"]},
            "I-03: Fautes 3 is only judged when the first contact was legal.",
        ),
    ),
    scenario(
        "R-F5-OBJECT-OFF",
        ["Fautes 5", "Déroulement 1c"],
        state(),
        shot(
            facts(3, cushions=[3], off_table=[7]),
            {
                **FOUL_TO_B,
                "fouls": ["F5"],
                "spot": [],
                "balls_on_table_after": [3, 4, 5, 6, 8, 9, 10],
            },
            "Fautes 5: the only object ball put back is the 10; the 7 stays off.",
        ),
    ),
    scenario(
        "R-F5-10-OFF",
        ["Fautes 5", "Déroulement 1c"],
        state(),
        shot(
            facts(3, cushions=[3], off_table=[10]),
            {
                **FOUL_TO_B,
                "fouls": ["F5"],
                "spot": [10],
                "balls_on_table_after": [3, 4, 5, 6, 7, 8, 9, 10],
            },
            "Déroulement 1c: a 10 driven off the table is spotted.",
        ),
    ),
    scenario(
        "R-F-10-ON-FOUL",
        ["Déroulement 1c", "I-06"],
        state(),
        shot(
            facts(4, pocketed=[(10, "foot_left")]),
            {
                **FOUL_TO_B,
                "fouls": ["F2"],
                "spot": [10],
                "remain_pocketed": [],
                "rack_winner": None,
                "balls_on_table_after": [3, 4, 5, 6, 7, 8, 9, 10],
            },
            "Déroulement 1c: a 10 pocketed on an illegal shot is spotted.",
            call=(10, "foot_left"),
        ),
    ),
    scenario(
        "R-F10-BREAK-ONLY",
        ["Fautes 10", "I-26"],
        state(cue_ball="in_hand_anywhere"),
        shot(
            facts(3, cushions=[3]),
            PASS_TO_B,
            "I-26: with ball in hand anywhere every placement on the bed is legal: Fautes 10 does not apply.",
            referee_fouls=["bad_cue_ball_placement"],
        ),
    ),
    scenario(
        "R-F-SEVERAL",
        ["I-18"],
        state(fouls=(1, 0)),
        shot(
            facts(3, cushions=[3], off_table=[5], cue_ball_pocketed=True),
            {
                **FOUL_TO_B,
                "fouls": ["F1", "F5", "F6"],
                "consecutive_fouls": {"A": 2, "B": 0},
                "warning_due": "A",
            },
            "I-18: all fouls reported, one penalty, the count goes up by one.",
            referee_fouls=["ball_touched"],
        ),
    ),
    scenario(
        "R-F-DISTURBED",
        ["Fautes 6", "Fautes 9"],
        state(),
        shot(
            facts(3, cushions=[3], balls_disturbed=[8], balls_moving_at_strike=[6]),
            {**FOUL_TO_B, "fouls": ["F6", "F9"]},
            "Camera facts: a ball moved with nothing touching it (Fautes 6); a ball still moving at the strike (Fautes 9).",
        ),
    ),
    scenario(
        "R-F-NO-STROKE",
        ["Fautes 13"],
        state(cue_ball="in_hand_anywhere", turn="B"),
        shot(
            None,
            {
                "foul": True,
                "fouls": ["F13"],
                "next_shooter": "A",
                "cue_ball_next": "in_hand_anywhere",
            },
            "Fautes 13: a foul with no stroke: the opponent has ball in hand.",
            referee_fouls=["F13"],
        ),
    ),
]

THREE_FOULS = [
    scenario(
        "R-T-THREE-WARNED",
        ["Fautes (3 fautes)", "Fautes (avertissement)", "I-19"],
        state(),
        shot(
            facts(3, cue_ball_pocketed=True),
            {**FOUL_TO_B, "consecutive_fouls": {"A": 1, "B": 0}},
            "First foul of A.",
        ),
        shot(
            facts(3, cushions=[3]),
            {"next_shooter": "A", "foul": False, "consecutive_fouls": {"A": 1, "B": 0}},
            "I-19: the opponent's shots do not break A's chain.",
            player="B",
        ),
        shot(
            facts(5, cushions=[5]),
            {"foul": True, "consecutive_fouls": {"A": 2, "B": 0}, "warning_due": "A"},
            "Second consecutive foul: the warning is due (T2, I-24).",
        ),
        warning(
            "A",
            {"warned": {"A": True, "B": False}, "warning_due": None, "next_shooter": "B"},
            "Fautes (avertissement): A is warned.",
        ),
        shot(
            facts(3, cushions=[3]),
            {"next_shooter": "A", "warned": {"A": True, "B": False}},
            "B misses legally: A still on two warned fouls (I-24: persists across innings).",
            player="B",
        ),
        shot(
            facts(None),
            {**B_WINS, "foul": True, "fouls": ["F2"]},
            "T1: third consecutive foul after the warning: B wins the rack; counts reset.",
        ),
    ),
    scenario(
        "R-T-UNWARNED-THIRD",
        ["Fautes (avertissement a-c)", "I-24"],
        state(fouls=(2, 0)),
        shot(
            facts(None),
            {
                **FOUL_TO_B,
                "fouls": ["F2"],
                "rack_winner": None,
                "consecutive_fouls": {"A": 2, "B": 0},
                "warning_due": "A",
                "warned": {"A": False, "B": False},
            },
            "T3: unwarned, the third foul is not a third foul; the count stays at two and the warning is still due.",
        ),
        shot(
            facts(3, cushions=[3]),
            {"next_shooter": "A", "warning_due": "A"},
            "B misses.",
            player="B",
        ),
        warning("A", {"warned": {"A": True, "B": False}, "warning_due": None}, "A is warned now."),
        shot(facts(None), {**B_WINS, "foul": True}, "Now the third foul loses."),
    ),
    scenario(
        "R-T-LEGAL-SHOT-RESETS",
        ["I-19"],
        state(fouls=(2, 0), warned=(True, False)),
        shot(
            facts(3, cushions=[3]),
            {
                **PASS_TO_B,
                "consecutive_fouls": {"A": 0, "B": 0},
                "warned": {"A": False, "B": False},
                "warning_due": None,
            },
            "I-19: a shot without a foul resets the count and clears the warning.",
        ),
    ),
    scenario(
        "R-T-D3-SHOT-RESETS",
        ["I-19", "Déroulement 3"],
        state(fouls=(2, 0), warned=(True, False)),
        shot(
            facts(3, pocketed=[(3, "foot_left")]),
            {**OPTION_B, "consecutive_fouls": {"A": 0, "B": 0}, "warned": {"A": False, "B": False}},
            "I-19: a D3 shot has no foul: it resets the count.",
        ),
    ),
    scenario(
        "R-T-OPTION-KEEPS-CHAIN",
        ["I-19"],
        state(fouls=(1, 0)),
        shot(facts(5), {"foul": True, "consecutive_fouls": {"A": 2, "B": 0}}, "A's second foul."),
        shot(
            facts(3, pocketed=[(3, "side_left")]),
            {
                "option": {"holder": "A", "choices": ["shoot", "hand_back"]},
                "consecutive_fouls": {"A": 2, "B": 0},
            },
            "B pockets the lowest unannounced: A's option.",
            player="B",
        ),
        choice(
            "A",
            "hand_back",
            {"next_shooter": "B", "consecutive_fouls": {"A": 2, "B": 0}, "warning_due": "A"},
            "I-19: options and hand-backs do not break the chain.",
        ),
    ),
    scenario(
        "R-T-OUT-OF-TURN",
        ["I-30", "Fautes 12"],
        state(),
        shot(
            facts(3, cushions=[3], pocketed=[(4, "side_left"), (10, "foot_left")]),
            {
                "foul": True,
                "fouls": ["F12"],
                "next_shooter": "A",
                "cue_ball_next": "in_hand_anywhere",
                "consecutive_fouls": {"A": 0, "B": 1},
                "spot": [10],
                "remain_pocketed": [4],
                "balls_on_table_after": [3, 5, 6, 7, 8, 9, 10],
            },
            "I-30: B played during A's inning: a foul charged to B; A has ball in hand, balls as left, the 10 spotted.",
            player="B",
        ),
    ),
    scenario(
        "R-T-OUT-OF-TURN-THIRD",
        ["I-30", "Fautes (3 fautes)"],
        state(fouls=(0, 2), warned=(False, True)),
        shot(
            facts(3, cushions=[3]),
            {**A_WINS, "foul": True, "fouls": ["F12"]},
            "I-30: the out-of-turn foul counts toward B's three fouls: B, warned on two, loses the rack.",
            player="B",
        ),
    ),
]

RACKS = [
    scenario(
        "R-NEXT-RACK-ALTERNATE",
        ["I-23", "Déroulement 5"],
        state([10]),
        shot(
            facts(10, pocketed=[(10, "foot_left")]),
            {**A_WINS},
            "A wins rack 1.",
            call=(10, "foot_left"),
        ),
        shot(
            facts(1, pocketed=[(2, "foot_left")], object_balls_to_cushion_on_break=5),
            {"next_shooter": "B", "turn_ends": False, "push_out_available_next": True},
            "I-23: the next rack is broken by the other player (alternate).",
            player="B",
        ),
    ),
    scenario(
        "R-NEXT-RACK-WINNER",
        ["I-23"],
        state([10]),
        shot(
            facts(10, pocketed=[(10, "foot_left")]),
            {**A_WINS},
            "A wins rack 1.",
            call=(10, "foot_left"),
        ),
        shot(
            facts(1, object_balls_to_cushion_on_break=5),
            {"next_shooter": "B", "foul": False},
            "break_order 'winner': A breaks again (nothing pocketed: B to the table).",
        ),
        config={"break_order": "winner"},
    ),
]


THREE_FOULS += [
    scenario(
        "R-T-EARLY-WARNING",
        ["Fautes (avertissement)", "T2"],
        state(fouls=(1, 0)),
        warning(
            "A",
            {
                "warned": {"A": False, "B": False},
                "warning_due": None,
                "consecutive_fouls": {"A": 1, "B": 0},
            },
            "Decision: a warning before the second consecutive foul is not the rules' warning: no effect.",
        ),
        shot(
            facts(None),
            {"foul": True, "consecutive_fouls": {"A": 2, "B": 0}, "warning_due": "A"},
            "The second foul: the warning is due now.",
        ),
    ),
]

RACKS += [
    scenario(
        "R-STALEMATE-RERACK",
        ["I-33"],
        state(breaker="B"),
        {
            "type": "new_rack",
            "stalemate": True,
            "expected": {
                "next_shooter": "B",
                "cue_ball_next": "in_hand_behind_head_string",
                "balls_on_table_after": ALL,
                "consecutive_fouls": {"A": 0, "B": 0},
            },
            "why": "I-33: after a stalemate the referee re-racks and the same breaker breaks again.",
        },
    ),
    scenario(
        "R-VISUAL-CHECK",
        ["Déroulement 2", "I-32"],
        state(fouls=(1, 0)),
        {
            "type": "visual_check",
            "expected": {
                "foul": False,
                "next_shooter": "A",
                "consecutive_fouls": {"A": 1, "B": 0},
                "balls_on_table_after": [3, 4, 5, 6, 7, 8, 9, 10],
            },
            "why": "I-32: a visual check (replay review) changes nothing by itself.",
        },
    ),
]


def _error(
    ident: str, initial: dict[str, Any], step: dict[str, Any], field: str, why: str
) -> dict[str, Any]:
    follow = shot(
        facts(3, cushions=[3]),
        {**PASS_TO_B, "balls_on_table_after": initial["balls_on_table"]},
        "The refused step changed nothing: the next step is judged on the same state.",
    )
    return scenario(
        ident, ["input"], initial, {**step, "expected": {"field": field}, "why": why}, follow
    )


ERRORS = [
    _error(
        "R-E-POCKETED-NOT-ON-TABLE",
        state(),
        shot(facts(3, pocketed=[(2, "foot_left")]), {}, ""),
        "shot.pocketed[0]",
        "The 2 was already down.",
    ),
    _error(
        "R-E-CALL-DOWN",
        state(),
        shot(facts(3), {}, "", call=(1, "foot_left")),
        "declarations.call.ball",
        "A ball already down cannot be called.",
    ),
    _error(
        "R-E-UNKNOWN-POCKET",
        state(),
        shot(facts(3, pocketed=[(3, "corner")]), {}, ""),
        "shot.pocketed[0].pocket",
        "Pocket names are those of rules.md §3.",
    ),
    _error(
        "R-E-UNKNOWN-FOUL",
        state(),
        shot(facts(3), {}, "", referee_fouls=["elbow"]),
        "referee_fouls[0]",
        "Referee fouls are the rules.md §4 names.",
    ),
    _error(
        "R-E-NO-OPTION", state(), choice("B", "shoot", {}, ""), "choice", "No option is pending."
    ),
    _error(
        "R-E-WRONG-HOLDER",
        state(
            pending_option={
                "holder": "A",
                "choices": ["shoot", "hand_back"],
                "previous_shooter": "B",
            },
            turn="A",
        ),
        choice("B", "shoot", {}, ""),
        "player",
        "Only the holder chooses.",
    ),
    _error(
        "R-E-NEW-RACK-MID-RACK",
        state(),
        {"type": "new_rack"},
        "type",
        "A new rack needs a finished rack, a named breaker, or a stalemate.",
    ),
    _error(
        "R-E-UNKNOWN-STEP", state(), {"type": "timeout"}, "type", "Unknown step types are refused."
    ),
    _error(
        "R-E-STEP-TYPE-OBJECT",
        state(),
        {"type": {"name": "shot"}, "shot": facts(3)},
        "type",
        "A step type is a name: an object is refused, not a crash.",
    ),
    _error(
        "R-E-BAD-BALL",
        state(),
        shot(facts(11), {}, ""),
        "shot.first_object_ball_contacted",
        "Balls are 1..10.",
    ),
]

ALL_CASES = RACK + BREAK + PUSH_OUT + PLAY + FOULS + THREE_FOULS + RACKS + ERRORS
