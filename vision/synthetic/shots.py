"""Shot kinds and the search that finds a stroke producing each one.

A shot simulates in milliseconds, so each kind is found by random search over the aim (ghost
ball for a chosen ball and pocket, plus a cut error), the speed and the spin, keeping the first
stroke whose exact facts satisfy the kind's predicate. All randomness comes from the injected
generator, so a seed gives the same clip.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from calibration.table import Pocket, TableSpec
from vision.synthetic.facts import shot_facts
from vision.synthetic.physics import (
    PhysicsFailure,
    ShotParams,
    SimulatedShot,
    build_system,
    simulate_shot,
)
from vision.types import CUE

Positions = dict[int, tuple[float, float]]
Predicate = Callable[[dict[str, Any], int], bool]

MAX_TRIES = 250
"""Strokes tried per shot before giving up; raising it finds rarer shots, slower."""
AIM_JITTER_RAD = 0.003
"""Spread of the aim around the ghost-ball line (throw and cut errors); raising it explores
more kisses and combinations but makes clean pots rarer."""


@dataclass(frozen=True, slots=True)
class ShotKind:
    """How to look for one kind of shot.

    Attributes:
        name: the --shots name.
        target: "lowest", "other" (a ball that is not the lowest nor the 10), "any-ball" or
            "one" (the 1, for the break).
        speed_m_s: (low, high) cue speed range.
        predicate: facts, lowest ball -> whether the simulated shot is of this kind.
        call: declare the target ball and pocket (a shot that tries to pot).
        combination: aim the target so that it drives the 10 toward the pocket.
        rail_goal: drive the target at a point of a cushion, away from the pockets.
        top_spin: (low, high) follow (+) or draw (-) range.
    """

    name: str
    target: str
    speed_m_s: tuple[float, float]
    predicate: Predicate
    call: bool = False
    combination: bool = False
    top_spin: tuple[float, float] = (-0.3, 0.3)
    rail_goal: bool = False


def _pocketed_balls(facts: dict[str, Any]) -> list[int]:
    return [int(p["ball"]) for p in facts["pocketed"]]


def _clean(facts: dict[str, Any]) -> bool:
    """No scratch, nothing off the table."""
    return not (facts["cue_ball_pocketed"] or facts["cue_ball_off_table"] or facts["off_table"])


def _legal_first(facts: dict[str, Any], lowest: int) -> bool:
    return bool(facts["first_object_ball_contacted"] == lowest and _clean(facts))


def _break(facts: dict[str, Any], lowest: int) -> bool:
    return bool(
        _legal_first(facts, 1)
        and not facts["cue_ball_cushion_before_first_contact"]
        and facts.get("object_balls_to_cushion_on_break", 0) >= 4
        and 10 not in _pocketed_balls(facts)
    )


def _pot(facts: dict[str, Any], lowest: int) -> bool:
    return _legal_first(facts, lowest) and _pocketed_balls(facts) == [lowest]


def _pot_with_others(facts: dict[str, Any], lowest: int) -> bool:
    balls = _pocketed_balls(facts)
    return _legal_first(facts, lowest) and lowest in balls and len(balls) >= 2 and 10 not in balls


def _several_pockets(facts: dict[str, Any], lowest: int) -> bool:
    pockets = {p["pocket"] for p in facts["pocketed"]}
    balls = _pocketed_balls(facts)
    return _legal_first(facts, lowest) and len(pockets) >= 2 and 10 not in balls


def _wrong_ball(facts: dict[str, Any], lowest: int) -> bool:
    first = facts["first_object_ball_contacted"]
    return (
        first is not None and first != lowest and _clean(facts) and 10 not in _pocketed_balls(facts)
    )


def _no_cushion(facts: dict[str, Any], lowest: int) -> bool:
    return (
        _legal_first(facts, lowest)
        and not facts["cushion_after_first_contact"]
        and not facts["pocketed"]
    )


def _scratch(facts: dict[str, Any], lowest: int) -> bool:
    return bool(
        facts["first_object_ball_contacted"] == lowest
        and facts["cue_ball_pocketed"]
        and 10 not in _pocketed_balls(facts)
    )


def _combo_ten(facts: dict[str, Any], lowest: int) -> bool:
    return _legal_first(facts, lowest) and 10 in _pocketed_balls(facts) and lowest != 10


def _safety(facts: dict[str, Any], lowest: int) -> bool:
    return (
        _legal_first(facts, lowest)
        and len(facts["cushion_after_first_contact"]) == 1
        and not facts["pocketed"]
    )


def _push_out(facts: dict[str, Any], lowest: int) -> bool:
    return _clean(facts) and not facts["pocketed"]


def _touch(facts: dict[str, Any], lowest: int) -> bool:
    return facts["first_object_ball_contacted"] is not None and _clean(facts)


def _any_contact(facts: dict[str, Any], lowest: int) -> bool:
    return _legal_first(facts, lowest) and 10 not in _pocketed_balls(facts)


KINDS: dict[str, ShotKind] = {
    k.name: k
    for k in (
        ShotKind("break", "one", (7.0, 9.5), _break, top_spin=(-0.3, 0.1)),
        ShotKind("pot", "lowest", (1.2, 3.5), _pot, call=True),
        ShotKind("pot-with-others", "lowest", (2.5, 6.0), _pot_with_others, call=True),
        ShotKind("several-pockets", "lowest", (2.5, 6.5), _several_pockets, call=True),
        ShotKind("wrong-ball", "other", (1.2, 3.5), _wrong_ball),
        ShotKind("no-cushion", "lowest", (0.25, 0.9), _no_cushion),
        ShotKind("scratch", "lowest", (2.0, 5.0), _scratch, call=True, top_spin=(0.2, 0.7)),
        ShotKind("combo-10", "lowest", (1.5, 5.0), _combo_ten, call=True, combination=True),
        ShotKind("safety", "lowest", (0.4, 1.6), _safety),
        ShotKind("any", "lowest", (1.0, 4.0), _any_contact),
        ShotKind("rail-drive", "lowest", (3.0, 7.0), _any_contact, rail_goal=True),
        ShotKind("push-out", "other", (0.4, 1.2), _push_out),
        ShotKind("touch", "any-ball", (1.0, 3.0), _touch),
    )
}


@dataclass(slots=True)
class FoundShot:
    """A stroke found for a kind, with its simulation, facts and declared call."""

    kind: ShotKind
    params: ShotParams
    sim: SimulatedShot
    facts: dict[str, Any]
    call: tuple[int, str] | None


def aim_point(table: TableSpec, pocket: Pocket) -> tuple[float, float]:
    """Where to send a ball into a pocket: the corner, or just past a side mouth."""
    x, y = table.pocket_xy_mm(pocket)
    if not pocket.is_corner():
        y += -20.0 if y == 0.0 else 20.0
    return (x, y)


def ghost_direction(
    cue_xy: np.ndarray, ball_xy: np.ndarray, goal_xy: np.ndarray, diameter_mm: float
) -> np.ndarray:
    """Aim direction that sends the ball at `ball_xy` toward `goal_xy` (ghost-ball aim)."""
    travel = goal_xy - ball_xy
    ghost = ball_xy - diameter_mm * travel / max(float(np.linalg.norm(travel)), 1e-9)
    out: np.ndarray = ghost - cue_xy
    return out


def _targets(kind: ShotKind, positions: Positions, lowest: int) -> list[int]:
    if kind.target == "one":
        return [1 if 1 in positions else lowest]
    if kind.target == "other":
        return [b for b in positions if b not in (CUE, lowest, 10)] or [lowest]
    if kind.target == "any-ball":
        return [b for b in positions if b != CUE]
    return [lowest]


def _clear(
    start: np.ndarray, end: np.ndarray, positions: Positions, skip: set[int], gap_mm: float
) -> bool:
    """No ball (other than `skip`) lies within `gap_mm` of the segment start-end."""
    leg = end - start
    length2 = max(float(leg @ leg), 1e-9)
    for ball, xy in positions.items():
        if ball in skip:
            continue
        point = np.array(xy)
        t = float(np.clip((point - start) @ leg / length2, 0.0, 1.0))
        if np.linalg.norm(start + t * leg - point) < gap_mm:
            return False
    return True


def _route(
    kind: ShotKind, positions: Positions, target: int, goal: np.ndarray, table: TableSpec
) -> np.ndarray | None:
    """Aim direction for target -> goal (via the 10 for combinations) if the paths are open."""
    diameter = table.ball_diameter_mm
    legs: list[tuple[int, np.ndarray]] = [(target, goal)]
    if kind.combination:
        if 10 not in positions or target == 10:
            return None
        ten = np.array(positions[10])
        legs = [(target, ten - diameter * (goal - ten) / np.linalg.norm(goal - ten)), (10, goal)]
    aim_at = legs[0][1]
    for ball, end in legs:
        start = np.array(positions[ball])
        if not _clear(
            start, end, positions, {ball, CUE, 10 if kind.combination else ball}, diameter
        ):
            return None
    cue, ball_xy = np.array(positions[CUE]), np.array(positions[target])
    direction = ghost_direction(cue, ball_xy, aim_at, diameter)
    travel = aim_at - ball_xy
    cosine = float(direction @ travel) / max(
        float(np.linalg.norm(direction) * np.linalg.norm(travel)), 1e-9
    )
    ghost = cue + direction
    if cosine < math.cos(math.radians(70.0)) or not _clear(
        cue, ghost, positions, {CUE, target}, diameter
    ):
        return None
    return direction


def _options(
    kind: ShotKind, positions: Positions, lowest: int, table: TableSpec
) -> list[tuple[int, Pocket, np.ndarray]]:
    """Open (target, pocket, aim direction) choices for a kind from a layout."""
    out: list[tuple[int, Pocket, np.ndarray]] = []
    for target in _targets(kind, positions, lowest):
        for pocket in Pocket:
            if kind.target == "one" or kind.rail_goal:
                direction = np.array(positions[target]) - np.array(positions[CUE])
            else:
                direction = _route(
                    kind, positions, target, np.array(aim_point(table, pocket)), table
                )
            if direction is not None:
                out.append((target, pocket, direction))
    return out


def open_options(kind_name: str, positions: Positions, table: TableSpec) -> bool:
    """Whether a kind has at least one open line from a layout."""
    lowest = min(b for b in positions if b != CUE)
    return bool(_options(KINDS[kind_name], positions, lowest, table))


def _candidate(
    kind: ShotKind,
    options: list[tuple[int, Pocket, np.ndarray]],
    positions: Positions,
    table: TableSpec,
    rng: np.random.Generator,
) -> tuple[ShotParams, tuple[int, str]]:
    target, pocket, direction = options[int(rng.integers(len(options)))]
    if kind.rail_goal:
        goal = _rail_point(table, rng)
        direction = ghost_direction(
            np.array(positions[CUE]), np.array(positions[target]), goal, table.ball_diameter_mm
        )
    jitter = AIM_JITTER_RAD * (4.0 if kind.target == "one" else 1.0)
    angle = math.atan2(direction[1], direction[0]) + rng.normal(0.0, jitter)
    params = ShotParams(
        speed_m_s=float(rng.uniform(*kind.speed_m_s)),
        direction_mm=(math.cos(angle), math.sin(angle)),
        side_spin=float(rng.uniform(-0.25, 0.25)),
        top_spin=float(rng.uniform(*kind.top_spin)),
    )
    return params, (target, pocket.value)


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """Where and how to search.

    Attributes:
        pooltool_table: the pooltool table of the clip.
        system: a pooltool System to strike (balls may be moving); by default one is built
            with the balls at rest at the given positions.
        accept: an extra test of the simulated shot (scripted kinds need e.g. a hard cushion
            hit they can turn into a jump).
    """

    pooltool_table: Any
    system: Any = None
    accept: Callable[[SimulatedShot], bool] | None = None


def _rail_point(table: TableSpec, rng: np.random.Generator) -> np.ndarray:
    """A random point on a cushion line at least 200 mm from every pocket."""
    length, width = table.length_mm, table.width_mm
    while True:
        side = int(rng.integers(4))
        along = float(rng.uniform(0.0, 1.0))
        point = [
            (along * length, 0.0),
            (along * length, width),
            (0.0, along * width),
            (length, along * width),
        ][side]
        gaps = np.linalg.norm(table.pockets_xy_mm() - np.array(point), axis=1)
        if gaps.min() >= 200.0:
            return np.array(point)


def find_shot(
    kind_name: str,
    positions: Positions,
    table: TableSpec,
    rng: np.random.Generator,
    options: SearchOptions,
) -> FoundShot:
    """Search for a stroke of kind `kind_name` from the balls at `positions`.

    Raises:
        ValueError: the kind is unknown, or no stroke of that kind was found (the message
            names the kind; another seed usually works).
    """
    if kind_name not in KINDS:
        raise ValueError(f"unknown shot kind {kind_name!r}; expected one of {sorted(KINDS)}")
    kind = KINDS[kind_name]
    lowest = min(b for b in positions if b != CUE)
    system = options.system
    if system is None:
        system = build_system(options.pooltool_table, positions, table.ball_radius_mm)
    choices = _options(kind, positions, lowest, table)
    if not choices:
        raise ValueError(
            f"no open line for a {kind_name!r} shot from this layout; try another seed"
        )
    for _ in range(MAX_TRIES):
        params, (target, pocket) = _candidate(kind, choices, positions, table, rng)
        try:
            sim = simulate_shot(system, params, table)
        except PhysicsFailure:
            continue
        facts = shot_facts(sim.events, 1000.0, kind.name == "break")
        if not kind.predicate(facts, lowest):
            continue
        if options.accept is not None and not options.accept(sim):
            continue
        call = None
        if kind.call:
            call = _called(facts, target, pocket, kind)
            if call is None:
                continue
        return FoundShot(kind, params, sim, facts, call)
    raise ValueError(
        f"no {kind_name!r} shot found in {MAX_TRIES} strokes from this layout; try another seed"
    )


def _called(
    facts: dict[str, Any], target: int, pocket: str, kind: ShotKind
) -> tuple[int, str] | None:
    """The (ball, pocket) the shooter declared; None if the shot did not make its call."""
    made = {int(p["ball"]): str(p["pocket"]) for p in facts["pocketed"]}
    ball = 10 if kind.combination else target
    if kind.name == "scratch":
        return (ball, pocket)
    if made.get(ball) != pocket:
        return None
    return (ball, pocket)
