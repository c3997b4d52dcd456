"""Plans a synthetic rack: the shots in clip time, their truth events, facts and declarations.

The rack is legal (1 on the foot spot, 10 in the middle of the three-ball row, the rest in a
random order from the seed), the cue ball goes behind the head string, and each shot starts
from the previous shot's final positions. Scripted fouls that pooltool cannot produce (a ball
leaving the table, a ball nudged at rest, a strike while balls roll, a 10 hanging on the lip)
are applied on top of the simulated motion by `vision.synthetic.scripts`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.table import TableSpec
from vision.synthetic.facts import shot_facts, simple_foul
from vision.synthetic.physics import ShotParams, SimulatedShot, pooltool_table
from vision.synthetic.scripts import SCRIPTED, Script, apply_script
from vision.synthetic.shots import KINDS, find_shot
from vision.synthetic.truth import TruthEvent
from vision.types import CUE

Positions = dict[int, tuple[float, float]]

LEAD_S = 1.0
"""Time from the start of the clip to the first strike (the cue stick comes in)."""
GAP_S = 1.2
"""Time between the balls coming to rest and the next strike."""
TAIL_S = 1.0
"""Time after the last shot ends before the clip ends."""


@dataclass(slots=True)
class PlannedShot:
    """One shot of the clip.

    Attributes:
        number: 1-based shot number (the break is 1).
        kind: the shot kind name (`shots.KINDS` or a scripted kind).
        strike_s: clip time of the strike.
        end_s: clip time the shot ends (balls at rest, or the next strike when cut short).
        sim: the simulation (shot-local time; the strike at 0).
        params: the stroke.
        start: positions at the strike (balls at rest unless `moving_at_strike`).
        events: truth events in clip time, scripts applied, shot_end included when at rest.
        facts: rules.md §4 facts.
        shooter: "A" or "B".
        declarations: declarations.jsonl objects for this shot.
        scripts: scripted overrides of the simulated motion.
    """

    number: int
    kind: str
    strike_s: float
    end_s: float
    sim: SimulatedShot
    params: ShotParams
    start: Positions
    events: list[TruthEvent]
    facts: dict[str, Any]
    shooter: str
    declarations: list[dict[str, Any]] = field(default_factory=list)
    scripts: list[Script] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RackPlan:
    """A planned rack: the opening layout, the shots and the clip length."""

    table: TableSpec
    fps: float
    rack: Positions
    shots: tuple[PlannedShot, ...]
    duration_s: float

    def events(self) -> list[TruthEvent]:
        """All truth events of the clip in time order."""
        out = [e for shot in self.shots for e in shot.events]
        return sorted(out, key=lambda e: e.time_s)

    def final_positions(self) -> Positions:
        """Positions after the last shot, scripts applied."""
        return self.shots[-1].start if not self.shots else _after(self.shots[-1])


def opening_rack(table: TableSpec, rng: np.random.Generator) -> Positions:
    """A legal ten-ball rack plus the cue ball behind the head string."""
    order = [int(b) for b in rng.permutation(np.arange(2, 10))]
    positions: Positions = dict(table.rack_positions_mm(order))
    x_mm = table.head_string_x_mm - float(rng.uniform(60.0, 250.0))
    y_mm = table.width_mm / 2.0 + float(rng.uniform(-0.3, 0.3)) * table.width_mm
    positions[CUE] = (x_mm, y_mm)
    return positions


def plan_rack(
    table: TableSpec, shot_kinds: list[str], fps: float, rng: np.random.Generator
) -> RackPlan:
    """Play the listed shot kinds in order from a fresh rack.

    Args:
        table: the table (its size sets pooltool's table).
        shot_kinds: kind names; the first is usually "break". Scripted kinds modify the
            shot they name (see `scripts.SCRIPTED`).
        fps: frame rate (facts carry frames).
        rng: the only source of randomness.

    Raises:
        ValueError: an unknown kind, or a kind not found from the layout it met.
    """
    unknown = [k for k in shot_kinds if k not in KINDS and k not in SCRIPTED]
    if unknown:
        known = ", ".join(sorted([*KINDS, *SCRIPTED]))
        raise ValueError(f"unknown shot kind(s) {unknown}; known kinds: {known}")
    physics_table = pooltool_table(table)
    rack = opening_rack(table, rng)
    positions, time_s, shooter = dict(rack), LEAD_S, "A"
    shots: list[PlannedShot] = []
    for number, kind in enumerate(shot_kinds, start=1):
        shot = _plan_one(number, kind, positions, time_s, shooter, table, physics_table, rng, fps)
        shots.append(shot)
        positions = _after(shot)
        time_s = shot.end_s + GAP_S
        lowest = min([b for b in shot.start if b != CUE], default=10)
        if simple_foul(shot.facts, lowest) or not shot.facts["pocketed"]:
            shooter = "B" if shooter == "A" else "A"
        if CUE not in positions:
            positions[CUE] = _ball_in_hand(positions, table, rng)
    duration = shots[-1].end_s + TAIL_S if shots else LEAD_S
    return RackPlan(table, fps, rack, tuple(shots), duration)


def _plan_one(  # noqa: PLR0913 - the planner's state travels together
    number: int,
    kind: str,
    positions: Positions,
    strike_s: float,
    shooter: str,
    table: TableSpec,
    physics_table: Any,
    rng: np.random.Generator,
    fps: float,
) -> PlannedShot:
    base = SCRIPTED[kind].base_kind if kind in SCRIPTED else kind
    found = find_shot(base, positions, table, rng, physics_table)
    events = [e.shifted(strike_s) for e in found.sim.events]
    end_s = strike_s + found.sim.duration_s
    events.append(TruthEvent(end_s, "shot_end"))
    shot = PlannedShot(
        number,
        kind,
        strike_s,
        end_s,
        found.sim,
        found.params,
        dict(positions),
        events,
        found.facts,
        shooter,
    )
    if found.call is not None:
        ball, pocket = found.call
        shot.declarations.append({"shot": number, "type": "call", "ball": ball, "pocket": pocket})
    if kind == "safety":
        shot.declarations.append({"shot": number, "type": "safety"})
    if kind in SCRIPTED:
        apply_script(shot, SCRIPTED[kind], table, rng)
    shot.facts = shot_facts(
        [e for e in shot.events if e.kind != "shot_end"],
        fps,
        number == 1 and kind == "break",
        moving_at_strike=(),
        disturbed=[b for s in shot.scripts for b in s.disturbed()],
    )
    return shot


def _after(shot: PlannedShot) -> Positions:
    """Positions at rest after a shot, scripted changes included."""
    positions = dict(shot.sim.final_xy_mm)
    for script in shot.scripts:
        positions = script.final_positions(positions)
    return positions


def _ball_in_hand(
    positions: Positions, table: TableSpec, rng: np.random.Generator
) -> tuple[float, float]:
    """A free spot for the cue ball after a scratch (ball in hand anywhere)."""
    radius = table.ball_radius_mm
    for _ in range(500):
        xy = (
            float(rng.uniform(4 * radius, table.length_mm - 4 * radius)),
            float(rng.uniform(4 * radius, table.width_mm - 4 * radius)),
        )
        if all(np.hypot(xy[0] - x, xy[1] - y) > 3 * radius for x, y in positions.values()):
            return xy
    raise ValueError("no free spot for the cue ball")
