"""Track the eleven balls in table millimetres: one Kalman track per ball number.

Every frame: predict all balls (one batched call), assign detections to balls by identity and
distance (Hungarian), correct the assigned balls, re-initialise the velocity of a ball whose
innovation says it was struck or bounced, snap slow balls to rest, and decide for each
unseen ball whether it is merely hidden (``occluded``), has dropped into a pocket
(``pocketed``: its track ended at a pocket mouth while heading in) or has left the table
over a cushion (``off_table``). A hidden ball is found again by its identity anywhere its
grown uncertainty allows (re-identification); a pocketed ball comes back when it is
clearly seen on the bed again (a spotted 10, a cue ball in hand).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking import kalman
from tracking.association import TrackGates, assign, association_cost, jump_costs
from tracking.bounce import CushionModel, bounce_off_cushions
from tracking.claims import barred, claim_owners, held_claims, refused_jumps
from tracking.continuity import continuity_pairs, crowded_jumps, occupied
from tracking.fastnp import true_indices
from tracking.identity import (
    SLOT_FREE,
    SLOT_IN_PLAY,
    SLOT_REMOVED,
    SLOT_VACANT,
    accumulate,
    faded,
    log_probabilities,
    relabels,
)
from tracking.lifecycle import (
    coast,
    mouth_reach_mm,
    reidentify,
    restart,
    spawn,
    start_pending,
)
from tracking.mixing import Reaches, confirm, masked, mixable, open_all, open_jumps, open_near
from tracking.phantoms import let_go, prove
from tracking.plain_end import gone_unseen, note_plain
from tracking.rack import RackPrior
from tracking.reach import may_jump, rest_hops
from tracking.track_state import TrackState, track_set
from tracking.tracker_config import TrackerConfig
from tracking.types import TrackSet
from vision.types import NUM_CLASSES, Detections

__all__ = ["BallTracker", "TrackerConfig"]


class BallTracker:
    """Kalman tracks of the cue ball and balls 1..10 in table mm; one track per number.

    Args:
        table: the table (pockets and cushion lines for drops and off-table balls).
        config: tunables; defaults suit 25-240 fps and any standard table.
    """

    def __init__(self, table: TableSpec, config: TrackerConfig | None = None) -> None:
        self.table = table
        self.config = config or TrackerConfig()
        self._state = TrackState()
        self._time_s: float | None = None
        self._dt_s = 0.0
        self._striking = np.zeros(NUM_CLASSES, bool)
        self._start_s: float | None = None
        std = self.config.measurement_std_mm
        self._R = np.eye(2) * std**2
        self._det_R = float(np.linalg.det(self._R))
        speed_cap = self.config.max_ball_speed_mm_s
        self._variance_cap = np.array([float(table.length_mm) ** 2] * 2 + [speed_cap**2] * 2)
        self._cushion = CushionModel(
            self.config.cushion_restitution,
            self.config.cushion_restitution_std,
            self.config.edge_stops_velocity,
        )
        self._cache: dict[float, tuple[NDArray[np.float64], ...]] = {}
        radius = table.ball_radius_mm
        self._centre_low = np.array([radius, radius])
        self._bed_area_mm2 = float((table.length_mm - 2 * radius) * (table.width_mm - 2 * radius))
        self._centre_high = np.array([table.length_mm - radius, table.width_mm - radius])
        self._jumpable = np.ones(NUM_CLASSES, bool)
        self._rack = RackPrior(table, self.config.identity.rack)
        self._claims: tuple[NDArray[np.int64], NDArray[np.bool_]] | None = None

    def update(self, detections: Detections, frame: int, time_s: float) -> TrackSet:
        """Advance every track to this frame and return the state of every ball in play.

        Args:
            detections: this frame's detections; ``xy_mm`` must be set (not NaN).
            frame: frame index.
            time_s: frame time, s (strictly increasing; repeated times do not predict).

        Returns:
            One row per ball on the table or hidden, plus one ``pocketed`` / ``off_table``
            row for a ball on the frame its removal is confirmed.
        """
        dt_s = 0.0 if self._time_s is None else max(0.0, time_s - self._time_s)
        self._time_s, self._dt_s = time_s, dt_s
        usable = np.all(np.isfinite(detections.xy_mm), axis=1)
        dets = detections[usable] if not usable.all() else detections
        dets = self._rack.apply(dets, time_s)
        self._predict(dt_s)
        tracks, cols = self._associate(dets, dt_s)
        continuity = self.config.overlap_diameters > 0.0
        if continuity and len(tracks) > 1:
            z = dets.xy_mm[cols].astype(np.float64)
            keep = ~crowded_jumps(self._state.mean[tracks, :2], z, self._overlap_mm())
            tracks, cols = tracks[keep], cols[keep]
        if self._start_s is None:
            self._start_s = time_s
        if self.config.release_phantoms:
            need = self.config.reidentify_min_probability
            keep = let_go(self._state, dets, (tracks, cols), need, (self._start_s, time_s))
            # Let go for a sure likeness elsewhere: re-identification may move it there.
            self._jumpable[tracks[~keep]] = True
            tracks, cols = tracks[keep], cols[keep]
        self._correct(tracks, (dets.xy_mm[cols], dets.xy_px[cols]), time_s)
        missing = self._state.alive.copy()
        missing[tracks] = False
        unassigned = np.ones(len(dets), bool)
        unassigned[cols] = False
        if continuity and unassigned.any() and len(cols):
            unassigned &= ~self._seen_twice(dets, cols)
        taken = (tracks, cols)
        start_pending(
            self._state,
            self.table,
            self.config,
            true_indices(missing & ~self._state.lost_checked),
        )
        if unassigned.any() and missing.any():
            lost = (missing, unassigned, self._jumpable, self._barred(len(dets)))
            found, found_cols = reidentify(self._state, self.config, dets, lost, time_s)
            missing &= ~found
            taken = (np.concatenate([tracks, true_indices(found)]), np.append(cols, found_cols))
        if continuity and unassigned.any() and missing.any():
            self._continue(missing, dets, unassigned, time_s)
        self._settle_identities(taken, dets, dt_s, missing)
        removed_now = coast(self._state, self.config, missing, time_s)
        if unassigned.any() and not self._state.alive.all():
            if continuity:
                unassigned &= ~self._occupied(dets)
            unassigned &= ~self._beside_taken(dets, taken[1])
            if self.config.resting_claim_starts:
                unassigned &= ~self._barred(len(dets)).any(axis=0)
            before = self._state.alive.copy()
            spawn(self._state, self.table, self.config, dets[unassigned], time_s)
            open_all(self._state.mixed_s, true_indices(self._state.alive & ~before), time_s)
        gone = gone_unseen(self._state, self.config, missing, time_s)
        return track_set(self._state, (frame, time_s), missing, (removed_now, gone))

    def note_plain_cloth(
        self, balls: NDArray[np.int64], plain: NDArray[np.bool_], time_s: float
    ) -> None:
        """Tell the tracker which unseen ``balls`` (K,) showed plain cloth (``plain``
        (K,), `vision.plain`) in this frame's search windows at ``time_s``: a run of
        ``plain_cloth_end_s`` ends such a ball's track (`tracking.plain_end`)."""
        note_plain(self._state, balls, plain, time_s)

    def _predict(self, dt_s: float) -> None:
        state = self._state
        if dt_s <= 0.0 or not state.alive.any():
            return
        F, q_move, q_rest = self._matrices(dt_s)
        # Every slot is predicted (one batch); slots not in play are restarted when used.
        at_rest: NDArray[np.bool_] = ~np.any(state.mean[:, 2:], axis=1)
        Q = np.where(at_rest[:, None, None], q_rest, q_move)
        before_xy = state.mean[:, :2]
        state.mean, state.cov = kalman.predict(state.mean, state.cov, F, Q)
        centre = state.mean[:, :2]
        # Only a ball predicted beyond a cushion line and still heading out can bounce
        # (most frames: none).
        over = centre - np.clip(centre, self._centre_low, self._centre_high)
        if ((over * state.mean[:, 2:] > 0.0).any(axis=1) & state.alive).any():
            bounce_off_cushions(self.table, before_xy, state.mean, state.cov, self._cushion)
        if (np.diagonal(state.cov, axis1=1, axis2=2) > self._variance_cap).any():
            state.cov = kalman.cap_variance(state.cov, self._variance_cap)

    def _matrices(self, dt_s: float) -> tuple[NDArray[np.float64], ...]:
        """F and the moving / resting Q for a time step, cached by step."""
        key = round(dt_s, 9)
        if key not in self._cache:
            config = self.config
            self._cache[key] = (
                kalman.transition_matrix(dt_s),
                kalman.process_noise(dt_s, config.acceleration_std_mm_s2),
                kalman.process_noise(dt_s, config.rest_acceleration_std_mm_s2),
            )
            if len(self._cache) > 64:
                self._cache.pop(next(iter(self._cache)))
        return self._cache[key]

    def _associate(
        self, dets: Detections, dt_s: float
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        state, config = self._state, self.config
        idx = true_indices(state.alive)
        if len(idx) == 0 or len(dets) == 0:
            empty = np.zeros(0, np.int64)
            return empty, empty.copy()
        mean, cov = state.mean[idx], state.cov[idx]
        z = dets.xy_mm.astype(np.float64)
        S = cov[:, :2, :2] + self._R
        d_sq, distance = kalman.pairwise_distances(mean, S, z)
        sigma_mm = np.sqrt(kalman.largest_eigenvalue_2x2(S))
        struck = self._may_jump(idx, sigma_mm, dt_s)
        unseen_s = np.maximum(dt_s, (self._time_s or 0.0) - state.seen_time_s[idx])
        struck_s = unseen_s if config.struck_gate_unseen else dt_s
        jump_mm = np.where(
            struck,
            config.max_ball_speed_mm_s * struck_s,
            np.minimum(
                config.max_disturbed_speed_mm_s * unseen_s, config.max_disturbed_distance_mm
            ),
        )
        collision_gate_mm = jump_mm + config.association.gate_sigmas * sigma_mm
        held_mm = mouth_reach_mm(state, self.table, self.config, idx, self._time_s or 0.0)
        collision_gate_mm = np.minimum(collision_gate_mm, held_mm)
        gates = TrackGates(
            collision_gate_mm,
            0.5 * np.log((S[:, 0, 0] * S[:, 1, 1] - S[:, 0, 1] ** 2) / self._det_R),
            jump_costs(collision_gate_mm, self._bed_area_mm2, self._R),
        )
        class_prob = dets.class_prob.T[idx].astype(np.float64) * dets.confidence[None, :]
        cost = association_cost(d_sq, distance, class_prob, gates, config.association)
        rows, cols = assign(cost, config.association.max_cost)
        association = config.association
        reach_mm = np.maximum(association.gate_sigmas * sigma_mm, association.gate_min_mm)
        offset = z[cols] - mean[rows, :2]
        far = np.einsum("ni,ni->n", offset, offset) > reach_mm[rows] ** 2
        tracks = Reaches(idx, mean[:, :2], reach_mm)
        keep = self._claim(dets, (idx[rows], cols), far)
        rows, cols, far = rows[keep], cols[keep], far[keep]
        self._open_pairs(tracks, (rows[far], z[cols[far]]))
        return idx[rows], cols

    def _claim(
        self,
        dets: Detections,
        pairs: tuple[NDArray[np.int64], NDArray[np.int64]],
        far: NDArray[np.bool_],
    ) -> NDArray[np.bool_]:
        """(K,) keep mask of the assigned pairs: False for a jump (``far``) onto another
        ball's resting spot (`tracking.claims`); this frame's claims are kept for
        re-identification and new tracks."""
        self._claims = None
        claim_mm = self.config.resting_claim_diameters * self.table.ball_diameter_mm
        if claim_mm <= 0.0:
            return np.ones(len(far), bool)
        since_s = (self._time_s or 0.0) - self.config.resting_claim_s
        owners = claim_owners(self._state, dets.xy_mm, claim_mm, since_s)
        holds = held_claims(owners, pairs)
        self._claims = (owners, holds)
        return ~refused_jumps(owners, holds, pairs, far)

    def _barred(self, count: int) -> NDArray[np.bool_]:
        """(11, D) detections each ball may not take outside its gate: another ball's
        resting spot (`tracking.claims.barred`)."""
        if self._claims is None:
            return np.zeros((NUM_CLASSES, count), bool)
        return barred(*self._claims)

    def _open_pairs(
        self, tracks: Reaches, jumps: tuple[NDArray[np.int64], NDArray[np.float64]]
    ) -> None:
        """Open the pairs of tracks whose kinematic gates meet, and those of each track that
        jumped beyond its gate (rows, (J,)) with the tracks near the detection it took (at
        (J, 2), mm; `tracking.mixing`)."""
        now, diameter = self._time_s or 0.0, self.table.ball_diameter_mm
        open_near(self._state.mixed_s, tracks, diameter, now)
        if len(jumps[0]):
            open_jumps(self._state.mixed_s, tracks, jumps, diameter, now)

    def _may_jump(
        self, idx: NDArray[np.int64], sigma_mm: NDArray[np.float64], dt_s: float
    ) -> NDArray[np.bool_]:
        """(len(idx),) which balls can have been struck since the last frame
        (`tracking.reach.may_jump`); only these may jump out of their kinematic gate. The
        (11,) result is also kept for re-identification."""
        now_s = self._time_s or 0.0
        jumpable = self._jumpable
        stopped = np.zeros(NUM_CLASSES, bool)
        if self.config.lost_knock_within_coast:
            # An object ball unseen for longer than ``max_coast_s`` is held stopped
            # (`tracking.lifecycle.coast`), somewhere unknown: it knocks no resting ball.
            stopped = now_s - self._state.seen_time_s > self.config.max_coast_s
            stopped[0] = False
            jumpable = jumpable & ~stopped
        tracks = (idx, sigma_mm, jumpable)
        self._striking = jumpable.copy()
        result = may_jump(self._state, self.table, self.config, tracks, (dt_s, now_s))
        # It may still turn up anywhere itself (found again by its identity).
        result |= self._jumpable[idx] & stopped[idx]
        self._jumpable[:] = False
        self._jumpable[idx] = result
        return result

    def _correct(
        self,
        tracks: NDArray[np.int64],
        measured: tuple[NDArray[np.float32], NDArray[np.float32]],
        time_s: float,
    ) -> None:
        state, config = self._state, self.config
        if len(tracks) == 0:
            return
        z = measured[0].astype(np.float64)
        mean, cov, y, nis = kalman.correct(state.mean[tracks], state.cov[tracks], z, self._R)
        jumped = (nis > config.collision_innovation_sigmas**2) & (
            np.einsum("ni,ni->n", y, y) > config.collision_innovation_min_mm**2
        )
        if jumped.any():
            mean[jumped], cov[jumped] = restart(state, tracks[jumped], z[jumped], time_s, config)
        if config.knock_speed_cap:
            self._cap_knocks(tracks, mean)
        unreached = ~self._jumpable[tracks]
        if config.rest_start_evidence:
            unreached |= self._hopped_back(tracks, z)
            if jumped.any():
                unreached[jumped] |= self._knocked_towards(tracks[jumped], z[jumped])
        still = rest_hops(state, (tracks, jumped, unreached), z, self.table.ball_radius_mm)
        if still.any():
            # At rest as surely as a ball seen resting: a hop back or on is a jump again.
            variances = [config.measurement_std_mm**2] * 2 + [config.rest_speed_mm_s**2] * 2
            mean[still] = np.concatenate([z[still], np.zeros_like(z[still])], axis=1)
            cov[still] = np.diag(variances)
        speed_sq = np.einsum("ni,ni->n", mean[:, 2:], mean[:, 2:])
        prove(state, tracks, jumped, z, time_s)
        mean[speed_sq < config.rest_speed_mm_s**2, 2:] = 0.0
        state.mean[tracks], state.cov[tracks] = mean, cov
        state.mark_seen(tracks, z, measured[1], time_s)

    def _hopped_back(self, tracks: NDArray[np.int64], z: NDArray[np.float64]) -> NDArray[np.bool_]:
        """(K,) which of ``tracks`` hopped at rest off their spot (`tracking.reach.rest_hops`)
        and took detections ``z`` (K, 2), mm, back on it (within a ball radius): the ball
        itself, found again where it never left, so no start, whatever ball rolls near."""
        left = self._state.left_xy_mm[tracks]
        away = z - np.where(np.isfinite(left), left, np.inf)
        back: NDArray[np.bool_] = np.einsum("ni,ni->n", away, away) <= (
            self.table.ball_radius_mm**2
        )
        return back

    def _cap_knocks(self, tracks: NDArray[np.int64], mean: NDArray[np.float64]) -> None:
        """Slow, in place, the corrected states ``mean`` (K, 4) of the object balls
        ``tracks`` that gained more speed than a knock can give (`_knock_speed_caps`): a
        restart's jump, or the next correction of a track left vague by one, read from a
        ghost beside a ball (a player's arm, a bad fit of a ball half hidden)."""
        config = self.config
        prior = np.hypot(self._state.mean[tracks, 2], self._state.mean[tracks, 3])
        speed = np.hypot(mean[:, 2], mean[:, 3])
        noise_mm_s = 2.0 * config.measurement_std_mm / max(self._dt_s, 1e-3)
        gained = (speed > prior + noise_mm_s) & (tracks != 0)
        if not gained.any():
            return
        cap = self._knock_speed_caps(tracks[gained])
        fast = speed[gained] > cap
        scale = np.where(fast, cap / np.maximum(speed[gained], 1e-9), 1.0)
        mean[gained, 2:] *= scale[:, None]

    def _knock_speed_caps(self, tracks: NDArray[np.int64]) -> NDArray[np.float64]:
        """(K,) the fastest each object ball of ``tracks`` can roll after a collision this
        frame, mm/s: equal masses, so a knock gives a ball at most the speed of the ball
        that hits it, and a cushion only takes speed away: the larger of its own predicted
        speed and those of the seen balls rolling within its reach, plus the speed two
        measurement errors make over a frame. Unbounded (inf) for the cue ball (the cue may
        strike it), and while a ball that may be rolling is lost, or the cue ball at rest
        (struck there by the cue at any speed) reaches it."""
        state, config = self._state, self.config
        mean = state.mean
        speed, striker, _, lost, reach = self._knockers()
        noise_mm_s = 2.0 * config.measurement_std_mm / max(self._dt_s, 1e-3)
        caps = np.full(len(tracks), np.inf)
        for k, ball in enumerate(tracks):
            others = state.alive & (np.arange(NUM_CLASSES) != ball)
            if ball == 0 or (others & lost).any():
                continue
            distance = np.hypot(*(mean[ball, :2] - mean[:, :2]).T)
            near = others & striker & (distance <= reach)
            if near[0] and speed[0] <= config.rest_speed_mm_s:
                continue  # the cue ball at rest beside it: struck by the cue, any speed
            caps[k] = max(float(speed[ball]), float(speed[near].max(initial=0.0))) + noise_mm_s
        return caps

    def _knockers(
        self,
    ) -> tuple[
        NDArray[np.float64],
        NDArray[np.bool_],
        NDArray[np.bool_],
        NDArray[np.bool_],
        NDArray[np.float64],
    ]:
        """(11,) each: the balls' predicted speed, mm/s; which may knock others now (in
        play, and rolling or the cue ball); which were unseen last frame; which of those
        may be rolling where nobody sees (`_may_jump`'s strikers: they come from anywhere);
        and how far each can reach this frame (a diameter, a frame's travel and its gate),
        mm. Shared by `_knock_speed_caps` and `_knocked_towards`."""
        state, config = self._state, self.config
        now_s, dt_s = self._time_s or 0.0, self._dt_s
        speed = np.hypot(state.mean[:, 2], state.mean[:, 3])
        cue = np.arange(NUM_CLASSES) == 0
        striker = state.alive & ((speed > config.rest_speed_mm_s) | cue)
        unseen = state.seen_time_s < now_s - dt_s - 1e-9
        lost = unseen & (striker | self._striking)
        sigma = np.sqrt(np.maximum(state.cov[:, 0, 0], state.cov[:, 1, 1]))
        gate = config.association.gate_sigmas * sigma
        reach = self.table.ball_diameter_mm + speed * dt_s + gate
        return speed, striker, unseen, lost, reach

    def _knocked_towards(
        self, tracks: NDArray[np.int64], z: NDArray[np.float64]
    ) -> NDArray[np.bool_]:
        """(K,) which of the resting balls ``tracks`` that took detections at ``z`` (K, 2),
        mm, moved towards every ball that can have knocked them this frame (towards both
        ends of its path over the frame): a knock pushes a ball along the line of centres,
        away from the ball that hit it, so such a jump is a ghost beside the ball (an arm,
        a bad fit), not a start.

        Only balls reached directly by seen balls (the cue ball, or a ball rolling, within
        a diameter plus a frame's travel plus their gate) are judged: a ball with a resting
        neighbour within 1.5 diameters may be knocked through it (a rack), and a ball
        unseen since the last frame that may be rolling (moving, or struck while unseen and,
        with ``lost_knock_within_coast``, not yet held stopped) may have come from anywhere,
        so neither is."""
        state, dt_s = self._state, self._dt_s
        diameter = self.table.ball_diameter_mm
        mean = state.mean
        alive = state.alive
        speed, striker, unseen, lost, reach = self._knockers()
        result = np.zeros(len(tracks), bool)
        for k, ball in enumerate(tracks):
            if ball == 0 or speed[ball] > 0.0 or state.identity_count[ball] < 3:
                continue
            apart = mean[ball, :2] - mean[:, :2]
            distance = np.hypot(apart[:, 0], apart[:, 1])
            others = alive & (np.arange(NUM_CLASSES) != ball)
            if (others & ~striker & (distance <= 1.5 * diameter)).any():
                continue  # a chain of touching balls may pass a knock on
            if (others & lost).any():
                continue  # a lost ball may have knocked it from anywhere
            near = others & striker & ~unseen & (distance <= reach)
            if not near.any():
                continue
            # From anywhere on its path this frame (its prediction overshoots a bounce).
            step = z[k] - mean[ball, :2]
            before = apart[near] + mean[near, 2:] * dt_s
            away = np.maximum(apart[near] @ step, before @ step)
            result[k] = bool((away <= 0.0).all())
        return result

    def _overlap_mm(self) -> float:
        return self.config.overlap_diameters * self.table.ball_diameter_mm

    def _position_std_mm(self, idx: NDArray[np.int64]) -> NDArray[np.float64]:
        return np.sqrt(kalman.largest_eigenvalue_2x2(self._state.cov[idx, :2, :2]))

    def _continue(
        self,
        missing: NDArray[np.bool_],
        dets: Detections,
        unassigned: NDArray[np.bool_],
        time_s: float,
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Give unseen tracks the unassigned detections right on their ball (physical
        continuity, whatever the detection's colour says); ``missing`` and ``unassigned``
        are updated in place. Returns the tracks and the detections they took."""
        idx = true_indices(missing)
        free = true_indices(unassigned)
        xy = self._state.mean[idx, :2]
        rows, cols = continuity_pairs(
            xy, self._position_std_mm(idx), dets.xy_mm[free], self._overlap_mm()
        )
        tracks, cols = idx[rows], free[cols]
        self._correct(tracks, (dets.xy_mm[cols], dets.xy_px[cols]), time_s)
        missing[tracks] = False
        unassigned[cols] = False
        return tracks, cols

    def _seen_twice(self, dets: Detections, cols: NDArray[np.int64]) -> NDArray[np.bool_]:
        """(D,) detections on top of one taken (``cols``): the same ball seen twice."""
        z = dets.xy_mm[cols].astype(np.float64)
        return occupied(z, np.zeros(len(z)), dets.xy_mm, self._overlap_mm())

    def _beside_taken(self, dets: Detections, cols: NDArray[np.int64]) -> NDArray[np.bool_]:
        """(D,) detections nearer than ``spawn_clearance_diameters`` to one a track took
        this frame (``cols``): the same ball seen twice, never another ball."""
        clearance_mm = self.config.spawn_clearance_diameters * self.table.ball_diameter_mm
        if clearance_mm <= 0.0 or len(cols) == 0:
            return np.zeros(len(dets), bool)
        z = dets.xy_mm[cols].astype(np.float64)
        beside = occupied(z, np.zeros(len(z)), dets.xy_mm, clearance_mm)
        beside[cols] = False
        return beside

    def _occupied(self, dets: Detections) -> NDArray[np.bool_]:
        """(D,) detections on a ball a track in play knows: they start no other ball."""
        idx = true_indices(self._state.alive)
        xy = self._state.mean[idx, :2]
        return occupied(xy, self._position_std_mm(idx), dets.xy_mm, self._overlap_mm())

    def _settle_identities(
        self,
        taken: tuple[NDArray[np.int64], NDArray[np.int64]],
        dets: Detections,
        dt_s: float,
        missing: NDArray[np.bool_],
    ) -> None:
        """Accumulate the class evidence of the detections taken, then give each track the
        number its evidence supports (``missing`` follows the exchanges, in place)."""
        state, config = self._state, self.config.identity
        tracks, cols = taken
        if len(tracks) == 0:
            return
        weight = 1.0 - np.exp(-dt_s / config.memory_s) if dt_s > 0 else 0.0
        log_prob = log_probabilities(dets.class_prob[cols], config)
        accumulate(state.evidence, state.identity_count, tracks, log_prob, weight)
        now = self._time_s or 0.0
        confirm(state.confirmed_s, state.evidence, tracks, config.margin, now)
        settle_s = config.settle_memories * config.memory_s
        seen = np.zeros(NUM_CLASSES, bool)
        seen[tracks] = True
        # A never-seen ball may be hidden in a standing rack; once it is broken, not.
        unseen_kind = SLOT_FREE if self._rack.intact else SLOT_VACANT
        kind = np.where(
            state.alive,
            SLOT_IN_PLAY,
            np.where(state.removed == None, unseen_kind, SLOT_REMOVED),  # noqa: E711
        ).astype(np.int64)
        evidence = faded(state.evidence, now - state.seen_time_s, config)
        if settle_s >= 0:
            allowed = mixable(state.mixed_s, state.confirmed_s, settle_s)
            # A never-seen ball has no track whose reach could have been met: any track
            # may have come to follow it unseen (one hidden behind the ball it was on).
            never_seen = (kind == SLOT_FREE) | (kind == SLOT_VACANT)
            allowed = allowed | never_seen[:, None] | never_seen[None, :]
            evidence = masked(evidence, allowed)
        for a, b in relabels(evidence, state.identity_count, seen, kind, config):
            state.exchange(a, b)
            self._jumpable[[a, b]] = self._jumpable[[b, a]]
            missing[[a, b]] = missing[[b, a]]
