"""What the shooter declared, judged before the stroke (I-12, I-05, D2) and noted in calls."""

from __future__ import annotations

from referee.rules.call import Reason
from referee.rules.errors import RulesInputError
from referee.rules.predicates import Check, ShotContext
from referee.rules.shot import Declarations, RefereeFoul
from referee.rules.state import GAME_BALL, CueBall, GameState


def push_out_allowed(state: GameState) -> Check:
    """Whether the next shot may be a push-out (Push-out 1 and 5, I-12, I-35)."""
    if state.is_over or state.is_break:
        return False, "a push-out is only possible after the break (Push-out 1)"
    if state.cue_ball is CueBall.IN_HAND_ANYWHERE:
        return False, "no push-out with ball in hand after the break (Push-out 5)"
    if not state.push_out_available:
        return (
            False,
            "a push-out is only allowed on the first shot after a legal break (Push-out 1)",
        )
    return True, "first shot after a legal break"


def validate_declarations(declarations: Declarations, state: GameState) -> None:
    """Refuse, before the stroke, a declaration the rules do not allow (I-12, I-05, D2).

    Raises:
        RulesInputError: naming the declaration field.
    """
    check_in_play(state)
    allowed, why = push_out_allowed(state)
    if declarations.push_out and not allowed:
        raise RulesInputError("declarations.push_out", f"refused: {why} (I-12)")
    call = declarations.call
    if call is not None and call.ball not in state.balls_on_table:
        raise RulesInputError("declarations.call.ball", f"the {call.ball} is already down")
    if declarations.break_announce_10 and not state.is_break:
        raise RulesInputError(
            "declarations.break_announce_10", "the 10 is announced only before the break (Casse 4)"
        )


def check_in_play(state: GameState) -> None:
    if state.is_over:
        raise RulesInputError(
            "state", f"the rack is over ({state.rack_winner} won): start a new rack"
        )


def declaration_notes(ctx: ShotContext) -> list[Reason]:
    """Declarations the engine set aside, said aloud so nobody is surprised."""
    notes: list[Reason] = []
    decl, state = ctx.shot.declarations, ctx.state
    if decl.push_out and not ctx.push_out:
        why = push_out_allowed(state)[1] if ctx.player is state.turn else "played out of turn"
        notes.append(
            Reason(
                "PUSH_OUT_REFUSED",
                "I-12",
                f"Push-out not allowed ({why}): judged as a normal shot.",
            )
        )
    if decl.break_announce_10 and not state.is_break:
        notes.append(
            Reason("ANNOUNCE_IGNORED", "I-05", "The 10 is announced only on the break: no effect.")
        )
    if decl.call is not None and not decl.call.complete and not state.is_break:
        text = (
            f"The call of the {decl.call.ball} names no pocket and the shot was not confirmed "
            "obvious: it is no valid call (the shot is judged as not announced)."
        )
        notes.append(Reason("CALL_INCOMPLETE", "Déroulement 2", text))
    if decl.call is not None and state.is_break:
        if decl.call.ball == GAME_BALL:
            text = "The call of the 10 before the break is the breaker's announcement of the 10."
            notes.append(Reason("TEN_ANNOUNCED", "Casse 4 / I-05", text))
        else:
            text = "The break is not a called shot: the call has no effect."
            notes.append(Reason("CALL_IGNORED", "Déroulement 2", text))
    unknown = _not_read(ctx)
    if unknown:
        text = f"Not read (keys the rules do not know): {', '.join(unknown)}."
        notes.append(Reason("NOT_READ", "rules.md §4", text))
    if ctx.facts is not None and not ctx.facts.first_contact_reported:
        text = (
            "The first ball contacted was not reported: the first contact (Casse 1, Fautes 2) "
            "and the cushion after it (Fautes 3) are not judged."
        )
        notes.append(Reason("NOT_REPORTED", "rules.md §4", text))
    placement = RefereeFoul.BAD_CUE_BALL_PLACEMENT in ctx.shot.referee_fouls
    if placement and state.cue_ball is CueBall.IN_HAND_ANYWHERE:
        notes.append(
            Reason(
                "F10_NOT_APPLICABLE",
                "I-26",
                "Cue ball placement is free with ball in hand anywhere: not a foul (Fautes 10 "
                "applies to the break).",
            )
        )
    return notes


DESCRIPTIVE_FACTS = (
    "late_drops", "returned_to_bed_after_rail_top", "off_table_detail", "frozen_to_rail_at_start",
    "cue_ball_frozen_to", "cue_ball_airborne", "cue_ball_pocket",
)  # fmt: skip
"""rules.md §4 optional descriptive facts: read where they matter, never reported unread."""


def _not_read(ctx: ShotContext) -> list[str]:
    """Input keys of the step that no rule reads: an author's other name for a field the
    engine does not know would otherwise be dropped in silence."""
    unknown = [f"declarations.{k}" for k in ctx.shot.declarations.not_read]
    if ctx.facts is not None:
        unknown += [f"shot.{k}" for k in ctx.facts.extra if k not in DESCRIPTIVE_FACTS]
    return unknown
