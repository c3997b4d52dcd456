"""What follows a foul-free shot: continue, pass, option, or win (and the 10 on the spot).

Each builder returns an `Outcome`; engine.py turns it into the `Call` and the next state.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from calibration.table import Pocket
from referee.rules.call import Reason
from referee.rules.predicates import ShotContext
from referee.rules.shot import Declarations, ShotFacts
from referee.rules.state import GAME_BALL, PendingOption, Player


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a foul-free shot.

    Attributes:
        next_turn: who is at the table next (the holder while an option is pending).
        option: the option now pending, else None.
        winner: the rack winner, else None.
        spot: balls to spot (only ever the 10).
        push_out_next: whether the next shot may be a push-out.
        turn_ends: whether the shooter's inning ended.
        reasons: the grounds, in order.
        summary: one sentence for the call.
    """

    next_turn: Player | None
    option: PendingOption | None = None
    winner: Player | None = None
    spot: tuple[int, ...] = ()
    push_out_next: bool = False
    turn_ends: bool = True
    reasons: list[Reason] = field(default_factory=list)
    summary: str = ""


def pocket_words(pocket: Pocket | None) -> str:
    if pocket is None:
        return "a pocket"
    return "the " + pocket.value.replace("_", "-") + " pocket"


def balls_words(balls: tuple[int, ...] | list[int]) -> str:
    names = [f"the {b}" for b in balls]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _pocketed_in(facts: ShotFacts, ball: int, pocket: Pocket | None) -> bool:
    """The ball dropped in that pocket (a pocket not reported, or not named, matches)."""
    if ball not in facts.pocketed_balls:
        return False
    where = facts.pocket_of(ball)
    return where is None or pocket is None or where is pocket


def _spot_reason(clause: str, why: str) -> Reason:
    return Reason("SPOT", clause, f"The 10 goes back on the foot spot: {why}.")


def ten_announced_on_break(decl: Declarations) -> tuple[bool, Pocket | None]:
    """Whether the breaker announced the 10 (Casse 4), and the pocket he named (I-05).

    `break_announce_10` is the announcement; a call of the 10 made before the break says the
    same thing ("le joueur a annoncé son empochage"), with its pocket when it names one.
    """
    call = decl.call if decl.call is not None and decl.call.ball == GAME_BALL else None
    if decl.break_announce_10:
        named = decl.break_announce_10_pocket
        return True, named if named is not None or call is None else call.pocket
    if call is not None:
        return True, call.pocket
    return False, None


def break_outcome(ctx: ShotContext, facts: ShotFacts) -> Outcome:
    """A legal break (Casse 1 and 4, I-02, I-04, I-05)."""
    player, decl = ctx.player, ctx.shot.declarations
    pocketed = facts.pocketed_balls
    reasons: list[Reason] = []
    spot: tuple[int, ...] = ()
    if GAME_BALL in pocketed:
        announced, named = ten_announced_on_break(decl)
        announced = announced and ctx.config.announced_ten_on_break_wins
        if announced and (named is None or _pocketed_in(facts, GAME_BALL, named)):
            text = f"{player} announced the 10 and pocketed it on a legal break"
            reasons.append(Reason("WIN", "Casse 4", text + "."))
            return Outcome(None, winner=player, reasons=reasons, summary=f"{text}: {player} wins.")
        why = "announced in another pocket (I-05)" if announced else "not announced (I-04)"
        reasons.append(_spot_reason("I-04" if not announced else "I-05", f"it was {why}"))
        spot = (GAME_BALL,)
    if pocketed:
        text = f"Legal break and {balls_words(sorted(pocketed))} pocketed: {player} continues"
        reasons.append(Reason("CONTINUE", "Casse 1", text + " and may push out (Push-out 1)."))
        return Outcome(
            player,
            spot=spot,
            push_out_next=True,
            turn_ends=False,
            reasons=reasons,
            summary=text + ".",
        )
    other = player.other()
    text = f"Legal break, nothing pocketed: {other} comes to the table"
    reasons.append(Reason("TURN_PASSES", "Casse 1", text + " and may push out (Push-out 1)."))
    return Outcome(other, push_out_next=True, reasons=reasons, summary=text + ".")


