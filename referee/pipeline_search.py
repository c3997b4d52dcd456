"""Where the pipeline's detector searches: which balls are in play, and when a ball that may
be moving is lost so that the whole table is searched (`referee.pipeline.Pipeline`)."""

from __future__ import annotations

from dataclasses import dataclass

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


STRUCK_REACH_S = 0.2
"""A moving ball counts as near a lost one (it may have struck it) when it is within this
many seconds at its speed, plus two ball diameters, of the lost ball's last place."""


def struck_ball_lost(
    tracks: TrackSet,
    unseen_s: NDArray[np.float64],
    recent_s: float,
    min_speed_mm_s: float,
    table: TableSpec,
) -> bool:
    """Whether a ball lost less than ``recent_s`` ago may have been struck into motion:
    a moving ball is near where it was last seen, or the cue ball is lost too.

    A resting ball struck hard (3-5 m/s at 30-50 frames/s: 2-6 radii a frame) leaves its
    search window within a frame while its filter, which never saw it move, still says it
    rests, so `moving_ball_lost` does not count it and only the periodic whole-table
    search (about a second later) finds it again: its path, a pocket or its first contact
    are lost meanwhile. A ball that stays hidden longer (under a player's arm) stops
    counting after ``recent_s``, so it costs a few searches at most.

    Args:
        tracks: this frame's tracks, (N,) balls.
        unseen_s: (N,) seconds since each ball was last seen (0 when seen now).
        recent_s: how long after it was lost a ball may still be moving unseen.
        min_speed_mm_s: a ball moves above this speed.
        table: the table (its pockets: a ball at a pocket mouth is dropping).
    """
    if len(unseen_s) != len(tracks.ball):
        raise ValueError(f"unseen_s must have one entry per ball, got {len(unseen_s)}")
    status = tracks.status
    lost = status_is(status, TrackStatus.OCCLUDED) & (unseen_s > 0.0) & (unseen_s <= recent_s)
    speed = np.hypot(tracks.velocity_mm_s[:, 0], tracks.velocity_mm_s[:, 1])
    speed = np.where(np.isfinite(speed), speed, 0.0)
    moving = in_play(tracks) & (speed > min_speed_mm_s) & ~lost
    if not lost.any():
        return False
    near_mm = speed[moving] * STRUCK_REACH_S + 4.0 * table.ball_radius_mm
    gap = tracks.xy_mm[lost][:, None, :] - tracks.xy_mm[moving][None, :, :]
    struck = np.any(np.hypot(gap[..., 0], gap[..., 1]) <= near_mm[None, :], axis=1)
    # A cue ball lost as well was struck too and is the likeliest striker wherever its
    # filter (which never saw it move) puts it.
    struck |= np.any(lost & (tracks.ball == CUE)) & (tracks.ball[lost] != CUE)
    if not struck.any():
        return False
    entering = pocket_entry(
        table,
        tracks.xy_mm[lost][struck],
        tracks.velocity_mm_s[lost][struck],
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


REACH_SPACING_WINDOWS = 0.8
"""Spacing of the window centres that tile a ball's reach, in search-window widths (below 1:
neighbouring windows overlap, so a ball between two centres lies whole inside one)."""


@dataclass(frozen=True, slots=True)
class Reach:
    """How far the detector reaches for balls that may be moving but are unseen.

    Attributes:
        speed_mm_s: the fastest plausible ball (a hard break's cue ball), mm/s: a ball at
            rest by its filter but maybe struck (the cue ball) may be this far per second
            of being unseen from its rest spot.
        max_radii: the reach stops growing at this many ball radii (past it, the periodic
            whole-table searches for lost balls take over).
        window_radii: half-size of one search window, ball radii
            (`DetectorConfig.hint_window_radii`).
    """

    speed_mm_s: float
    max_radii: float
    window_radii: float


def reach_centres(
    tracks: TrackSet, unseen_s: NDArray[np.float64], step_s: float, table: TableSpec, reach: Reach
) -> NDArray[np.float64]:
    """(K, 2) table mm around which to search the next frame so that each unseen ball that
    may be moving lies inside a window wherever it went: a disc of radius speed times the
    time it will have been unseen, tiled with window centres (capped at
    ``reach.max_radii``), around where its filter puts it next frame; a lost cue ball
    whose filter says it rests (struck, it left its window before the filter saw it move)
    gets ``reach.speed_mm_s`` around its rest spot.

    Only the cue ball reaches so far: a lost object ball's detections found that way were
    handed to other balls' tracks (broadcast_pushout's break, 30 frames/s: a potted 8 took
    the 9 half a table away), while the tracker's own lost-ball searches keep them.

    Args:
        tracks: this frame's tracks, (N,) balls.
        unseen_s: (N,) seconds since each ball was last seen (0 when seen now).
        step_s: seconds to the next frame.
        table: the table (its size bounds the centres, its ball radius scales the reach).
        reach: the speeds and sizes.
    """
    if len(unseen_s) != len(tracks.ball):
        raise ValueError(f"unseen_s must have one entry per ball, got {len(unseen_s)}")
    radius = table.ball_radius_mm
    speed = np.hypot(tracks.velocity_mm_s[:, 0], tracks.velocity_mm_s[:, 1])
    speed = np.where(np.isfinite(speed), speed, 0.0)
    resting_cue = (tracks.ball == CUE) & (speed < reach.speed_mm_s * 0.05)
    bound = np.where(resting_cue, reach.speed_mm_s, np.minimum(speed, reach.speed_mm_s))
    coasting = status_is(tracks.status, TrackStatus.OCCLUDED) & (unseen_s > 0.0)
    coasting &= tracks.ball == CUE
    reach_mm = np.minimum(bound * (unseen_s + step_s), reach.max_radii * radius)
    grows = coasting & (reach_mm > reach.window_radii * radius)
    if not grows.any():
        return np.zeros((0, 2))
    ahead = tracks.xy_mm[grows] + np.where(resting_cue[grows, None], 0.0, 1.0) * (
        tracks.velocity_mm_s[grows] * step_s
    )
    spacing = 2.0 * reach.window_radii * radius * REACH_SPACING_WINDOWS
    centres = np.vstack(
        [_tiled(c, r, spacing) for c, r in zip(ahead, reach_mm[grows], strict=True)]
    )
    inside = (
        (centres[:, 0] > -radius)
        & (centres[:, 0] < table.length_mm + radius)
        & (centres[:, 1] > -radius)
        & (centres[:, 1] < table.width_mm + radius)
    )
    return centres[inside]


def _tiled(centre: NDArray[np.float64], reach_mm: float, spacing: float) -> NDArray[np.float64]:
    """(K, 2) grid points ``spacing`` apart whose windows cover the disc of ``reach_mm``
    around ``centre``."""
    steps = int(np.ceil(reach_mm / spacing))
    offsets = np.arange(-steps, steps + 1) * spacing
    grid = np.stack(np.meshgrid(offsets, offsets), axis=-1).reshape(-1, 2)
    near = np.hypot(grid[:, 0], grid[:, 1]) <= reach_mm + 0.5 * spacing
    tiles: NDArray[np.float64] = centre + grid[near]
    return tiles
