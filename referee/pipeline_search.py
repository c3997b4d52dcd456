"""Where the pipeline's detector searches: which balls are in play, and when a ball that may
be moving is lost so that the whole table is searched (`referee.pipeline.Pipeline`)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking.geometry import pocket_entry
from tracking.status_masks import status_is
from tracking.types import TrackSet, TrackStatus
from vision.types import CUE


def in_play(tracks: TrackSet) -> NDArray[np.bool_]:
    """(N,) whether each ball is on the bed, seen or hidden (the detector looks around it)."""
    status = tracks.status
    mask: NDArray[np.bool_] = status_is(status, TrackStatus.ON_TABLE) | status_is(
        status, TrackStatus.OCCLUDED
    )
    return mask


DROP_HORIZON_S = 0.2
"""A lost ball whose path enters a pocket within this time is dropping, not lost."""


def moving_ball_lost(
    tracks: TrackSet, min_speed_mm_s: float, table: TableSpec, cue_lost: bool = False
) -> bool:
    """Whether some ball is hidden from the detector while it may be moving, other than one
    heading into a pocket mouth (it is dropping: a full-table search, some 60 ms, would not
    find it, and the windows around its prediction cover a rattle).

    A ball may be moving when the tracker thinks so, and the cue ball when ``cue_lost`` (lost
    long enough, `PipelineConfig.lost_cue_wait_s`): struck from rest, it leaves its search
    window within a frame (at 2 m/s and up) while its filter, which never saw it move, still
    says it rests. An object ball only starts when a ball the tracker follows reaches it.
    """
    coasting = status_is(tracks.status, TrackStatus.OCCLUDED)
    speed = np.hypot(tracks.velocity_mm_s[:, 0], tracks.velocity_mm_s[:, 1])
    lost = coasting & ((speed > min_speed_mm_s) | ((tracks.ball == CUE) & cue_lost))
    if not lost.any():
        return False
    entering = pocket_entry(
        table,
        tracks.xy_mm[lost],
        tracks.velocity_mm_s[lost],
        DROP_HORIZON_S,
        min(table.corner_mouth_mm, table.side_mouth_mm),
    )
    return bool(np.any(entering < 0))


def cue_in_hand(tracks: TrackSet) -> bool:
    """Whether the cue ball is off the bed (pocketed, off the table, or no longer tracked):
    in hand, it comes back wherever the player puts it, where no search window looks, and
    the next stroke may follow within a second."""
    cue = tracks.ball == CUE
    status = tracks.status
    off = status_is(status, TrackStatus.POCKETED) | status_is(status, TrackStatus.OFF_TABLE)
    return not np.any(cue) or bool(np.any(off & cue))
