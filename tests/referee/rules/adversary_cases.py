# ruff: noqa: E501  (the `why` texts are sentences; they read better unbroken)
"""A third adversarial audit: combinations the hidden scenarios of the same specification are
likely to hold, written from rules.md and the FFB text before the engine was run.

Every shot step pins every rules.md §5 field (`full` of audit_cases.py). The cases combine
rules the earlier audits took one at a time: a push-out followed by a foul, the three-foul
chain across racks, an option and a ball in hand, calls on combinations, banks and kicks, the
10 on the break with a foul, balls off the table on the break, the second rack's breaker, a
stalemate, a concession, and the spellings a camera or a tablet may use.
"""

from __future__ import annotations

from typing import Any

from tests.referee.rules.audit_cases import AFTER_DRY_BREAK, MID, full, without
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

OPTION_TAKEN = {"next_shooter": "A", "cue_ball_next": "in_position", "option": None}
AFTER_BREAK_FOUL = state(ALL, turn="B", cue_ball="in_hand_anywhere", fouls=(1, 0))


def out_of_turn(
    player: str, shot_facts: dict[str, Any], expected: dict[str, Any], why: str, **extra: Any
) -> dict[str, Any]:
    """A shot step played by `player` (rules.md conventions: 'player' = who actually played)."""
    step = shot(shot_facts, expected, why, **extra)
    step["player"] = player
    return step


PUSH_OUT = [
    scenario(
        "AV-PO-01",
        ["Push-out 4a", "Fautes 2"],
        AFTER_DRY_BREAK,
        shot(
            facts(None),
            full([], None, ALL, option="A"),
            "Push-out 1a/1b, 4: B's legal push-out touching nothing; A's option.",
            push_out=True,
        ),
        choice(
            "A",
            "shoot",
            {**OPTION_TAKEN, "push_out_available_next": False},
            "Push-out 4a: A accepts the table; no push-out for him (Push-out 1: only the first shot after the break).",
        ),
        shot(
            facts(5, cushions=[5]),
            full(["F2"], "B", ALL, counts=(1, 0)),
            "Push-out then a foul: A's shot is a normal one (Déroulement 1a); he hits the 5 before the lowest 1 -> Fautes 2, B ball in hand anywhere (Fautes intro), A's first foul.",
            call=(1, "foot_left"),
        ),
    ),
    scenario(
        "AV-PO-02",
        ["Push-out 4b", "Fautes 1"],
        AFTER_DRY_BREAK,
        shot(
            facts(None), full([], None, ALL, option="A"), "Push-out 4: A's option.", push_out=True
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
            "Push-out 4b: B must come back and play, from position.",
        ),
        shot(
            facts(1, cushions=[1], cue_ball_pocketed=True),
            full(["F1"], "A", ALL, counts=(0, 1)),
            "B's shot after the hand-back is a normal shot: the cue ball drops -> Fautes 1; A ball in hand anywhere; B's first foul (his push-out was foul-free).",
            call=(1, "foot_left"),
        ),
    ),
    scenario(
        "AV-PO-03",
        ["Push-out 5", "I-12", "Fautes 2", "I-09"],
        AFTER_BREAK_FOUL,
        shot(
            facts(None),
            full(["F2"], "A", ALL, counts=(1, 1)),
            "Push-out 5: no push-out with ball in hand after the break (A fouled the break); I-12: the stroke is judged as a normal shot; touching no ball is Fautes 2 (I-09). A ball in hand; both players on one foul.",
            push_out=True,
        ),
    ),
    scenario(
        "AV-PO-04",
        ["Push-out 2", "Push-out 4", "Déroulement 5"],
        AFTER_DRY_BREAK,
        shot(
            facts(1, pocketed=[(10, "foot_left")]),
            full([], None, ALL, spot=[10], option="A"),
            "Push-out 2: a 10 pocketed on a push-out is spotted even when the player named it: a push-out is no attempt to win (D5 needs a legal shot of the called 10; Push-out 1c). A's option (Push-out 4).",
            push_out=True,
            call=(10, "foot_left"),
        ),
    ),
    scenario(
        "AV-PO-05",
        ["Push-out 2", "Push-out 4", "Déroulement 3"],
        AFTER_DRY_BREAK,
        shot(
            facts(1, pocketed=[(1, "side_left")]),
            full([], None, without(ALL, 1), remain=[1], option="A"),
            "Push-out 2: the 1 pocketed on the push-out stays down; the option is the push-out's (Push-out 4), not Déroulement 3's (a push-out needs no call).",
            push_out=True,
        ),
        choice(
            "A",
            "shoot",
            {**OPTION_TAKEN, "push_out_available_next": False},
            "Push-out 4a: A plays the table as it lies; the lowest ball is now the 2.",
        ),
    ),
    scenario(
        "AV-PO-06",
        ["Push-out 1c", "Fautes 5", "Déroulement 1c"],
        AFTER_DRY_BREAK,
        shot(
            facts(3, off_table=[10]),
            full(["F5"], "A", ALL, spot=[10], counts=(0, 1)),
            "Push-out 1c: every other rule applies: the 10 driven off the table is Fautes 5 and is spotted (Fautes 5, Déroulement 1c); a foul leaves no option: A ball in hand anywhere.",
            push_out=True,
        ),
    ),
    scenario(
        "AV-PO-07",
        ["Push-out 4a", "Déroulement 3", "I-35"],
        AFTER_DRY_BREAK,
        shot(
            facts(None), full([], None, ALL, option="A"), "Push-out 4: A's option.", push_out=True
        ),
        choice("A", "shoot", {**OPTION_TAKEN, "push_out_available_next": False}, "Push-out 4a."),
        shot(
            facts(1, pocketed=[(1, "foot_left")]),
            full([], None, without(ALL, 1), remain=[1], option="B"),
            "A pockets the lowest 1 without a call -> Déroulement 3: B's option; the 1 stays down (1c).",
            push_out=True,
        ),
        choice(
            "B",
            "hand_back",
            {**OPTION_TAKEN, "push_out_available_next": False},
            "Déroulement 3: B gives the table back; A shoots from position, still no push-out (I-12: A's declared push-out above was refused, judged as a normal shot).",
        ),
    ),
]