def push_out_outcome(ctx: ShotContext, facts: ShotFacts) -> Outcome:
    """A legal push-out (Push-out 1-4): the opponent's option; the 10 spotted (Push-out 2)."""
    player, other = ctx.player, ctx.player.other()
    reasons: list[Reason] = []
    spot: tuple[int, ...] = ()
    if GAME_BALL in facts.pocketed_balls:
        spot = (GAME_BALL,)
        reasons.append(_spot_reason("Push-out 2", "it was pocketed on a push-out"))
    stays = sorted(b for b in facts.pocketed_balls if b != GAME_BALL)
    if stays:
        reasons.append(
            Reason("STAYS_DOWN", "Push-out 2", f"{balls_words(stays).capitalize()} stay down.")
        )
    text = (
        f"Legal push-out by {player}: {other} may accept the table and shoot, "
        f"or hand it back to {player}"
    )
    reasons.append(Reason("OPTION", "Push-out 4", text + "."))
    option = PendingOption(holder=other, previous_shooter=player, after_push_out=True)
    return Outcome(other, option=option, spot=spot, reasons=reasons, summary=text + ".")


def play_outcome(ctx: ShotContext, facts: ShotFacts) -> Outcome:
    """A foul-free shot after the break (D1b, D2, D3, D4, D5, I-06, I-08, I-10, I-11, I-13)."""
    player, call = ctx.player, ctx.shot.declarations.call
    made = call is not None and call.complete and _pocketed_in(facts, call.ball, call.pocket)
    if made and call is not None and call.ball == GAME_BALL:
        text = f"{player} pocketed the called 10 in {pocket_words(call.pocket)} on a legal shot"
        return Outcome(
            None,
            winner=player,
            reasons=[Reason("WIN", "Déroulement 5", text + ".")],
            summary=f"{text}: {player} wins the rack.",
        )
    reasons: list[Reason] = []
    spot: tuple[int, ...] = ()
    if GAME_BALL in facts.pocketed_balls:
        spot = (GAME_BALL,)
        why = "called in another pocket" if call and call.ball == GAME_BALL else "not called"
        reasons.append(
            _spot_reason("I-06", f"it was {why}, so not legally pocketed (Déroulement 1c)")
        )
    if made and call is not None:
        text = f"{player} pocketed the called {call.ball} in {pocket_words(call.pocket)}"
        reasons.append(Reason("CONTINUE", "Déroulement 1b", text + " and continues."))
        return Outcome(
            player, spot=spot, turn_ends=False, reasons=reasons, summary=text + " and continues."
        )
    return _unmade_outcome(ctx, facts, spot, reasons)


def _unmade_outcome(
    ctx: ShotContext, facts: ShotFacts, spot: tuple[int, ...], reasons: list[Reason]
) -> Outcome:
    """No called ball made: D3 option, I-10 option (flag), or D4 the inning ends."""
    player, other, lowest = ctx.player, ctx.player.other(), ctx.lowest
    call = ctx.shot.declarations.call
    if ctx.shot.declarations.safety_intended:
        reasons.append(
            Reason("SAFETY", "I-13", "FFB has no safety call: the shot is judged as any other.")
        )
    down = facts.pocketed_balls
    choice = f"{other} chooses to shoot or to hand the table back to {player}"
    if lowest is not None and lowest in down:
        wrong_pocket = call is not None and call.complete and call.ball == lowest
        clause = "I-08" if wrong_pocket else "Déroulement 3"
        text = f"{player} pocketed the lowest ball, the {lowest}, without announcing it: {choice}"
        reasons.append(Reason("OPTION", clause, text + " (Déroulement 3)."))
        return _option(player, spot, reasons, text)
    if down and ctx.config.any_wrongful_pocket_gives_option:
        text = (
            f"{balls_words(sorted(down)).capitalize()} pocketed without the called shot: {choice}"
        )
        reasons.append(Reason("OPTION", "I-10", text + " (option_on_any_wrongful_pocket)."))
        return _option(player, spot, reasons, text)
    stays = sorted(b for b in down if b != GAME_BALL)
    if stays:
        reasons.append(
            Reason(
                "STAYS_DOWN",
                "I-10",
                f"{balls_words(stays).capitalize()} pocketed without being called: "
                "stays down, no option (Déroulement 1c, 4).",
            )
        )
    text = f"No ball legally pocketed: {player}'s inning ends; {other} must play from position"
    reasons.append(Reason("TURN_PASSES", "Déroulement 4", text + "."))
    return Outcome(other, spot=spot, reasons=reasons, summary=text + ".")


def _option(player: Player, spot: tuple[int, ...], reasons: list[Reason], text: str) -> Outcome:
    option = PendingOption(holder=player.other(), previous_shooter=player)
    return Outcome(player.other(), option=option, spot=spot, reasons=reasons, summary=text + ".")
