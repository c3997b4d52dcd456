"""Which balls can have been struck since the last frame: only these may jump.

A ball struck between two frames can turn up anywhere its top speed reaches, outside the
kinematic gate of its track; a resting ball that nothing can have touched stays where it is
(a hand or an arm that looks like it is not taken for it). `may_jump` says which is which.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking.lifecycle import newborn_at_mouth
from tracking.track_state import PENDING_POCKET, TrackState
from tracking.tracker_config import TrackerConfig


def may_jump(
    state: TrackState,
    table: TableSpec,
    config: TrackerConfig,
    tracks: tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.bool_]],
    times_s: tuple[float, float],
) -> NDArray[np.bool_]:
    """(T,) which of the balls ``idx`` can have been struck since the last frame: the cue
    ball, a moving ball, a resting ball that a moving ball (wherever its uncertainty lets it
    be) can have reached, directly or through a chain of touching balls (a rack), and a ball
    already struck while it stayed unseen (``jumpable``, (11,), last frame's result).

    Args:
        state: the tracks (predicted to this frame).
        table: the table (ball size, pockets).
        config: the tracker's tunables.
        tracks: (T,) the slots in play ``idx``, (T,) their position standard deviations,
            mm, and the (11,) ``jumpable`` mask of the last frame.
        times_s: the frame interval ``dt`` and now, s.
    """
    idx, sigma_mm, jumpable = tracks
    dt_s, now_s = times_s
    mean, seen_time_s = state.mean[idx], state.seen_time_s[idx]
    speed = np.hypot(mean[:, 2], mean[:, 3])
    struck = (speed > config.rest_speed_mm_s) | (idx == 0)
    # Unseen last frame and already struck: it may still be anywhere it could roll.
    unseen = seen_time_s < now_s - dt_s - 1e-9
    struck |= jumpable[idx] & unseen
    # A struck ball unseen since (the cue ball blurred at the stroke) may have rolled
    # anywhere at up to the top speed since it was last seen.
    unseen_s = np.where(struck & unseen, now_s - seen_time_s, 0.0)
    reach = (
        table.ball_diameter_mm
        + speed * max(dt_s, 0.0)
        + config.max_ball_speed_mm_s * unseen_s
        + config.association.gate_sigmas * sigma_mm
    )
    touched = _knocked(mean[:, :2], struck, reach, table.ball_diameter_mm)
    # A ball lost in a pocket mouth while heading in has dropped, or rattles in the jaws:
    # it is never taken from elsewhere (a look-alike across the table).
    dropping = state.pending[idx] == PENDING_POCKET
    dropping |= newborn_at_mouth(state, table, idx)
    result: NDArray[np.bool_] = (struck | touched) & ~dropping
    return result


def _knocked(
    xy: NDArray[np.float64],
    struck: NDArray[np.bool_],
    reach: NDArray[np.float64],
    diameter_mm: float,
) -> NDArray[np.bool_]:
    """(T,) balls within the ``reach`` (T,) of a ``struck`` (T,) ball, directly or through
    a chain of touching balls (centres ``xy`` (T, 2), mm)."""
    apart = xy[:, None, :] - xy[None, :, :]
    apart_sq = np.add.reduce(apart * apart, axis=2)  # dx² + dy², in that order
    touching = apart_sq <= (1.5 * diameter_mm) ** 2
    touched: NDArray[np.bool_] = (struck[None, :] & (apart_sq <= (reach * reach)[None, :])).any(
        axis=1
    )
    # Pass the knock along chains of touching balls (a ball always touches itself, so
    # with no other pair touching, nothing passes). Boolean ``touching @ touched`` is
    # ``touching[:, touched].any(axis=1)``.
    chains = touched.any() and int(np.count_nonzero(touching)) > len(xy)
    for _ in range(len(xy) if chains else 0):
        more = touched | (touching @ touched)
        if not (more & ~touched).any():
            break
        touched = more
    return touched
