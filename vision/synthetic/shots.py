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
from vision.synthetic.physics import ShotParams, SimulatedShot, build_system, simulate_shot
from vision.types import CUE

Positions = dict[int, tuple[float, float]]
Predicate = Callable[[dict[str, Any], int], bool]

MAX_TRIES = 600
"""Strokes tried per shot before giving up; raising it finds rarer shots, slower."""
AIM_JITTER_RAD = 0.003
"""Spread of the aim around the ghost-ball line (throw and cut errors); raising it explores
more kisses and combinations but makes clean pots rarer."""


@dataclass(frozen=True, slots=True)
class ShotKind:
    """How to look for one kind of shot.

    Attributes:
        name: the --shots name.
        target: "lowest", "other" (a ball that is not the lowest nor the 10) or "one".
        speed_m_s: (low, high) cue speed range.
        predicate: facts, lowest ball -> whether the simulated shot is of this kind.
        call: declare the target ball and pocket (a shot that tries to pot).
        combination: aim the target so that it drives the 10 toward the pocket.
        top_spin: (low, high) follow (+) or draw (-) range.
    """

    name: str
    target: str
    speed_m_s: tuple[float, float]
    predicate: Predicate
    call: bool = False
    combination: bool = False
    top_spin: tuple[float, float] = (-0.3, 0.3)


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


def _choose_target(
    kind: ShotKind, positions: Positions, lowest: int, rng: np.random.Generator
) -> int:
    if kind.target == "one":
        return 1 if 1 in positions else lowest
    if kind.target == "other":
        others = [b for b in positions if b not in (CUE, lowest, 10)]
        return int(rng.choice(others)) if others else lowest
    return lowest


def _candidate(
    kind: ShotKind, positions: Positions, lowest: int, table: TableSpec, rng: np.random.Generator
) -> tuple[ShotParams, tuple[int, str]]:
    target = _choose_target(kind, positions, lowest, rng)
    pocket = Pocket(rng.choice([p.value for p in Pocket]))
    cue = np.array(positions[CUE])
    ball = np.array(positions[target])
    goal = np.array(aim_point(table, pocket))
    if kind.combination and 10 in positions:
        ten = np.array(positions[10])
        goal = ten - table.ball_diameter_mm * (goal - ten) / np.linalg.norm(goal - ten)
    if kind.target == "one":
        direction = ball - cue
    else:
        direction = ghost_direction(cue, ball, goal, table.ball_diameter_mm)
    angle = math.atan2(direction[1], direction[0]) + rng.normal(0.0, AIM_JITTER_RAD)
    params = ShotParams(
        speed_m_s=float(rng.uniform(*kind.speed_m_s)),
        direction_mm=(math.cos(angle), math.sin(angle)),
        side_spin=float(rng.uniform(-0.25, 0.25)),
        top_spin=float(rng.uniform(*kind.top_spin)),
    )
    return params, (target, pocket.value)


def find_shot(
    kind_name: str,
    positions: Positions,
    table: TableSpec,
    rng: np.random.Generator,
    pooltool_table: Any,
) -> FoundShot:
    """Search for a stroke of kind `kind_name` from balls at rest at `positions`.

    Raises:
        ValueError: the kind is unknown, or no stroke of that kind was found (the message
            names the kind; another seed usually works).
    """
    if kind_name not in KINDS:
        raise ValueError(f"unknown shot kind {kind_name!r}; expected one of {sorted(KINDS)}")
    kind = KINDS[kind_name]
    lowest = min(b for b in positions if b != CUE)
    system = build_system(pooltool_table, positions, table.ball_radius_mm)
    for _ in range(MAX_TRIES):
        params, (target, pocket) = _candidate(kind, positions, lowest, table, rng)
        sim = simulate_shot(system, params, table)
        facts = shot_facts(sim.events, 1000.0, kind.name == "break")
        if not kind.predicate(facts, lowest):
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
