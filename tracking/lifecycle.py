"""Tracks that start, get lost, are found again and end: the bookkeeping of `BallTracker`.

A ball's track starts on a detection sure of its number (`spawn`). When the ball is no
longer seen, `start_pending` decides once whether it may be dropping into a pocket (its
last path runs into a mouth) or leaving the table (last seen beyond a cushion line), and
`coast` confirms that removal after the ball stays unseen long enough. A lost ball is
found again anywhere its identity is clear (`reidentify`), its velocity restarted.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking.fastnp import true_indices
from tracking.geometry import POCKETS, beside_side_mouth, outside_distance_mm, pocket_entry
from tracking.identity import log_probabilities
from tracking.jaws import in_jaws
from tracking.mixing import open_all
from tracking.track_state import PENDING_NONE, PENDING_OFF, PENDING_POCKET, TrackState
from tracking.tracker_config import TrackerConfig
from tracking.types import TrackStatus
from vision.types import NUM_CLASSES, Detections

RESPAWN_MIN_SIGHTINGS = 3
"""Detections a removed ball's restarted track must take before it is back in play; fewer,
then lost, and it was never back (`coast`)."""


_SIDE_POCKETS = np.array([i for i, pocket in enumerate(POCKETS) if not pocket.is_corner()])
"""Indices into `POCKETS` of the side pockets."""


def restart(
    state: TrackState,
    balls: NDArray[np.int64],
    z: NDArray[np.float64],
    time_s: float,
    config: TrackerConfig,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Means (K, 4) and covariances (K, 4, 4) restarted at measurements ``z`` (K, 2), mm:
    the velocity is the straight line from each ball's last sighting (a collision or a
    bounce between the frames), uncertain by ``reinit_velocity_std_mm_s``."""
    elapsed = np.maximum(time_s - state.seen_time_s[balls], 1e-6)
    velocity = (z - state.seen_xy_mm[balls]) / elapsed[:, None]
    mean = np.concatenate([z, velocity], axis=1)
    variances = [config.measurement_std_mm**2] * 2 + [config.reinit_velocity_std_mm_s**2] * 2
    cov = np.tile(np.diag(variances), (len(balls), 1, 1))
    return mean, cov


def start_pending(
    state: TrackState, table: TableSpec, config: TrackerConfig, balls: NDArray[np.int64]
) -> None:
    """Decide, when ``balls`` are first lost, whether each may be dropping (its path runs
    into a pocket, or it was moving in a pocket's jaws: `jaws.in_jaws`) or leaving the
    table (seen beyond a cushion line, outside the pocket mouths: on the cushion, even
    when its path neared a pocket) (once: its last sighting does not change while it
    stays lost)."""
    if len(balls) == 0:
        return
    state.lost_checked[balls] = True
    xy, velocity = state.seen_xy_mm[balls], state.seen_velocity[balls]
    horizon_s = max(config.pocket_horizon_s, 1e-3)
    pocket = pocket_entry(table, xy, velocity, horizon_s, config.pocket_capture_mm)
    # A side pocket's point passed near on a path that meets the cushion beside its mouth.
    side = np.isin(pocket, _SIDE_POCKETS) & beside_side_mouth(table, xy, velocity)
    pocket = np.where(side, -1, pocket)
    # Rattling in the jaws, a ball may be heading anywhere as it drops.
    rattling = in_jaws(table, xy) & (np.hypot(*velocity.T) > config.rest_speed_mm_s)
    pocket = np.where(rattling, np.maximum(pocket, 0), pocket)
    beyond = outside_distance_mm(table, xy) > config.off_table_margin_mm
    # Seen beyond a cushion line away from any mouth (a radius of slack: a ball clipping a
    # jaw tip), the ball was on the cushion: leaving the table, whatever pocket it neared.
    over_cushion = beyond & ~in_jaws(table, xy, table.ball_radius_mm)
    pocket = np.where(over_cushion, -1, pocket)
    # Born at a mouth and lost there at once: it fell in (`newborn_at_mouth`).
    pocket = np.where(newborn_at_mouth(state, table, balls) & ~over_cushion, 0, pocket)
    pending = np.where(pocket >= 0, PENDING_POCKET, np.where(beyond, PENDING_OFF, PENDING_NONE))
    away = ~in_jaws(table, xy, table.ball_diameter_mm)
    state.pending[balls] = _resume_drop(state, config, (balls, away), pending)


