# ruff: noqa: E501  (the `why` texts are sentences; they read better unbroken)
"""A second, adversarial audit of the engine against rules.md and the FFB text.

Written from the text alone, in the scenario format of scenarios-public.json; every shot step
pins every rules.md §5 field (`full` fills none of them by guess: each default it applies is
the reading of the text written in `why`). The cases target what earlier audits left open:
the break's Fautes 3, the 10 announced through a call on the break, a warning given before
the second foul, the tolerant forms of the facts (balls as objects, foul codes, pocket
spellings, late-drop timings), and longer sequences that carry the state across steps and
racks.
"""

from __future__ import annotations

from typing import Any

from tests.referee.rules.rule_cases import (
    ALL,
    BREAK_STATE,
    choice,
    facts,
    scenario,
    shot,
    state,
    warning,
)

OPTION = ["shoot", "hand_back"]


def full(
    fouls: list[str],
    nxt: str | None,
    after: list[int] | None,
    *,
    ends: bool = True,
    spot: list[int] | None = None,
    remain: list[int] | None = None,
    option: str | None = None,
    winner: str | None = None,
    counts: tuple[int, int] = (0, 0),
    warned: tuple[bool, bool] = (False, False),
    due: str | None = None,
    push_out: bool = False,
) -> dict[str, Any]:
    """Every rules.md §5 field of a shot; the cue ball follows the text (Fautes intro: ball in
    hand anywhere after a foul; in position otherwise; null once the rack is over)."""
    over = winner is not None
    return {
        "foul": bool(fouls),
        "fouls": fouls,
        "next_shooter": None if over or option else nxt,
        "cue_ball_next": None if over else ("in_hand_anywhere" if fouls else "in_position"),
        "spot": spot or [],
        "remain_pocketed": remain or [],
        "option": None if option is None else {"holder": option, "choices": OPTION},
        "rack_winner": winner,
        "consecutive_fouls": {"A": counts[0], "B": counts[1]},
        "warned": {"A": warned[0], "B": warned[1]},
        "warning_due": due,
        "push_out_available_next": push_out,
        "balls_on_table_after": None if over else after,
        "turn_ends": ends,
    }


def without(balls: list[int], *gone: int) -> list[int]:
    return [b for b in balls if b not in gone]


MID = list(range(3, 11))
AFTER_DRY_BREAK = state(ALL, turn="B", push_out_available=True)
AFTER_POCKET_ON_BREAK = state(without(ALL, 4), turn="A", push_out_available=True)
BREAK_B = state(ALL, turn="B", breaker="B", cue_ball="in_hand_behind_head_string", is_break=True)
PENDING_B = {"holder": "B", "choices": OPTION, "previous_shooter": "A"}

