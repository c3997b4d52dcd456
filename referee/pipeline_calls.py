"""The pipeline's last stage: a finished shot's facts and declarations -> the engine's call.

Keeps the game state across shots and racks, applies what the declarations file says
(call, push-out, warnings, referee fouls, option choices) and, where it says nothing, makes the
review's assumptions explicit. A call that rests on an uncertain fact or on an assumption (one
that changes the decision) is flagged for review, with the reasons, never presented as certain.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from referee.declarations import DeclarationLog, ShotDeclarations, assume_call
from referee.pipeline_doubt import decision_differs, doubts, lost_ball_doubts
from referee.rules import (
    GameState,
    Player,
    RulesConfig,
    RulesInputError,
    Shot,
    choose_option,
    decide,
    next_rack,
    warn,
)
from tracking.types import Event, EventKind
from vision.types import CUE

_BALL_LIST_FACTS = ("off_table", "balls_moving_at_strike", "balls_disturbed")


@dataclass(frozen=True, slots=True)
class CallConfig:
    """Options of the call stage.

    Attributes:
        rules: the rules engine's options.
        review_below_confidence: a shot whose facts are less certain than this is flagged
            for review. Raising it flags more calls.
    """

    rules: RulesConfig = field(default_factory=RulesConfig)
    review_below_confidence: float = 0.9


@dataclass(frozen=True, slots=True)
class ShotInput:
    """What the call stage needs of a finished shot (from the shot segmenter).

    Attributes:
        frame_strike / frame_end: the shot's first and last frame.
        time_strike_s: time of the strike, seconds (keys time-based declarations).
        facts: rules.md §4 facts (design.md §5 names) as a JSON dict.
        confidence: 0..1, how sure the facts are.
        events: the shot's events.
        uncertain: facts the segmenter is unsure of, in words.
        fact_confidence: 0..1 per fact name (rules.md §4 names), when the segmenter gives it.
        unaccounted: (ball, frame last seen) of each ball lost from sight while moving and
            never found, with no removal inferred: the call is flagged only when the ball's
            fate (a pocket, off the table) would change it.
    """

    frame_strike: int
    frame_end: int
    time_strike_s: float
    facts: dict[str, Any]
    confidence: float = 1.0
    events: tuple[Event, ...] = ()
    uncertain: tuple[str, ...] = ()
    fact_confidence: dict[str, float] = field(default_factory=dict)
    unaccounted: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class ShotResult:
    """A judged shot: the shots.jsonl object of design.md §5 and what the report shows."""

    number: int
    rack: int
    shot: ShotInput
    is_break: bool
    shooter: str | None
    declarations: dict[str, Any]
    call: dict[str, Any] | None
    review: tuple[str, ...]
    assumptions: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "shot": self.number,
            "rack": self.rack,
            "frame_strike": self.shot.frame_strike,
            "frame_end": self.shot.frame_end,
            "time_strike_s": round(self.shot.time_strike_s, 4),
            "is_break": self.is_break,
            "shooter": self.shooter,
            "facts": self.shot.facts,
            "declarations": self.declarations,
            "call": self.call,
            "confidence": round(self.shot.confidence, 4),
            "fact_confidence": {k: round(v, 4) for k, v in self.shot.fact_confidence.items()},
            "review": bool(self.review),
            "review_reasons": list(self.review),
            "assumptions": list(self.assumptions),
        }


def on_table_only(
    facts: Mapping[str, Any], on_table: Collection[int]
) -> tuple[dict[str, Any], list[str]]:
    """The facts without the object balls the game says are already down (camera
    confusion: a ghost at a pocket seen dropping again would make the rules refuse the whole
    shot). Keys are rewritten only where a ball was dropped from them.

    Returns:
        (the facts, a sentence per change for the call's review reasons).
    """
    on_table = {int(b) for b in on_table}
    clean, notes = dict(facts), []
    pocketed = [p for p in facts.get("pocketed") or [] if int(p.get("ball", 0)) in on_table]
    if len(pocketed) != len(facts.get("pocketed") or []):
        notes.append("the camera saw a ball drop that was already down: ignored")
        clean["pocketed"] = pocketed
    for key in _BALL_LIST_FACTS:
        balls = [b for b in facts.get(key) or [] if b == "cue" or b in on_table]
        if len(balls) != len(facts.get(key) or []):
            notes.append(f"{key} named a ball already down: ignored")
            clean[key] = balls
    first = facts.get("first_object_ball_contacted")
    if first is not None and first not in on_table:
        notes.append(f"first contact on the {first}, which was already down: treated as unknown")
        clean["first_object_ball_contacted"] = None
    return clean, notes


def _break_counted(shot: ShotInput, is_break: bool) -> dict[str, Any]:
    """The shot's facts, with the break's count of object balls to a cushion filled in from
    its cushion events when the game says the shot is a break but the segmenter did not see
    a rack (a false ball outside the rack, or rack balls hidden at the strike).

    The game state is the authority on which shot breaks a rack; the camera's rack test only
    decides how the segmenter fills the facts.
    """
    if not is_break or shot.facts.get("object_balls_to_cushion_on_break") is not None:
        return shot.facts
    balls = {
        e.balls[0]
        for e in shot.events
        if e.kind == EventKind.BALL_CUSHION and e.balls and e.balls[0] != CUE
    }
    return {**shot.facts, "object_balls_to_cushion_on_break": len(balls)}


class DeclarationSource(Protocol):
    """Where the call stage reads what was declared for each shot: a declarations file
    (`DeclarationLog`) or the live service's match (`referee.live.shadow`)."""

    @property
    def known(self) -> bool:
        """Whether this is the whole record (nothing is assumed) or nothing was given."""
        ...

    def for_shot(
        self, shot: int, strike_time_s: float, previous_strike_time_s: float | None
    ) -> ShotDeclarations:
        """The declarations of shot `shot` (1-based), struck at `strike_time_s`."""
        ...


class CallStage:
    """Judges shots in order, carrying the game state over shots and racks.

    Args:
        declarations: the declarations file (an empty `DeclarationLog` when none was given).
        config: options.
    """

    def __init__(
        self, declarations: DeclarationLog | None = None, config: CallConfig | None = None
    ) -> None:
        log = declarations or DeclarationLog()
        self.declarations: DeclarationSource = log
        self.config = config or CallConfig()
        self.state = GameState.new_rack(Player(log.breaker))
        self.rack = 1
        self._shots = 0
        self._previous_strike_s: float | None = None
        self._pending_choice: str | None = None

    def follow(self, state: GameState, declarations: DeclarationSource, rack: int) -> None:
        """Judge the next shots from a game kept elsewhere (the live service's match, with
        the operator's calls, options, undos and corrections): its state, what was declared
        for the next shot, and its rack number."""
        self.state = state
        self.declarations = declarations
        self.rack = rack

    def judge(self, shot: ShotInput) -> ShotResult:
        """The call of the next shot."""
        self._shots += 1
        declared = self.declarations.for_shot(
            self._shots, shot.time_strike_s, self._previous_strike_s
        )
        self._previous_strike_s = shot.time_strike_s
        assumptions = self._before_shot(declared)
        is_break = self.state.is_break
        shot = replace(shot, facts=_break_counted(shot, is_break))
        facts, notes = on_table_only(shot.facts, self.state.balls_on_table)
        undeclared = self._step(declared, facts)
        declared, assumed = assume_call(declared, facts, is_break, self.declarations.known)
        state_before = self.state
        call, review = self._decide(declared, facts)
        flagged = list(assumptions)
        step = self._step(declared, facts)
        if assumed and decision_differs(undeclared, step, state_before, self.config.rules):
            flagged += assumed
        assumptions += assumed
        review = [*notes, *review, *(f"assumption: {a}" for a in flagged)]
        review += self._uncertain(shot, step, state_before)
        review += [f"uncertain: {u}" for u in shot.uncertain]
        self._pending_choice = declared.option_choice
        return ShotResult(
            number=self._shots,
            rack=self.rack,
            shot=shot,
            is_break=is_break,
            shooter=None if call is None else call.get("shooter"),
            declarations=declared.declarations,
            call=call,
            review=tuple(review),
            assumptions=tuple(assumptions),
        )

    def _uncertain(self, shot: ShotInput, step: dict[str, Any], state: GameState) -> list[str]:
        """Why the call cannot be presented as certain: a weak fact it rests on."""
        below = self.config.review_below_confidence
        weak = {k: v for k, v in shot.fact_confidence.items() if v < below}
        lost = lost_ball_doubts(step, state, self.config.rules, shot.unaccounted)
        if weak:
            return doubts(step, state, self.config.rules, weak) + lost
        if shot.confidence < below and not shot.unaccounted:
            return [f"facts uncertain (confidence {shot.confidence:.2f})", *lost]
        return lost

    @staticmethod
    def _step(declared: ShotDeclarations, facts: dict[str, Any]) -> dict[str, Any]:
        return {
            "declarations": declared.declarations,
            "shot": facts,
            "referee_fouls": list(declared.referee_fouls),
        }

    def _before_shot(self, declared: ShotDeclarations) -> list[str]:
        """New rack, option choice and warnings that come before this shot."""
        assumptions: list[str] = []
        if self.state.is_over:
            self.state = next_rack(self.state, self.config.rules)
            self.rack += 1
        choice = self._pending_choice or declared.option_choice_before
        if self.state.pending_option is not None and choice is not None:
            _, self.state = choose_option(self.state, choice)
        elif self.state.pending_option is not None:
            holder = self.state.pending_option.holder
            assumptions.append(f"option choice not known: assumed {holder} accepted the table")
        for player in declared.warnings:
            if self.state.warning_due is Player(player):
                _, self.state = warn(self.state, Player(player))
        due = self.state.warning_due
        if due is not None and not self.declarations.known:
            _, self.state = warn(self.state, due)
            assumptions.append(f"warning not known: assumed {due} was warned on two fouls")
        return assumptions

    def _decide(
        self, declared: ShotDeclarations, facts: dict[str, Any]
    ) -> tuple[dict[str, Any] | None, list[str]]:
        step = self._step(declared, facts)
        shooter = self.state.turn
        try:
            call, self.state = decide(Shot.from_json(step), self.state, self.config.rules)
        except RulesInputError as error:
            return None, [f"no call: the rules engine refused the shot ({error})"]
        out = call.to_json()
        who = call.shooter or shooter
        out["shooter"] = who.value if who is not None else None
        return out, []