def _resume_drop(
    state: TrackState,
    config: TrackerConfig,
    lost: tuple[NDArray[np.int64], NDArray[np.bool_]],
    pending: NDArray[np.int64],
) -> NDArray[np.int64]:
    """``pending`` (K,) of the balls just lost, with a ball that was lost heading into a
    pocket, found again, and lost again away from every pocket's jaws before it had been
    seen for ``pocket_confirm_s`` since it was lost into the pocket, dropping after all: the
    sightings in between were other balls given its number (a ball rattling out of the
    jaws rolls on in sight; one on a lip is lost again in the jaws). Notes when each ball
    was lost into a pocket (`TrackState.pocket_lost_s`).

    Args:
        state: the tracks.
        config: the tracker's tunables.
        lost: the balls (K,) and whether each was last seen away from the jaws (K,).
        pending: (K,) ``PENDING_*`` their own last sightings give.
    """
    balls, away = lost
    lost_s = state.pocket_lost_s[balls]
    back = away & (state.seen_time_s[balls] - lost_s < config.pocket_confirm_s)
    pending = np.where(back & (pending == PENDING_NONE), PENDING_POCKET, pending)
    dropping = pending == PENDING_POCKET
    state.pocket_lost_s[balls] = np.where(
        back, lost_s, np.where(dropping, state.seen_time_s[balls], -np.inf)
    )
    return pending


def coast(
    state: TrackState, config: TrackerConfig, missing: NDArray[np.bool_], time_s: float
) -> NDArray[np.bool_]:
    """Stop balls unseen for ``max_coast_s`` and remove those whose pending drop or exit
    is confirmed; returns the (11,) mask of balls removed on this frame."""
    removed_now = np.zeros(NUM_CLASSES, bool)
    idx = true_indices(missing)
    if len(idx) == 0:
        return removed_now
    idx = _unspawn(state, missing, idx)
    unseen_s = time_s - state.seen_time_s[idx]
    state.mean[idx[unseen_s > config.max_coast_s], 2:] = 0.0
    confirm = np.where(
        state.pending[idx] == PENDING_POCKET, config.pocket_confirm_s, config.off_table_confirm_s
    )
    done = idx[(state.pending[idx] != PENDING_NONE) & (unseen_s >= confirm - 1e-9)]
    for ball in done:
        pocketed = state.pending[ball] == PENDING_POCKET
        state.removed[ball] = TrackStatus.POCKETED if pocketed else TrackStatus.OFF_TABLE
        state.removed_time_s[ball] = time_s
        state.alive[ball] = False
        state.pending[ball] = PENDING_NONE
        state.mean[ball, 2:] = 0.0  # a removed ball's slot stays put until restarted
        removed_now[ball] = True
    return removed_now


def _unspawn(
    state: TrackState, missing: NDArray[np.bool_], idx: NDArray[np.int64]
) -> NDArray[np.int64]:
    """Put back, without a row, the removed balls whose tracks restarted (`spawn`) on fewer
    than `RESPAWN_MIN_SIGHTINGS` detections and are unseen now: one detection of a ball
    that left the table is another ball, or a hand, given its number. They leave ``missing``
    (in place); returns the rest of ``idx``."""
    back = (state.back_from[idx] != None) & (  # noqa: E711
        state.identity_count[idx] < RESPAWN_MIN_SIGHTINGS
    )
    if not back.any():
        return idx
    for ball in idx[back]:
        state.alive[ball] = False
        state.removed[ball] = state.back_from[ball]
        state.back_from[ball] = None
        state.pending[ball] = PENDING_NONE
        state.mean[ball, 2:] = 0.0
        missing[ball] = False
    kept: NDArray[np.int64] = idx[~back]
    return kept


def spawn(
    state: TrackState, table: TableSpec, config: TrackerConfig, dets: Detections, time_s: float
) -> None:
    """Start or restart the tracks of balls not in play from unassigned detections ``dets``
    on the bed whose most likely class is that ball, sure enough of it."""
    if len(dets) == 0:
        return
    prob = dets.class_prob.astype(np.float64) * dets.confidence[:, None].astype(np.float64)
    on_bed = outside_distance_mm(table, dets.xy_mm.astype(np.float64)) < 0.0
    for ball in true_indices(~state.alive):
        removed = state.removed[ball] is not None
        need = config.respawn_min_probability if removed else config.init_min_probability
        if removed and time_s - state.removed_time_s[ball] < config.respawn_min_s:
            continue
        score = np.where(on_bed & (np.argmax(prob, axis=1) == ball), prob[:, ball], 0.0)
        best = int(np.argmax(score))
        if score[best] < need:
            continue
        back_from = state.removed[ball]
        start_track(state, config, int(ball), dets[np.array([best])], time_s)
        state.back_from[ball] = back_from
        prob[best] = 0.0


