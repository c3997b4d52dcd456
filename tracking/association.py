"""Data association that uses identity: one detection per ball number, by Hungarian assignment.

The cost of giving detection j to the track of ball i adds two terms, both negative log
likelihoods: how far the detection lies from where the filter expects the ball
(half the squared Mahalanobis distance) and how unlikely the detector thinks it is that the
detection shows ball i (``-log p_ij``). A detection outside the kinematic gate but inside the
collision gate (a ball struck between two frames can have moved by up to the top ball speed
times the frame interval) is allowed at a fixed penalty, so identity alone decides it.

A track whose position is uncertain (a ball lost for a while) also pays for its spread: the
Gaussian's normalisation ``0.5 log(det S / det R)``, so a lost track with a table-wide gate
cannot outbid, on distance alone, a nearby track that truly explains a detection; its
kinematic term then tends to the jump penalty, and identity decides.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

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
    """

    identity_weight: float = 2.0
    gate_sigmas: float = 5.0
    gate_min_mm: float = 30.0
    collision_penalty: float = 10.0
    max_cost: float = 14.0


@dataclass(frozen=True, slots=True, eq=False)
class TrackGates:
    """Per-track limits of the assignment.

    Attributes:
        collision_gate_mm: (T,) largest plausible jump from the prediction, mm (a ball that
            nothing can have struck cannot jump: its gate is 0, leaving ``gate_min_mm``).
        spread_cost: (T,) ``0.5 log(det S / det R)`` of each track's innovation covariance
            ``S`` against the measurement noise ``R``: the price of a vague prediction.
    """

    collision_gate_mm: NDArray[np.float64]
    spread_cost: NDArray[np.float64]

    def __post_init__(self) -> None:
        if np.shape(self.collision_gate_mm) != np.shape(self.spread_cost):
            raise ValueError(
                f"TrackGates: collision_gate_mm {np.shape(self.collision_gate_mm)} and "
                f"spread_cost {np.shape(self.spread_cost)} must both be (T,)"
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
    identity = -np.log(np.maximum(class_prob, _MIN_PROBABILITY)) * config.identity_weight
    kinematic = (d_sq <= config.gate_sigmas**2) | (distance_mm <= config.gate_min_mm)
    jump = config.collision_penalty
    # -log N(z; Hx, S) up to the constant shared by every pair: 0.5 d² + 0.5 log det(S/R).
    likelihood = 0.5 * d_sq + np.maximum(gates.spread_cost, 0.0)[:, None]
    cost = identity + np.where(kinematic, np.minimum(likelihood, jump), jump)
    feasible = distance_mm <= np.maximum(gates.collision_gate_mm[:, None], config.gate_min_mm)
    result: NDArray[np.float64] = np.where(feasible, cost, _INFEASIBLE)
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
