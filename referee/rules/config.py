"""Rule options (style.md §4: a frozen `RulesConfig`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Variant(StrEnum):
    """Which rule text the engine follows.

    FFB is the federation's "jeu de la 10" (rules.md). WPA switches the points where the
    world rules differ from the FFB text (rules.md §2, last paragraph): a cue ball that meets
    a cushion before the 1 on the break is no foul as long as the 1 is the first ball; a 10
    pocketed on the break never wins (it is spotted and the breaker continues); and every
    wrongfully pocketed ball gives the opponent the option.
    """

    FFB = "ffb"
    WPA = "wpa"


class BreakOrder(StrEnum):
    """Who breaks the racks after the first (I-23)."""

    ALTERNATE = "alternate"
    WINNER = "winner"
    LOSER = "loser"


@dataclass(frozen=True, slots=True)
class RulesConfig:
    """Options of the rules engine.

    Attributes:
        option_on_any_wrongful_pocket: I-10. False (FFB-literal, default): only an unannounced
            lowest ball gives the opponent the option (Déroulement 3); any other ball pocketed
            without the called shot being made just ends the inning. True (WPA/CSI reading):
            any such ball gives the option. Forced on by the WPA variant.
        variant: FFB (default) or WPA.
        break_order: who breaks later racks: alternate (default, I-23), the rack winner, or
            the rack loser.
    """

    option_on_any_wrongful_pocket: bool = False
    variant: Variant = Variant.FFB
    break_order: BreakOrder = BreakOrder.ALTERNATE

    def __post_init__(self) -> None:
        object.__setattr__(self, "variant", Variant(self.variant))
        object.__setattr__(self, "break_order", BreakOrder(self.break_order))

    @property
    def any_wrongful_pocket_gives_option(self) -> bool:
        return self.option_on_any_wrongful_pocket or self.variant is Variant.WPA

    @property
    def break_cushion_first_is_foul(self) -> bool:
        return self.variant is Variant.FFB

    @property
    def announced_ten_on_break_wins(self) -> bool:
        return self.variant is Variant.FFB
