"""Where the 10 goes when it is spotted (Casse 3-4, Déroulement 1c, Push-out 2, I-22).

On the foot spot when it is free. Otherwise, as the WPA rule I-22 adopts: on the long string
(the line y = W/2) behind the foot spot (toward the foot cushion), as close to the spot as
possible, frozen to a blocking object ball if need be but never touching the cue ball; when
nothing is free behind, in front of the spot (toward the head), as close as possible.
Pure geometry in the table frame of design.md §3 (millimetres).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from calibration.table import TableSpec

CUE_KEY = "cue"
CUE_GAP_MM = 1.0
"""Space left between the spotted 10 and the cue ball so they never touch. Raising it keeps
the 10 further from a cue ball lying on the long string."""

_EPS_MM = 1e-6


def _blocked_spans(
    table: TableSpec, balls_xy_mm: Mapping[str, tuple[float, float]], cue_gap_mm: float
) -> list[tuple[float, float, bool]]:
    """(lo, hi, is_cue) x-spans of the long string where the 10's centre would overlap a ball."""
    diameter, y_string = table.ball_diameter_mm, table.width_mm / 2.0
    spans: list[tuple[float, float, bool]] = []
    for name, (x_mm, y_mm) in balls_xy_mm.items():
        is_cue = name == CUE_KEY
        reach = diameter + (cue_gap_mm if is_cue else 0.0)
        dy = abs(y_mm - y_string)
        if dy < reach:
            half = math.sqrt(reach * reach - dy * dy)
            spans.append((x_mm - half, x_mm + half, is_cue))
    return spans


def _free(x_mm: float, spans: list[tuple[float, float, bool]]) -> bool:
    """Touching an object ball is allowed (frozen); the cue ball's span includes the gap."""
    return all(not lo + _EPS_MM < x_mm < hi - _EPS_MM for lo, hi, _ in spans)


def spot_position(
    table: TableSpec,
    balls_xy_mm: Mapping[str, tuple[float, float]],
    cue_gap_mm: float = CUE_GAP_MM,
) -> tuple[float, float]:
    """The centre where the 10 is placed, table mm.

    Args:
        table: the table (length, width, ball diameter).
        balls_xy_mm: centres (x_mm, y_mm) of the balls on the table other than the 10, keyed
            by name ("cue", "1".."9").
        cue_gap_mm: minimum space between the 10 and the cue ball.

    Returns:
        (x_mm, y_mm) on the long string: the foot spot when free, else the nearest free point
        behind it, else the nearest free point in front of it.

    Raises:
        ValueError: the whole long string is blocked (cannot happen with eleven balls on a
            regulation table).
    """
    spot_x, y_string = table.foot_spot_mm
    radius = table.ball_radius_mm
    spans = _blocked_spans(table, balls_xy_mm, cue_gap_mm)
    behind = sorted({spot_x, *(hi for _, hi, _ in spans)})
    for x_mm in behind:
        if spot_x <= x_mm <= table.length_mm - radius and _free(x_mm, spans):
            return (x_mm, y_string)
    in_front = sorted({spot_x, *(lo for lo, _, _ in spans)}, reverse=True)
    for x_mm in in_front:
        if radius <= x_mm <= spot_x and _free(x_mm, spans):
            return (x_mm, y_string)
    raise ValueError("no free place on the long string for the 10")