BREAK = [
    scenario(
        "AX-BRK-01",
        ["Casse 1", "Fautes 3"],
        BREAK_STATE,
        shot(
            facts(1, object_balls_to_cushion_on_break=0),
            full(["CASSE1_FOUR_CUSHIONS", "F3"], "B", ALL, counts=(1, 0)),
            "Casse 1: fewer than four object balls to a cushion -> illegal break, a foul. Fautes 3 ('Absence de bande après contact avec la bille numériquement la moins élevée') is one of the 'fautes classiques' with no break exception: the 1 was hit first (legal), and no ball, cue ball included, reached a cushion or dropped (I-03). I-18: all fouls reported, one penalty.",
        ),
    ),
    scenario(
        "AX-BRK-02",
        ["Casse 1", "Fautes 3"],
        BREAK_STATE,
        shot(
            facts(1, cushions=["cue"], object_balls_to_cushion_on_break=0),
            full(["CASSE1_FOUR_CUSHIONS"], "B", ALL, counts=(1, 0)),
            "The cue ball reached a cushion after the 1 (I-03: any ball incl. the cue ball) -> no Fautes 3; the break is still illegal (Casse 1, no object ball to a cushion, nothing pocketed).",
        ),
    ),
    scenario(
        "AX-BRK-03",
        ["Casse 1", "Fautes 3"],
        BREAK_STATE,
        shot(
            facts(1, object_balls_to_cushion_on_break=3),
            full(["CASSE1_FOUR_CUSHIONS"], "B", ALL, counts=(1, 0)),
            "Three object balls reached a cushion (the break count is the camera's list of them): Fautes 3 is met, only the four-ball requirement of Casse 1 fails.",
        ),
    ),
    scenario(
        "AX-BRK-04",
        ["Casse 4", "I-05"],
        BREAK_STATE,
        shot(
            facts(1, pocketed=[(10, "foot_right")], object_balls_to_cushion_on_break=5),
            full([], None, None, remain=[10], winner="A"),
            "Casse 4: 'si la 10 est empochée lors d'une casse légale et que le joueur a annoncé son empochage, le joueur remporte la partie'. The breaker announced it as a call of the 10 in the foot-right pocket (I-05: '10 in pocket X' before the stroke) and it dropped there -> A wins.",
            call=(10, "foot_right"),
        ),
    ),
    scenario(
        "AX-BRK-05",
        ["Casse 4", "I-05", "I-04"],
        BREAK_STATE,
        shot(
            facts(1, pocketed=[(10, "foot_right")], object_balls_to_cushion_on_break=5),
            full([], "A", ALL, ends=False, spot=[10], push_out=True),
            "I-05: a pocket named with the announcement must be respected; called for the side-left, the 10 fell in the foot-right -> no win; I-04: spotted, no foul, it counts as a pocketed ball, A continues and may push out.",
            call=(10, "side_left"),
        ),
    ),
    scenario(
        "AX-BRK-06",
        ["Casse 1", "Push-out 1"],
        BREAK_B,
        shot(
            facts(1, object_balls_to_cushion_on_break=6),
            full([], "A", ALL, push_out=True),
            "Casse 1: legal break by B, nothing pocketed -> B's inning ends; A is at the table for the first shot after a legal break and may push out (Push-out 1).",
        ),
    ),
    scenario(
        "AX-BRK-07",
        ["Casse 3", "Casse 4", "Fautes 5", "I-01"],
        BREAK_STATE,
        shot(
            facts(1, off_table=[10], object_balls_to_cushion_on_break=6),
            full(["F5"], "B", ALL, spot=[10], counts=(1, 0)),
            "Casse 3: a 10 driven off on the break goes back on the foot spot; I-01: driving a ball off is a foul on the break too (Fautes 5) -> B ball in hand; the announcement cannot win with a 10 that was not pocketed.",
            break_announce_10=True,
        ),
    ),
    scenario(
        "AX-BRK-08",
        ["Casse 1", "I-07"],
        BREAK_STATE,
        shot(
            facts(
                2,
                pocketed=[(4, "foot_left")],
                object_balls_to_cushion_on_break=5,
                simultaneous_first_contact=[1, 2],
            ),
            full([], "A", without(ALL, 4), ends=False, remain=[4], push_out=True),
            "I-07: the 1 and the 2 hit at the same time is resolved for the shooter -> the 1 counts as first; legal break, the 4 pocketed -> A continues and may push out (Casse 1, Push-out 1).",
        ),
    ),
    scenario(
        "AX-BRK-09",
        ["Casse 1", "Casse 3", "Fautes 5"],
        BREAK_STATE,
        shot(
            facts(1, off_table=[6], object_balls_to_cushion_on_break=3),
            full(["CASSE1_FOUR_CUSHIONS", "F5"], "B", without(ALL, 6), counts=(1, 0)),
            "Casse 1: three object balls to a cushion and nothing pocketed -> illegal break; Fautes 5: the 6 left the table, and Casse 3: it is not returned. One penalty: B ball in hand.",
        ),
    ),
    scenario(
        "AX-BRK-10",
        ["Casse 1", "Fautes 1"],
        BREAK_STATE,
        shot(
            facts(
                1,
                pocketed=[(7, "side_right")],
                object_balls_to_cushion_on_break=5,
                cue_ball_off_table=True,
            ),
            full(["F1"], "B", without(ALL, 7), remain=[7], counts=(1, 0)),
            "Fautes 1: the cue ball driven off the table on the break is a foul; Casse 1: the inning ends; the 7 stays down; B ball in hand anywhere, no push-out (Push-out 5).",
        ),
    ),
    scenario(
        "AX-BRK-11",
        ["Fautes 13", "Casse 1", "Push-out 5"],
        BREAK_STATE,
        shot(
            None,
            full(["F13"], "B", ALL, counts=(1, 0)),
            "Fautes 13 applies before the break too: the turn passes, B ball in hand anywhere, no push-out after it (Push-out 5).",
            referee_fouls=["slow_play"],
        ),
    ),
]

