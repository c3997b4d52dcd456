"""A resting ball's spot is its own: no other track jumps onto it.

Two ball centres are never nearer than one diameter, so a detection right on the spot where
a ball was seen resting a moment ago shows that ball (or a ghost on it), never another one.
The assignment weighs identity against distance, and a detection there misnamed for a frame
(the blurred cue ball arriving at the rack, a resting ball read as the cue ball while the
real one is hidden) can be taken by another track through a jump: the cue ball's track then
sits on a rack ball, or a hidden cue ball is found on the ball beside it. A *claim* forbids
that: a detection within ``claim_mm`` of a track at rest, seen lately, whose position is
known, may be taken by that track or by a track that reaches it without a jump (one rolling
in), never by a jump, a re-identification or a new track of another number.

A claim lapses as soon as its ball moves: a ball that was struck takes its detection
elsewhere (or is lost) and stops claiming the moment its own track leaves the spot, so a
ball that rolls onto a spot just vacated is refused for a frame at most.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from tracking.track_state import TrackState
from vision.types import NUM_CLASSES

NO_CLAIM = -1
"""``owner`` value of a detection no resting ball claims."""


def claim_owners(
    state: TrackState,
    det_xy_mm: NDArray[np.floating],
    claim_mm: float,
    seen_since_s: float,
) -> NDArray[np.int64]:
    """(D,) the ball whose resting spot each detection lies on, `NO_CLAIM` for none.

    A ball claims when its track is in play, at rest (zero velocity), was seen at or after
    ``seen_since_s`` and its position standard deviation is below ``claim_mm``; a detection
    within ``claim_mm`` of several claiming centres belongs to the nearest.

    Args:
        state: the tracks (means already predicted to this frame).
        det_xy_mm: (D, 2) detection centres, table mm.
        claim_mm: how near a centre a detection must be (below a ball diameter).
        seen_since_s: claims of balls seen before this time have lapsed, s.
    """
    owners = np.full(len(det_xy_mm), NO_CLAIM, np.int64)
    std_sq = np.maximum(state.cov[:, 0, 0], state.cov[:, 1, 1])
    resting = state.alive & ~np.any(state.mean[:, 2:], axis=1)
    resting &= (state.seen_time_s >= seen_since_s) & (std_sq < claim_mm * claim_mm)
    balls = np.flatnonzero(resting)
    if len(balls) == 0 or len(det_xy_mm) == 0:
        return owners
    offset = det_xy_mm[:, None, :].astype(np.float64) - state.mean[None, balls, :2]
    dist_sq = np.einsum("dti,dti->dt", offset, offset)
    nearest = np.argmin(dist_sq, axis=1)
    near = dist_sq[np.arange(len(det_xy_mm)), nearest] < claim_mm * claim_mm
    owners[near] = balls[nearest[near]]
    return owners


def held_claims(
    owners: NDArray[np.int64], pairs: tuple[NDArray[np.int64], NDArray[np.int64]]
) -> NDArray[np.bool_]:
    """(11,) balls whose claims hold this frame: every claiming ball except one that took a
    detection off its spot (it was struck and moved: its old spot is free).

    Args:
        owners: (D,) `claim_owners` of this frame's detections.
        pairs: (K,) tracks and (K,) the detections they took.
    """
    holds = np.zeros(NUM_CLASSES, bool)
    holds[owners[owners != NO_CLAIM]] = True
    tracks, cols = pairs
    moved = tracks[owners[cols] != tracks]
    holds[moved] = False
    return holds


def refused_jumps(
    owners: NDArray[np.int64],
    holds: NDArray[np.bool_],
    pairs: tuple[NDArray[np.int64], NDArray[np.int64]],
    jumped: NDArray[np.bool_],
) -> NDArray[np.bool_]:
    """(K,) pairs in which a track jumped (``jumped``, (K,)) onto a detection another
    ball's holding claim covers.

    Args:
        owners: (D,) `claim_owners` of this frame's detections.
        holds: (11,) `held_claims`.
        pairs: (K,) tracks and (K,) the detections they took.
        jumped: (K,) the detection lies beyond the track's kinematic gate.
    """
    tracks, cols = pairs
    owner = owners[cols]
    claimed = (owner != NO_CLAIM) & (owner != tracks)
    result: NDArray[np.bool_] = jumped & claimed & holds[np.maximum(owner, 0)]
    return result


def barred(owners: NDArray[np.int64], holds: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """(11, D) detections each ball may not be found on (re-identification) or started on:
    those another ball's holding claim covers (a detection any row bars starts no track).

    Args:
        owners: (D,) `claim_owners` of this frame's detections.
        holds: (11,) `held_claims`.
    """
    claimed = (owners != NO_CLAIM) & holds[np.maximum(owners, 0)]
    others = np.arange(NUM_CLASSES)[:, None] != owners[None, :]
    result: NDArray[np.bool_] = claimed[None, :] & others
    return result
