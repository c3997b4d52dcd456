"""I-22: where the 10 is spotted when the foot spot is occupied."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.table import TableSpec
from referee.rules.spotting import CUE_GAP_MM, spot_position

TABLE = TableSpec()
D = TABLE.ball_diameter_mm
SPOT_X, MID_Y = TABLE.foot_spot_mm


@pytest.mark.parametrize(
    ("balls", "expected_x"),
    [
        ({}, SPOT_X),
        ({"3": (SPOT_X - 2 * D, MID_Y)}, SPOT_X),
        ({"3": (SPOT_X, MID_Y)}, SPOT_X + D),
        ({"3": (SPOT_X, MID_Y), "4": (SPOT_X + D, MID_Y)}, SPOT_X + 2 * D),
        ({"3": (SPOT_X + 10.0, MID_Y)}, SPOT_X + 10.0 + D),
        ({"3": (SPOT_X, MID_Y), "cue": (SPOT_X + 2 * D, MID_Y)}, SPOT_X + 3 * D + CUE_GAP_MM),
        ({"3": (SPOT_X, MID_Y + 0.6 * D)}, SPOT_X + math.sqrt(D * D - (0.6 * D) ** 2)),
    ],
    ids=[
        "free-spot",
        "ball-in-front",
        "frozen-behind",
        "two-blockers",
        "off-centre-blocker",
        "never-touches-cue",
        "blocker-beside-string",
    ],
)
def test_spot_behind_the_foot_spot(
    balls: dict[str, tuple[float, float]], expected_x: float
) -> None:
    x_mm, y_mm = spot_position(TABLE, balls)
    assert y_mm == MID_Y
    assert x_mm == pytest.approx(expected_x)


def test_in_front_when_the_string_behind_is_full() -> None:
    row = {str(i): (SPOT_X + i * D, MID_Y) for i in range(12) if SPOT_X + i * D <= TABLE.length_mm}
    assert SPOT_X + len(row) * D > TABLE.length_mm - D / 2  # no room left behind
    x_mm, _ = spot_position(TABLE, row)
    assert x_mm == pytest.approx(SPOT_X - D)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(1500, 2510), st.floats(560, 710)), max_size=9), st.booleans())
def test_the_spotted_10_overlaps_nothing_and_never_touches_the_cue(
    xys: list[tuple[float, float]], with_cue: bool
) -> None:
    balls = {str(i + 1): xy for i, xy in enumerate(xys)}
    if with_cue and xys:
        balls["cue"] = balls.pop(str(len(xys)))
    x_mm, y_mm = spot_position(TABLE, balls)
    assert y_mm == MID_Y and D / 2 <= x_mm <= TABLE.length_mm - D / 2
    for name, (bx, by) in balls.items():
        gap = math.hypot(bx - x_mm, by - y_mm) - D
        assert gap >= (CUE_GAP_MM if name == "cue" else 0.0) - 1e-6, name