PUSH_OUT = [
    scenario(
        "AX-PO-01",
        ["Push-out 1", "Push-out 4b", "Déroulement 4"],
        AFTER_POCKET_ON_BREAK,
        shot(
            facts(None),
            full([], None, without(ALL, 4), option="B"),
            "Push-out 1: the breaker, still at the table after pocketing on the break, plays the first shot after it and may push out; Push-out 4: his inning ends, B chooses.",
            push_out=True,
        ),
        choice(
            "B",
            "hand_back",
            {
                "next_shooter": "A",
                "cue_ball_next": "in_position",
                "option": None,
                "push_out_available_next": False,
            },
            "Push-out 4b: B makes A come back and play from where the cue ball lies.",
        ),
        shot(
            facts(1, cushions=[1]),
            full([], "B", without(ALL, 4)),
            "Déroulement 4: A must now play a normal shot (I-35); legal miss -> B from position.",
            call=(1, "foot_left"),
        ),
    ),
    scenario(
        "AX-PO-02",
        ["Push-out 2", "Push-out 4a", "Déroulement 1b"],
        AFTER_DRY_BREAK,
        shot(
            facts(1, pocketed=[(1, "side_left")]),
            full([], None, without(ALL, 1), remain=[1], option="A"),
            "Push-out 2: an object ball other than the 10 pocketed on a push-out stays down, even the lowest; Push-out 4 (not Déroulement 3): A chooses.",
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
            "Push-out 4a: A accepts the table and plays.",
        ),
        shot(
            facts(2, pocketed=[(2, "foot_left")]),
            full([], "A", without(ALL, 1, 2), ends=False, remain=[2]),
            "Déroulement 1a/1b: the 2 is now the lowest, called and made -> A continues.",
            call=(2, "foot_left"),
        ),
    ),
    scenario(
        "AX-PO-03",
        ["Push-out 1b"],
        AFTER_DRY_BREAK,
        shot(
            facts(1),
            full([], None, ALL, option="A"),
            "Push-out 1b: no ball needs to reach a cushion on a push-out, so hitting the 1 without any cushion is no Fautes 3.",
            push_out=True,
        ),
    ),
    scenario(
        "AX-PO-04",
        ["Push-out 4", "Déroulement 2"],
        AFTER_DRY_BREAK,
        shot(
            facts(None),
            full([], None, ALL, option="A"),
            "Push-out 4: A's option.",
            push_out=True,
        ),
        shot(
            facts(1, pocketed=[(1, "foot_right")]),
            full([], "A", without(ALL, 1), ends=False, remain=[1]),
            "A plays without stating a choice: playing the table as it lies is accepting it (Push-out 4a); the called 1 made -> A continues.",
            call=(1, "foot_right"),
        ),
    ),
    scenario(
        "AX-PO-05",
        ["Push-out 1c", "Fautes 6"],
        AFTER_DRY_BREAK,
        shot(
            facts(None, pocketed=[(10, "foot_left")]),
            full(["F6"], "A", ALL, spot=[10], counts=(0, 1)),
            "Push-out 1c: all other rules apply: a ball touched is a foul (Fautes 6): no option, A ball in hand; Push-out 2 / Déroulement 1c: the 10 is spotted.",
            push_out=True,
            referee_fouls=["ball_touched"],
        ),
    ),
]