BREAK = [
    scenario(
        "AV-BRK-01",
        ["Casse 4", "Fautes 1", "I-04"],
        BREAK_STATE,
        shot(
            facts(
                1,
                pocketed=[(10, "foot_left")],
                cue_ball_pocketed=True,
                object_balls_to_cushion_on_break=5,
            ),
            full(["F1"], "B", ALL, spot=[10], counts=(1, 0)),
            "Casse 4 (second sentence): a foul on the break with the 10 pocketed -> the 10 goes back on the spot; B ball in hand anywhere (Casse 2, Fautes intro), no push-out (Push-out 5).",
        ),
    ),
    scenario(
        "AV-BRK-02",
        ["Casse 1", "I-02", "I-04"],
        BREAK_STATE,
        shot(
            facts(1, pocketed=[(10, "side_right")], object_balls_to_cushion_on_break=2),
            full([], "A", ALL, spot=[10], ends=False, push_out=True),
            "I-02: a pocketed ball meets the four-cushion requirement, the unannounced 10 too; I-04: it is spotted, counts as a pocketed ball, so A continues (Casse 1) and may push out (Push-out 1).",
        ),
    ),
    scenario(
        "AV-BRK-03",
        ["Casse 3", "Fautes 5", "I-01"],
        BREAK_STATE,
        shot(
            facts(
                1, pocketed=[(5, "foot_left")], off_table=[3, 7], object_balls_to_cushion_on_break=6
            ),
            full(["F5"], "B", without(ALL, 3, 5, 7), remain=[5], counts=(1, 0)),
            "Casse 3: the 3 and the 7 driven off on the break are not returned; I-01: it is a foul (Fautes 5, one foul for both balls, I-18); the 5 stays down; B ball in hand anywhere.",
        ),
    ),
    scenario(
        "AV-BRK-04",
        ["Casse 1", "Fautes 1"],
        BREAK_STATE,
        shot(
            facts(
                1,
                pocketed=[(5, "foot_left")],
                cue_ball_off_table=True,
                object_balls_to_cushion_on_break=6,
            ),
            full(["F1"], "B", without(ALL, 5), remain=[5], counts=(1, 0)),
            "Fautes 1: the cue ball driven off the table on the break; the 5 stays down; the breaker's inning ends on a foul (Casse 1); B ball in hand.",
        ),
    ),
    scenario(
        "AV-BRK-05",
        ["Casse 3", "Casse 4", "Fautes 5"],
        BREAK_STATE,
        shot(
            facts(
                1, off_table=[10], pocketed=[(3, "side_left")], object_balls_to_cushion_on_break=5
            ),
            full(["F5"], "B", without(ALL, 3), spot=[10], remain=[3], counts=(1, 0)),
            "Casse 3: the 10 driven off the table goes on the foot spot; the announcement does not matter (not pocketed, and a foul: Fautes 5, I-01); the 3 stays down.",
            break_announce_10=True,
        ),
    ),
    scenario(
        "AV-BRK-06",
        ["Casse 1", "Fautes 2", "I-02", "I-09"],
        BREAK_STATE,
        shot(
            facts(None, object_balls_to_cushion_on_break=0),
            full(["CASSE1_FIRST_CONTACT", "CASSE1_FOUR_CUSHIONS", "F2"], "B", ALL, counts=(1, 0)),
            "A break that touches nothing: the cue ball did not meet the 1 first (Casse 1; Fautes 2 with I-09), no object ball to a cushion and none pocketed (Casse 1, I-02): every foul reported, one penalty (I-18).",
        ),
    ),
    scenario(
        "AV-BRK-07",
        ["Casse 1", "Casse 2", "Push-out 5", "I-25"],
        BREAK_STATE,
        shot(
            facts(1, object_balls_to_cushion_on_break=3),
            full(["CASSE1_FOUR_CUSHIONS"], "B", ALL, counts=(1, 0)),
            "Casse 1: only three balls to a cushion and nothing pocketed: illegal break, a foul; Casse 2: B ball in hand (anywhere, I-25), no option to re-rack or to make A break again (the FFB text has none).",
        ),
        shot(
            facts(1, pocketed=[(1, "foot_left")]),
            full([], "B", without(ALL, 1), ends=False, remain=[1], counts=(1, 0)),
            "Push-out 5: no push-out with ball in hand after the break: B's declaration is refused (I-12) and the stroke is a normal shot; the called 1 made -> B continues (Déroulement 1b).",
            call=(1, "foot_left"),
            push_out=True,
        ),
    ),
    scenario(
        "AV-BRK-08",
        ["Casse 1", "Push-out 1"],
        BREAK_STATE,
        shot(
            facts(1, pocketed=[(4, "foot_left")], object_balls_to_cushion_on_break=5),
            full([], "A", without(ALL, 4), ends=False, remain=[4], push_out=True),
            "Casse 1: a ball pocketed on a legal break, A continues and may push out.",
        ),
        shot(
            facts(1, cushions=[1]),
            full([], "B", without(ALL, 4)),
            "A plays a normal shot and misses legally: his inning ends (Déroulement 4); the push-out chance was his first shot after the break and is gone for B (Push-out 1).",
            call=(1, "foot_left"),
        ),
    ),
    scenario(
        "AV-BRK-09",
        ["Casse 4", "I-05", "I-07"],
        BREAK_STATE,
        shot(
            facts(
                2,
                simultaneous_first_contact=[1, 2],
                pocketed=[(10, "foot_left")],
                object_balls_to_cushion_on_break=4,
            ),
            full([], None, None, remain=[10], winner="A"),
            "I-07: the 1 and the 2 hit at once is resolved for the shooter, so the break is legal (Casse 1); the 10 announced for the foot-left pocket dropped there (I-05) -> A wins the rack (Casse 4).",
            break_announce_10=True,
            break_announce_10_pocket="foot_left",
        ),
    ),
]

