"""The rules engine: `decide` a shot, `choose_option`, `warn`, `next_rack` (pure functions).

Each takes the state before the step and returns `(Call, GameState)`; bad input raises
`RulesInputError` and leaves nothing changed (states are immutable).
"""

from __future__ import annotations

from dataclasses import replace

from referee.rules.call import Call, FoulCode, Reason
from referee.rules.config import BreakOrder, RulesConfig
from referee.rules.declarations import (
    check_in_play,
    declaration_notes,
    push_out_allowed,
)
from referee.rules.errors import RulesInputError
from referee.rules.outcome import Outcome, break_outcome, play_outcome, push_out_outcome
from referee.rules.predicates import ShotContext, find_fouls
from referee.rules.shot import RefereeFoul, Shot, ShotFacts
from referee.rules.state import (
    GAME_BALL,
    OPTION_CHOICES,
    CueBall,
    GameState,
    OptionChoice,
    Player,
)

DEFAULT_CONFIG = RulesConfig()


def _validate_shot(shot: Shot, state: GameState) -> None:
    """Every ball the step names must be on the table; a step needs facts or a referee foul."""
    call = shot.declarations.call
    if call is not None and call.ball not in state.balls_on_table:
        raise RulesInputError("declarations.call.ball", f"the {call.ball} is already down")
    facts = shot.facts
    if facts is None:
        if not shot.referee_fouls:
            raise RulesInputError("shot", "no shot facts and no referee foul: nothing to judge")
        return
    named = {
        "shot.pocketed": facts.pocketed_balls,
        "shot.off_table": facts.off_table,
        "shot.simultaneous_first_contact": facts.simultaneous_first_contact,
        "shot.first_object_ball_contacted": tuple(
            b for b in (facts.first_object_ball_contacted,) if b is not None
        ),
    }
    for where, balls in named.items():
        gone = [b for b in balls if b not in state.balls_on_table]
        if gone:
            raise RulesInputError(where, f"the {gone[0]} was not on the table")


def _default_player(shot: Shot, at_table: Player) -> Player:
    """Who played when the step does not say: the player at the table, or the other one when
    the referee entered `played_out_of_turn` (I-30: the player at the table never plays out
    of his own turn, so the stroke was his opponent's)."""
    if RefereeFoul.PLAYED_OUT_OF_TURN in shot.referee_fouls:
        return at_table.other()
    return at_table


def _resolve_player(shot: Shot, state: GameState) -> tuple[Player, GameState, list[Reason]]:
    """Who played, and the state he played in (an open option is closed by playing)."""
    assert state.turn is not None
    player = shot.player or _default_player(shot, state.turn)
    option = state.pending_option
    if option is None:
        return player, state, []
    taken = state.with_changes(turn=option.holder, pending_option=None)
    if player is option.holder:
        text = f"{player} played without stating a choice: taken as accepting the table"
        return player, taken, [Reason("OPTION_TAKEN", "Push-out 4a / Déroulement 3", text + ".")]
    return player, taken, []


def decide(
    shot: Shot, state: GameState, config: RulesConfig = DEFAULT_CONFIG
) -> tuple[Call, GameState]:
    """Judge one shot.

    Args:
        shot: the shot step (declarations, camera facts, referee fouls, who played).
        state: the state before the shot.
        config: rule options.

    Returns:
        The call and the state after the shot.

    Raises:
        RulesInputError: the rack is over, or the shot names a ball that is not on the table.
    """
    check_in_play(state)
    _validate_shot(shot, state)
    player, state, notes = _resolve_player(shot, state)
    allowed = push_out_allowed(state)[0] and player is state.turn
    ctx = ShotContext(state, shot, config, player, push_out=shot.declarations.push_out and allowed)
    notes += declaration_notes(ctx)
    fouls = find_fouls(ctx)
    if fouls:
        return _after_foul(ctx, fouls, notes)
    facts = shot.facts or ShotFacts()
    if state.is_break:
        outcome = break_outcome(ctx, facts)
    elif ctx.push_out:
        outcome = push_out_outcome(ctx, facts)
    else:
        outcome = play_outcome(ctx, facts)
    return _apply(ctx, outcome, (), notes)


