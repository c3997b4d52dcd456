# ruff: noqa: E501  (the `why` texts are sentences; they read better unbroken)
"""A fourth audit: the less common paths of the FFB text walked clause by clause (round 12),
each expected call written from the text before the engine was run. They all agreed with the
engine; they stay as cases because no earlier case held these combinations: a foul on a
push-out by a player on two warned fouls, the holder of an option who is slow or who plays
while the previous shooter plays out of turn, the 10 as the only (and lowest) ball pocketed
uncalled, the called 10 made with the lowest ball, both players due a warning.

Every shot step pins every rules.md §5 field (`full` of audit_cases.py).
"""

from __future__ import annotations

from tests.referee.rules.audit_cases import AFTER_DRY_BREAK, full, without
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

MID = list(range(3, 11))
PUSH_B_ON_TWO_WARNED = state(
    ALL, turn="B", push_out_available=True, fouls=(0, 2), warned=(False, True)
)
OPTION_B = {"holder": "B", "choices": ["shoot", "hand_back"], "previous_shooter": "A"}

WALK_CASES = [
    scenario(
        "WK-PO-01",
        ["Push-out 1c", "Fautes 1", "Fautes (3 fautes)"],
        PUSH_B_ON_TWO_WARNED,
        shot(
            facts(None, cue_ball_pocketed=True),
            full(["F1"], None, None, winner="A"),
            "Push-out 1c: 'toutes les autres règles sont en application': the scratch is Fautes 1; B was on two warned fouls, so it is his third consecutive foul and A wins the rack (Fautes, 3 fautes).",
            push_out=True,
        ),
    ),
    scenario(
        "WK-PO-02",
        ["Push-out 1", "Push-out 4", "I-19"],
        PUSH_B_ON_TWO_WARNED,
        shot(
            facts(None),
            full([], None, ALL, option="A"),
            "A legal push-out is a shot without a foul: B's count goes back to 0 and his warning is cleared (I-19); A has the option (Push-out 4).",
            push_out=True,
        ),
    ),
    scenario(
        "WK-PO-03",
        ["Push-out 4b", "I-19"],
        state(ALL, turn="B", push_out_available=True, fouls=(2, 0)),
        shot(
            facts(None),
            full([], None, ALL, option="A", counts=(2, 0), due="A"),
            "B's legal push-out; A, on two unwarned fouls from his own shots, holds the option and his warning is still due (I-24).",
            push_out=True,
        ),
        choice(
            "A",
            "hand_back",
            {"next_shooter": "B", "consecutive_fouls": {"A": 2, "B": 0}, "warning_due": "A"},
            "I-19: options and hand-backs do not break (or reset) a player's chain of fouls.",
        ),
    ),
    scenario(
        "WK-PO-04",
        ["Push-out 2", "Fautes 5", "Déroulement 1c"],
        AFTER_DRY_BREAK,
        shot(
            facts(None, off_table=[10]),
            full(["F5"], "A", ALL, spot=[10], counts=(0, 1)),
            "Push-out 1c: Fautes 5 still applies: the 10 driven off the table is a foul and it is put back on the foot spot (Fautes 5, Déroulement 1c); A has ball in hand anywhere.",
            push_out=True,
        ),
    ),
    scenario(
        "WK-OPT-01",
        ["Fautes 13", "Déroulement 3"],
        state(pending_option=OPTION_B),
        {
            "type": "shot",
            "declarations": {"call": None, "push_out": False},
            "shot": None,
            "referee_fouls": ["slow_play"],
            "expected": full(["F13"], "A", MID, counts=(0, 1)),
            "why": "B holds the option (Déroulement 3) and takes too long to play: Fautes 13 is his foul, A has ball in hand anywhere (Fautes intro).",
        },
    ),
    scenario(
        "WK-OPT-02",
        ["Fautes 12", "Déroulement 3", "I-30"],
        state(pending_option=OPTION_B),
        {
            **shot(
                facts(3, cushions=[3]),
                full(["F12"], "B", MID, counts=(1, 0)),
                "B holds the option but A, who shot last, plays: he plays during B's turn (Fautes 12, I-30): his foul, B has ball in hand anywhere.",
            ),
            "player": "A",
        },
    ),
    scenario(
        "WK-WIN-01",
        ["Déroulement 2", "Déroulement 5", "I-11"],
        state(),
        shot(
            facts(3, pocketed=[(3, "side_left"), (10, "foot_left")]),
            full([], None, None, winner="A", remain=[3, 10]),
            "The called 10 made in its pocket after a legal hit on the lowest 3 wins (Déroulement 5, G1 'par n'importe quel coup légal'); the 3 dropping too needs no call (Déroulement 2: 'les autres billes ... empochées ne sont pas nécessaires', I-11).",
            call=(10, "foot_left"),
        ),
    ),
    scenario(
        "WK-WIN-02",
        ["Déroulement 3", "Déroulement 1c", "I-06"],
        state([10]),
        shot(
            facts(10, pocketed=[(10, "foot_left")]),
            full([], None, [10], spot=[10], option="B"),
            "The 10, the only and so the lowest ball, pocketed without a call: not legally pocketed (I-06), so it is spotted (Déroulement 1c); the lowest ball made unannounced gives B the option (Déroulement 3).",
        ),
    ),
    scenario(
        "WK-BRK-01",
        ["Casse 1", "Casse 4", "I-02"],
        BREAK_STATE,
        shot(
            facts(1, pocketed=[(10, "foot_left")], object_balls_to_cushion_on_break=3),
            full([], None, None, winner="A", remain=[10]),
            "Only three balls reached a cushion, but a ball was pocketed, which satisfies Casse 1 (I-02): the break is legal, and the announced 10 made on it wins (Casse 4).",
            break_announce_10=True,
        ),
    ),
    scenario(
        "WK-TF-01",
        ["Fautes (avertissement)"],
        state(fouls=(2, 2)),
        warning(
            "A",
            {"warned": {"A": True, "B": False}, "warning_due": "B"},
            "Both players are on two unwarned fouls; A is warned (Fautes, avertissement), B's warning is still due (I-24).",
        ),
    ),
    scenario(
        "WK-TF-02",
        ["Fautes (avertissement a-c)", "Fautes (3 fautes)"],
        state(fouls=(2, 0)),
        shot(
            facts(None),
            full(["F2"], "B", MID, counts=(2, 0), due="A"),
            "A, on two unwarned fouls, misses: not a third foul (avertissement a-c), the count stays at two and the warning is still due.",
        ),
        shot(
            facts(3, cushions=[3]),
            full([], "A", MID, counts=(2, 0), due="A"),
            "B's legal miss does not touch A's chain (I-19).",
        ),
        warning(
            "A",
            {"warned": {"A": True, "B": False}, "warning_due": None},
            "The warning is given after the second foul: it counts.",
        ),
        shot(
            facts(None),
            full(["F2"], None, None, winner="B"),
            "Warned on two, A's next foul is the third: B wins the rack (Fautes, 3 fautes).",
        ),
    ),
    scenario(
        "WK-PL-01",
        ["Fautes 3", "I-03"],
        state(),
        shot(
            facts(3, cue_ball_off_table=True),
            full(["F1"], "B", MID, counts=(1, 0)),
            "The cue ball off the table is Fautes 1; having left the table it counts as reaching a cushion, so no Fautes 3 (I-03).",
        ),
    ),
    scenario(
        "WK-PL-02",
        ["Fautes 5", "Déroulement 1b", "I-18"],
        state(),
        shot(
            facts(3, pocketed=[(3, "foot_left")], off_table=[6]),
            full(["F5"], "B", without(MID, 3, 6), remain=[3], counts=(1, 0)),
            "The called 3 made but the 6 driven off the table: Fautes 5, so the 3 is not legally pocketed: it stays down and the 6 stays out (Fautes 5: only the 10 is put back); B has ball in hand.",
            call=(3, "foot_left"),
        ),
    ),
]