PLAY = [
    scenario(
        "AX-CS-01",
        ["Déroulement 3", "I-08", "I-29"],
        state(),
        shot(
            facts(3, pocketed=[(3, "foot_right")]),
            full([], None, without(MID, 3), remain=[3], option="B"),
            "I-08: the called ball made in another pocket is 'not announced'; it is the lowest -> Déroulement 3, B's option (the 3 stays down, Déroulement 1c).",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AX-CS-02",
        ["Déroulement 4", "Déroulement 1c", "I-06"],
        state(),
        shot(
            facts(3, cushions=[3], pocketed=[(10, "side_left")]),
            full([], "B", MID, spot=[10]),
            "The called 5 was missed and only the uncalled 10 dropped: not legally pocketed (I-06) -> spotted (Déroulement 1c); no ball legally pocketed -> Déroulement 4, B plays from position (the 3 did not drop: no option).",
            call=(5, "foot_left"),
        ),
    ),
    scenario(
        "AX-CS-03",
        ["Déroulement 5", "Déroulement 2", "G1"],
        state(),
        shot(
            facts(3, pocketed=[(3, "side_right"), (10, "foot_left")]),
            full([], None, None, remain=[3, 10], winner="A"),
            "G1/Déroulement 5: the 10 pocketed by any legal shot wins; called in the foot-left and made there on a foul-free shot (I-06); the extra 3 needs no call (Déroulement 2).",
            call=(10, "foot_left"),
        ),
    ),
    scenario(
        "AX-CS-04",
        ["Fautes (intro)", "Déroulement 1b"],
        state(turn="B", cue_ball="in_hand_anywhere", fouls=(1, 0)),
        shot(
            facts(3, pocketed=[(3, "head_left")]),
            full([], "B", without(MID, 3), ends=False, remain=[3], counts=(1, 0)),
            "B, with ball in hand after A's foul, makes the called 3 -> continues from position; A's count is untouched by B's shots (I-19).",
            call=(3, "head_left"),
        ),
    ),
    scenario(
        "AX-CS-05",
        ["Déroulement 3", "Déroulement 4", "I-19"],
        state(),
        shot(
            facts(3, pocketed=[(3, "foot_left")]),
            full([], None, without(MID, 3), remain=[3], option="B"),
            "Déroulement 3: the lowest ball made without a call -> B's option.",
        ),
        choice(
            "B",
            "shoot",
            {
                "next_shooter": "B",
                "cue_ball_next": "in_position",
                "option": None,
                "push_out_available_next": False,
            },
            "Déroulement 3: B plays the next shot.",
        ),
        shot(
            facts(4, cushions=[4, "cue"]),
            full([], "A", without(MID, 3)),
            "Déroulement 4: a legal miss -> A plays from position.",
            call=(4, "side_left"),
        ),
    ),
    scenario(
        "AX-CS-06",
        ["Déroulement 4", "I-10"],
        state(),
        shot(
            facts(3, cushions=[3], pocketed=[(6, "side_left"), (8, "foot_right")]),
            full([], "B", without(MID, 6, 8), remain=[6, 8]),
            "I-10 (default, FFB-literal): uncalled non-lowest balls pocketed while the called 3 was missed: they stay down, the inning ends, B must play, no option.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AX-CS-07",
        ["Déroulement 2", "I-28"],
        state(),
        {
            "type": "shot",
            "declarations": {
                "call": [
                    {"ball": 3, "pocket": "side_left", "source": "announced"},
                    {"ball": 3, "pocket": "foot_left", "source": "announced"},
                ],
                "push_out": False,
            },
            "shot": facts(3, pocketed=[(3, "foot_left")]),
            "referee_fouls": [],
            "expected": full([], "A", without(MID, 3), ends=False, remain=[3]),
            "why": "I-28: of a changed call, the last one before the stroke counts: the 3 in the foot-left, made -> A continues.",
        },
    ),
]

FOULS = [
    scenario(
        "AX-F-01",
        ["Fautes (avertissement)", "I-24"],
        state(fouls=(1, 0), warned=(True, False)),
        shot(
            facts(4, cushions=[4]),
            full(["F2"], "B", MID, counts=(2, 0), due="A"),
            "Fautes (avertissement): 'Après la deuxième faute consécutive, l'adversaire ou un arbitre doit avertir le joueur fautif' — a warning recorded while A was on one foul is not that warning; after this second foul the warning is due, and A is not warned.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AX-F-02",
        ["Fautes 5"],
        state(),
        shot(
            facts(3, cushions=[3], off_table=[{"ball": 6}]),
            full(["F5"], "B", without(MID, 6), counts=(1, 0)),
            "Fautes 5: the 6 left the table (reported as an object with its ball): a foul, not returned.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AX-F-03",
        ["Fautes 3", "I-14"],
        state(),
        shot(
            facts(
                3,
                cushions=[3],
                frozen_to_rail_at_start=[3],
                frozen_ball_touching_its_rail_without_leaving=[3],
            ),
            full(["F3"], "B", MID, counts=(1, 0)),
            "I-14: a ball frozen to its rail that never left it is not driven to a cushion, even if a camera lists it -> no ball reached a cushion (Fautes 3).",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AX-F-04",
        ["Fautes 6", "I-16"],
        state(turn="B", cue_ball="in_hand_anywhere", fouls=(1, 0)),
        shot(
            None,
            full(["F6"], "A", MID, counts=(1, 1)),
            "I-16: the cue ball in hand touching an object ball while B places it is Fautes 6 -> A ball in hand; one foul for B, A's one stays.",
            referee_fouls=["ball_touched"],
        ),
    ),
    scenario(
        "AX-F-05",
        ["Fautes 10", "I-26"],
        state(),
        shot(
            facts(3, pocketed=[(3, "foot_left")]),
            full(["F6"], "B", without(MID, 3), remain=[3], counts=(1, 0)),
            "I-26: 'moving the cue ball when not in hand is F6': with the cue ball in position, a cue ball (re)placed by the player is a ball touched by something other than the tip (Fautes 6), not Fautes 10 -> B ball in hand; the 3 stays down (Déroulement 1c).",
            call=(3, "foot_left"),
            referee_fouls=["bad_cue_ball_placement"],
        ),
    ),
    scenario(
        "AX-F-06",
        ["Fautes 12", "I-30", "Fautes (avertissement)"],
        state(fouls=(0, 1)),
        shot(
            facts(3, cushions=[3]),
            full(["F12"], "A", MID, counts=(0, 2), due="B"),
            "I-30: B played during A's inning: the foul is B's and counts toward his three (now two: warning due); A, whose turn it was, gets ball in hand.",
            player="B",
        ),
    ),
    scenario(
        "AX-F-07",
        ["Fautes 1", "I-15"],
        state(),
        shot(
            facts(3, cushions=[3], cue_ball_off_table=True, returned_to_bed_after_rail_top=["cue"]),
            full([], "B", MID),
            "I-15: a ball that rides the rail top and falls back onto the bed is not off the table -> no Fautes 1; legal miss, B from position.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AX-F-08",
        ["I-20", "Déroulement 1b"],
        state(),
        shot(
            facts(3, late_drops=[{"ball": 3, "pocket": "foot_left", "seconds_after_stop": 3.0}]),
            full([], "A", without(MID, 3), ends=False, remain=[3]),
            "I-20: a ball dropping within 5 s of all balls stopping is pocketed on that shot -> the called 3 made, A continues.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AX-F-09",
        ["I-20", "Déroulement 4"],
        state(),
        shot(
            facts(
                3,
                cushions=[3],
                pocketed=[(3, "foot_left")],
                late_drops=[{"ball": 3, "pocket": "foot_left", "t_after_rest": 8.0}],
            ),
            full([], "B", MID),
            "I-20: a drop more than 5 s after the balls stopped is not pocketed (put back at the lip) -> legal miss, B from position.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AX-F-10",
        ["Fautes 7", "Fautes 9"],
        state(),
        shot(
            facts(3, pocketed=[(3, "foot_left")]),
            full(["F7", "F9"], "B", without(MID, 3), remain=[3], counts=(1, 0)),
            "Referee fouls given by their codes; Fautes 7 and 9 on one shot: one penalty (I-18); the 3 stays down (Déroulement 1c).",
            call=(3, "foot_left"),
            referee_fouls=["F9", "F7"],
        ),
    ),
    scenario(
        "AX-F-11",
        ["Déroulement 1c", "Fautes 2"],
        state(),
        shot(
            facts(10, pocketed=[(10, "foot_left")]),
            full(["F2"], "B", MID, spot=[10], counts=(1, 0)),
            "Fautes 2: the called 10 was hit before the lowest 3 -> foul; Déroulement 1c: the 10 pocketed on an illegal shot is spotted; no win.",
            call=(10, "foot_left"),
        ),
    ),
]

THREE_FOULS = [
    scenario(
        "AX-TF-01",
        ["Fautes (3 fautes)", "Fautes (avertissement)", "I-19"],
        state(),
        shot(
            facts(5, cushions=[5]),
            full(["F2"], "B", MID, counts=(1, 0)),
            "First foul of A.",
            call=(3, "foot_left"),
        ),
        shot(
            facts(3, cushions=[3]),
            full([], "A", MID, counts=(1, 0)),
            "B's legal miss does not break A's chain (I-19).",
            call=(3, "side_left"),
        ),
        shot(
            facts(3),
            full(["F3"], "B", MID, counts=(2, 0), due="A"),
            "Second consecutive foul of A: the warning is due.",
            call=(3, "foot_left"),
        ),
        warning(
            "A",
            {
                "warned": {"A": True, "B": False},
                "warning_due": None,
                "consecutive_fouls": {"A": 2, "B": 0},
            },
            "Fautes (avertissement): B warns A.",
        ),
        shot(
            facts(3, cushions=[3]),
            full([], "A", MID, counts=(2, 0), warned=(True, False)),
            "B misses legally; A is still on two, warned.",
            call=(3, "side_left"),
        ),
        shot(
            facts(3, pocketed=[(3, "foot_left")]),
            full([], "A", without(MID, 3), ends=False, remain=[3]),
            "I-19: a foul-free shot resets A's count and clears the warning.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AX-TF-02",
        ["Déroulement 3", "I-19"],
        state(fouls=(2, 0), warned=(True, False)),
        shot(
            facts(3, pocketed=[(3, "foot_left")]),
            full([], None, without(MID, 3), remain=[3], option="B"),
            "I-19: a D3 shot is a shot without a foul: A's count resets and the warning clears; B's option (Déroulement 3).",
        ),
    ),
    scenario(
        "AX-TF-03",
        ["Fautes (3 fautes)", "I-23", "Casse 1"],
        state(fouls=(2, 0), warned=(True, False)),
        shot(
            facts(3, cue_ball_pocketed=True, pocketed=[(3, "foot_left")]),
            full(["F1"], None, None, remain=[3], winner="B"),
            "Third consecutive foul after the warning -> A loses the rack (Fautes, 3 fautes).",
            call=(3, "foot_left"),
        ),
        shot(
            facts(1, pocketed=[(2, "foot_left")], object_balls_to_cushion_on_break=5),
            full([], "B", without(ALL, 2), ends=False, remain=[2], push_out=True),
            "I-23 (alternate): A broke the lost rack, so B breaks the next one; the counts started again at zero; legal break with the 2 down -> B continues and may push out.",
        ),
    ),
    scenario(
        "AX-TF-04",
        ["Fautes (avertissement a-c)", "Fautes (3 fautes)"],
        state(fouls=(2, 0)),
        shot(
            facts(4, cushions=[4]),
            full(["F2"], "B", MID, counts=(2, 0), due="A"),
            "Avertissement a-c: not warned -> not a third foul, no loss, the count stays at two; the warning is still due (I-24).",
            call=(3, "foot_left"),
        ),
        shot(
            facts(3, cushions=[3]),
            full([], "A", MID, counts=(2, 0), due="A"),
            "B misses legally; A's warning is still due.",
            call=(3, "foot_left"),
        ),
        warning(
            "A",
            {"warned": {"A": True, "B": False}, "warning_due": None},
            "The referee warns A before his next shot (I-24).",
        ),
        shot(
            None,
            full(["F13"], None, None, winner="B"),
            "Warned, on two: a slow-play foul is the third -> B wins the rack.",
            referee_fouls=["slow_play"],
        ),
    ),
    scenario(
        "AX-TF-05",
        ["Fautes (3 fautes)", "Déroulement 3", "I-19"],
        state(turn="B", fouls=(2, 0), warned=(True, False)),
        shot(
            facts(3, pocketed=[(3, "side_left")]),
            full(
                [],
                None,
                without(MID, 3),
                remain=[3],
                option="A",
                counts=(2, 0),
                warned=(True, False),
            ),
            "Déroulement 3: B made the lowest without a call -> A's option; A's chain and warning stay (I-19: the opponent's shots do not break it).",
        ),
        choice(
            "A",
            "hand_back",
            {
                "next_shooter": "B",
                "cue_ball_next": "in_position",
                "option": None,
                "consecutive_fouls": {"A": 2, "B": 0},
                "warned": {"A": True, "B": False},
            },
            "Déroulement 3: A gives the table back; an option is not a shot of A's (I-19).",
        ),
        shot(
            facts(5, cushions=[5]),
            full(["F2"], "A", without(MID, 3), counts=(2, 1), warned=(True, False)),
            "B hits the 5 before the lowest 4: foul, A ball in hand.",
            call=(4, "foot_left"),
        ),
        shot(
            facts(4, cue_ball_pocketed=True),
            full(["F1"], None, None, winner="B"),
            "A's third consecutive foul after the warning -> B wins the rack (Fautes, 3 fautes).",
            call=(4, "foot_left"),
        ),
    ),
]

RACKS = [
    scenario(
        "AX-RK-01",
        ["Mise en place 1", "Mise en place 3"],
        BREAK_STATE,
        {
            "type": "rack_check",
            "rack": {
                "apex_ball": 10,
                "apex_on_foot_spot": True,
                "rows_parallel_to_foot_rail": True,
                "ball_in_middle_of_three_row": 1,
            },
            "expected": {"rack_valid": False},
            "why": "Mise en place 1 and 3: the 1 at the apex and the 10 in the middle of the three-ball row; swapped -> illegal rack.",
        },
    ),
    scenario(
        "AX-WIN-01",
        ["Déroulement 5", "Fautes 6"],
        state([5, 10]),
        shot(
            facts(5, pocketed=[(10, "side_left")]),
            full(["F6"], "B", [5, 10], spot=[10], counts=(1, 0)),
            "Déroulement 5: only a legal pocket of the 10 wins; a ball touched (Fautes 6) makes the shot illegal -> the 10 is spotted (Déroulement 1c), B ball in hand.",
            call=(10, "side_left"),
            referee_fouls=["ball_touched"],
        ),
    ),
    scenario(
        "AX-WIN-02",
        ["Déroulement 5", "I-23"],
        state([10], turn="B", cue_ball="in_hand_anywhere", fouls=(1, 0), breaker="A"),
        shot(
            facts(10, pocketed=[(10, "head_right")]),
            full([], None, None, remain=[10], winner="B"),
            "B, with ball in hand, makes the called 10 -> wins the rack (Déroulement 5); every count resets.",
            call=(10, "head_right"),
        ),
        shot(
            facts(1, object_balls_to_cushion_on_break=5),
            full([], "A", ALL, push_out=True),
            "I-23: breaks alternate: A broke the last rack, B breaks now; legal dry break -> A may push out.",
            player="B",
        ),
    ),
]

FORMAT = [
    scenario(
        "AX-FMT-01",
        ["format"],
        state(),
        {
            "type": "shot",
            "shot": {"first_object_ball_contacted": 3, "cushion_after_first_contact": [3]},
            "expected": full([], "B", MID),
            "why": "No declarations, no referee_fouls, optional facts absent: a legal miss (Déroulement 4).",
        },
    ),
    scenario(
        "AX-FMT-02",
        ["format", "Casse 1"],
        {},
        shot(
            facts(1, pocketed=[(3, "foot_left")], object_balls_to_cushion_on_break=4),
            full([], "A", without(ALL, 3), ends=False, remain=[3], push_out=True),
            "An empty initial_state is a fresh rack with A to break (rules.md §3 defaults).",
        ),
    ),
    scenario(
        "AX-FMT-03",
        ["format", "Déroulement 1b"],
        state(),
        {
            "type": "shot",
            "declarations": {
                "call": {"ball": 3, "pocket": "foot-left"},
                "push_out": False,
                "note": "x",
            },
            "shot": facts(3, pocketed=[{"ball": 3, "pocket": "Foot_Left", "frame": 812}]),
            "referee_fouls": [],
            "comment": "unknown keys are ignored",
            "expected": full([], "A", without(MID, 3), ends=False, remain=[3]),
            "why": "Pocket names in another case or with a hyphen name the same pocket; unknown keys are ignored: the called 3 made, A continues.",
        },
    ),
    scenario(
        "AX-FMT-04",
        ["format", "Fautes 2"],
        state(),
        {
            "type": "shot",
            "declarations": {"call": None, "push_out": False},
            "shot": facts(5, cushions=[{"ball": 5}]),
            "referee_fouls": [{"foul": "ball_touched"}],
            "expected": full(["F2", "F6"], "B", MID, counts=(1, 0)),
            "why": "Cushion entries and referee fouls written as objects name the same balls and fouls; wrong ball first (Fautes 2) and a ball touched (Fautes 6): one penalty.",
        },
    ),
]

AUDIT_CASES = BREAK + PUSH_OUT + PLAY + FOULS + THREE_FOULS + RACKS + FORMAT

FORMAT += [
    scenario(
        "AX-FMT-05",
        ["format", "Déroulement 3"],
        state(),
        shot(
            facts(3, pocketed=[(3, "foot_left")]),
            full([], None, without(MID, 3), remain=[3], option="B"),
            "Déroulement 3: B's option.",
        ),
        {
            "type": "option_choice",
            "player": "b",
            "choice": "Hand back",
            "expected": {"next_shooter": "A", "cue_ball_next": "in_position", "option": None},
            "why": "Déroulement 3 ('redonner la main au joueur précédent'), written in words and a lower-case player: A must shoot.",
        },
        {
            "type": "shot",
            "player": "a",
            "declarations": {"call": {"ball": 4, "pocket": "side_right"}},
            "shot": facts(4, cushions=[4]),
            "expected": full([], "B", without(MID, 3)),
            "why": "The player written in lower case is still A, in turn: a legal miss, B from position (Déroulement 4).",
        },
    ),
]
AUDIT_CASES = BREAK + PUSH_OUT + PLAY + FOULS + THREE_FOULS + RACKS + FORMAT

FORMAT += [
    scenario(
        "AX-FMT-06",
        ["format", "Fautes (avertissement)"],
        state(turn="B", cue_ball="in_hand_anywhere", fouls=(2, 0)),
        {
            "type": "warning",
            "player": "B",
            "expected": {"warned": {"A": True, "B": False}, "warning_due": None},
            "why": "Fautes (avertissement): 'l'adversaire ou un arbitre doit avertir le joueur fautif': the step names B, who is on no foul while A's warning is due: B is the one warning, A is warned.",
        },
        {
            "type": "warning",
            "by": "referee",
            "target": "A",
            "expected": {"warned": {"A": True, "B": False}, "warning_due": None},
            "why": "A warning already given changes nothing (the target written as 'target').",
        },
    ),
    scenario(
        "AX-FMT-07",
        ["format", "Push-out 4"],
        AFTER_DRY_BREAK,
        {
            "declarations": {"call": None, "push_out": True},
            "shot": facts(None),
            "expected": full([], None, ALL, option="A"),
            "why": "A step without a type but with a shot's keys is a shot: a legal push-out, A's option (Push-out 4).",
        },
        {
            "type": "option",
            "player": "A",
            "choice": "shoot",
            "expected": {
                "next_shooter": "A",
                "cue_ball_next": "in_position",
                "option": None,
                "push_out_available_next": False,
            },
            "why": "Push-out 4a, with the step type written 'option'.",
        },
    ),
]
AUDIT_CASES = BREAK + PUSH_OUT + PLAY + FOULS + THREE_FOULS + RACKS + FORMAT

PLAY += [
    scenario(
        "AX-CS-08",
        ["Déroulement 2", "Déroulement 3"],
        state(),
        shot(
            facts(3, cushions=[3], pocketed=[(3, "side_left")]),
            full([], None, without(MID, 3), remain=[3], option="B"),
            "Déroulement 2: the player names 'la bille jouée et la poche choisie si elles ne sont pas évidentes'; the 3 was announced without a pocket on a bank (not confirmed obvious): no valid call ('pour qu'un coup annoncé soit valable...'), so the lowest went down unannounced -> Déroulement 3, B's option.",
            call=(3, None),  # type: ignore[arg-type]
        ),
    ),
]
BREAK += [
    scenario(
        "AX-BRK-12",
        ["Casse 4", "I-05"],
        BREAK_STATE,
        shot(
            facts(
                1,
                pocketed=[(10, "side_left"), (6, "foot_right")],
                object_balls_to_cushion_on_break=4,
            ),
            full([], None, None, remain=[6, 10], winner="A"),
            "I-05: the breaker may announce '10' with no pocket; a call of the 10 without a pocket before the break is that announcement -> the 10 on a legal break wins (Casse 4).",
            call=(10, None),  # type: ignore[arg-type]
        ),
    ),
]
AUDIT_CASES = BREAK + PUSH_OUT + PLAY + FOULS + THREE_FOULS + RACKS + FORMAT

FORMAT += [
    scenario(
        "AX-FMT-08",
        ["format", "Fautes 1", "Fautes 13"],
        state(),
        {
            "type": "shot",
            "declarations": {"call": {"ball": 3, "pocket": "foot_left"}},
            "shot": {
                "first_object_ball_contacted": 3,
                "pocketed": {"3": "foot_left", "cue": "side_left"},
            },
            "referee_fouls": "slow_play",
            "expected": full(["F1", "F13"], "B", without(MID, 3), remain=[3], counts=(1, 0)),
            "why": "`pocketed` written ball -> pocket, the cue ball among them (Fautes 1), and a lone referee foul (Fautes 13): one penalty (I-18); the 3 stays down (Déroulement 1c).",
        },
    ),
    scenario(
        "AX-FMT-09",
        ["format", "Fautes 5"],
        state(),
        {
            "type": "shot",
            "declarations": {"call": {"ball": 3, "pocket": "foot_left"}},
            "shot": {
                "first_object_ball_contacted": 3,
                "cushion_after_first_contact": "cue",
                "off_table": 6,
            },
            "expected": full(["F5"], "B", without(MID, 6), counts=(1, 0)),
            "why": "A lone ball where a list is expected is a list of one: the 6 off the table (Fautes 5, not returned).",
        },
    ),
]
AUDIT_CASES = BREAK + PUSH_OUT + PLAY + FOULS + THREE_FOULS + RACKS + FORMAT

FOULS += [
    scenario(
        "AX-F-12",
        ["Fautes 7", "I-17", "Déroulement 1b"],
        state(),
        shot(
            facts(None, pocketed=[(3, "foot_left")], cue_ball_frozen_to=3),
            full([], "A", without(MID, 3), ends=False, remain=[3]),
            "I-17: shooting into a frozen legal ball is legal and counts as contact (no double contact by itself, Fautes 7): the camera saw no meeting of the touching balls, but the 3 the cue ball was frozen to dropped, so it was hit first; the called 3 made -> A continues.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AX-F-13",
        ["Fautes 2", "I-17"],
        state(),
        shot(
            facts(5, cushions=[5], cue_ball_frozen_to=[3]),
            full(["F2"], "B", MID, counts=(1, 0)),
            "I-17: shooting away from the frozen 3, the 3 is not contacted; the 5 hit first -> Fautes 2.",
            call=(5, "side_left"),
        ),
    ),
]
AUDIT_CASES = BREAK + PUSH_OUT + PLAY + FOULS + THREE_FOULS + RACKS + FORMAT

PLAY += [
    scenario(
        "AX-CS-09",
        ["Déroulement 2", "I-29", "Déroulement 1b"],
        state(),
        {
            "type": "shot",
            "declarations": {"call": {"ball": 3, "pocket": "side_left", "source": "voice"}},
            "shot": facts(3, pocketed=[(3, "side_left")]),
            "expected": full([], "A", without(MID, 3), ends=False, remain=[3]),
            "why": "I-29: an explicit call (voice/tablet) is an announcement: the called 3 in the called pocket -> A continues (Déroulement 1b).",
        },
    ),
    scenario(
        "AX-CS-10",
        ["Déroulement 2", "Déroulement 3"],
        state(),
        {
            "type": "shot",
            "declarations": {"call": 3},
            "shot": facts(3, pocketed=[(3, "foot_right")]),
            "expected": full([], None, without(MID, 3), remain=[3], option="B"),
            "why": "Déroulement 2: a ball named without its pocket (not confirmed obvious) is no valid call; the lowest dropped unannounced -> Déroulement 3, B's option.",
        },
    ),
]
AUDIT_CASES = BREAK + PUSH_OUT + PLAY + FOULS + THREE_FOULS + RACKS + FORMAT

RACKS += [
    scenario(
        "AX-RK-02",
        ["Mise en place 1-4"],
        BREAK_STATE,
        {
            "type": "rack_check",
            "apex_ball": "1",
            "apex_on_foot_spot": True,
            "rows_parallel_to_foot_rail": True,
            "ball_in_middle_of_three_row": "10",
            "back_row_corners": [9, 5],
            "expected": {"rack_valid": True},
            "why": "Mise en place 1-4, with the rack's items on the step itself and balls written as strings: the 1 at the apex on the foot spot, the 10 in the middle of the three-row, the rest at random (S4) -> valid.",
        },
    ),
]
AUDIT_CASES = BREAK + PUSH_OUT + PLAY + FOULS + THREE_FOULS + RACKS + FORMAT
