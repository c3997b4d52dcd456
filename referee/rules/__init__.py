"""The FFB ten-ball rules engine: pure, deterministic, standard library only.

`decide(shot, state, config) -> (Call, GameState)` judges a shot; `choose_option`, `warn`,
`check_rack` and `next_rack` handle the other steps; a `Match` keeps the history of a match
(undo, corrections). Inputs and outputs follow rules.md §3-5.
"""

from referee.rules.call import Call, FoulCode, Reason
from referee.rules.config import BreakOrder, RulesConfig, Variant
from referee.rules.declarations import push_out_allowed, validate_declarations
from referee.rules.engine import choose_option, concede, decide, next_rack, warn
from referee.rules.errors import RulesInputError
from referee.rules.match import Correction, Match, MatchEntry
from referee.rules.rack import RackCheck, check_rack
from referee.rules.shot import (
    CalledShot,
    CallSource,
    Declarations,
    PocketedBall,
    RefereeFoul,
    Shot,
    ShotFacts,
)
from referee.rules.spotting import spot_position
from referee.rules.state import CueBall, GameState, OptionChoice, PendingOption, Player
from referee.rules.steps import apply_step, initial_state, run_step

__all__ = [
    "BreakOrder",
    "Call",
    "CallSource",
    "CalledShot",
    "Correction",
    "CueBall",
    "Declarations",
    "FoulCode",
    "GameState",
    "Match",
    "MatchEntry",
    "OptionChoice",
    "PendingOption",
    "Player",
    "PocketedBall",
    "RackCheck",
    "Reason",
    "RefereeFoul",
    "RulesConfig",
    "RulesInputError",
    "Shot",
    "ShotFacts",
    "Variant",
    "apply_step",
    "check_rack",
    "choose_option",
    "concede",
    "decide",
    "initial_state",
    "next_rack",
    "push_out_allowed",
    "run_step",
    "spot_position",
    "validate_declarations",
    "warn",
]
