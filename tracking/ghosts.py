"""Tracks that were never balls: a false detection on a player's arm, seen as a ball.

A rolling ball goes one way, turning back only off a cushion (a break sends one from rail to
rail several times) or, rarely, off a ball. A false detection on an arm goes back and forth
with the arm over a stretch of cloth. `ghost_path` tells the two apart from the sightings;
`tracking.drops.DropExplainer._ghost` asks it of a track first seen during a shot.
"""

from __future__ import annotations

import math

import numpy as np

from calibration.table import TableSpec
from tracking.history import FloatArray

GHOST_REVERSALS = 3
"""A track first seen after its shot's strike whose sightings turned back this many times
away from the cushions (`turns`), within `GHOST_SPAN` of the table, was never a ball: a
rolling ball turns back off a cushion (a break sends one from rail to rail several times)
or, rarely, a ball, while a false detection on a player's arm goes back and forth with
the arm over a stretch of cloth (a real top-down clip's ghosts on the arm: 4 and 3 turns
within 300 mm, one "dropped" in a side pocket; a real ball first tracked on a sample's
break turned 3 times off the cushions over the whole table's width, one on another's
break with 15-25 mm of noise, slow, 1)."""

GHOST_SPAN = 0.25
"""The stretch (a fraction of the table's length) a ghost's sightings stay within: an arm's
reach, where a ball turning back three times off the cushions crosses the table."""

TURN_CUSHION_DIAMETERS = 1.5
"""A turn this near a cushion line (in ball diameters, from the centre) may be a bounce off
it (or a rattle in a pocket's jaws): it does not count toward a ghost."""


def turns(xy_mm: FloatArray, step_mm: float) -> FloatArray:
    """Where the path through sightings ``xy_mm`` (K, 2) mm turned back, (T, 2) mm: the path
    is walked in steps of at least ``step_mm`` (each sighting that far from the last one
    kept), and a step more than 120 degrees off the step before it turns at the sighting
    between them. Steps that long are not the detector's noise turning a slow ball back
    and forth at random."""
    kept = [0]
    for row in range(1, len(xy_mm)):
        gap = xy_mm[row] - xy_mm[kept[-1]]
        if math.hypot(float(gap[0]), float(gap[1])) >= step_mm:
            kept.append(row)
    points = xy_mm[kept]
    steps = np.diff(points, axis=0)
    if len(steps) < 2:
        return np.zeros((0, 2))
    length = np.hypot(steps[:, 0], steps[:, 1])
    cosine = np.sum(steps[1:] * steps[:-1], axis=1) / (length[1:] * length[:-1])
    result: FloatArray = points[1:-1][cosine < -0.5]
    return result


def ghost_path(table: TableSpec, path_mm: FloatArray, noise_mm: float) -> bool:
    """Whether sightings ``path_mm`` (K, 2) mm, all within `GHOST_SPAN` of the table, turned
    back at least `GHOST_REVERSALS` times away from the cushions (`turns`, in steps of a
    radius or four times the position noise ``noise_mm``): the way a false detection on a
    player's arm moves with the arm. False for no sightings."""
    if not len(path_mm):
        return False
    span = np.ptp(path_mm, axis=0)
    if math.hypot(float(span[0]), float(span[1])) > GHOST_SPAN * table.length_mm:
        return False
    turned = turns(path_mm, max(table.ball_radius_mm, 4.0 * noise_mm))
    inside = np.minimum(
        np.minimum(turned[:, 0], table.length_mm - turned[:, 0]),
        np.minimum(turned[:, 1], table.width_mm - turned[:, 1]),
    )
    away = inside > TURN_CUSHION_DIAMETERS * table.ball_diameter_mm
    return int(np.count_nonzero(away)) >= GHOST_REVERSALS
