"""Where the detector also looks for balls that leave their windows within a frame: a fast
ball where it will be (`lead_centres`), and a resting ball a moving one strikes, down the
line of centres (`knocked_balls`, `knock_corridor`). The windows centred where each ball
is (`referee.pipeline_plan.SearchPlan`) hold a ball moving under about 2 m/s at 30
frames/s; measured on rendered clips, balls at 3-6 m/s were found on 63 of 215 frames the
detector searched such windows and 42 of 47 frames it searched the whole table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from referee.pipeline_search import REACH_SPACING_WINDOWS, in_play
from tracking.types import TrackSet

KNOCK_CORRIDOR_S = 0.25
"""For this long after a moving ball came within reach of a resting one, the resting ball is
also searched for along the corridor it would be sent down (`knocked_balls`,
`knock_corridor`); 0 turns it off. `PipelineConfig.knock_corridor_s`'s default."""

KNOCK_MARGIN_RADII = 1.0
"""A moving ball's path counts as reaching a resting ball when it passes within two radii
(touching) plus this many radii (the tracks' uncertainty) of its centre."""

KNOCK_ALONE_RADII = 3.0
"""Only a resting ball with no other resting ball within this many radii of its centre gets a
corridor: a ball in a rack or a cluster passes the blow on through the balls it touches,
in directions the striker's path does not tell, and windows among its neighbours found
them again under other names (a 30 frames/s break: the potted 3 read in its place)."""

KNOCK_MAX_RADII = 20.0
"""The corridor stops growing at this many ball radii from the rest spot (past it the
periodic and lost-ball whole-table searches take over)."""


@dataclass(frozen=True, slots=True)
class Knocks:
    """Resting balls a moving ball may strike (or has struck) about now, columnar.

    Attributes:
        ball: (K,) int64 ball classes.
        xy_mm: (K, 2) float64 their rest spots, table mm.
        direction: (K, 2) float64 unit vectors along which each would be sent (the line of
            centres at the contact the striker's path predicts).
        speed_mm_s: (K,) float64 the striker's speed: a struck ball leaves no faster.
    """

    ball: NDArray[np.int64]
    xy_mm: NDArray[np.float64]
    direction: NDArray[np.float64]
    speed_mm_s: NDArray[np.float64]


def knocked_balls(
    tracks: TrackSet, step_s: float, min_speed_mm_s: float, table: TableSpec
) -> Knocks:
    """The resting balls, each alone (`KNOCK_ALONE_RADII`), that a moving ball's path, from
    one frame interval back to one ahead, comes within touching distance of (plus
    `KNOCK_MARGIN_RADII`).

    A resting object ball struck hard (3-6 m/s at 30 frames/s: 2-7 radii a frame) leaves its
    search window within a frame, while its filter, which never saw it move, keeps its
    window at the rest spot; the ball is only found again by a whole-table search, its
    path, pocket or cushion lost meanwhile. Its direction is known, though: the line of
    centres at contact. A thin cut that makes that line uncertain sends it off slowly,
    inside its own window.

    Args:
        tracks: this frame's tracks, (N,) balls.
        step_s: the frame interval, s (the path spans one back and one ahead).
        min_speed_mm_s: a ball moves above this speed.
        table: the table (ball size).
    """
    speed = np.hypot(tracks.velocity_mm_s[:, 0], tracks.velocity_mm_s[:, 1])
    speed = np.where(np.isfinite(speed), speed, 0.0)
    play = in_play(tracks)
    moving = play & (speed > min_speed_mm_s)
    resting = play & (speed <= min_speed_mm_s)
    if resting.any():
        gap = tracks.xy_mm[resting][:, None, :] - tracks.xy_mm[resting][None, :, :]
        apart = np.hypot(gap[..., 0], gap[..., 1])
        crowded = np.sum(apart <= KNOCK_ALONE_RADII * table.ball_radius_mm, axis=1) > 1
        resting[np.nonzero(resting)[0][crowded]] = False
    empty = Knocks(np.zeros(0, np.int64), np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0))
    if step_s <= 0.0 or not moving.any() or not resting.any():
        return empty
    radius = table.ball_radius_mm
    step = tracks.velocity_mm_s[moving] * step_s  # (M, 2)
    start = tracks.xy_mm[moving] - step
    target = tracks.xy_mm[resting]  # (R, 2)
    rel = target[:, None, :] - start[None, :, :]  # (R, M, 2)
    length2 = np.maximum(4.0 * np.sum(step * step, axis=1), 1e-9)  # |2 step|^2
    along = np.clip(np.sum(rel * 2.0 * step[None], axis=2) / length2, 0.0, 1.0)  # (R, M)
    closest = start[None] + along[..., None] * 2.0 * step[None]
    miss = np.hypot(*(target[:, None, :] - closest).transpose(2, 0, 1))
    near = miss <= (2.0 + KNOCK_MARGIN_RADII) * radius
    if not near.any():
        return empty
    # The contact point: back along the path from the closest approach until the centres
    # are two radii apart (the closest point itself when the path misses by more).
    back = np.sqrt(np.maximum((2.0 * radius) ** 2 - miss**2, 0.0))
    unit = 2.0 * step / np.sqrt(length2)[:, None]
    contact = closest - back[..., None] * unit[None]
    line = target[:, None, :] - contact
    norm = np.hypot(line[..., 0], line[..., 1])
    near &= norm > 1e-6
    # The striker nearest its contact names the direction (several: the fastest).
    striker_speed = np.where(near, speed[moving][None, :], -1.0)
    pick = np.argmax(striker_speed, axis=1)
    hit = near.any(axis=1)
    rows = np.nonzero(hit)[0]
    chosen = line[rows, pick[rows]] / norm[rows, pick[rows], None]
    return Knocks(
        tracks.ball[resting][rows],
        target[rows],
        chosen,
        striker_speed[rows, pick[rows]],
    )


