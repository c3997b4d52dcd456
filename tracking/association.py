"""Data association that uses identity: one detection per ball number, by Hungarian assignment.

The cost of giving detection j to the track of ball i adds two terms, both negative log
likelihoods: how far the detection lies from where the filter expects the ball
(half the squared Mahalanobis distance) and how unlikely the detector thinks it is that the
detection shows ball i (``-log p_ij``). A detection outside the kinematic gate but inside the
collision gate (a ball struck between two frames can have moved by up to the top ball speed
times the frame interval) is allowed at a fixed penalty, so identity alone decides it.

A track whose position is uncertain (a ball lost for a while) also pays for its spread: the
Gaussian's normalisation ``0.5 log(det S / det R)``. A jump costs ``-log`` of a uniform
density over the area the ball may have reached (at least ``collision_penalty``), and never
less than the track's spread: so a track lost for long, with a table-wide gate, cannot
outbid a nearby track that truly explains a detection (a blurred ball misnamed for a
frame); it is found again by re-identification, on a sure identity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from vision.types import NUM_CLASSES

_INFEASIBLE = 1.0e9
_MIN_PROBABILITY = 1.0e-6


@dataclass(frozen=True, slots=True)
class AssociationConfig:
    """Tunables of the assignment cost.

    Attributes:
        identity_weight: weight of ``-log p(class)`` against the distance term. Raising it
            trusts the ball identifier more than the motion model.
        gate_sigmas: kinematic gate, in standard deviations of the innovation. Raising it
            lets a track take detections further from its prediction at normal cost.
        gate_min_mm: the kinematic gate is never smaller than this, mm. Raising it tolerates
            larger unmodelled jumps (detector jitter, spin) at normal cost.
        collision_penalty: cost, in place of the distance term, of a detection outside the
            kinematic gate but inside the collision gate. Raising it makes jumps (struck
            balls) harder to accept and needs a surer identity for them.
        max_cost: assignments dearer than this are refused (the detection stays unassigned
            and the track coasts). Raising it accepts weaker identity evidence.
        identity_error_rate: share of detections whose class probabilities are no better
            than a guess (motion blur, shade, a ball half hidden): the probabilities are
            mixed with the uniform one at this weight, so one misnamed frame cannot push a
            ball's own detection, right where its track expects it, to a lost track of
            another number. In [0, 1); raising it trusts position more than identity. On the
            samples 0.2 removes a third more switches but leaves more lost tracks lingering
            (a lost ball's own detection, misnamed, no longer brings it back), so 0.
        near_identity_error_rate: the same, only for detections inside a track's kinematic
            gate (where its ball is expected), where it applies if larger: a ball's own
            detection, misnamed on one frame, is not lost to another track that would have to
            jump to take it. Jumps and lost tracks still pay the full identity cost, so a lost
            ball comes back only on a sure identity. In [0, 1); raising it trusts position
            over identity near the prediction. Off (0) by default: at 0.1 (a misnamed own
            detection costs 9.4, just under a jump's 10) it mended sample corner_offtable with
            the rim fit on (its far rack at the break: one misnamed ball rotated three tracks'
            numbers and the 7 lost its drop; identity 0.858 -> 0.985, replayed detections),
            but with the rim fit off it lost broadcast_nudge shot 1 (a rack ball taken by
            another track at the break, then a dropping 4 re-identified on it; 3/3 -> 2/3,
            replayed and live).
    """

    identity_weight: float = 2.0
    gate_sigmas: float = 5.0
    gate_min_mm: float = 30.0
    collision_penalty: float = 10.0
    max_cost: float = 14.0
    identity_error_rate: float = 0.0
    near_identity_error_rate: float = 0.0

    def __post_init__(self) -> None:
        for name in ("identity_error_rate", "near_identity_error_rate"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise ValueError(
                    f"AssociationConfig.{name} must be in [0, 1), got {getattr(self, name)}"
                )


@dataclass(frozen=True, slots=True, eq=False)
class TrackGates:
    """Per-track limits of the assignment.

    Attributes:
        collision_gate_mm: (T,) largest plausible jump from the prediction, mm (a ball that
            nothing can have struck cannot jump: its gate is 0, leaving ``gate_min_mm``).
        spread_cost: (T,) ``0.5 log(det S / det R)`` of each track's innovation covariance
            ``S`` against the measurement noise ``R``: the price of a vague prediction.
        jump_cost: (T,) cost of a jump anywhere in each track's collision gate (None: the
            config's ``collision_penalty`` for all): ``-log`` of a uniform density over the
            area it may have reached, relative to the measurement noise (`jump_costs`), so a
            track lost for long, whose gate is the whole table, pays more for a detection
            it merely might explain than a ball struck between two frames.
    """

    collision_gate_mm: NDArray[np.float64]
    spread_cost: NDArray[np.float64]
    jump_cost: NDArray[np.float64] | None = None

    def __post_init__(self) -> None:
        shape = np.shape(self.collision_gate_mm)
        jump_shape = shape if self.jump_cost is None else np.shape(self.jump_cost)
        if np.shape(self.spread_cost) != shape or jump_shape != shape:
            raise ValueError(
                f"TrackGates: collision_gate_mm {shape}, spread_cost "
                f"{np.shape(self.spread_cost)} and jump_cost {jump_shape} must all be (T,)"
            )


def association_cost(
    d_sq: NDArray[np.float64],
    distance_mm: NDArray[np.float64],
    class_prob: NDArray[np.float64],
    gates: TrackGates | NDArray[np.float64],
    config: AssociationConfig,
) -> NDArray[np.float64]:
    """(T, D) assignment cost of every detection to every track; infeasible pairs get 1e9.

    Args:
        d_sq: (T, D) squared Mahalanobis distance of detection j to track i's prediction
            (``kalman.pairwise_mahalanobis_sq``).
        distance_mm: (T, D) Euclidean distance of detection j to track i's prediction, mm.
        class_prob: (T, D) probability that detection j shows track i's ball.
        gates: the tracks' collision gates and spread costs; a bare (T,) array is the
            collision gate with no spread cost.
        config: the association tunables.
    """
    if not isinstance(gates, TrackGates):
        gates = TrackGates(np.asarray(gates, np.float64), np.zeros(len(d_sq)))
    kinematic = (d_sq <= config.gate_sigmas**2) | (distance_mm <= config.gate_min_mm)
    # The identifier errs on hard frames (motion blur, shade, a ball half hidden): with
    # probability ``identity_error_rate`` its answer is no better than a guess.
    identity = _identity_cost(class_prob, config.identity_error_rate, config)
    near_error = config.near_identity_error_rate
    if near_error > config.identity_error_rate:
        near = _identity_cost(class_prob, near_error, config)
        identity = np.where(kinematic, near, identity)
    spread = np.maximum(gates.spread_cost, 0.0)[:, None]
    jump = np.full((len(d_sq), 1), config.collision_penalty)
    if gates.jump_cost is not None:
        jump = np.maximum(jump, gates.jump_cost[:, None])
    # A jump is never likelier than a detection right on the prediction: it costs at least
    # the track's spread (a track lost for long cannot jump anywhere cheaply).
    jump = np.maximum(jump, spread)
    # -log N(z; Hx, S) up to the constant shared by every pair: 0.5 d² + 0.5 log det(S/R);
    # a jump (a uniform density over the collision gate) where that is less likely.
    likelihood = 0.5 * d_sq + spread
    cost = identity + np.where(kinematic, np.minimum(likelihood, jump), jump)
    feasible = distance_mm <= np.maximum(gates.collision_gate_mm[:, None], config.gate_min_mm)
    result: NDArray[np.float64] = np.where(feasible, cost, _INFEASIBLE)
    return result


def _identity_cost(
    class_prob: NDArray[np.float64], error_rate: float, config: AssociationConfig
) -> NDArray[np.float64]:
    """(T, D) weighted ``-log p`` of the (T, D) class probabilities mixed with the uniform
    one at ``error_rate``."""
    reliable = (1.0 - error_rate) * class_prob + error_rate / NUM_CLASSES
    cost: NDArray[np.float64] = (
        -np.log(np.maximum(reliable, _MIN_PROBABILITY)) * config.identity_weight
    )
    return cost


def jump_costs(
    collision_gate_mm: NDArray[np.float64], bed_area_mm2: float, R: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(T,) ``-log`` of a uniform density over each track's reach, in the units of the
    Gaussian term: ``log(A / (2 pi sqrt(det R)))`` with ``A`` the gate's disc, at most the
    bed.

    Args:
        collision_gate_mm: (T,) radius each ball may have jumped, mm.
        bed_area_mm2: area the ball centres can take, mm².
        R: (2, 2) measurement noise, mm².
    """
    # 2 pi sqrt(det R): the area scale of the Gaussian's normalisation.
    noise_mm2 = 2.0 * np.pi * np.sqrt(R[0, 0] * R[1, 1] - R[0, 1] * R[1, 0])
    area = np.minimum(np.pi * collision_gate_mm * collision_gate_mm, bed_area_mm2)
    result: NDArray[np.float64] = np.log(np.maximum(area, 1.0) / noise_mm2)
    return result


def assign(
    cost: NDArray[np.float64], max_cost: float
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Minimum-cost one-to-one assignment, dropping pairs dearer than ``max_cost``.

    Args:
        cost: (T, D) cost matrix.
        max_cost: the dearest pair kept.

    Returns:
        (K,) track indices and (K,) detection indices of the kept pairs.
    """
    if cost.size == 0:
        empty = np.zeros(0, np.int64)
        return empty, empty.copy()
    rows, cols = linear_sum_assignment(cost)
    keep = cost[rows, cols] <= max_cost
    return rows[keep].astype(np.int64), cols[keep].astype(np.int64)