def start_track(
    state: TrackState, config: TrackerConfig, ball: int, det: Detections, time_s: float
) -> None:
    """Start ``ball``'s track at rest on the one detection ``det``."""
    xy = det.xy_mm[0].astype(np.float64)
    state.mean[ball] = [xy[0], xy[1], 0.0, 0.0]
    variances = [config.measurement_std_mm**2] * 2 + [config.initial_velocity_std_mm_s**2] * 2
    state.cov[ball] = np.diag(variances)
    state.alive[ball] = True
    state.removed[ball] = None
    balls = np.array([ball])
    state.mark_seen(balls, xy[None, :], det.xy_px[:1], time_s)
    state.evidence[ball] = log_probabilities(det.class_prob[:1], config.identity)[0]
    state.identity_count[ball] = 1
    state.birth_xy_mm[ball] = xy
    state.placed_s[ball] = time_s
    state.proven[ball] = False
    state.left_xy_mm[ball] = np.nan


def newborn_at_mouth(
    state: TrackState, table: TableSpec, balls: NDArray[np.int64]
) -> NDArray[np.bool_]:
    """(K,) which of ``balls`` are tracks born at a pocket's mouth (their first detection
    within a ball radius of its jaws) that have not yet taken `RESPAWN_MIN_SIGHTINGS`
    detections. No ball rests there when a rack starts and none is put down there, so
    such a track is a ball never tracked before (hidden in the rack) that rolled into the
    mouth, or no ball at all: it has no velocity yet, and it is never given a detection
    far back on the bed (another ball named like it); lost, it dropped (`start_pending`)."""
    young = state.identity_count[balls] < RESPAWN_MIN_SIGHTINGS
    if not young.any():
        return young
    at_mouth: NDArray[np.bool_] = young & in_jaws(
        table, state.birth_xy_mm[balls], table.ball_radius_mm
    )
    return at_mouth


def rattle_reach_mm(
    state: TrackState, config: TrackerConfig, balls: NDArray[np.int64], time_s: float
) -> NDArray[np.float64]:
    """(K,) how far from where it was last seen each of ``balls``, lost in a pocket's mouth,
    can be when it rattles back out of the jaws: ``pocket_capture_mm`` plus its last speed
    times the time unseen, mm. Nearer, it may be found again; further, a ball named like it
    is another ball."""
    speed = np.hypot(state.seen_velocity[balls, 0], state.seen_velocity[balls, 1])
    unseen_s = np.maximum(time_s - state.seen_time_s[balls], 0.0)
    reach: NDArray[np.float64] = config.pocket_capture_mm + speed * unseen_s
    return reach


def mouth_reach_mm(
    state: TrackState,
    table: TableSpec,
    config: TrackerConfig,
    balls: NDArray[np.int64],
    time_s: float,
) -> NDArray[np.float64]:
    """(K,) the furthest each of ``balls`` may be taken from its prediction, mm: for a ball
    lost into a pocket's mouth (last seen within a diameter of its jaws), or born there
    (`newborn_at_mouth`), a rattle back out of the jaws (`rattle_reach_mm`), since it
    dropped and a ball named like it further back on the bed is another ball, however vague
    its prediction has grown; inf for the rest."""
    # Lost into the mouth where it was last seen, not where its prediction coasted on to
    # while unseen (a ball struck off its path there is found again far from the mouth).
    seen_in_mouth = in_jaws(table, state.seen_xy_mm[balls], table.ball_diameter_mm)
    held = (state.pending[balls] == PENDING_POCKET) & seen_in_mouth
    held |= newborn_at_mouth(state, table, balls)
    reach = np.full(len(balls), np.inf)
    if held.any():
        reach[held] = rattle_reach_mm(state, config, balls[held], time_s)
    return reach


