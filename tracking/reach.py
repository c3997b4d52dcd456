"""Which balls can have been struck since the last frame: only these may jump.

A ball struck between two frames can turn up anywhere its top speed reaches, outside the
kinematic gate of its track; a resting ball that nothing can have touched stays where it is
(a hand or an arm that looks like it is not taken for it). `may_jump` says which is which.
A resting ball that nothing can have touched and that still takes a detection off its spot
(a hand pushed it, or a ghost beside it was read as it) was not struck: it takes no speed
from that one detection (`rest_hops`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking.lifecycle import RESPAWN_MIN_SIGHTINGS, newborn_at_mouth
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


def seen_resting(state: TrackState, balls: NDArray[np.int64]) -> NDArray[np.bool_]:
    """(K,) which of ``balls`` are at rest (no velocity) on a track that has taken a few
    detections: a ball first seen (at rest, knowing nothing yet) may be rolling."""
    settled = state.identity_count[balls] >= RESPAWN_MIN_SIGHTINGS
    result: NDArray[np.bool_] = settled & ~np.any(state.mean[balls, 2:], axis=1)
    return result


def rest_hops(
    state: TrackState,
    tracks: tuple[NDArray[np.int64], NDArray[np.bool_], NDArray[np.bool_]],
    z: NDArray[np.float64],
    back_mm: float,
) -> NDArray[np.bool_]:
    """(K,) which of the ``balls`` that took detections at ``z`` (K, 2), mm, restart at
    rest there instead of at the speed of a jump from their predictions.

    A ball at rest that no moving ball can have reached (``unreached``) was not struck: one
    detection off its spot is a ghost beside it (an arm, a far ball's bad fit) or a hand's
    push, and the speed of that jump, kept while the ball is unseen, would carry its track
    away across the table. It hops there at rest, remembering the spot it left
    (`TrackState.left_xy_mm`, NaN again for every other ball of ``balls``; call before
    they are marked seen), and hops back at rest when a detection within ``back_mm`` of that
    spot follows (the ball itself, found again); a next step on from the hop is a push, and
    takes its speed from the two sightings.

    Args:
        state: the tracks, predicted to this frame, before correction.
        tracks: (K,) the balls that took detections, (K,) which of them jumped (a collision
            or bounce by their innovation) and (K,) which no moving ball can have reached
            (`may_jump` False).
        z: (K, 2) the detections they took, mm.
        back_mm: how near the spot it left a hopped ball must be seen to be back on it, mm.
    """
    balls, jumped, unreached = tracks
    resting = seen_resting(state, balls)
    left = state.left_xy_mm[balls]
    hopped = np.isfinite(left[:, 0])
    away = z - np.where(hopped[:, None], left, z)
    back = hopped & (np.einsum("ni,ni->n", away, away) <= back_mm * back_mm)
    # Back on its spot, whether or not the innovation counts it a jump (a hop's prediction
    # grows vague while the ball is unseen).
    still: NDArray[np.bool_] = unreached & resting & (back | (jumped & ~hopped))
    first = still & ~hopped
    state.left_xy_mm[balls] = np.where(first[:, None], state.seen_xy_mm[balls], np.nan)
    return still
