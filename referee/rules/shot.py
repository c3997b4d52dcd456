"""What a shot step brings to the engine (rules.md §4): declarations, facts, referee fouls."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from calibration.table import Pocket
from referee.rules.state import Player

CUE = "cue"


class CallSource(StrEnum):
    """How a call was made (I-29): spoken/entered, or confirmed as obvious by the referee."""

    ANNOUNCED = "announced"
    OBVIOUS = "obvious"


class RefereeFoul(StrEnum):
    """Fouls only a person can see, by their rules.md §4 names."""

    NO_FOOT_ON_FLOOR = "no_foot_on_floor"
    BALL_TOUCHED = "ball_touched"
    DOUBLE_HIT = "double_hit"
    PUSH_SHOT = "push_shot"
    BALLS_MOVING = "balls_moving"
    BAD_CUE_BALL_PLACEMENT = "bad_cue_ball_placement"
    CUE_ON_TABLE = "cue_on_table"
    PLAYED_OUT_OF_TURN = "played_out_of_turn"
    SLOW_PLAY = "slow_play"

    @property
    def code(self) -> str:
        """The foul code of rules.md §5 (F4..F13)."""
        return REFEREE_FOUL_CODES[self]


REFEREE_FOUL_CODES: dict[RefereeFoul, str] = {
    RefereeFoul.NO_FOOT_ON_FLOOR: "F4",
    RefereeFoul.BALL_TOUCHED: "F6",
    RefereeFoul.DOUBLE_HIT: "F7",
    RefereeFoul.PUSH_SHOT: "F8",
    RefereeFoul.BALLS_MOVING: "F9",
    RefereeFoul.BAD_CUE_BALL_PLACEMENT: "F10",
    RefereeFoul.CUE_ON_TABLE: "F11",
    RefereeFoul.PLAYED_OUT_OF_TURN: "F12",
    RefereeFoul.SLOW_PLAY: "F13",
}


@dataclass(frozen=True, slots=True)
class CalledShot:
    """One ball and one pocket (D2, I-28); an obvious shot may leave the pocket out (None:
    any pocket counts); an announced call without a pocket is kept but is no valid call."""

    ball: int
    pocket: Pocket | None
    source: CallSource = CallSource.ANNOUNCED

    @property
    def complete(self) -> bool:
        """D2: the ball and the pocket are named "si elles ne sont pas évidentes"; an
        announced call without its pocket does not let the referee judge the shot made
        ("pour qu'un coup annoncé soit valable..."), so it is no valid call."""
        return self.pocket is not None or self.source is CallSource.OBVIOUS

    def to_json(self) -> dict[str, Any]:
        pocket = None if self.pocket is None else self.pocket.value
        return {"ball": self.ball, "pocket": pocket, "source": self.source.value}


@dataclass(frozen=True, slots=True)
class Declarations:
    """What the shooter declared before the stroke.

    Attributes:
        call: the called ball and pocket, or None.
        push_out: a push-out was declared (Push-out 3).
        safety_intended: informative only: FFB has no safety call (I-13).
        break_announce_10: on the break, the breaker announced the 10 (Casse 4, I-05).
        break_announce_10_pocket: the pocket named with that announcement, if any.
        not_read: keys of the declarations object the rules do not know (said in the call).
    """

    call: CalledShot | None = None
    push_out: bool = False
    safety_intended: bool = False
    break_announce_10: bool = False
    break_announce_10_pocket: Pocket | None = None
    not_read: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PocketedBall:
    """An object ball that dropped during the shot, and where (None when not reported)."""

    ball: int
    pocket: Pocket | None = None


@dataclass(frozen=True, slots=True)
class ShotFacts:
    """What the camera reports about one shot (rules.md §4; names of design.md §5).

    Attributes:
        first_object_ball_contacted: the first object ball the cue ball touched, None if none.
        simultaneous_first_contact: balls hit first that the camera cannot order (I-07).
        cue_ball_cushion_before_first_contact: the cue ball touched a cushion before any ball.
        cushion_after_first_contact: balls ("cue" or 1..10) that reached a cushion after the
            first contact; a frozen ball that never left its rail is not in it (I-14).
        object_balls_to_cushion_on_break: break only: distinct object balls to a cushion;
            None when not reported (then counted from `cushion_after_first_contact`).
        pocketed: object balls pocketed during the shot (settle window, I-20).
        off_table: object balls driven off the playing surface (I-15).
        cue_ball_pocketed: the cue ball dropped.
        cue_ball_off_table: the cue ball left the playing surface.
        frozen_ball_touching_its_rail_without_leaving: balls frozen to a rail at the start that
            never left it (never count as reaching a cushion, I-14).
        balls_moving_at_strike: balls still moving when the cue ball was struck (F9).
        balls_disturbed: balls that moved with nothing touching them (F6).
        extra: the descriptive facts the rules do not use, kept for reports.
        first_contact_reported: False when the facts leave the first contact out altogether
            (no key, not even null): Casse 1's first contact, Fautes 2 and Fautes 3 are then
            not judged, as for any fact not reported. null is reported: no ball hit.
    """

    first_object_ball_contacted: int | None = None
    simultaneous_first_contact: tuple[int, ...] = ()
    cue_ball_cushion_before_first_contact: bool = False
    cushion_after_first_contact: tuple[int | str, ...] = ()
    object_balls_to_cushion_on_break: int | None = None
    pocketed: tuple[PocketedBall, ...] = ()
    off_table: tuple[int, ...] = ()
    cue_ball_pocketed: bool = False
    cue_ball_off_table: bool = False
    frozen_ball_touching_its_rail_without_leaving: tuple[int, ...] = ()
    balls_moving_at_strike: tuple[int, ...] = ()
    balls_disturbed: tuple[int, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    first_contact_reported: bool = True

    @property
    def pocketed_balls(self) -> tuple[int, ...]:
        return tuple(p.ball for p in self.pocketed)

    def pocket_of(self, ball: int) -> Pocket | None:
        return next((p.pocket for p in self.pocketed if p.ball == ball), None)

    @classmethod
    def from_json(cls, data: Any, balls_on_table: tuple[int, ...] | None = None) -> ShotFacts:
        """Read the rules.md §4 dict; raises RulesInputError naming the bad field.

        Args:
            data: the dict; `pocketed` as [{"ball": 3, "pocket": "foot_left"}] or [3].
            balls_on_table: when given, every ball named must be on the table.
        """
        from referee.rules.parse import parse_facts

        return parse_facts(data, balls_on_table)


@dataclass(frozen=True, slots=True)
class Shot:
    """One shot step: who played, what was declared, what happened, what a person saw.

    Attributes:
        declarations: the shooter's declarations.
        facts: the camera's facts; None when no stroke was played (e.g. slow play, F13).
        referee_fouls: fouls entered by the referee or operator.
        player: who actually played; None means the player whose turn it was (I-30).
    """

    declarations: Declarations = field(default_factory=Declarations)
    facts: ShotFacts | None = field(default_factory=ShotFacts)
    referee_fouls: tuple[RefereeFoul, ...] = ()
    player: Player | None = None

    @classmethod
    def from_json(cls, data: Any, balls_on_table: tuple[int, ...] | None = None) -> Shot:
        """Read a scenario shot step (`declarations`, `shot`, `referee_fouls`, `player`)."""
        from referee.rules.parse import parse_shot

        return parse_shot(data, balls_on_table)
