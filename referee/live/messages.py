"""Wire messages of the live service: bodies of the operator's POSTs.

Names follow rules.md (players "A"/"B", pockets of design.md §3, referee fouls of rules.md §4).
A malformed body is answered 422 by FastAPI with the offending field in `detail[].loc`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Player = Literal["A", "B"]
PocketName = Literal[
    "head_left", "head_right", "side_left", "side_right", "foot_left", "foot_right"
]
RefereeFoulName = Literal[
    "no_foot_on_floor",
    "ball_touched",
    "double_hit",
    "push_shot",
    "balls_moving",
    "bad_cue_ball_placement",
    "cue_on_table",
    "played_out_of_turn",
    "slow_play",
]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Players(_Body):
    A: str = Field(min_length=1, max_length=60)
    B: str = Field(min_length=1, max_length=60)


class StartMatch(_Body):
    """POST /api/match: a new match becomes the current one."""

    players: Players
    breaker: Player
    race_to: int | None = Field(
        default=None, ge=1, le=99, description="racks to win the match (none: no limit)"
    )


class DeclareCall(_Body):
    """POST /api/declare/call: the ball and pocket called for the next shot."""

    ball: int = Field(ge=1, le=10)
    pocket: PocketName
    source: Literal["announced", "obvious"] = "announced"


class BreakAnnounce10(_Body):
    """POST /api/declare/break-10: the breaker announces the 10 (optionally in a pocket)."""

    pocket: PocketName | None = None


class OptionChoice(_Body):
    """POST /api/option: the holder of a pending option chooses."""

    choice: Literal["shoot", "hand_back"]


class RefereeFoul(_Body):
    """POST /api/foul: a foul only a person can see, for the shot being played."""

    foul: RefereeFoulName


class Warning(_Body):
    """POST /api/warning: the warning to a player on two consecutive fouls."""

    player: Player


class NewRack(_Body):
    """POST /api/rack: rack the balls; the breaker alternates unless named."""

    breaker: Player | None = None


class PocketedBall(_Body):
    ball: int = Field(ge=1, le=10)
    pocket: PocketName


class FactsCorrection(_Body):
    """Shot facts to replace (rules.md §4); fields left out keep the camera's value."""

    first_object_ball_contacted: int | None = Field(default=None, ge=1, le=10)
    cushion_after_first_contact: list[int | Literal["cue"]] | None = None
    object_balls_to_cushion_on_break: int | None = Field(default=None, ge=0, le=10)
    pocketed: list[PocketedBall] | None = None
    off_table: list[int] | None = Field(default=None, max_length=10)
    cue_ball_pocketed: bool | None = None
    cue_ball_off_table: bool | None = None
    cue_ball_cushion_before_first_contact: bool | None = None


class Correction(_Body):
    """POST /api/correct: amend a judged shot and judge it again (kept in the audit)."""

    target: int | None = Field(
        default=None, ge=1, le=2**62, description="shot action id; default the latest"
    )
    facts: FactsCorrection | None = None
    call: DeclareCall | None = None
    push_out: bool | None = None
    referee_fouls: list[RefereeFoulName] | None = None
    reason: str = Field(min_length=1, max_length=500)

    def payload(self, previous: dict[str, Any]) -> dict[str, Any]:
        """The stored correction; `previous` is the shot's declarations as judged."""
        out: dict[str, Any] = {"reason": self.reason}
        if self.target is not None:
            out["target"] = self.target
        if self.facts is not None:
            out["facts"] = self.facts.model_dump(exclude_unset=True, mode="json")
        if self.call is not None or self.push_out is not None:
            declarations = dict(previous)
            if self.call is not None:
                declarations["call"] = self.call.model_dump(mode="json")
            if self.push_out is not None:
                declarations["push_out"] = self.push_out
            out["declarations"] = declarations
        if self.referee_fouls is not None:
            out["referee_fouls"] = list(self.referee_fouls)
        return out


class ManualShot(_Body):
    """POST /api/shot: a shot the camera missed, entered by hand and judged (kept as a shot
    with its source and reason). Facts left out are the quiet ones: nothing hit, nothing
    pocketed, nothing to a cushion."""

    facts: FactsCorrection = Field(default_factory=FactsCorrection)
    reason: str = Field(default="entered by the operator", min_length=1, max_length=500)

    def payload(self) -> dict[str, Any]:
        """The stored shot: whole facts (rules.md §4), its source and reason."""
        quiet: dict[str, Any] = {
            "first_object_ball_contacted": None,
            "cushion_after_first_contact": [],
            "pocketed": [],
            "off_table": [],
            "cue_ball_pocketed": False,
            "cue_ball_off_table": False,
        }
        facts = quiet | self.facts.model_dump(exclude_unset=True, mode="json")
        return {"facts": facts, "source": "operator", "reason": self.reason}
