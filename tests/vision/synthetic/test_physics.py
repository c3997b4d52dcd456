"""pooltool <-> table frame: conversions, cushion and pocket geometry, event names."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from calibration.table import Cushion, Pocket, TableSpec
from vision.synthetic import shots
from vision.synthetic.physics import (
    PhysicsFailure,
    ShotParams,
    SimulatedShot,
    build_system,
    phi_deg,
    pooltool_table,
    simulate_shot,
    to_pooltool_m,
    to_table_mm,
)
from vision.synthetic.plan import opening_rack
from vision.types import CUE

TABLES = ["9ft", "8ft", "7ft"]
coordinate = st.floats(-3000.0, 3000.0, allow_nan=False)


@given(st.lists(st.tuples(coordinate, coordinate), min_size=0, max_size=20))
def test_conversion_round_trips(points: list[tuple[float, float]]) -> None:
    xy_mm = np.array(points, dtype=np.float64).reshape(-1, 2)
    np.testing.assert_allclose(to_table_mm(to_pooltool_m(xy_mm)), xy_mm, atol=1e-9)


def test_conversion_swaps_axes_head_left_at_origin() -> None:
    # pooltool: x across (0 = left cushion), y along (0 = head cushion), metres.
    np.testing.assert_allclose(to_table_mm(np.array([[0.1, 2.0]])), [[2000.0, 100.0]])


@pytest.mark.parametrize(
    ("direction", "expected"),
    [((1.0, 0.0), 90.0), ((0.0, 1.0), 0.0), ((-1.0, 0.0), 270.0), ((0.0, -1.0), 180.0)],
    ids=["toward-foot", "toward-right", "toward-head", "toward-left"],
)
def test_phi_of_table_directions(direction: tuple[float, float], expected: float) -> None:
    assert phi_deg(direction) == pytest.approx(expected)


@pytest.mark.parametrize("name", TABLES, ids=TABLES)
def test_cushion_noses_lie_on_the_playing_surface_boundary(name: str) -> None:
    table = TableSpec.from_name(name)
    physics = pooltool_table(table)
    length, width = table.length_mm, table.width_mm
    on_boundary = 0
    for segment in physics.cushion_segments.linear.values():
        ends = to_table_mm(np.array([segment.p1[:2], segment.p2[:2]]))
        along = np.allclose(ends[:, 0], ends[0, 0]) and np.isclose(ends[0, 0], [0, length]).any()
        across = np.allclose(ends[:, 1], ends[0, 1]) and np.isclose(ends[0, 1], [0, width]).any()
        on_boundary += int(along or across)
    assert on_boundary == 6  # head, foot and the four long-cushion segments


def _single_ball_shot(
    table: TableSpec, start: tuple[float, float], goal: tuple[float, float], speed: float
) -> SimulatedShot:
    system = build_system(pooltool_table(table), {CUE: start}, table.ball_radius_mm)
    direction = (goal[0] - start[0], goal[1] - start[1])
    return simulate_shot(system, ShotParams(speed, direction), table)


@pytest.mark.parametrize("pocket", list(Pocket), ids=[p.value for p in Pocket])
def test_a_ball_sent_at_a_pocket_drops_in_that_pocket(pocket: Pocket) -> None:
    table = TableSpec()
    px, py = table.pocket_xy_mm(pocket)
    inward = (1.0 if px < table.length_mm / 2 else -1.0, 1.0 if py == 0 else -1.0)
    if not pocket.is_corner():
        inward = (0.0, inward[1])
    start = (px + 350 * inward[0], py + 350 * inward[1])
    shot = _single_ball_shot(table, start, (px, py), 2.0)
    drops = [e for e in shot.events if e.kind == "ball_pocket"]
    assert [(e.balls, e.pocket) for e in drops] == [((CUE,), pocket.value)]
    assert CUE in shot.pocketed and CUE not in shot.final_xy_mm


@pytest.mark.parametrize("cushion", list(Cushion), ids=[c.value for c in Cushion])
def test_a_ball_sent_square_at_a_cushion_names_it(cushion: Cushion) -> None:
    table = TableSpec()
    (x0, y0), (x1, y1) = table.cushion_segment_mm(cushion)
    nose = ((x0 + x1) / 2, (y0 + y1) / 2)
    centre = (table.length_mm / 2, table.width_mm / 2)
    start = (nose[0] + 0.5 * (centre[0] - nose[0]), nose[1] + 0.5 * (centre[1] - nose[1]))
    if cushion.value.startswith(("left", "right")):
        start = (nose[0], table.width_mm / 2)
    shot = _single_ball_shot(table, start, nose, 1.0)
    first = next(e for e in shot.events if e.kind == "ball_cushion")
    assert first.cushion == cushion.value
    assert first.balls == (CUE,)


def test_strike_comes_first_and_final_positions_stay_on_the_table() -> None:
    table = TableSpec.from_name("8ft")
    shot = _single_ball_shot(table, (500.0, 300.0), (1500.0, 800.0), 3.0)
    assert shot.events[0].kind == "strike" and shot.events[0].time_s == 0.0
    (x, y) = shot.final_xy_mm[CUE]
    radius = table.ball_radius_mm
    assert radius - 1e-6 <= x <= table.length_mm - radius + 1e-6
    assert radius - 1e-6 <= y <= table.width_mm - radius + 1e-6
    states = shot.states(np.array([0.0, shot.duration_s / 2, shot.duration_s + 1.0]))
    assert np.linalg.norm(states.velocity_mm_s[-1, CUE]) == pytest.approx(0.0, abs=1e-6)
    assert math.isclose(states.xy_mm[-1, CUE, 0], x, abs_tol=1e-6)


def test_a_stroke_played_while_a_ball_rolls_is_struck() -> None:
    table = TableSpec()
    positions = {CUE: (400.0, 300.0), 1: (1500.0, 900.0)}
    system = build_system(pooltool_table(table), positions, table.ball_radius_mm)
    radius_m = table.ball_radius_mm / 1000.0
    rolling = system.balls["1"].state
    rolling.rvw[1] = [0.0, 0.8, 0.0]  # pooltool frame: 0.8 m/s along the table, toward the foot
    rolling.rvw[2] = [0.8 / radius_m, 0.0, 0.0]  # rolling without slip
    rolling.s = 3
    shot = simulate_shot(system, ShotParams(1.5, (0.0, 1.0)), table)
    assert shot.events[0].kind == "strike" and shot.events[0].time_s == 0.0
    assert shot.final_xy_mm[CUE][1] > positions[CUE][1] + 100.0, "the cue ball was struck"
    assert shot.final_xy_mm[1][0] > positions[1][0] + 100.0, "the 1 rolled on toward the foot"


def test_a_stroke_pooltool_cannot_resolve_is_a_physics_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import pooltool as pt

    def fails(*args: object, **kwargs: object) -> None:
        raise AssertionError("v_n_0 < 0")

    monkeypatch.setattr(pt, "simulate", fails)
    table = TableSpec.from_name("8ft")
    with pytest.raises(PhysicsFailure, match="could not play"):
        _single_ball_shot(table, (600.0, 500.0), (1200.0, 500.0), 1.0)


def test_the_shot_search_tries_another_stroke_after_a_physics_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = TableSpec.from_name("8ft")
    calls = []

    def first_fails(*args: Any, **kwargs: Any) -> SimulatedShot:
        calls.append(1)
        if len(calls) == 1:
            raise PhysicsFailure("pooltool could not play this stroke out")
        return simulate_shot(*args, **kwargs)

    monkeypatch.setattr(shots, "simulate_shot", first_fails)
    rack = opening_rack(table, np.random.default_rng(0))
    found = shots.find_shot(
        "break", rack, table, np.random.default_rng(1), shots.SearchOptions(pooltool_table(table))
    )
    assert len(calls) >= 2
    assert found.facts["object_balls_to_cushion_on_break"] >= 0