def _after_foul(
    ctx: ShotContext, fouls: list[tuple[FoulCode, str]], notes: list[Reason]
) -> tuple[Call, GameState]:
    """One penalty for all the fouls (I-18); three fouls and the warning (Fautes, T1-T3)."""
    state, player, other = ctx.state, ctx.player, ctx.player.other()
    codes = tuple(code for code, _ in fouls)
    what = "; ".join(text for _, text in fouls)
    label = ", ".join(dict.fromkeys(code.clause for code in codes))
    reasons = [Reason(c.value, c.clause, f"Foul ({c.clause}): {t}.") for c, t in fouls]
    count, warned = state.consecutive_fouls[player], state.warned[player]
    if count >= 2 and warned:
        text = f"third consecutive foul by {player} after the warning: {other} wins the rack"
        reasons.append(Reason("THREE_FOULS", "Fautes (3 fautes)", text[0].upper() + text[1:] + "."))
        outcome = Outcome(
            None,
            winner=other,
            reasons=reasons,
            summary=f"Foul by {player} ({label}): {what}. {text[0].upper()}{text[1:]}.",
        )
        return _apply(ctx, outcome, codes, notes)
    spot = _spot_after_foul(ctx, reasons)
    if count >= 2:
        reasons.append(
            Reason(
                "UNWARNED_FOUL",
                "Fautes (avertissement a-c)",
                f"{player} was not warned after his second foul: this foul is not a "
                "third one, the count stays at two and the warning is still due.",
            )
        )
    hand = f"{other} has ball in hand anywhere"
    reasons.append(Reason("BALL_IN_HAND", "Fautes (intro)", hand + "."))
    summary = f"Foul by {player} ({label}): {what}. {hand}."
    if spot:
        summary += " The 10 is spotted."
    if count >= 2:
        summary += f" {player} was not warned: not a third foul, the count stays at two."
    outcome = Outcome(other, spot=spot, reasons=reasons, summary=summary)
    return _apply(ctx, outcome, codes, notes)


def _spot_after_foul(ctx: ShotContext, reasons: list[Reason]) -> tuple[int, ...]:
    facts = ctx.facts
    if facts is None or not ({GAME_BALL} & {*facts.pocketed_balls, *facts.off_table}):
        return ()
    off = GAME_BALL in facts.off_table
    clause = (
        "Casse 3" if off and ctx.is_break else ("Casse 4" if ctx.is_break else "Déroulement 1c")
    )
    how = "driven off the table" if off else "pocketed on a foul"
    reasons.append(Reason("SPOT", clause, f"The 10 goes back on the foot spot: it was {how}."))
    return (GAME_BALL,)


def _apply(
    ctx: ShotContext,
    outcome: Outcome,
    codes: tuple[FoulCode, ...],
    notes: list[Reason],
) -> tuple[Call, GameState]:
    """Build the call and the next state from an outcome.

    A foul adds one to the shooter's count, held at two while he is unwarned (T3); a shot
    without a foul resets his count and his warning (I-19). A warning counts only when given
    after the second foul ("Après la deuxième faute consécutive ... doit avertir"): a warning
    a state carried from before that foul is dropped when the foul brings him to two. Once
    the rack is over the counts and warnings reset, nothing is spotted and every pocketed
    ball stays down.
    """
    state, facts = ctx.state, ctx.facts or ShotFacts()
    down = tuple(sorted(facts.pocketed_balls))
    left = {b for b in state.balls_on_table if b not in down and b not in facts.off_table}
    if outcome.winner is not None:
        new = GameState(
            balls_on_table=tuple(sorted(left)), turn=None, breaker=state.breaker, is_break=False,
            cue_ball=state.cue_ball, rack_winner=outcome.winner,
        )  # fmt: skip
        reasons = (*notes, *outcome.reasons)
        call = Call(ctx.player, codes, None, None, (), down, None, outcome.winner, True, new,
                    reasons, outcome.summary)  # fmt: skip
        return call, new
    player, count = ctx.player, state.consecutive_fouls[ctx.player]
    new = state.with_changes(
        balls_on_table=tuple(sorted(left | set(outcome.spot))), turn=outcome.next_turn,
        is_break=False, push_out_available=outcome.push_out_next,
        cue_ball=CueBall.IN_HAND_ANYWHERE if codes else CueBall.IN_POSITION,
        consecutive_fouls={**state.consecutive_fouls, player: min(count + 1, 2) if codes else 0},
        warned={**state.warned, player: state.warned[player] and bool(codes) and count >= 2},
        pending_option=outcome.option,
    )  # fmt: skip
    summary = outcome.summary + (" The 10 is spotted." if outcome.spot and not codes else "")
    call = Call(
        shooter=player, fouls=codes, next_shooter=None if outcome.option else outcome.next_turn,
        cue_ball_next=new.cue_ball, spot=outcome.spot,
        remain_pocketed=tuple(b for b in down if b not in outcome.spot), option=outcome.option,
        rack_winner=None, turn_ends=outcome.turn_ends, state=new,
        reasons=(*notes, *outcome.reasons, *_warning_reasons(new)), summary=summary,
    )  # fmt: skip
    return call, new


def _warning_reasons(state: GameState) -> list[Reason]:
    due = state.warning_due
    if due is None:
        return []
    text = (
        f"{due} is on two consecutive fouls: he must be warned before his next shot; "
        "a third foul after the warning loses the rack."
    )
    return [Reason("WARNING_DUE", "Fautes (avertissement)", text)]


