"""Keep predicted ball states on the table: a prediction that crosses a cushion line bounces.

The tracker predicts every ball in a straight line. A ball that is not seen for a few frames
(motion blur after a hard stroke, a player's arm) would otherwise be predicted straight
through a cushion and off the table, where neither the detector's search windows nor the
association gate can find it again. Here a predicted ball centre that crosses a cushion line
of the ball-centre plane (x in [r, L - r], y in [r, W - r], r the ball radius) is reflected
like a cushion bounce, unless the crossing lies in a pocket mouth, where the ball may drop:
there it is only held on the table (within the pocket points' rectangle).

All positions are ball centres, table mm; velocities mm/s (design.md §3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.table import Pocket, TableSpec


@dataclass(frozen=True, slots=True)
class CushionModel:
    """How a predicted ball bounces off a cushion line.

    Attributes:
        restitution: share of the normal speed kept, in (0, 1].
        restitution_std: uncertainty of the restitution (cushions, speed and spin differ);
            a bounce adds ``restitution_std * |incoming normal speed|`` of velocity standard
            deviation along the normal.
        stop_at_edge: a moving ball held within the table (a prediction beyond the pocket
            points' rectangle, in a pocket mouth) also loses its velocity out of it, along
            that axis, and one already beyond the edge is held where it was, not pulled
            back to the edge: it cannot roll on beyond the table, and a velocity kept while
            its position is pulled back grows with every detection out there (a hand
            holding a ball 10 mm over a side pocket's line: -0.5 m/s grew to -13 m/s in 60
            frames at 50 frames/s).
    """

    restitution: float
    restitution_std: float
    stop_at_edge: bool = False


def in_pocket_mouth(table: TableSpec, xy_mm: NDArray[np.float64]) -> NDArray[np.bool_]:
    """(N,) whether each point lies within a mouth width of a pocket point.

    Args:
        table: the table (corner and side mouth widths).
        xy_mm: (N, 2) points, table mm.
    """
    xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    mouth = np.array(
        [table.corner_mouth_mm if p.is_corner() else table.side_mouth_mm for p in Pocket]
    )
    distance = np.linalg.norm(xy[:, None, :] - table.pockets_xy_mm()[None, :, :], axis=2)
    result: NDArray[np.bool_] = np.any(distance <= mouth[None, :], axis=1)
    return result


def bounce_off_cushions(
    table: TableSpec,
    before_xy_mm: NDArray[np.float64],
    mean: NDArray[np.float64],
    cov: NDArray[np.float64],
    model: CushionModel,
) -> NDArray[np.bool_]:
    """Reflect, in place, predicted states that crossed a cushion line away from the pockets.

    For each axis, a ball beyond its ball-centre line and moving outward is mirrored back:
    position ``line - e * overshoot``, normal velocity ``-e * v``, with ``e`` the restitution;
    the covariance is transformed alike and the normal velocity standard deviation grows by
    ``restitution_std`` times the incoming normal speed (the real rebound is uncertain). A crossing
    inside a pocket mouth is not reflected; a moving ball is only held within the table
    (the rectangle of the pocket points). Balls at rest are left where they were measured.

    Args:
        table: the table.
        before_xy_mm: (N, 2) positions before the prediction, table mm.
        mean: (N, 4) predicted states ``[x, y, vx, vy]``, mm and mm/s; updated in place.
        cov: (N, 4, 4) predicted covariances; updated in place.
        model: the restitution and its uncertainty.

    Returns:
        (N,) mask of the balls that bounced.
    """
    r, restitution = table.ball_radius_mm, model.restitution
    low = np.array([r, r])
    high = np.array([table.length_mm - r, table.width_mm - r])
    bounced = np.zeros(len(mean), bool)
    for axis in (0, 1):
        over = mean[:, axis] - np.clip(mean[:, axis], low[axis], high[axis])
        travel = mean[:, :2] - before_xy_mm
        outward = (over * mean[:, axis + 2] > 0.0) & (over * travel[:, axis] > 0.0)
        step = np.where(outward, travel[:, axis], 1.0)
        fraction = np.clip(1.0 - over / step, 0.0, 1.0)
        if not outward.any():
            continue
        crossing = before_xy_mm + fraction[:, None] * travel
        hit = outward & ~in_pocket_mouth(table, crossing)
        if not hit.any():
            continue
        line = np.where(over > 0.0, high[axis], low[axis])
        mean[hit, axis] = np.clip(line[hit] - restitution * over[hit], low[axis], high[axis])
        spread = model.restitution_std * mean[hit, axis + 2]
        mean[hit, axis + 2] *= -restitution
        jacobian = np.ones(4)
        jacobian[[axis, axis + 2]] = -restitution
        cov[hit] *= jacobian[:, None] * jacobian[None, :]
        cov[hit, axis + 2, axis + 2] += spread**2
        bounced |= hit
    moving = np.any(mean[:, 2:] != 0.0, axis=1)
    size = np.array([table.length_mm, table.width_mm])
    low_edge, high_edge = np.zeros(2), size
    if model.stop_at_edge:
        # Where it was already seen beyond the edge, it stays (no pull back every frame).
        low_edge = np.minimum(low_edge, before_xy_mm[moving])
        high_edge = np.maximum(high_edge, before_xy_mm[moving])
    held = np.clip(mean[moving, :2], low_edge, high_edge)
    if model.stop_at_edge:
        velocity = mean[moving, 2:]
        outward = (held - mean[moving, :2]) * velocity < 0.0
        mean[moving, 2:] = np.where(outward, 0.0, velocity)
    mean[moving, :2] = held
    return bounced
