"""Batched constant-velocity Kalman filter: pure functions over many tracks at once.

The state of one ball is ``[x, y, vx, vy]`` (table mm and mm/s on the ball-centre plane);
the measurement is ``[x, y]``. Means are ``(N, 4)`` and covariances ``(N, 4, 4)``, all
float64, so one call predicts or updates every ball (ultralytics ``multi_predict``). The
matrices follow filterpy's textbook formulation (Labbe, *Kalman and Bayesian Filters in
Python*): ``F`` the state transition, ``Q`` the process noise of
``filterpy.common.Q_discrete_white_noise`` (written out here), ``H`` the measurement
function, ``R`` the measurement noise, ``S`` the innovation covariance and ``K`` the Kalman gain.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

STATE_DIM = 4
MEASUREMENT_DIM = 2

H: NDArray[np.float64] = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
"""(2, 4) measurement function: the filter observes the position only."""
H.flags.writeable = False

Float64Array = NDArray[np.float64]


def inverse_2x2(S: Float64Array) -> Float64Array:
    """(N, 2, 2) inverses of symmetric positive-definite 2x2 matrices, in closed form."""
    a, b, d = S[:, 0, 0], S[:, 0, 1], S[:, 1, 1]
    det = a * d - b * b
    inv = np.empty_like(S)
    inv[:, 0, 0] = d / det
    inv[:, 1, 1] = a / det
    inv[:, 0, 1] = inv[:, 1, 0] = -b / det
    return inv


def largest_eigenvalue_2x2(S: Float64Array) -> Float64Array:
    """(N,) largest eigenvalue of symmetric 2x2 matrices, in closed form."""
    half_trace = 0.5 * (S[:, 0, 0] + S[:, 1, 1])
    half_gap = 0.5 * (S[:, 0, 0] - S[:, 1, 1])
    result: Float64Array = half_trace + np.sqrt(half_gap**2 + S[:, 0, 1] ** 2)
    return result


def transition_matrix(dt_s: float) -> Float64Array:
    """(4, 4) constant-velocity state transition over ``dt_s`` seconds (x += v dt)."""
    F = np.eye(STATE_DIM)
    F[0, 2] = F[1, 3] = dt_s
    return F


@lru_cache(maxsize=64)
def _process_noise_cached(dt_s: float, acceleration_std_mm_s2: float) -> Float64Array:
    # filterpy's Q_discrete_white_noise(dim=2, dt, var, block_size=2, order_by_dim=False),
    # written out: the same products in the same order, so the same bits (a test holds them
    # to filterpy's), without importing filterpy, whose package import pulls in scipy.stats
    # (about a second of every command's start).
    # Q = G Gᵀ var with G = [dt²/2, dt] per axis, state ordered [x, y, vx, vy].
    per_axis = np.array([[0.25 * dt_s**4, 0.5 * dt_s**3], [0.5 * dt_s**3, dt_s**2]])
    Q: Float64Array = np.kron(per_axis, np.eye(2)) * acceleration_std_mm_s2**2
    Q.flags.writeable = False
    return Q


def process_noise(dt_s: float, acceleration_std_mm_s2: float) -> Float64Array:
    """(4, 4) discrete white-noise-acceleration process noise for state ``[x, y, vx, vy]``.

    Args:
        dt_s: time step, seconds.
        acceleration_std_mm_s2: standard deviation of the unmodelled acceleration, mm/s².
    """
    return _process_noise_cached(round(float(dt_s), 9), float(acceleration_std_mm_s2))


def predict(
    mean: Float64Array, cov: Float64Array, F: Float64Array, Q: Float64Array
) -> tuple[Float64Array, Float64Array]:
    """Predict every track one step ahead.

    Args:
        mean: (N, 4) state means.
        cov: (N, 4, 4) state covariances.
        F: (4, 4) state transition.
        Q: (4, 4) or (N, 4, 4) process noise.

    Returns:
        The predicted (N, 4) means and (N, 4, 4) covariances.
    """
    # x = F x
    mean_pred = mean @ F.T
    # P = F P Fᵀ + Q
    cov_pred = F @ cov @ F.T + Q
    return mean_pred, cov_pred


def cap_variance(cov: Float64Array, max_variance: Float64Array) -> Float64Array:
    """Scale each state component whose variance exceeds its cap, keeping P positive definite.

    Clipping the diagonal alone would leave covariances larger than the variances allow (an
    indefinite P, then negative variances after the next update). Instead ``P = D P D`` with
    ``D = diag(min(1, sqrt(cap_i / P_ii)))``, a congruence, which keeps P symmetric positive
    semi-definite and brings every capped variance to exactly its cap.

    Args:
        cov: (N, 4, 4) covariances.
        max_variance: (4,) largest variance of each state component (``inf``: no cap).

    Returns:
        The (N, 4, 4) capped covariances (a new array).
    """
    variance = np.diagonal(cov, axis1=1, axis2=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.sqrt(np.minimum(1.0, max_variance[None, :] / variance))
    scale = np.where(np.isfinite(scale), scale, 1.0)
    # P = D P D
    capped: Float64Array = cov * scale[:, :, None] * scale[:, None, :]
    return capped


def innovation(
    mean: Float64Array, cov: Float64Array, z: Float64Array, R: Float64Array
) -> tuple[Float64Array, Float64Array]:
    """Innovation and its covariance for one measurement per track.

    Args:
        mean: (N, 4) predicted means.
        cov: (N, 4, 4) predicted covariances.
        z: (N, 2) measurements, mm.
        R: (2, 2) or (N, 2, 2) measurement noise, mm².

    Returns:
        y: (N, 2) innovation z - H x; S: (N, 2, 2) innovation covariance.
    """
    # y = z - H x
    y = z - mean[:, :2]
    # S = H P Hᵀ + R
    S = cov[:, :2, :2] + R
    return y, S


def update(
    mean: Float64Array, cov: Float64Array, z: Float64Array, R: Float64Array
) -> tuple[Float64Array, Float64Array]:
    """Correct every track with its measurement.

    Args:
        mean: (N, 4) predicted means.
        cov: (N, 4, 4) predicted covariances.
        z: (N, 2) measured positions, mm.
        R: (2, 2) or (N, 2, 2) measurement noise, mm².

    Returns:
        The corrected (N, 4) means and (N, 4, 4) covariances.
    """
    y, S = innovation(mean, cov, z, R)
    # K = P Hᵀ S⁻¹
    K = cov[:, :, :2] @ inverse_2x2(S)
    # x = x + K y
    mean_new = mean + (K @ y[:, :, None])[:, :, 0]
    # P = (I - K H) P
    cov_new = cov - K @ cov[:, :2, :]
    # Keep P symmetric against rounding.
    cov_new = 0.5 * (cov_new + np.swapaxes(cov_new, 1, 2))
    return mean_new, cov_new


def correct(
    mean: Float64Array, cov: Float64Array, z: Float64Array, R: Float64Array
) -> tuple[Float64Array, Float64Array, Float64Array, Float64Array]:
    """`update`, also returning the innovation and its normalised square (one inverse of S).

    Args:
        mean: (N, 4) predicted means.
        cov: (N, 4, 4) predicted covariances.
        z: (N, 2) measured positions, mm.
        R: (2, 2) measurement noise, mm².

    Returns:
        The corrected (N, 4) means and (N, 4, 4) covariances, the (N, 2) innovation
        ``y = z - H x`` and the (N,) ``yᵀ S⁻¹ y``.
    """
    y, S = innovation(mean, cov, z, R)
    S_inv = inverse_2x2(S)
    # S⁻¹ y, then yᵀ S⁻¹ y
    S_inv_y = np.einsum("nij,nj->ni", S_inv, y)
    nis = np.einsum("ni,ni->n", y, S_inv_y)
    # K = P Hᵀ S⁻¹, x = x + K y = x + P Hᵀ (S⁻¹ y)
    mean_new = mean + np.einsum("nij,nj->ni", cov[:, :, :2], S_inv_y)
    K = cov[:, :, :2] @ S_inv
    # P = (I - K H) P, kept symmetric against rounding.
    cov_new = cov - K @ cov[:, :2, :]
    cov_new = 0.5 * (cov_new + np.swapaxes(cov_new, 1, 2))
    return mean_new, cov_new, y, nis


def pairwise_mahalanobis_sq(
    mean: Float64Array, cov: Float64Array, z: Float64Array, R: Float64Array
) -> Float64Array:
    """(N, M) squared Mahalanobis distance of every measurement to every track.

    Args:
        mean: (N, 4) predicted means.
        cov: (N, 4, 4) predicted covariances.
        z: (M, 2) measurements, mm.
        R: (2, 2) measurement noise, mm².
    """
    if len(mean) == 0 or len(z) == 0:
        return np.zeros((len(mean), len(z)))
    # d² = yᵀ S⁻¹ y with y = z - H x and S = H P Hᵀ + R
    S_inv = inverse_2x2(cov[:, :2, :2] + R)
    y = z[None, :, :] - mean[:, None, :2]
    d_sq: Float64Array = np.einsum("nmi,nij,nmj->nm", y, S_inv, y)
    return d_sq


def pairwise_distances(
    mean: Float64Array, S: Float64Array, z: Float64Array
) -> tuple[Float64Array, Float64Array]:
    """(N, M) squared Mahalanobis and (N, M) Euclidean distances of every measurement to
    every track, given the tracks' innovation covariances (one pass, no (N, M, 2) einsum).

    Args:
        mean: (N, 4) predicted means.
        S: (N, 2, 2) innovation covariances ``H P Hᵀ + R``, mm².
        z: (M, 2) measurements, mm.
    """
    a, b, d = S[:, 0, 0, None], S[:, 0, 1, None], S[:, 1, 1, None]
    dx = z[None, :, 0] - mean[:, 0, None]
    dy = z[None, :, 1] - mean[:, 1, None]
    # yᵀ S⁻¹ y for y = (dx, dy), with S⁻¹ = [[d, -b], [-b, a]] / det
    d_sq: Float64Array = (d * dx * dx - 2.0 * b * dx * dy + a * dy * dy) / (a * d - b * b)
    distance: Float64Array = np.sqrt(dx * dx + dy * dy)
    return d_sq, distance


def normalized_innovation_sq(y: Float64Array, S: Float64Array) -> Float64Array:
    """(N,) normalised innovation squared yᵀ S⁻¹ y (chi-square with 2 dof when consistent)."""
    if len(y) == 0:
        return np.zeros(0)
    nis: Float64Array = np.einsum("ni,nij,nj->n", y, inverse_2x2(S), y)
    return nis