def choose_option(
    state: GameState, choice: object, player: Player | None = None
) -> tuple[Call, GameState]:
    """The holder of a pending option shoots or hands the table back (Push-out 4, D3, I-35).

    Raises:
        RulesInputError: no option pending, wrong player, or an unknown choice.
    """
    check_in_play(state)
    option = state.pending_option
    if option is None:
        raise RulesInputError("choice", "no option is pending: there is nothing to choose")
    if player is not None and player is not option.holder:
        raise RulesInputError("player", f"the option belongs to {option.holder}, not {player}")
    if not isinstance(choice, str) or choice not in OPTION_CHOICES:
        raise RulesInputError("choice", f"expected 'shoot' or 'hand_back', got {choice!r}")
    picked = OptionChoice(choice)
    holder = option.holder
    if picked is OptionChoice.SHOOT:
        nxt, text = holder, f"{holder} accepts the table and shoots from where the cue ball lies"
    else:
        nxt = option.previous_shooter
        text = f"{holder} hands the table back: {nxt} must shoot from where the cue ball lies"
    text += "; no push-out (I-35)" if option.after_push_out else ""
    clause = "Push-out 4" if option.after_push_out else "Déroulement 3"
    new = state.with_changes(
        turn=nxt, pending_option=None, push_out_available=False, cue_ball=CueBall.IN_POSITION
    )
    call = status_call(new, (Reason("OPTION_CHOICE", clause, text + "."),), text + ".")
    return replace(call, shooter=holder, turn_ends=picked is OptionChoice.HAND_BACK), new


def status_call(state: GameState, reasons: tuple[Reason, ...], summary: str) -> Call:
    """A call for a step without a stroke (warning, new rack, visual check): the state as is."""
    shooter = state.shooter
    return Call(
        shooter=None,
        fouls=(),
        next_shooter=shooter,
        cue_ball_next=None if state.is_over else state.cue_ball,
        spot=(),
        remain_pocketed=(),
        option=state.pending_option,
        rack_winner=state.rack_winner,
        turn_ends=False,
        state=state,
        reasons=(*reasons, *_warning_reasons(state)),
        summary=summary,
    )


def warn(state: GameState, player: Player, by: str | None = None) -> tuple[Call, GameState]:
    """Record the warning a player on two consecutive fouls must receive (T2, I-24).

    A warning given before the second consecutive foul is not the warning of the rules: it
    has no effect (the warning must follow the second foul), and the call says so.

    Args:
        state: the state before the warning.
        player: the player warned.
        by: who warned him ("B", "referee"): the opponent's warning is valid (FFB).

    Raises:
        RulesInputError: the rack is over.
    """
    check_in_play(state)
    count = state.consecutive_fouls[player]
    who = f" by {by}" if by else ""
    if count < 2:
        text = (
            f"{player} is on {count} consecutive foul{'s' if count != 1 else ''}: a warning "
            "counts only after the second, so this one has no effect"
        )
        new = state
    elif state.warned[player]:
        text, new = f"{player} was already warned", state
    else:
        text = f"{player} is warned{who}: he is on two consecutive fouls; a third loses the rack"
        new = state.with_changes(warned={**state.warned, player: True})
    reason = Reason("WARNING", "Fautes (avertissement)", text + ".")
    return status_call(new, (reason,), text + "."), new


def concede(state: GameState, player: Player) -> tuple[Call, GameState]:
    """A player concedes the rack: his opponent wins it. The FFB text is silent; WPA (1.x,
    "Concession") makes a concession a loss. Counts and warnings reset as at any rack's end.

    Raises:
        RulesInputError: the rack is over.
    """
    check_in_play(state)
    winner = player.other()
    new = GameState(
        balls_on_table=state.balls_on_table, turn=None, breaker=state.breaker, is_break=False,
        cue_ball=state.cue_ball, rack_winner=winner,
    )  # fmt: skip
    text = f"{player} concedes the rack: {winner} wins it"
    call = status_call(new, (Reason("CONCESSION", "WPA (concession)", text + "."),), text + ".")
    return replace(call, shooter=player, turn_ends=True), new


def next_rack(state: GameState, config: RulesConfig = DEFAULT_CONFIG) -> GameState:
    """The next rack once this one is won: who breaks follows `config.break_order` (I-23)."""
    if state.rack_winner is None:
        raise RulesInputError("state", "the rack is not over")
    breaker = {
        BreakOrder.ALTERNATE: state.breaker.other(),
        BreakOrder.WINNER: state.rack_winner,
        BreakOrder.LOSER: state.rack_winner.other(),
    }[config.break_order]
    return GameState.new_rack(breaker)