def reidentify_need(
    state: TrackState,
    config: TrackerConfig,
    lost: tuple[int, float, float],
    jumpable: NDArray[np.bool_],
) -> float:
    """Class probability needed to find a lost ball ``moved_mm`` from where it was last
    seen: a ball that can have been struck (``jumpable``, (11,); with
    ``reidentify_within_reach``, only within what the top ball speed reaches since then),
    or one no further than a hand could have pushed it, needs
    ``reidentify_min_probability``; a resting ball nothing touched is otherwise still where
    it was hidden, until it has been unseen for ``rest_reidentify_after_s`` (moved by hand),
    and then needs a respawn's certainty.

    Args:
        state: the tracks.
        config: the tracker's tunables.
        lost: the ball, how far from its last sighting the candidate lies (mm), and now (s).
        jumpable: (11,) balls that can have been struck since the last frame.
    """
    ball, moved_mm, time_s = lost
    unseen_s = time_s - state.seen_time_s[ball]
    if state.pending[ball] == PENDING_POCKET:
        # Only a rattle out of the jaws, near where it was lost, brings it back.
        rattle_mm = float(rattle_reach_mm(state, config, np.array([ball]), time_s)[0])
        return config.reidentify_min_probability if moved_mm <= rattle_mm else np.inf
    pushed_mm = (
        min(config.max_disturbed_speed_mm_s * unseen_s, config.max_disturbed_distance_mm)
        + config.association.gate_min_mm
    )
    if jumpable[ball] and config.reidentify_within_reach:
        # Struck, it rolled at most at the top speed since it was last seen: a look-alike
        # further off is another ball (a fast ball lost for a few frames, found on another).
        reach_mm = config.max_ball_speed_mm_s * unseen_s + config.association.gate_min_mm
        return config.reidentify_min_probability if moved_mm <= reach_mm else float(np.inf)
    if jumpable[ball] or moved_mm <= pushed_mm:
        return config.reidentify_min_probability
    if unseen_s >= config.rest_reidentify_after_s:
        return config.respawn_min_probability
    return float(np.inf)


def reidentify(
    state: TrackState,
    config: TrackerConfig,
    dets: Detections,
    lost: tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]],
    time_s: float,
) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
    """Give lost balls the unassigned detections that are clearly them, wherever they are
    (a ball that jumped out of its gate, or moved while hidden).

    Args:
        state: the tracks; each ball found restarts there, at rest.
        config: the tracker's tunables.
        dets: this frame's detections.
        lost: the (11,) balls missing, the (D,) detections unassigned (updated in place),
            the (11,) balls that can have been struck (`tracking.reach.may_jump`) and the
            (11, D) detections each ball may not take (`tracking.claims.barred`).
        time_s: now, s.

    Returns:
        The (11,) mask of balls found and the detections they took, in ball order.
    """
    missing, unassigned, jumpable, barred = lost
    found = np.zeros(NUM_CLASSES, bool)
    found_cols: list[int] = []
    prob = dets.class_prob.astype(np.float64) * dets.confidence[:, None].astype(np.float64)
    labels = np.argmax(prob, axis=1)
    for ball in np.flatnonzero(missing):
        score = np.where(unassigned & (labels == ball) & ~barred[ball], prob[:, ball], 0.0)
        best = int(np.argmax(score))
        moved_mm = float(np.linalg.norm(dets.xy_mm[best] - state.seen_xy_mm[ball]))
        need = reidentify_need(state, config, (int(ball), moved_mm, time_s), jumpable)
        if score[best] < need:
            continue
        z = dets.xy_mm[best : best + 1].astype(np.float64)
        mean, cov = restart(state, np.array([ball]), z, time_s, config)
        # Found far away: where it came from says nothing of its speed now.
        mean[0, 2:] = 0.0
        # A resting ball nothing reached was moved by hand or is a ghost beside its spot:
        # it hops there at rest (`tracking.reach.rest_hops`).
        hop = not jumpable[ball] and not np.any(state.mean[ball, 2:])
        hop &= bool(state.identity_count[ball] >= RESPAWN_MIN_SIGHTINGS)
        if hop:
            cov[0, 2:, 2:] = np.eye(2) * config.rest_speed_mm_s**2
        left_xy = state.seen_xy_mm[ball].copy() if hop else np.full(2, np.nan)
        state.mean[ball], state.cov[ball] = mean[0], cov[0]
        state.mark_seen(np.array([ball]), z, dets.xy_px[best : best + 1], time_s)
        state.proven[ball], state.placed_s[ball] = False, time_s
        state.left_xy_mm[ball] = left_xy
        unassigned[best] = False
        open_all(state.mixed_s, np.array([ball]), time_s)
        found[ball] = True
        found_cols.append(best)
    return found, np.array(found_cols, np.int64)
