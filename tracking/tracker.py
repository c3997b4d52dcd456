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

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking import kalman
from tracking.association import AssociationConfig, assign, association_cost
from tracking.bounce import CushionModel, bounce_off_cushions
from tracking.geometry import outside_distance_mm, pocket_entry
from tracking.types import TrackSet, TrackStatus
from vision.types import NUM_CLASSES, Detections

_PENDING_NONE, _PENDING_POCKET, _PENDING_OFF = 0, 1, 2
_SEEN_STATUS = np.array([TrackStatus.ON_TABLE, TrackStatus.OCCLUDED, None], dtype=object)[:2]


@dataclass(frozen=True, slots=True)
class TrackerConfig:
    """Tunables of `BallTracker`, all in physical units (mm, mm/s, s).

    Attributes:
        measurement_std_mm: detector position noise. Raising it smooths more and lags more.
        acceleration_std_mm_s2: unmodelled acceleration of a rolling ball (friction, spin).
            Raising it follows curves and decelerations faster but smooths less.
        rest_acceleration_std_mm_s2: the same for a ball at rest. Raising it lets a resting
            ball's estimate drift with detector noise; lowering it averages noise away.
        rest_speed_mm_s: below this speed a ball's velocity is snapped to zero. Raising it
            declares balls at rest sooner.
        max_ball_speed_mm_s: fastest plausible ball (a hard break sends the cue ball at up to
            about 14 m/s). Raising it
            widens the gate through which a struck ball may jump between frames.
        collision_innovation_sigmas: an innovation beyond this many standard deviations (and
            beyond ``collision_innovation_min_mm``) is a collision or bounce: the velocity is
            re-initialised from the measurement. Raising it keeps the old velocity longer.
        collision_innovation_min_mm: smallest innovation that can be a collision. Raising it
            ignores small kicks.
        reinit_velocity_std_mm_s: velocity uncertainty after a re-initialisation. Raising it
            lets the next frames set the new velocity faster.
        initial_velocity_std_mm_s: velocity uncertainty of a ball first seen (assumed at
            rest). Raising it widens the first gates, at the risk of taking a neighbour.
        cushion_restitution: share of the normal speed a ball keeps when its prediction
            bounces off a cushion line (billiard cushions: about 0.6-0.9). A prediction that
            crosses a cushion line away from the pocket mouths is mirrored back with it, so a
            ball unseen through a bounce is still searched for on the table. Must be in
            (0, 1]; raising it predicts livelier rebounds.
        cushion_restitution_std: uncertainty of that restitution (cushions, speeds and spin
            differ): a predicted bounce adds this times the incoming normal speed to the
            normal velocity's standard deviation, so the association gate widens to take the
            ball back after it. Raising it accepts rebounds further from the predicted one,
            at the risk of taking a neighbour.
        max_coast_s: after this long unseen, a ball is assumed to have stopped (velocity 0).
            Raising it extrapolates hidden balls further.
        pocket_capture_mm: how close to a pocket point the path of a vanishing ball must pass
            to count as dropping. Raising it calls more vanishings near pockets drops.
        pocket_confirm_s: how long a ball must stay unseen before a drop is confirmed. Raising
            it survives longer detector misses near pockets, but reports drops later.
        off_table_margin_mm: a ball last seen this far beyond a cushion line (away from the
            pockets) and then lost has left the table. Raising it needs clearer evidence.
        off_table_confirm_s: how long such a ball must stay unseen. Raising it reports later.
        init_min_probability: class probability needed to start a ball's first track.
            Raising it starts tracks only on sure identities.
        respawn_min_probability: class probability needed to bring back a pocketed or
            off-table ball (spotted 10, cue ball in hand). Raising it guards against
            resurrecting a ball from a misidentified detection.
        reidentify_min_probability: class probability with which an unassigned detection
            anywhere on the table is taken as a lost ball (re-identification). Raising it
            waits for surer identities before a lost ball is found again.
        respawn_min_s: a removed ball cannot come back sooner than this. Raising it guards
            against a ball seen in the pocket jaws just after dropping.
        association: the assignment cost tunables.
    """

    measurement_std_mm: float = 2.0
    acceleration_std_mm_s2: float = 4000.0
    rest_acceleration_std_mm_s2: float = 30.0
    rest_speed_mm_s: float = 20.0
    max_ball_speed_mm_s: float = 15000.0
    collision_innovation_sigmas: float = 4.0
    collision_innovation_min_mm: float = 6.0
    reinit_velocity_std_mm_s: float = 1500.0
    initial_velocity_std_mm_s: float = 200.0
    cushion_restitution: float = 0.75
    cushion_restitution_std: float = 0.15
    max_coast_s: float = 0.5
    pocket_capture_mm: float = 90.0
    pocket_confirm_s: float = 0.12
    off_table_margin_mm: float = 15.0
    off_table_confirm_s: float = 0.5
    init_min_probability: float = 0.5
    respawn_min_probability: float = 0.8
    reidentify_min_probability: float = 0.6
    respawn_min_s: float = 0.5
    association: AssociationConfig = field(default_factory=AssociationConfig)

    def __post_init__(self) -> None:
        if isinstance(self.association, dict):  # loaded from a TOML table
            object.__setattr__(self, "association", AssociationConfig(**self.association))
        for name in ("measurement_std_mm", "acceleration_std_mm_s2", "max_ball_speed_mm_s"):
            if getattr(self, name) <= 0:
                raise ValueError(
                    f"TrackerConfig.{name} must be positive, got {getattr(self, name)}"
                )
        if not 0.0 < self.cushion_restitution <= 1.0:
            raise ValueError(
                f"TrackerConfig.cushion_restitution must be in (0, 1], "
                f"got {self.cushion_restitution}"
            )


