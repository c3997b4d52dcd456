"""Tracks held by something that is not their ball: let them go when their ball shows up.

A track that jumped onto a detection, or started on one, during play and has not been seen
rolling along since (`TrackState.proven` False) holds a place nobody saw its ball reach:
an arm, a hand or the player's sleeve at a rail can be read as a ball and keep the track
(on a broadcast view the cue ball's track, lost after the break, sat on a false detection
at the rail near the player and the next stroke was missed). While it holds a detection that
is a poor likeness of its ball, and a detection nobody took is a sure likeness elsewhere,
the track lets go, and re-identification moves it there. Tracks that held their ball since
the start (a rack at rest) and tracks seen rolling are never let go this way.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from tracking.track_state import TrackState
from vision.types import Detections

PROVEN_SPEED_MM_S = 100.0
"""A track that follows its detections at above this speed, without a jump, is on a real
ball (a still hand or arm stays below)."""

PLACED_STEP_MM = 120.0
"""A jump further than this from the last sighting (two ball diameters) places the track
somewhere it was not followed to; a nearer one is a bounce or a collision on its path."""

HELD_S = 0.25
"""A track lets go only after holding its place this long, at rest: a ball that just jumped
(struck, at the break) is often read poorly, and a look-alike elsewhere is likelier then."""

PROVEN_STEP_MM = 8.0
"""... and by more than this from one sighting to the next: above the jitter of a detection
on a still hand (a few mm), below a rolling ball's step at 60 fps from 0.5 m/s."""


def prove(
    state: TrackState,
    tracks: NDArray[np.int64],
    jumped: NDArray[np.bool_],
    z: NDArray[np.float64],
    time_s: float,
) -> None:
    """Update `TrackState.proven` of ``tracks`` (K,) that took detections at ``z`` (K, 2),
    mm, at ``time_s`` (call before they are marked seen): a jump (K,) beyond
    `PLACED_STEP_MM` places a track, unproven; a step from its last sighting, without a
    jump, at above `PROVEN_SPEED_MM_S` and `PROVEN_STEP_MM` proves it (its detections
    themselves moved, not just the filter's velocity)."""
    elapsed_s = time_s - state.seen_time_s[tracks]
    step = z - state.seen_xy_mm[tracks]
    step_sq = np.einsum("ni,ni->n", step, step)
    # A kick at a cushion or a ball changes the velocity, not where the track is.
    placed = tracks[jumped & (step_sq > PLACED_STEP_MM**2)]
    state.proven[placed] = False
    state.placed_s[placed] = time_s
    least_mm = np.maximum(PROVEN_SPEED_MM_S * elapsed_s, PROVEN_STEP_MM)
    rolling = ~jumped & (elapsed_s > 0.0) & (step_sq > least_mm * least_mm)
    state.proven[tracks[rolling]] = True


def let_go(
    state: TrackState,
    dets: Detections,
    pairs: tuple[NDArray[np.int64], NDArray[np.int64]],
    need: float,
    times_s: tuple[float, float],
) -> NDArray[np.bool_]:
    """(K,) keep mask of the assigned pairs: False for an unproven track placed (started,
    jumped, re-identified) after tracking started, at rest there for `HELD_S`, that holds
    a detection whose score for its ball (class probability times confidence) is below
    ``need`` while an unassigned detection elsewhere is that ball at ``need`` or better.

    Args:
        state: the tracks.
        dets: this frame's detections.
        pairs: (K,) tracks and (K,) the detections they took.
        need: the re-identification probability (`TrackerConfig.reidentify_min_probability`).
        times_s: when tracking started (tracks placed then hold a known place) and now, s.
    """
    tracks, cols = pairs
    keep = np.ones(len(tracks), bool)
    start_s, now_s = times_s
    placed_s = state.placed_s[tracks]
    loose = ~state.proven[tracks] & (placed_s > start_s) & (placed_s <= now_s - HELD_S)
    loose &= ~np.any(state.mean[tracks, 2:], axis=1)
    if not loose.any() or len(cols) == len(dets):
        return keep
    prob = dets.class_prob.astype(np.float64) * dets.confidence[:, None].astype(np.float64)
    free = np.ones(len(dets), bool)
    free[cols] = False
    labels = np.argmax(prob, axis=1)
    for k in np.flatnonzero(loose & (prob[cols, tracks] < need)):
        ball = tracks[k]
        keep[k] = not np.any(free & (labels == ball) & (prob[:, ball] >= need))
    return keep