def knock_corridor(
    knocks: Knocks,
    elapsed_s: NDArray[np.float64],
    table: TableSpec,
    window_radii: float,
    others_mm: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """(K, 2) table mm: window centres along each knocked ball's corridor, from one window
    out of its rest spot to as far as the striker's speed carries it in ``elapsed_s`` (its
    (K,) seconds since it was first threatened, plus the coming frame), capped at
    `KNOCK_MAX_RADII`; spaced as `reach_centres`' tiles. A window that would hold one of
    (P, 2) ``others_mm`` (the other balls in play, searched in their own windows) is left
    out: a second search of a ball its track already follows only adds doubt."""
    radius = table.ball_radius_mm
    spacing = 2.0 * window_radii * radius * REACH_SPACING_WINDOWS
    reach_mm = np.minimum(knocks.speed_mm_s * elapsed_s, KNOCK_MAX_RADII * radius)
    steps = np.floor(reach_mm / spacing + 0.5).astype(np.int64)  # the last window may overhang
    if not np.any(steps > 0):
        return np.zeros((0, 2))
    which = np.repeat(np.arange(len(steps)), np.maximum(steps, 0))
    count = np.concatenate([np.arange(1, n + 1) for n in steps if n > 0])
    centres = knocks.xy_mm[which] + knocks.direction[which] * (count * spacing)[:, None]
    inside = (
        (centres[:, 0] > -radius)
        & (centres[:, 0] < table.length_mm + radius)
        & (centres[:, 1] > -radius)
        & (centres[:, 1] < table.width_mm + radius)
    )
    if others_mm is not None and len(others_mm):
        reach = (window_radii + 1.0) * radius
        gap = np.abs(centres[:, None, :] - others_mm[None, :, :])
        inside &= ~np.any(np.all(gap <= reach, axis=2), axis=1)
    kept: NDArray[np.float64] = centres[inside]
    return kept


LEAD_STEP_RADII = 1.5
"""A ball whose step to the next frame exceeds this many radii also gets a window where it
will be (`lead_centres`); 0 turns it off. `PipelineConfig.lead_step_radii`'s default."""


def lead_centres(
    tracks: TrackSet,
    step_s: float,
    table: TableSpec,
    window_radii: float,
    step_radii: float = LEAD_STEP_RADII,
) -> NDArray[np.float64]:
    """(K, 2) table mm: where each fast ball in play will be next frame, for the balls whose
    step (speed times ``step_s``) exceeds ``step_radii`` radii (0: none), leaving out a
    window that would hold another ball in play.

    The window of a ball is centred where it is (`SearchPlan`), so a ball faster than
    about 2 m/s at 30 frames/s (4 at 60) has left it by the next frame, and only the
    whole-table searches find it. A window that would also hold another ball is left out:
    among a break's crowd such sightings were handed to the wrong tracks.
    """
    if step_radii <= 0.0 or step_s <= 0.0:
        return np.zeros((0, 2))
    radius = table.ball_radius_mm
    play = in_play(tracks)
    step = tracks.velocity_mm_s * step_s
    fast = play & np.all(np.isfinite(step), axis=1)
    fast &= np.hypot(step[:, 0], step[:, 1]) > step_radii * radius
    if not fast.any():
        return np.zeros((0, 2))
    ahead = tracks.xy_mm[fast] + step[fast]
    reach = (window_radii + 1.0) * radius
    gap = np.abs(ahead[:, None, :] - tracks.xy_mm[play][None, :, :])
    holds = np.all(gap <= reach, axis=2)  # (F, P): its own current spot may be inside
    own = tracks.ball[fast][:, None] == tracks.ball[play][None, :]
    clear = ~np.any(holds & ~own, axis=1)
    on_table = (
        (ahead[:, 0] > -radius)
        & (ahead[:, 0] < table.length_mm + radius)
        & (ahead[:, 1] > -radius)
        & (ahead[:, 1] < table.width_mm + radius)
    )
    kept: NDArray[np.float64] = ahead[clear & on_table]
    return kept
