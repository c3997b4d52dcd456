"""Scripted fouls layered on simulated motion (pooltool's balls never leave the bed).

Each script changes a planned shot's events (exact times) and, through `modify`, the sampled
motion of the balls it concerns; the rest of the shot stays pure physics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from vision.synthetic.render import Overlay

if TYPE_CHECKING:
    from vision.synthetic.physics import SimulatedShot
    from vision.synthetic.plan import PlannedShot

Positions = dict[int, tuple[float, float]]
FloatArray = NDArray[np.float64]


@dataclass(slots=True)
class Motion:
    """Sampled motion of all balls on the clip's time grid (mutable while being built).

    Attributes:
        time_s: (G,) clip times.
        xy_mm: (G, 11, 2) centres, table mm.
        height_mm: (G, 11) centre heights above the cloth, mm.
        angular_rad_s: (G, 11, 3) angular velocity in table axes, rad/s.
        drawn: (G, 11) bool, the ball is visible (on the table, dropping, or in the air).
        scale: (G, 11) radius factor (shrinks while dropping into a pocket).
        shade: (G, 11) brightness factor (darkens while dropping).
    """

    time_s: FloatArray
    xy_mm: FloatArray
    height_mm: FloatArray
    angular_rad_s: FloatArray
    drawn: NDArray[np.bool_]
    scale: FloatArray
    shade: FloatArray


class Script(Protocol):
    """A scripted change of a shot."""

    def disturbed(self) -> list[int]:
        """Balls this script moves with nothing touching them (charged to its shot)."""

    def final_positions(self, positions: Positions) -> Positions:
        """Positions at rest after the shot, given those the physics left."""

    def modify(self, motion: Motion, until_s: float) -> None:
        """Overwrite the sampled motion of the balls concerned before clip time `until_s`
        (the next strike)."""

    def overlays(self, time_s: float) -> list[Overlay]:
        """Hands or bodies this script draws over the table at clip time `time_s`."""


@dataclass(frozen=True, slots=True)
class ScriptKind:
    """A scripted shot kind: the simulated kind it starts from and how it is changed.

    Attributes:
        base_kind: the simulated kind searched for (`shots.KINDS`).
        build: makes the script once the shot is planned: (shot, table, context) -> Script.
        prepare: changes the positions before the stroke is searched (a nudged ball):
            (positions, table, rng) -> (positions, context).
        accept: an extra test of candidate simulations: (sim, table) -> bool.
    """

    base_kind: str
    build: Callable[[PlannedShot, TableSpec, Any], Script]
    prepare: Callable[[Positions, TableSpec, np.random.Generator], tuple[Positions, Any]] | None = (
        None
    )
    accept: Callable[[SimulatedShot, TableSpec], bool] | None = None
