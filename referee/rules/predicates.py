"""Small rule predicates, each returning `(ok, reason)` as in pooltool's nine-ball ruleset.

`reason` is a sentence fragment a player understands: why the shot is legal on that point, or
what the foul was. The engine (engine.py) combines them; none of them has side effects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from referee.rules.call import FoulCode
from referee.rules.config import RulesConfig
from referee.rules.shot import CUE, RefereeFoul, Shot, ShotFacts
from referee.rules.state import CueBall, GameState, Player

Check = tuple[bool, str]


@dataclass(frozen=True, slots=True)
class ShotContext:
    """Everything a predicate may look at for one shot.

    Attributes:
        state: the state before the shot.
        shot: the shot step.
        config: rule options.
        player: who actually played (differs from `state.turn` only out of turn, I-30).
        push_out: the shot is a push-out that was declared and allowed (Push-out 1, I-12).
    """

    state: GameState
    shot: Shot
    config: RulesConfig
    player: Player
    push_out: bool

    @property
    def facts(self) -> ShotFacts | None:
        return self.shot.facts

    @property
    def is_break(self) -> bool:
        return self.state.is_break

    @property
    def lowest(self) -> int | None:
        return self.state.lowest_ball


def ball_name(ball: int | str) -> str:
    return "the cue ball" if ball == CUE else f"the {ball}"


def effective_first_contact(facts: ShotFacts, lowest: int | None) -> int | None:
    """The first ball hit, with a simultaneous hit resolved for the shooter (I-07)."""
    if lowest is not None and lowest in facts.simultaneous_first_contact:
        return lowest
    return facts.first_object_ball_contacted


def break_hits_one_first(ctx: ShotContext) -> Check:
    """Casse 1: on the break the cue ball meets the 1 before any other ball or cushion."""
    facts = ctx.facts
    if not ctx.is_break or facts is None:
        return True, "not a break"
    first = effective_first_contact(facts, 1)
    if first != 1 and facts.first_contact_reported:
        hit = "no object ball" if first is None else f"the {first}"
        return False, f"on the break the cue ball must hit the 1 first; it hit {hit}"
    if facts.cue_ball_cushion_before_first_contact and ctx.config.break_cushion_first_is_foul:
        return False, "on the break the cue ball touched a cushion before the 1"
    return True, "the cue ball hit the 1 first"


def break_drives_four_balls(ctx: ShotContext) -> Check:
    """Casse 1 with I-02: four object balls to a cushion, or a ball pocketed."""
    facts = ctx.facts
    if not ctx.is_break or facts is None:
        return True, "not a break"
    if facts.pocketed:
        return True, "a ball was pocketed on the break (I-02)"
    count = facts.object_balls_to_cushion_on_break
    if count is None:
        count = sum(1 for b in facts.cushion_after_first_contact if b != CUE)
        if count == 0:  # nothing reported at all: not judged rather than presumed a foul
            return True, "the balls driven to a cushion were not reported"
    if count >= 4:
        return True, f"{count} object balls reached a cushion"
    return False, (
        f"only {count} object ball{'s' if count != 1 else ''} reached a cushion and none was "
        "pocketed; the break needs four"
    )


def cue_ball_stays_on_table(ctx: ShotContext) -> Check:
    """Fautes 1: the cue ball is not pocketed nor driven off the table."""
    facts = ctx.facts
    if facts is None:
        return True, "no stroke"
    if facts.cue_ball_pocketed:
        return False, "the cue ball was pocketed"
    if facts.cue_ball_off_table:
        return False, "the cue ball left the table"
    return True, "the cue ball stayed on the table"


def lowest_ball_hit_first(ctx: ShotContext) -> Check:
    """Fautes 2 / Déroulement 1a (a total miss is F2, I-09); waived on a push-out (1a)."""
    facts = ctx.facts
    if facts is None or ctx.push_out:
        return True, "not required"
    if not facts.first_contact_reported:
        return True, "the first ball contacted was not reported: not judged"
    first = effective_first_contact(facts, ctx.lowest)
    if first == ctx.lowest:
        return True, f"the cue ball hit the lowest ball, the {ctx.lowest}, first"
    if first is None:
        return False, f"the cue ball hit no object ball; the lowest ball was the {ctx.lowest}"
    return False, f"the cue ball hit the {first} first; the lowest ball was the {ctx.lowest}"


def reaches_cushion_after_contact(ctx: ShotContext) -> Check:
    """Fautes 3 with I-03 and I-14; only judged after a legal first contact (else Fautes 2).

    The break is no exception (Fautes 3 is one of the "fautes classiques"): there the
    camera's count of object balls to a cushion is evidence too, and a break that reports
    neither that count nor any cushion is not judged (as `break_drives_four_balls`).
    """
    facts = ctx.facts
    if facts is None or ctx.push_out:
        return True, "not required"
    if not facts.first_contact_reported:
        return True, "the first ball contacted was not reported: not judged"
    if not lowest_ball_hit_first(ctx)[0]:
        return True, "judged under Fautes 2"
    frozen = set(facts.frozen_ball_touching_its_rail_without_leaving)
    to_cushion = [b for b in facts.cushion_after_first_contact if b not in frozen]
    if to_cushion:
        return True, f"{ball_name(to_cushion[0])} reached a cushion"
    if ctx.is_break:
        count = facts.object_balls_to_cushion_on_break
        if count is None and not (facts.pocketed or facts.off_table):
            return True, "the balls driven to a cushion were not reported"
        if count:
            return True, f"{count} object balls reached a cushion"
    if facts.pocketed or facts.off_table or facts.cue_ball_pocketed or facts.cue_ball_off_table:
        return True, "a ball was pocketed or left the table (counts as a cushion, I-03)"
    if frozen:
        return False, (
            "no ball reached a cushion after the contact (a ball frozen to its rail does not "
            "count unless it leaves and comes back, I-14)"
        )
    return False, "no ball reached a cushion after the cue ball hit the lowest ball"


def no_object_ball_off_table(ctx: ShotContext) -> Check:
    """Fautes 5 (on the break too, I-01)."""
    facts = ctx.facts
    if facts is None or not facts.off_table:
        return True, "no object ball left the table"
    names = ", ".join(f"the {b}" for b in facts.off_table)
    return False, f"{names} left the table"


def nothing_touched(ctx: ShotContext) -> Check:
    """Fautes 6: referee-seen, or a ball the camera saw move with nothing touching it; a cue
    ball placed by hand while it was not in hand was touched too (I-26)."""
    if RefereeFoul.BALL_TOUCHED in ctx.shot.referee_fouls:
        return False, "a ball was touched by something other than the cue tip"
    placed = RefereeFoul.BAD_CUE_BALL_PLACEMENT in ctx.shot.referee_fouls
    if placed and ctx.state.cue_ball is CueBall.IN_POSITION:
        return False, "the cue ball was moved by hand while it was not in hand (I-26)"
    facts = ctx.facts
    if facts is not None and facts.balls_disturbed:
        names = ", ".join(f"the {b}" for b in facts.balls_disturbed if b)
        return False, f"{names or 'a ball'} moved with nothing touching it (ball touched)"
    return True, "no ball touched"


def balls_at_rest_at_strike(ctx: ShotContext) -> Check:
    """Fautes 9: referee-seen, or balls the camera saw moving at the strike."""
    facts = ctx.facts
    moving = facts is not None and bool(facts.balls_moving_at_strike)
    if RefereeFoul.BALLS_MOVING in ctx.shot.referee_fouls or moving:
        return False, "the shot was played while a ball was still moving"
    return True, "all balls were at rest"


def cue_ball_placed_legally(ctx: ShotContext) -> Check:
    """Fautes 10, only while placement is restricted: the break, behind the head string (I-26)."""
    if RefereeFoul.BAD_CUE_BALL_PLACEMENT not in ctx.shot.referee_fouls:
        return True, "cue ball placement not questioned"
    if ctx.state.cue_ball is CueBall.IN_HAND_BEHIND_HEAD_STRING:
        return False, "the cue ball was not placed behind the head string for the break"
    return True, "placement is free here (I-26)"


def played_in_turn(ctx: ShotContext) -> Check:
    """Fautes 12 / I-30: the player at the table is the one whose turn it is."""
    if ctx.player is not ctx.state.turn:
        return False, f"{ctx.player} played during {ctx.player.other()}'s inning"
    if RefereeFoul.PLAYED_OUT_OF_TURN in ctx.shot.referee_fouls:
        return False, f"{ctx.player} played out of turn"
    return True, "played in turn"


_REFEREE_TEXT: dict[RefereeFoul, str] = {
    RefereeFoul.NO_FOOT_ON_FLOOR: "no foot was touching the floor",
    RefereeFoul.DOUBLE_HIT: "double hit or cue still on the cue ball when it met a frozen ball",
    RefereeFoul.PUSH_SHOT: "the cue ball was pushed rather than struck",
    RefereeFoul.CUE_ON_TABLE: "a cue was laid on the table as an aiming aid",
    RefereeFoul.SLOW_PLAY: "excessive time was taken to play",
}


def referee_check(foul: RefereeFoul) -> Callable[[ShotContext], Check]:
    """A predicate for a foul only a person can see (F4, F7, F8, F11, F13)."""

    def check(ctx: ShotContext) -> Check:
        if foul in ctx.shot.referee_fouls:
            return False, _REFEREE_TEXT[foul]
        return True, f"no {foul.value}"

    return check


FOUL_CHECKS: tuple[tuple[FoulCode, Callable[[ShotContext], Check]], ...] = (
    (FoulCode.CASSE1_FIRST_CONTACT, break_hits_one_first),
    (FoulCode.CASSE1_FOUR_CUSHIONS, break_drives_four_balls),
    (FoulCode.F1, cue_ball_stays_on_table),
    (FoulCode.F2, lowest_ball_hit_first),
    (FoulCode.F3, reaches_cushion_after_contact),
    (FoulCode.F4, referee_check(RefereeFoul.NO_FOOT_ON_FLOOR)),
    (FoulCode.F5, no_object_ball_off_table),
    (FoulCode.F6, nothing_touched),
    (FoulCode.F7, referee_check(RefereeFoul.DOUBLE_HIT)),
    (FoulCode.F8, referee_check(RefereeFoul.PUSH_SHOT)),
    (FoulCode.F9, balls_at_rest_at_strike),
    (FoulCode.F10, cue_ball_placed_legally),
    (FoulCode.F11, referee_check(RefereeFoul.CUE_ON_TABLE)),
    (FoulCode.F12, played_in_turn),
    (FoulCode.F13, referee_check(RefereeFoul.SLOW_PLAY)),
)
"""Every foul of the game with its predicate, in reporting order."""


def find_fouls(ctx: ShotContext) -> list[tuple[FoulCode, str]]:
    """All fouls of a shot with what each one was (I-18: all reported, one penalty)."""
    found: list[tuple[FoulCode, str]] = []
    for code, check in FOUL_CHECKS:
        ok, reason = check(ctx)
        if not ok:
            found.append((code, reason))
    return found
