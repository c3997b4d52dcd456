"""Plans a synthetic rack: the shots in clip time, their truth events, facts and declarations.

The rack is legal (1 on the foot spot, 10 in the middle of the three-ball row, the rest in a
random order from the seed), the cue ball goes behind the head string, and each shot starts
from the previous shot's final positions. Scripted fouls that pooltool cannot produce (a ball
leaving the table, a ball nudged at rest, a strike while balls roll, a 10 hanging on the lip)
are applied on top of the simulated motion by `vision.synthetic.scripts`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.table import TableSpec
from vision.synthetic.facts import shot_facts, simple_foul
from vision.synthetic.fouls import SCRIPTED, Placement
from vision.synthetic.physics import ShotParams, SimulatedShot, pooltool_table, system_at
from vision.synthetic.scripts import Script
from vision.synthetic.shots import KINDS, FoundShot, SearchOptions, find_shot, open_options
from vision.synthetic.truth import TruthEvent
from vision.types import CUE

Positions = dict[int, tuple[float, float]]

LEAD_S = 1.0
"""Time from the start of the clip to the first strike (the cue stick comes in)."""
GAP_S = 1.2
"""Time between the balls coming to rest and the next strike."""
TAIL_S = 1.0
"""Time after the last shot ends before the clip ends."""
MOVING = "moving-strike"
PLACEMENT_TRIES = 200
"""Spots tried for the cue ball in hand before settling for any free spot."""


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


MOVING_MIN_SPEED_MM_S = 60.0
"""A ball this fast or faster counts as moving at a strike."""


@dataclass(frozen=True, slots=True)
class ShotRequest:
    """What to plan next: the kind, from where, when and by whom.

    Attributes:
        system: a pooltool System to strike instead of balls at rest (moving-strike).
        in_hand: the shooter has the cue ball in hand (after a foul) and may place it.
        before_moving: the next shot strikes while this one's balls still roll.
    """

    number: int
    kind: str
    positions: Positions
    strike_s: float
    shooter: str
    system: Any = None
    in_hand: bool = False
    before_moving: bool = False


def _assemble(request: ShotRequest, positions: Positions, found: FoundShot) -> PlannedShot:
    strike_s = request.strike_s
    events = [e.shifted(strike_s) for e in found.sim.events]
    end_s = strike_s + found.sim.duration_s
    events.append(TruthEvent(end_s, "shot_end"))
    shot = PlannedShot(
        request.number,
        request.kind,
        strike_s,
        end_s,
        found.sim,
        found.params,
        dict(positions),
        events,
        found.facts,
        request.shooter,
    )
    if found.call is not None:
        ball, pocket = found.call
        shot.declarations.append(
            {"shot": request.number, "type": "call", "ball": ball, "pocket": pocket}
        )
    if request.kind == "safety":
        shot.declarations.append({"shot": request.number, "type": "safety"})
    if request.kind == "push-out":
        shot.declarations.append({"shot": request.number, "type": "push_out"})
    return shot


@dataclass(slots=True)
class _Planner:
    table: TableSpec
    fps: float
    rng: np.random.Generator
    physics_table: Any

    def plan(self, request: ShotRequest) -> PlannedShot:
        """Search the stroke of `request.kind` and assemble the planned shot."""
        script = SCRIPTED.get(request.kind)
        positions = request.positions
        placed: tuple[tuple[float, float], tuple[float, float]] | None = None
        base = script.base_kind if script is not None else request.kind
        base = "touch" if base == MOVING else base  # the balls it aims at may be rolling
        if request.in_hand:
            placed = (positions[CUE], self.place_cue(base, positions))
            positions = {**positions, CUE: placed[1]}
        context: Any = None
        if script is not None and script.prepare is not None:
            positions, context = script.prepare(positions, self.table, self.rng)
        options = SearchOptions(self.physics_table, request.system, self._accept(request))
        try:
            found = find_shot(base, positions, self.table, self.rng, options)
        except ValueError as error:
            if base == request.kind:
                raise
            # Name the requested kind, not only the stroke it is scripted on.
            raise ValueError(f"{error} (a {request.kind!r} is scripted on it)") from None
        shot = _assemble(request, positions, found)
        if script is not None:
            shot.scripts.append(script.build(shot, self.table, context))
        if placed is not None:
            start = request.strike_s - GAP_S / 2
            shot.scripts.append(Placement(placed[0], placed[1], start, request.strike_s))
        return shot

    def _accept(self, request: ShotRequest) -> Callable[[SimulatedShot], bool] | None:
        script = SCRIPTED.get(request.kind)
        checks = [] if script is None or script.accept is None else [script.accept]
        if request.before_moving:
            checks.append(lambda sim, _: _moving_moment(sim) is not None)
        if not checks:
            return None
        return lambda sim: all(check(sim, self.table) for check in checks)

    def place_cue(self, kind: str, positions: Positions) -> tuple[float, float]:
        """Ball in hand: a free spot from which `kind` has an open line (else any free spot)."""
        others = {b: p for b, p in positions.items() if b != CUE}
        spot = _ball_in_hand(others, self.table, self.rng)
        for _ in range(PLACEMENT_TRIES):
            if open_options(kind, {**others, CUE: spot}, self.table):
                return spot
            spot = _ball_in_hand(others, self.table, self.rng)
        return spot

    def facts(self, shot: PlannedShot, moving: tuple[int, ...]) -> dict[str, Any]:
        facts = shot_facts(
            [e for e in shot.events if e.kind not in ("shot_end", "ball_disturbed")],
            self.fps,
            shot.number == 1 and shot.kind == "break",
            moving_at_strike=moving,
            disturbed=[b for s in shot.scripts for b in s.disturbed()],
        )
        late = [getattr(s, "ball", 10) for s in shot.scripts if getattr(s, "late_drop_s", None)]
        if late:
            facts["late_drops"] = late
        return facts


def check_kinds(shot_kinds: list[str]) -> None:
    """Raise ValueError naming any unknown kind (or a moving-strike with no shot before)."""
    known = {*KINDS, *SCRIPTED, MOVING}
    unknown = [k for k in shot_kinds if k not in known]
    if unknown:
        raise ValueError(f"unknown shot kind(s) {unknown}; known kinds: {', '.join(sorted(known))}")
    if not shot_kinds:
        raise ValueError("no shots given")
    if shot_kinds[0] == MOVING:
        raise ValueError("moving-strike needs a shot before it")


def plan_rack(
    table: TableSpec, shot_kinds: list[str], fps: float, rng: np.random.Generator
) -> RackPlan:
    """Play the listed shot kinds in order from a fresh rack.

    Args:
        table: the table (its size sets pooltool's table).
        shot_kinds: kind names; the first is usually "break". Scripted kinds modify the
            shot they name (see `fouls.SCRIPTED`); "moving-strike" strikes the cue ball while
            balls of the previous shot still roll.
        fps: frame rate (facts carry frames).
        rng: the only source of randomness.

    Raises:
        ValueError: an unknown kind, or a kind not found from the layout it met.
    """
    check_kinds(shot_kinds)
    planner = _Planner(table, fps, rng, pooltool_table(table))
    rack = opening_rack(table, rng)
    positions, time_s, shooter, in_hand = dict(rack), LEAD_S, "A", False
    shots: list[PlannedShot] = []
    for number, kind in enumerate(shot_kinds, start=1):
        moving: tuple[int, ...] = ()
        if kind == MOVING:
            shot, moving = _strike_while_moving(planner, shots[-1], number, shooter)
        else:
            ahead = number < len(shot_kinds) and shot_kinds[number] == MOVING
            shot = planner.plan(
                ShotRequest(number, kind, positions, time_s, shooter, None, in_hand, ahead)
            )
        shots.append(shot)
        positions = _after(shot)
        time_s = shot.end_s + GAP_S
        lowest = min([b for b in shot.start if b != CUE], default=10)
        shot.facts = planner.facts(shot, moving)
        in_hand = simple_foul(shot.facts, lowest) and kind != "push-out"
        if in_hand or not shot.facts["pocketed"]:
            shooter = "B" if shooter == "A" else "A"
        if CUE not in positions:
            positions[CUE] = _ball_in_hand(positions, table, rng)
    duration = shots[-1].end_s + TAIL_S if shots else LEAD_S
    return RackPlan(table, fps, rack, tuple(shots), duration)


def _strike_while_moving(
    planner: _Planner, previous: PlannedShot, number: int, shooter: str
) -> tuple[PlannedShot, tuple[int, ...]]:
    """Cut `previous` short: strike the cue ball at rest while other balls still roll."""
    if previous.scripts:
        raise ValueError("moving-strike cannot follow a scripted shot")
    moment = _moving_moment(previous.sim)
    if moment is None:
        raise ValueError(
            f"moving-strike: no moment in shot {previous.number} with the cue ball at rest and "
            "another ball rolling; try another seed or another shot before it"
        )
    cut, rolling = moment
    system, positions = system_at(previous.sim, cut)
    strike_s = previous.strike_s + cut
    previous.events[:] = [
        e for e in previous.events if e.time_s < strike_s and e.kind != "shot_end"
    ]
    previous.end_s = strike_s
    previous.facts = planner.facts(previous, ())
    shot = planner.plan(ShotRequest(number, MOVING, positions, strike_s, shooter, system))
    return shot, rolling


def _moving_moment(sim: SimulatedShot) -> tuple[float, tuple[int, ...]] | None:
    """First time (shot-local) after 0.8 s with the cue ball at rest on the table and an object
    ball still rolling fast enough to roll on, and the balls rolling then."""
    times = np.arange(0.8, sim.duration_s, 0.01)
    if times.size == 0:
        return None
    states = sim.states(times)
    speed = np.linalg.norm(states.velocity_mm_s, axis=2)
    on = states.present[None, :] & ~states.pocketed
    cue_still = (speed[:, CUE] < 1.0) & on[:, CUE]
    rolling = (speed[:, 1:] >= 3 * MOVING_MIN_SPEED_MM_S) & on[:, 1:]
    candidates = np.flatnonzero(cue_still & rolling.any(axis=1))
    if candidates.size == 0:
        return None
    first = int(candidates[0])
    return float(times[first]), tuple(int(b) + 1 for b in np.flatnonzero(rolling[first]))


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
