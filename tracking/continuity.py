"""Physical continuity: two balls never overlap, so a detection on top of a known ball is it.

The assignment weighs identity against distance, and a blurred, shaded or half-hidden ball
can be given another number with high confidence for a few frames. When such a detection
lies where a track knows its ball to be (closer than ``overlap`` diameters, no centre of
another ball can be there), it cannot show another ball: it is that track's ball whatever
its colour says (`continuity_pairs`), and it never starts the track of another number
(`occupied`). A track whose position is itself vague (lost for a while) claims nothing.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def _near(
    track_xy: NDArray[np.float64], det_xy: NDArray[np.floating], within_mm: float
) -> NDArray[np.bool_]:
    """(T, D) which detections lie within ``within_mm`` of which track centres."""
    dx = track_xy[:, 0, None] - det_xy[None, :, 0]
    dy = track_xy[:, 1, None] - det_xy[None, :, 1]
    result: NDArray[np.bool_] = dx * dx + dy * dy < within_mm * within_mm
    return result


def continuity_pairs(
    track_xy: NDArray[np.float64],
    track_std_mm: NDArray[np.float64],
    det_xy: NDArray[np.floating],
    within_mm: float,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Tracks and detections that can only be each other: the detection lies within
    ``within_mm`` of the track's centre, no other such track claims it and the track claims
    no other detection, and the track knows where its ball is (position standard
    deviation below ``within_mm``).

    Args:
        track_xy: (T, 2) predicted centres of the candidate tracks, mm.
        track_std_mm: (T,) their largest position standard deviation, mm.
        det_xy: (D, 2) detection centres, mm.
        within_mm: how near counts (less than a ball diameter: no two centres are nearer).

    Returns:
        (K,) track rows and (K,) detection columns.
    """
    near = _near(track_xy, det_xy, within_mm) & (track_std_mm < within_mm)[:, None]
    unique = near & (near.sum(axis=0) == 1)[None, :] & (near.sum(axis=1) == 1)[:, None]
    rows, cols = np.nonzero(unique)
    return rows.astype(np.int64), cols.astype(np.int64)


def occupied(
    track_xy: NDArray[np.float64],
    track_std_mm: NDArray[np.float64],
    det_xy: NDArray[np.floating],
    within_mm: float,
) -> NDArray[np.bool_]:
    """(D,) detections that lie on a ball a track knows (within ``within_mm`` of a centre
    whose standard deviation is below ``within_mm``): they cannot start another ball."""
    if len(track_xy) == 0 or len(det_xy) == 0:
        return np.zeros(len(det_xy), bool)
    known = track_std_mm < within_mm
    result: NDArray[np.bool_] = np.any(_near(track_xy[known], det_xy, within_mm), axis=0)
    return result


def crowded_jumps(
    predicted_xy: NDArray[np.float64], taken_xy: NDArray[np.float64], within_mm: float
) -> NDArray[np.bool_]:
    """(K,) assigned pairs in which a track jumped (further than ``within_mm`` from its
    prediction) to a detection on top of another pair's steady one: two centres that near
    are one ball seen twice (a smear split in two), and it is the steady track's.

    Args:
        predicted_xy: (K, 2) each assigned track's predicted centre, mm.
        taken_xy: (K, 2) the detection it took, mm.
        within_mm: how near counts (less than a ball diameter).
    """
    offset = taken_xy - predicted_xy
    jumped = np.einsum("ni,ni->n", offset, offset) > within_mm * within_mm
    result = np.zeros(len(taken_xy), bool)
    if jumped.any() and not jumped.all():
        steady = taken_xy[~jumped]
        result[jumped] = occupied(steady, np.zeros(len(steady)), taken_xy[jumped], within_mm)
    return result