@dataclass(slots=True)
class _State:
    """Mutable per-ball state, indexed by ball class (0 cue, 1..10)."""

    mean: NDArray[np.float64] = field(default_factory=lambda: np.zeros((NUM_CLASSES, 4)))
    cov: NDArray[np.float64] = field(
        default_factory=lambda: np.tile(np.eye(4), (NUM_CLASSES, 1, 1))
    )
    alive: NDArray[np.bool_] = field(default_factory=lambda: np.zeros(NUM_CLASSES, bool))
    removed: NDArray[np.object_] = field(default_factory=lambda: np.full(NUM_CLASSES, None, object))
    removed_time_s: NDArray[np.float64] = field(
        default_factory=lambda: np.full(NUM_CLASSES, -np.inf)
    )
    seen_time_s: NDArray[np.float64] = field(default_factory=lambda: np.zeros(NUM_CLASSES))
    seen_xy_mm: NDArray[np.float64] = field(default_factory=lambda: np.zeros((NUM_CLASSES, 2)))
    seen_velocity: NDArray[np.float64] = field(default_factory=lambda: np.zeros((NUM_CLASSES, 2)))
    pending: NDArray[np.int64] = field(default_factory=lambda: np.zeros(NUM_CLASSES, np.int64))
    xy_px: NDArray[np.float64] = field(default_factory=lambda: np.full((NUM_CLASSES, 2), np.nan))
    measured_xy_mm: NDArray[np.float64] = field(
        default_factory=lambda: np.full((NUM_CLASSES, 2), np.nan)
    )