CALLS = [
    scenario(
        "AV-CS-01",
        ["Déroulement 2", "Déroulement 1b", "I-11"],
        state(),
        shot(
            facts(3, pocketed=[(6, "foot_right"), (3, "side_left")]),
            full([], "A", without(MID, 3, 6), ends=False, remain=[3, 6]),
            "Déroulement 2: a combination is called ball and pocket: the 6 in the foot-right pocket off the lowest 3, made; the 3 also dropped, which needs no call (I-11) -> A continues, both stay down.",
            call=(6, "foot_right"),
        ),
    ),
    scenario(
        "AV-CS-02",
        ["Déroulement 2", "Déroulement 3", "I-08"],
        state(),
        shot(
            facts(3, cushions=[3], pocketed=[(3, "foot_left")]),
            full([], None, without(MID, 3), remain=[3], option="B"),
            "Déroulement 2: a bank must be called; the 3 called in the side-left pocket went in the foot-left: I-08, the lowest ball in another pocket is not announced -> Déroulement 3, B's option; the 3 stays down.",
            call=(3, "side_left"),
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
            "Déroulement 3: B plays the next shot from position.",
        ),
        shot(
            facts(4, pocketed=[(4, "side_right")]),
            full([], "B", without(MID, 3, 4), ends=False, remain=[4]),
            "The called 4 made -> B continues (Déroulement 1b).",
            call=(4, "side_right"),
        ),
    ),
    scenario(
        "AV-CS-03",
        ["Déroulement 1a", "Déroulement 2", "I-03"],
        state(),
        shot(
            facts(3, pocketed=[(3, "foot_left")], cue_ball_cushion_before_first_contact=True),
            full([], "A", without(MID, 3), ends=False, remain=[3]),
            "A kick: the cue ball meets a cushion before the lowest 3, which is legal in play (Casse 1 only binds the break); the called 3 dropped in the called pocket (the pocketed ball counts as reaching a cushion, I-03) -> A continues.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AV-CS-04",
        ["I-06", "I-10", "Déroulement 4"],
        state(),
        shot(
            facts(3, cushions=[3], pocketed=[(10, "side_left")]),
            full([], "B", MID, spot=[10]),
            "I-06: the 10 called in the foot-left pocket dropped in the side-left: not legally pocketed, spotted (Déroulement 1c); nothing else dropped: the inning ends, B plays from position (Déroulement 4, I-10 no option).",
            call=(10, "foot_left"),
        ),
    ),
    scenario(
        "AV-CS-05",
        ["Déroulement 5", "I-11", "G1"],
        state(),
        shot(
            facts(3, pocketed=[(3, "side_left"), (10, "foot_right")]),
            full([], None, None, remain=[3, 10], winner="A"),
            "G1/D5: the 10 called in the foot-right pocket made on a legal combination off the lowest 3 wins at any time; the 3 dropping uncalled does not matter once the called ball was made (I-11).",
            call=(10, "foot_right"),
        ),
    ),
    scenario(
        "AV-CS-06",
        ["I-28", "Déroulement 1b"],
        state(),
        {
            "type": "shot",
            "declarations": {
                "call": [{"ball": 5, "pocket": "side_left"}, {"ball": 3, "pocket": "foot_left"}],
                "push_out": False,
            },
            "shot": facts(3, pocketed=[(3, "foot_left")]),
            "referee_fouls": [],
            "expected": full([], "A", without(MID, 3), ends=False, remain=[3]),
            "why": "I-28: one ball and one pocket per shot, the last call before the stroke counts: the 3 in the foot-left pocket, made -> A continues.",
        },
    ),
    scenario(
        "AV-CS-07",
        ["I-28", "Déroulement 3"],
        state(),
        {
            "type": "shot",
            "declarations": {
                "calls": [{"ball": 3, "pocket": "foot_left"}, {"ball": 3, "pocket": "side_right"}]
            },
            "shot": facts(3, pocketed=[(3, "foot_left")]),
            "referee_fouls": [],
            "expected": full([], None, without(MID, 3), remain=[3], option="B"),
            "why": "I-28 with the calls listed under 'calls': the last one (3 in the side-right pocket) counts; the 3 went in the foot-left -> I-08, Déroulement 3: B's option.",
        },
    ),
    scenario(
        "AV-CS-08",
        ["Déroulement 4", "I-10", "I-13"],
        state(),
        shot(
            facts(3, cushions=[3, "cue"], pocketed=[(8, "side_left")]),
            full([], "B", without(MID, 8), remain=[8]),
            "I-13: a safety needs no call and the seed has no safety device; a ball other than the lowest dropped with no call: I-10, the inning ends with no option (Déroulement 4), the 8 stays down (Déroulement 1c).",
            safety_intended=True,
        ),
    ),
]

WINS = [
    scenario(
        "AV-WIN-01",
        ["Déroulement 5", "I-29"],
        state([4, 10]),
        {
            "type": "shot",
            "declarations": {
                "call": {"ball": 10, "pocket": None, "source": "obvious"},
                "push_out": False,
            },
            "shot": facts(4, pocketed=[(10, "side_left")]),
            "referee_fouls": [],
            "expected": full([], None, None, remain=[10], winner="A"),
            "why": "G1/D5: the 10 pocketed early by any legal shot wins; I-29: the referee confirmed the shot obvious, so no pocket needed naming (D2 'si elles ne sont pas évidentes').",
        },
    ),
    scenario(
        "AV-WIN-02",
        ["Fautes 7", "Déroulement 1c", "Déroulement 5"],
        state(),
        shot(
            facts(3, pocketed=[(10, "foot_left")]),
            full(["F7"], "B", MID, spot=[10], counts=(1, 0)),
            "The called 10 dropped, but the referee saw a double hit (Fautes 7): a foul shot is no legal pocket (D5), the 10 is spotted (D1c); B ball in hand.",
            call=(10, "foot_left"),
            referee_fouls=["double_hit"],
        ),
    ),
    scenario(
        "AV-WIN-03",
        ["Fautes 5", "Déroulement 1c"],
        state(),
        shot(
            facts(3, pocketed=[(10, "foot_left")], off_table=[6]),
            full(["F5"], "B", without(MID, 6), spot=[10], counts=(1, 0)),
            "The called 10 dropped while the 6 flew off the table: Fautes 5, so not a legal pocket; the 10 spotted, the 6 stays out (Fautes 5).",
            call=(10, "foot_left"),
        ),
    ),
    scenario(
        "AV-WIN-04",
        ["Déroulement 5", "I-19"],
        state([7, 10], fouls=(2, 1), warned=(True, False)),
        shot(
            facts(7, pocketed=[(7, "side_left"), (10, "foot_left")]),
            full([], None, None, remain=[7, 10], winner="A"),
            "A, warned on two fouls, pockets the called 10 on a legal combination: he wins (D5); at the rack's end both counts and warnings reset (rules.md §5).",
            call=(10, "foot_left"),
        ),
    ),
]

FOULS = [
    scenario(
        "AV-F-01",
        ["Fautes 2", "Déroulement 1c"],
        state(),
        shot(
            facts(10, pocketed=[(10, "foot_left")]),
            full(["F2"], "B", MID, spot=[10], counts=(1, 0)),
            "Fautes 2: the cue ball hit the called 10 before the lowest 3: foul; the 10 pocketed on an illegal shot is spotted (D1c).",
            call=(10, "foot_left"),
        ),
    ),
    scenario(
        "AV-F-02",
        ["Fautes 12", "I-30", "Déroulement 3"],
        state(),
        shot(
            facts(3, pocketed=[(3, "foot_left")]),
            full([], None, without(MID, 3), remain=[3], option="B"),
            "Déroulement 3: B's option.",
        ),
        out_of_turn(
            "A",
            facts(4, pocketed=[(4, "foot_left")]),
            full(["F12"], "B", without(MID, 3, 4), remain=[4], counts=(1, 0)),
            "A plays again before B chose: B held the table, so A played during B's turn (Fautes 12, I-30): foul charged to A, balls as left (the 4 stays down), B ball in hand.",
            call=(4, "foot_left"),
        ),
    ),
    scenario(
        "AV-F-03",
        ["Fautes 12", "I-30", "Déroulement 1c"],
        state(),
        out_of_turn(
            "B",
            facts(3, pocketed=[(10, "foot_left")]),
            full(["F12"], "A", MID, spot=[10], counts=(0, 1)),
            "I-30: B played during A's inning: foul charged to B; the called 10 he made is spotted (balls as left, 10 spotted); A ball in hand anywhere.",
            call=(10, "foot_left"),
            referee_fouls=["played_out_of_turn"],
        ),
    ),
    scenario(
        "AV-F-04",
        ["I-21", "Fautes 6"],
        state(),
        shot(
            facts(3, cushions=[3], cue_ball_airborne=True),
            full(["F6"], "B", MID, counts=(1, 0)),
            "I-21: a jump shot is legal by itself, but the cue brushed a ball on the way (Fautes 6, referee): foul, B ball in hand.",
            call=(3, "foot_left"),
            referee_fouls=["ball_touched"],
        ),
    ),
    scenario(
        "AV-F-05",
        ["I-17", "Fautes 7"],
        state(),
        shot(
            facts(None, pocketed=[(3, "foot_left")], cue_ball_frozen_to=3),
            full(["F7"], "B", without(MID, 3), remain=[3], counts=(1, 0)),
            "I-17: a massé into the 3 the cue ball was frozen to counts as hitting it (the 3 moved), but the tip was still on the cue ball when it met the 3 (Fautes 7, referee): foul; the 3 stays down (D1c).",
            call=(3, "foot_left"),
            referee_fouls=["double_hit"],
        ),
    ),
    scenario(
        "AV-F-06",
        ["Fautes 13", "I-27", "Fautes (intro)"],
        state(turn="B", cue_ball="in_hand_anywhere", fouls=(1, 0)),
        shot(
            None,
            full(["F13"], "A", MID, counts=(1, 1)),
            "I-27: the shot clock ran out while B had ball in hand (a time-out over): Fautes 13, no stroke; A now has ball in hand; B's first foul, A's chain unchanged (I-19).",
            referee_fouls=["F13"],
        ),
    ),
    scenario(
        "AV-F-07",
        ["Fautes 3", "I-03"],
        state(),
        shot(
            facts(3, cushions=[], cue_ball_cushion_before_first_contact=True),
            full(["F3"], "B", MID, counts=(1, 0)),
            "I-03: contacts before the first contact do not count: a kick whose cue ball met a cushion before the 3, with no ball to a cushion after it and nothing pocketed -> Fautes 3.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AV-F-08",
        ["Fautes 5", "Fautes 1", "I-15", "I-18"],
        state(),
        shot(
            facts(
                3,
                cushions=[3],
                off_table_detail=[
                    {"ball": "cue", "touched_lamp": True, "returned_to_bed": True},
                    {"ball": 6, "touched": "the referee", "returned_to_bed": True},
                ],
            ),
            full(["F1", "F5"], "B", without(MID, 6), counts=(1, 0)),
            "I-15: a ball that touches a non-table object is off the table even if it comes back (the cue ball met the lamp: Fautes 1; the 6 met the referee: Fautes 5, not returned); one penalty (I-18).",
            call=(3, "foot_left"),
        ),
    ),
]

THREE_FOULS = [
    scenario(
        "AV-TF-01",
        ["Fautes (3 fautes)", "I-19", "I-23"],
        state([10], turn="B", fouls=(2, 0), warned=(True, False)),
        shot(
            facts(10, pocketed=[(10, "foot_left")]),
            full([], None, None, remain=[10], winner="B"),
            "D5: B pockets the called 10 and wins; A's two warned fouls die with the rack (counts reset at each new rack, I-19).",
            call=(10, "foot_left"),
        ),
        shot(
            facts(1, object_balls_to_cushion_on_break=5),
            full([], "A", ALL, push_out=True),
            "I-23: the breaks alternate, so B (A broke the first rack) breaks the second: legal, nothing pocketed, A comes to the table and may push out.",
        ),
        shot(
            facts(5, cushions=[5]),
            full(["F2"], "B", ALL, counts=(1, 0)),
            "Three consecutive fouls count 'lors d'une même manche': A's foul in the new rack is his first, not a third.",
            call=(1, "foot_left"),
        ),
    ),
    scenario(
        "AV-TF-02",
        ["Fautes (3 fautes)", "Fautes (avertissement)", "I-19"],
        state(fouls=(1, 0)),
        shot(
            facts(4, cushions=[4]),
            full(["F2"], "B", MID, counts=(2, 0), due="A"),
            "A's second consecutive foul: B ball in hand; the warning is due (T2).",
            call=(3, "foot_left"),
        ),
        warning(
            "A",
            {
                "warned": {"A": True, "B": False},
                "warning_due": None,
                "consecutive_fouls": {"A": 2, "B": 0},
            },
            "T2: A is warned.",
        ),
        shot(
            facts(3, cushions=[3]),
            full([], "A", MID, counts=(2, 0), warned=(True, False)),
            "B with ball in hand misses legally: his own shots do not break A's chain (I-19).",
            call=(3, "foot_left"),
        ),
        shot(
            facts(3),
            full(["F3"], None, None, winner="B"),
            "A's third consecutive foul after the warning (no cushion, Fautes 3) -> he loses the rack (T1).",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AV-TF-03",
        ["I-19", "Fautes (avertissement)"],
        state(turn="B", fouls=(2, 1), warned=(True, False)),
        shot(
            facts(3),
            full(["F3"], "A", MID, counts=(2, 2), warned=(True, False), due="B"),
            "B's second consecutive foul: B's warning is due; A is on two and warned, unaffected by B's shot.",
            call=(3, "foot_left"),
        ),
        shot(
            facts(3, pocketed=[(3, "foot_left")]),
            full([], "A", without(MID, 3), ends=False, remain=[3], counts=(0, 2), due="B"),
            "A makes the called 3: his count and warning reset (I-19); B's warning is still due, it persists until reset (I-24).",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AV-TF-04",
        ["I-19", "Déroulement 3", "Fautes (avertissement)"],
        state(fouls=(0, 0)),
        shot(
            facts(5, cushions=[5]),
            full(["F2"], "B", MID, counts=(1, 0)),
            "A's first foul.",
            call=(3, "foot_left"),
        ),
        shot(
            facts(3, pocketed=[(3, "side_left")]),
            full([], None, without(MID, 3), remain=[3], counts=(1, 0), option="A"),
            "B, with ball in hand, pockets the lowest uncalled: Déroulement 3, A's option.",
        ),
        choice(
            "A",
            "hand_back",
            {
                "next_shooter": "B",
                "cue_ball_next": "in_position",
                "option": None,
                "consecutive_fouls": {"A": 1, "B": 0},
            },
            "A hands the table back: an option is no shot and does not break A's chain (I-19).",
        ),
        shot(
            facts(4, cushions=[4]),
            full([], "A", without(MID, 3), counts=(1, 0)),
            "B misses legally; A to play from position; A is still on one foul (I-19: the opponent's shots do not break his chain).",
            call=(4, "foot_left"),
        ),
        shot(
            facts(6, cushions=[6]),
            full(["F2"], "B", without(MID, 3), counts=(2, 0), due="A"),
            "A's second consecutive foul (his own shots: foul, foul): the warning is due (T2).",
            call=(4, "foot_left"),
        ),
    ),
    scenario(
        "AV-TF-05",
        ["Fautes (avertissement c)", "Fautes (3 fautes)", "I-24"],
        state(turn="A", cue_ball="in_hand_anywhere", fouls=(2, 0)),
        shot(
            facts(3, cushions=[3], cue_ball_pocketed=True),
            full(["F1"], "B", MID, counts=(2, 0), due="A"),
            "T3: A was never warned: this foul is not a third one, he does not lose, the count stays at two and the warning is still due (I-24).",
        ),
        warning(
            "A",
            {"warned": {"A": True, "B": False}, "warning_due": None},
            "T2, late but valid: A is warned now.",
        ),
        shot(
            facts(3, cushions=[3]),
            full([], "A", MID, counts=(2, 0), warned=(True, False)),
            "B misses legally.",
            call=(3, "foot_left"),
        ),
        shot(
            None,
            full(["F13"], None, None, winner="B"),
            "A's next foul, after the warning, even slow play (Fautes 13), is the third -> B wins the rack (T1).",
            referee_fouls=["slow_play"],
        ),
    ),
]

RACKS = [
    scenario(
        "AV-RK-01",
        ["I-23", "Casse 1"],
        state([10], turn="B", breaker="B"),
        shot(
            facts(10, pocketed=[(10, "side_left")]),
            full([], None, None, remain=[10], winner="B"),
            "D5: B wins the rack he broke.",
            call=(10, "side_left"),
        ),
        shot(
            facts(1, pocketed=[(2, "foot_left")], object_balls_to_cushion_on_break=4),
            full([], "A", without(ALL, 2), ends=False, remain=[2], push_out=True),
            "I-23 (default: alternate): A breaks the second rack whoever won; a ball pocketed on a legal break, A continues (Casse 1).",
        ),
    ),
    scenario(
        "AV-RK-02",
        ["I-23", "Casse 1"],
        state([10], turn="B"),
        shot(
            facts(10, pocketed=[(10, "side_left")]),
            full([], None, None, remain=[10], winner="B"),
            "D5: B wins the rack A broke.",
            call=(10, "side_left"),
        ),
        shot(
            facts(1, object_balls_to_cushion_on_break=5),
            full([], "A", ALL, push_out=True),
            "I-23 with the break order set to 'winner': B, who won, breaks again; dry legal break -> A at the table, may push out.",
        ),
        config={"break_order": "winner"},
    ),
    scenario(
        "AV-RK-03",
        ["I-33", "Fautes (3 fautes)"],
        state([4, 7, 10], turn="B", fouls=(2, 1), warned=(True, False)),
        {
            "type": "stalemate",
            "expected": {
                "next_shooter": "A",
                "cue_ball_next": "in_hand_behind_head_string",
                "rack_winner": None,
                "consecutive_fouls": {"A": 0, "B": 0},
                "warned": {"A": False, "B": False},
                "balls_on_table_after": ALL,
            },
            "why": "I-33: on a stalemate the referee re-racks and the same breaker (A) breaks again; a new rack, so the foul counts start again (T1 'lors d'une même manche').",
        },
        shot(
            facts(1, pocketed=[(6, "foot_left")], object_balls_to_cushion_on_break=4),
            full([], "A", without(ALL, 6), ends=False, remain=[6], push_out=True),
            "A's new break: legal, the 6 pocketed, A continues (Casse 1).",
        ),
    ),
    scenario(
        "AV-RK-04",
        ["concession", "I-23"],
        state(turn="A"),
        {
            "type": "concession",
            "player": "A",
            "expected": {
                "rack_winner": "B",
                "next_shooter": None,
                "cue_ball_next": None,
                "balls_on_table_after": None,
            },
            "why": "The FFB text is silent on a concession; a player who concedes loses (WPA): B wins the rack.",
        },
        shot(
            facts(1, object_balls_to_cushion_on_break=6),
            full([], "A", ALL, push_out=True),
            "I-23: the breaks alternate, so B breaks the next rack (A broke this one); dry and legal -> A to play, push-out available.",
        ),
    ),
]

FORMS = [
    scenario(
        "AV-FMT-01",
        ["I-20"],
        state(),
        shot(
            facts(
                3,
                cushions=[3],
                pocketed=[(3, "foot_left")],
                late_drops=[{"ball": 3, "pocket": "foot_left", "time_after_rest": "6.5 s"}],
            ),
            full([], "B", MID),
            "I-20: the called 3 dropped 6.5 s after every ball stopped (written '6.5 s'): past the 5-second window it is not pocketed, put back at the lip; a legal miss, B from position (Déroulement 4).",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AV-FMT-02",
        ["I-03", "Déroulement 4"],
        state(),
        shot(
            facts(3, cushions=["Cue_Ball"]),
            full([], "B", MID),
            "I-03: the cue ball reaching a cushion after the contact satisfies Fautes 3, whatever its spelling ('Cue_Ball'); a legal miss.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AV-FMT-03",
        ["I-15", "Fautes 5"],
        state(),
        shot(
            facts(3, cushions=[3, 6], off_table=6, returned_to_bed_after_rail_top=6),
            full([], "B", MID),
            "I-15: a ball that rode the rail top and fell back is not off the table, even written as a lone ball rather than a list: no Fautes 5, a legal miss.",
            call=(3, "foot_left"),
        ),
    ),
]


def _rack(ident: str, rack: dict[str, Any], valid: bool, why: str) -> dict[str, Any]:
    step = {"type": "rack_check", "rack": rack, "expected": {"rack_valid": valid}, "why": why}
    return scenario(ident, ["Mise en place 1-4"], BREAK_STATE, step)


RACKS += [
    _rack(
        "AV-RK-05",
        {"rows": [[1], [7, 3], [4, 10, 2], [6, 9, 8, 5]]},
        True,
        "Mise en place 1-4 from the rows, apex first: the 1 at the apex, the 10 in the middle of the three-row, the others at random (S4).",
    ),
    _rack(
        "AV-RK-06",
        {"rows": [[1], [2, 3], [4, 9, 5], [6, 7, 10, 8]]},
        False,
        "Mise en place 3: the 10 must be in the middle of the three-ball row; here it is in the back row.",
    ),
    _rack(
        "AV-RK-07",
        {
            "shape": "diamond",
            "apex_ball": 1,
            "apex_on_foot_spot": True,
            "ball_in_middle_of_three_row": 10,
        },
        False,
        "Mise en place 1: 'dans un triangle équilatéral': a nine-ball diamond is not a ten-ball rack.",
    ),
    _rack(
        "AV-RK-08",
        {"rows": [[1], [2, 3], [4, 10, 5], [6, 7, 8]]},
        False,
        "Mise en place 1: the triangle holds the ten balls in rows of 1, 2, 3 and 4; a ball is missing.",
    ),
]

PUSH_OUT += [
    scenario(
        "AV-PO-08",
        ["Push-out 3", "Fautes 2"],
        AFTER_DRY_BREAK,
        shot(
            facts(5, cushions=[5, "cue"]),
            full(["F2"], "A", ALL, counts=(0, 1)),
            "Push-out 3: the push-out must be declared before the shot, so that the opponent knows; B played a 'push' into the 5 without declaring it: a normal shot, and the 5 before the lowest 1 is Fautes 2. A ball in hand anywhere, no option, no push-out left.",
        ),
    ),
]

EDGES = [
    scenario(
        "AV-ED-01",
        ["I-14", "Fautes 3"],
        state(),
        shot(
            facts(3, cushions=[3], frozen_to_rail_at_start=[3]),
            full([], "B", MID),
            "I-14: the 3, frozen to the foot rail, left it when hit and came back to it: that is reaching a cushion after the contact, so no Fautes 3; a legal miss, B from position.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AV-ED-02",
        ["I-14", "Fautes 3"],
        state(),
        shot(
            facts(
                3,
                frozen_to_rail_at_start=[6],
                frozen_ball_touching_its_rail_without_leaving=[6],
                cushion_after_first_contact=[6],
            ),
            full(["F3"], "B", MID, counts=(1, 0)),
            "I-14: the 3 drove the 6, frozen to the side rail, which never left it: not driven to a cushion (even when the camera lists the 6 touching its rail); nothing else reached a cushion -> Fautes 3.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AV-ED-03",
        ["I-16", "Fautes 6"],
        state(turn="B", cue_ball="in_hand_anywhere", fouls=(1, 0)),
        shot(
            facts(3, cushions=[3]),
            full(["F6"], "A", MID, counts=(1, 1)),
            "I-16: the all-ball foul includes the cue ball in hand touching an object ball while B placed it (Fautes 6): foul, A ball in hand.",
            call=(3, "foot_left"),
            referee_fouls=["ball_touched"],
        ),
    ),
    scenario(
        "AV-ED-04",
        ["I-22", "Déroulement 1c", "Déroulement 3"],
        {**state([2, 3, 4, 10]), "notes": "the 2 rests on the foot spot"},
        shot(
            facts(2, pocketed=[(10, "foot_right")], cushions=[2]),
            full([], "B", [2, 3, 4, 10], spot=[10]),
            "I-22: the 10 pocketed uncalled is spotted (I-06, Déroulement 1c) even though the 2 sits on the foot spot: it goes on the long string behind it; the call is the same. No ball legally pocketed: B from position (Déroulement 4).",
            call=(2, "foot_left"),
        ),
    ),
    scenario(
        "AV-ED-05",
        ["I-32", "I-31", "Fautes (3 fautes)"],
        state(fouls=(2, 0), warned=(True, False)),
        {
            "type": "visual_check",
            "expected": {
                "next_shooter": "A",
                "rack_winner": None,
                "consecutive_fouls": {"A": 2, "B": 0},
                "warned": {"A": True, "B": False},
            },
            "why": "I-32: B asks for a visual check of the disputed phase (Déroulement 2): a replay, no change by itself.",
        },
        shot(
            facts(4, cushions=[4]),
            full(["F2"], None, None, winner="B"),
            "The replay shows A hit the 4 before the lowest 3 (Fautes 2), his third consecutive foul after the warning: he loses the rack ('partie' = rack, I-31).",
            call=(3, "side_left"),
        ),
    ),
]

FORMS += [
    scenario(
        "AV-FMT-04",
        ["I-20", "Déroulement 1b"],
        state(),
        shot(
            facts(
                3, cushions=[3], late_drops=[{"ball": 3, "pocket": "foot_left", "within_5s": True}]
            ),
            full([], "A", without(MID, 3), ends=False, remain=[3]),
            "I-20: a ball that drops within 5 s of all balls stopping is pocketed on the shot, here said by a flag rather than a time: the called 3 made -> A continues.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AV-FMT-05",
        ["I-20", "Déroulement 4"],
        state(),
        shot(
            facts(
                3,
                cushions=[3],
                pocketed=[(3, "foot_left")],
                late_drops=[{"ball": 3, "within_5s": False}],
            ),
            full([], "B", MID),
            "I-20: a drop after the 5-second window is not pocketed (put back at the lip), said by a flag: a legal miss, B from position.",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AV-FMT-06",
        ["I-15", "Fautes 5"],
        state(),
        shot(
            facts(
                3,
                cushions=[3, 6],
                off_table=[6],
                off_table_detail=[{"ball": 6, "path": "rail top", "returned_to_bed": True}],
            ),
            full([], "B", MID),
            "I-15: the detail says the 6 rode the rail top and came back to the bed, touching nothing else: not off the table, no Fautes 5; a legal miss.",
            call=(3, "foot_left"),
        ),
    ),
]

FORMS += [
    scenario(
        "AV-FMT-07",
        ["I-17", "Déroulement 1b"],
        state(),
        shot(
            {
                **facts(None, cue_ball_frozen_to={"ball": 3}),
                "pocketed": {"ball": 3, "pocket": "foot_left"},
            },
            full([], "A", without(MID, 3), ends=False, remain=[3]),
            "A lone pocketed entry and a lone frozen-to entry, each written as an object: the cue ball frozen to the 3 shot into it, which dropped (I-17: counts as contact) in the called pocket -> A continues (Déroulement 1b).",
            call=(3, "foot_left"),
        ),
    ),
    scenario(
        "AV-FMT-08",
        ["I-15", "Fautes 5"],
        state(),
        shot(
            facts(
                3,
                cushions=[3, 6],
                off_table_detail={"ball": 6, "touched": "lamp", "returned_to_bed": True},
            ),
            full(["F5"], "B", without(MID, 6), counts=(1, 0)),
            "I-15, one detail written as an object: the 6 touched the lamp, so it is off the table even though it came back (Fautes 5, not returned).",
            call=(3, "foot_left"),
        ),
    ),
]

FORMS += [
    scenario(
        "AV-FMT-09",
        ["Casse 4", "I-05"],
        BREAK_STATE,
        shot(
            facts(1, pocketed=[(10, "side_left")], object_balls_to_cushion_on_break=4),
            full([], None, None, remain=[10], winner="A"),
            "I-05: the breaker may announce '10' without a pocket; the pocket written 'any' names none, so the 10 in the side pocket on a legal break wins (Casse 4).",
            break_announce_10=True,
            break_announce_10_pocket="any",
        ),
    ),
]

BREAK += [
    scenario(
        "AV-BRK-10",
        ["Casse 1", "B1"],
        BREAK_STATE,
        {
            "type": "lag",
            "winner": "B",
            "breaker": "A",
            "expected": {"next_shooter": "A", "cue_ball_next": "in_hand_behind_head_string"},
            "why": "Casse 1 (B1): the lag winner, B, chooses which player breaks first: he lets A break.",
        },
        shot(
            facts(1, pocketed=[(3, "foot_left")], object_balls_to_cushion_on_break=4),
            full([], "A", without(ALL, 3), ends=False, remain=[3], push_out=True),
            "A's legal break pockets the 3: he continues (Casse 1).",
        ),
    ),
    scenario(
        "AV-BRK-11",
        ["Casse 1", "B1"],
        BREAK_STATE,
        {
            "type": "lag",
            "winner": "B",
            "expected": {"next_shooter": "B", "cue_ball_next": "in_hand_behind_head_string"},
            "why": "Casse 1 (B1): B won the lag and named no other breaker: he breaks.",
        },
        shot(
            facts(1, object_balls_to_cushion_on_break=4),
            full([], "A", ALL, push_out=True),
            "B's legal dry break: A comes to the table and may push out (Casse 1, Push-out 1).",
        ),
    ),
]

ADVERSARY_CASES = PUSH_OUT + BREAK + CALLS + WINS + FOULS + THREE_FOULS + RACKS + FORMS + EDGES

# Malformed input: (id, initial state, step, the field the error must name). Each is refused
# with that field named and the state left as it was (I-12's refusal; rules.md §4 inputs).
BAD = {"type": "shot", "declarations": {"call": None}, "referee_fouls": []}
INPUT_ERRORS: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    (
        "late-drop-ball",
        state(),
        {**BAD, "shot": facts(3, late_drops=[{"ball": "x", "seconds": 2}])},
        "shot.late_drops[0].ball",
    ),
    (
        "late-drop-down",
        state(),
        {**BAD, "shot": facts(3, late_drops=[{"ball": 1, "seconds": 2}])},
        "shot.late_drops[0].ball",
    ),
    (
        "late-drop-pocket",
        state(),
        {**BAD, "shot": facts(3, late_drops=[{"ball": 4, "pocket": "corner", "s": 2}])},
        "shot.late_drops[0].pocket",
    ),
    (
        "late-drop-negative",
        state(),
        {**BAD, "shot": facts(3, late_drops=[{"ball": 4, "delay_s": -1}])},
        "shot.late_drops[0]",
    ),
    (
        "off-detail-type",
        state(),
        {**BAD, "shot": facts(3, off_table_detail=5)},
        "shot.off_table_detail",
    ),
    (
        "off-detail-entry",
        state(),
        {**BAD, "shot": facts(3, off_table_detail=["lamp"])},
        "shot.off_table_detail[0]",
    ),
    (
        "off-detail-ball",
        state(),
        {**BAD, "shot": facts(3, off_table_detail=[{"ball": 12, "touched": "lamp"}])},
        "shot.off_table_detail[0].ball",
    ),
    (
        "rail-top-ball",
        state(),
        {**BAD, "shot": facts(3, returned_to_bed_after_rail_top=["six"])},
        "shot.returned_to_bed_after_rail_top[0]",
    ),
    (
        "frozen-start-ball",
        state(),
        {**BAD, "shot": facts(3, frozen_to_rail_at_start=[11])},
        "shot.frozen_to_rail_at_start[0]",
    ),
    (
        "frozen-to-ball",
        state(),
        {**BAD, "shot": facts(None, cue_ball_frozen_to=2)},
        "shot.cue_ball_frozen_to[0]",
    ),
    (
        "airborne-flag",
        state(),
        {**BAD, "shot": facts(3, cue_ball_airborne="maybe")},
        "shot.cue_ball_airborne",
    ),
    (
        "unsportsmanlike",
        state(),
        {**BAD, "shot": facts(3, cushions=[3]), "referee_fouls": ["unsportsmanlike_conduct"]},
        "referee_fouls[0]",
    ),
    (
        "first-contact-cue",
        state(),
        {**BAD, "shot": {**facts(None), "first_object_ball_contacted": "cue"}},
        "shot.first_object_ball_contacted",
    ),
    (
        "cushion-ball",
        state(),
        {**BAD, "shot": facts(3, cushions=["rail"])},
        "shot.cushion_after_first_contact[0]",
    ),
    (
        "break-count",
        BREAK_STATE,
        {**BAD, "shot": facts(1, object_balls_to_cushion_on_break=12)},
        "shot.object_balls_to_cushion_on_break",
    ),
    (
        "call-pocket",
        state(),
        {**BAD, "declarations": {"call": {"ball": 3, "pocket": "corner"}}, "shot": facts(3)},
        "declarations.call.pocket",
    ),
    (
        "announce-pocket",
        BREAK_STATE,
        {**BAD, "declarations": {"break_announce_10_pocket": "middle"}, "shot": facts(1)},
        "declarations.break_announce_10_pocket",
    ),
    ("concession-player", state(), {"type": "concession", "player": "C"}, "player"),
    ("stalemate-flag", state(), {"type": "new_rack", "stalemate": "perhaps"}, "stalemate"),
    ("lag-mid-rack", state(), {"type": "lag", "winner": "A"}, "type"),
    ("lag-no-winner", BREAK_STATE, {"type": "lag"}, "winner"),
]
