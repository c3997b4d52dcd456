"""Ending the tracks of balls that are gone: unseen, where plain cloth shows.

The tracker learns of balls only through detections, so an unseen ball may be hidden (under
an arm, a body, a cue) or gone (dropped unseen, or its track lost onto nothing). The
pipeline asks the detector whether the window at each unseen ball's place shows plain cloth
(`vision.plain`) and tells the tracker (`note_plain`); a ball at rest whose window stays
plain for `TrackerConfig.plain_cloth_end_s` is gone from there (`gone_unseen`): its row
stops, while its track stays to be found again (a ball struck from its spot while hidden,
or one the detector misses in plain view, must not need a new track's certainty to come
back: ending the tracks outright lost pool clips' recall 0.985 -> 0.973 and 0.915 ->
0.809). A ball dropping or leaving the table is left to `tracking.lifecycle.coast`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from tracking.track_state import PENDING_NONE, TrackState
from tracking.tracker_config import TrackerConfig
from vision.types import NUM_CLASSES


def note_plain(
    state: TrackState, balls: NDArray[np.int64], plain: NDArray[np.bool_], time_s: float
) -> None:
    """Note which unseen ``balls`` (K,) showed plain cloth (``plain`` (K,)) at ``time_s``:
    a plain window starts (or continues) its run, any other breaks it. Only a ball whose
    filter says it rests counts: a moving one's window is where it was guessed to go (its
    prediction drifts from the ball, which the search plan still looks for: a pool clip's
    ball lost rolling was ended 130 mm off its path and not found again for 2 s)."""
    balls = np.asarray(balls, np.int64)
    plain = np.asarray(plain, bool) & ~np.any(state.mean[balls, 2:], axis=1)
    if len(balls) == 0:
        return
    since = state.plain_since_s
    starting = plain & np.isnan(since[balls])
    since[balls[starting]] = time_s
    since[balls[~plain]] = np.nan


def gone_unseen(
    state: TrackState, config: TrackerConfig, missing: NDArray[np.bool_], time_s: float
) -> NDArray[np.bool_]:
    """(11,) the ``missing`` balls whose windows have shown plain cloth, at rest, for
    ``plain_cloth_end_s``, with no drop or exit pending (those `lifecycle.coast` confirms):
    gone from where they were hidden. Their tracks stay (a detection clearly theirs finds
    them again, as any lost ball: `lifecycle.reidentify`), but they have no row: they are
    not on the table where the track last put them."""
    if config.plain_cloth_end_s <= 0.0:
        return np.zeros(NUM_CLASSES, bool)
    shown_s = time_s - state.plain_since_s
    long_enough = np.isfinite(shown_s) & (shown_s >= config.plain_cloth_end_s - 1e-9)
    gone: NDArray[np.bool_] = missing & state.alive & long_enough
    gone &= state.pending == PENDING_NONE
    return gone