class BallTracker:
    """Kalman tracks of the cue ball and balls 1..10 in table mm; one track per number.

    Args:
        table: the table (pockets and cushion lines for drops and off-table balls).
        config: tunables; defaults suit 25-240 fps and any standard table.
    """

    def __init__(self, table: TableSpec, config: TrackerConfig | None = None) -> None:
        self.table = table
        self.config = config or TrackerConfig()
        self._state = _State()
        self._time_s: float | None = None
        std = self.config.measurement_std_mm
        self._R = np.eye(2) * std**2
        self._position_var_cap = float(table.length_mm) ** 2
        self._cushion = CushionModel(
            self.config.cushion_restitution, self.config.cushion_restitution_std
        )
        self._cache: dict[float, tuple[NDArray[np.float64], ...]] = {}

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
        self._time_s = time_s
        usable = np.all(np.isfinite(detections.xy_mm), axis=1)
        dets = detections[usable] if not usable.all() else detections
        self._predict(dt_s)
        tracks, cols = self._associate(dets, dt_s)
        self._correct(tracks, (dets.xy_mm[cols], dets.xy_px[cols]), time_s)
        missing = self._state.alive.copy()
        missing[tracks] = False
        unassigned = np.ones(len(dets), bool)
        unassigned[cols] = False
        if unassigned.any() and missing.any():
            missing &= ~self._reidentify(missing, dets, unassigned, time_s)
        removed_now = self._coast(missing, time_s)
        if unassigned.any() and not self._state.alive.all():
            self._spawn(dets[unassigned], time_s)
        return self._trackset(frame, time_s, missing, removed_now)

    def _predict(self, dt_s: float) -> None:
        state = self._state
        if dt_s <= 0.0 or not state.alive.any():
            return
        F, q_move, q_rest = self._matrices(dt_s)
        # Every slot is predicted (one batch); slots not in play are restarted when used.
        at_rest = ~np.any(state.mean[:, 2:], axis=1)
        Q = np.where(at_rest[:, None, None], q_rest, q_move)
        before_xy = state.mean[:, :2].copy()
        state.mean, state.cov = kalman.predict(state.mean, state.cov, F, Q)
        bounce_off_cushions(self.table, before_xy, state.mean, state.cov, self._cushion)
        np.minimum(state.cov[:, :2, :2], self._position_var_cap, out=state.cov[:, :2, :2])

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
        idx = np.flatnonzero(state.alive)
        if len(idx) == 0 or len(dets) == 0:
            empty = np.zeros(0, np.int64)
            return empty, empty.copy()
        mean, cov = state.mean[idx], state.cov[idx]
        z = dets.xy_mm.astype(np.float64)
        d_sq = kalman.pairwise_mahalanobis_sq(mean, cov, z, self._R)
        offset = z[None, :, :] - mean[:, None, :2]
        distance = np.sqrt(np.einsum("tdi,tdi->td", offset, offset))
        sigma_mm = np.sqrt(kalman.largest_eigenvalue_2x2(cov[:, :2, :2] + self._R))
        gate = config.max_ball_speed_mm_s * dt_s + config.association.gate_sigmas * sigma_mm
        class_prob = dets.class_prob.T[idx].astype(np.float64) * dets.confidence[None, :]
        cost = association_cost(d_sq, distance, class_prob, gate, config.association)
        rows, cols = assign(cost, config.association.max_cost)
        return idx[rows], cols

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
        y, S = kalman.innovation(state.mean[tracks], state.cov[tracks], z, self._R)
        nis = kalman.normalized_innovation_sq(y, S)
        jumped = (nis > config.collision_innovation_sigmas**2) & (
            np.einsum("ni,ni->n", y, y) > config.collision_innovation_min_mm**2
        )
        mean, cov = kalman.update(state.mean[tracks], state.cov[tracks], z, self._R)
        if jumped.any():
            mean[jumped], cov[jumped] = self._reinitialise(tracks[jumped], z[jumped], time_s)
        speed_sq = np.einsum("ni,ni->n", mean[:, 2:], mean[:, 2:])
        mean[speed_sq < config.rest_speed_mm_s**2, 2:] = 0.0
        state.mean[tracks], state.cov[tracks] = mean, cov
        state.seen_time_s[tracks] = time_s
        state.seen_xy_mm[tracks] = z
        state.seen_velocity[tracks] = mean[:, 2:]
        state.pending[tracks] = _PENDING_NONE
        state.xy_px[tracks] = measured[1]
        state.measured_xy_mm[tracks] = z

    def _reinitialise(
        self, tracks: NDArray[np.int64], z: NDArray[np.float64], time_s: float
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Restart position at the measurement, velocity from the last sighting."""
        state, config = self._state, self.config
        elapsed = np.maximum(time_s - state.seen_time_s[tracks], 1e-6)
        velocity = (z - state.seen_xy_mm[tracks]) / elapsed[:, None]
        mean = np.concatenate([z, velocity], axis=1)
        variances = [config.measurement_std_mm**2] * 2 + [config.reinit_velocity_std_mm_s**2] * 2
        cov = np.tile(np.diag(variances), (len(tracks), 1, 1))
        return mean, cov

    def _coast(self, missing: NDArray[np.bool_], time_s: float) -> NDArray[np.bool_]:
        """Classify unseen balls; returns the (11,) mask of balls removed on this frame."""
        state, config = self._state, self.config
        removed_now = np.zeros(NUM_CLASSES, bool)
        idx = np.flatnonzero(missing)
        if len(idx) == 0:
            return removed_now
        self._start_pending(idx[state.pending[idx] == _PENDING_NONE])
        unseen_s = time_s - state.seen_time_s[idx]
        state.mean[idx[unseen_s > config.max_coast_s], 2:] = 0.0
        confirm = np.where(
            state.pending[idx] == _PENDING_POCKET,
            config.pocket_confirm_s,
            config.off_table_confirm_s,
        )
        done = idx[(state.pending[idx] != _PENDING_NONE) & (unseen_s >= confirm - 1e-9)]
        for ball in done:
            pocketed = state.pending[ball] == _PENDING_POCKET
            state.removed[ball] = TrackStatus.POCKETED if pocketed else TrackStatus.OFF_TABLE
            state.removed_time_s[ball] = time_s
            state.alive[ball] = False
            state.pending[ball] = _PENDING_NONE
            removed_now[ball] = True
        return removed_now

    def _start_pending(self, idx: NDArray[np.int64]) -> None:
        """Decide, when a ball is first lost, whether it may be dropping or leaving the table."""
        if len(idx) == 0:
            return
        state, config = self._state, self.config
        xy, velocity = state.seen_xy_mm[idx], state.seen_velocity[idx]
        horizon_s = max(config.pocket_confirm_s, 1e-3)
        pocket = pocket_entry(self.table, xy, velocity, horizon_s, config.pocket_capture_mm)
        beyond = outside_distance_mm(self.table, xy) > config.off_table_margin_mm
        state.pending[idx] = np.where(
            pocket >= 0, _PENDING_POCKET, np.where(beyond, _PENDING_OFF, _PENDING_NONE)
        )

    def _reidentify(
        self,
        missing: NDArray[np.bool_],
        dets: Detections,
        unassigned: NDArray[np.bool_],
        time_s: float,
    ) -> NDArray[np.bool_]:
        """Give lost balls the unassigned detections that are clearly them, wherever they
        are (a ball that jumped out of its gate, or moved while hidden). Returns the (11,)
        mask of balls found; ``unassigned`` is updated in place."""
        state, config = self._state, self.config
        found = np.zeros(NUM_CLASSES, bool)
        prob = dets.class_prob.astype(np.float64) * dets.confidence[:, None].astype(np.float64)
        labels = np.argmax(prob, axis=1)
        for ball in np.flatnonzero(missing):
            score = np.where(unassigned & (labels == ball), prob[:, ball], 0.0)
            best = int(np.argmax(score))
            if score[best] < config.reidentify_min_probability:
                continue
            z = dets.xy_mm[best : best + 1].astype(np.float64)
            mean, cov = self._reinitialise(np.array([ball]), z, time_s)
            # Found far away: where it came from says nothing of its speed now.
            mean[0, 2:] = 0.0
            state.mean[ball], state.cov[ball] = mean[0], cov[0]
            state.seen_time_s[ball] = time_s
            state.seen_xy_mm[ball] = z[0]
            state.seen_velocity[ball] = mean[0, 2:]
            state.pending[ball] = _PENDING_NONE
            state.xy_px[ball] = dets.xy_px[best]
            state.measured_xy_mm[ball] = z[0]
            unassigned[best] = False
            found[ball] = True
        return found

    def _spawn(self, dets: Detections, time_s: float) -> None:
        """Start or restart the tracks of balls not in play from unassigned detections."""
        state, config = self._state, self.config
        if len(dets) == 0:
            return
        prob = dets.class_prob.astype(np.float64) * dets.confidence[:, None].astype(np.float64)
        on_bed = outside_distance_mm(self.table, dets.xy_mm.astype(np.float64)) < 0.0
        for ball in np.flatnonzero(~state.alive):
            removed = state.removed[ball] is not None
            need = config.respawn_min_probability if removed else config.init_min_probability
            if removed and time_s - state.removed_time_s[ball] < config.respawn_min_s:
                continue
            score = np.where(on_bed & (np.argmax(prob, axis=1) == ball), prob[:, ball], 0.0)
            best = int(np.argmax(score))
            if score[best] < need:
                continue
            self._start_track(int(ball), dets[np.array([best])], time_s)
            prob[best] = 0.0

    def _start_track(self, ball: int, det: Detections, time_s: float) -> None:
        state, config = self._state, self.config
        xy = det.xy_mm[0].astype(np.float64)
        state.mean[ball] = [xy[0], xy[1], 0.0, 0.0]
        variances = [config.measurement_std_mm**2] * 2 + [config.initial_velocity_std_mm_s**2] * 2
        state.cov[ball] = np.diag(variances)
        state.alive[ball] = True
        state.removed[ball] = None
        state.seen_time_s[ball] = time_s
        state.seen_xy_mm[ball] = xy
        state.seen_velocity[ball] = 0.0
        state.pending[ball] = _PENDING_NONE
        state.xy_px[ball] = det.xy_px[0]
        state.measured_xy_mm[ball] = xy

    def _trackset(
        self, frame: int, time_s: float, missing: NDArray[np.bool_], removed_now: NDArray[np.bool_]
    ) -> TrackSet:
        state = self._state
        rows = np.flatnonzero(state.alive | removed_now)
        status = _SEEN_STATUS[missing[rows].astype(np.int64)]
        status[removed_now[rows]] = state.removed[rows][removed_now[rows]]
        xy_px = np.where(missing[rows, None], np.nan, state.xy_px[rows])
        gone = removed_now[rows, None]
        return TrackSet(
            frame=frame,
            time_s=time_s,
            ball=rows.astype(np.int64),
            xy_mm=np.where(gone, state.seen_xy_mm[rows], state.mean[rows, :2]),
            velocity_mm_s=np.where(gone, 0.0, state.mean[rows, 2:]),
            xy_px=xy_px,
            status=status,
            measured_xy_mm=np.where(missing[rows, None], np.nan, state.measured_xy_mm[rows]),
        )
