"""The batched Kalman functions agree with filterpy's KalmanFilter and keep P valid."""

from __future__ import annotations

import numpy as np
import pytest
from filterpy.kalman import KalmanFilter
from hypothesis import given, settings
from hypothesis import strategies as st

from tracking import kalman


def _filterpy(dt: float, accel: float, R: np.ndarray) -> KalmanFilter:
    kf = KalmanFilter(dim_x=4, dim_z=2)
    kf.F = kalman.transition_matrix(dt)
    kf.H = kalman.H.copy()
    kf.Q = kalman.process_noise(dt, accel)
    kf.R = R
    return kf


@pytest.mark.parametrize("dt", [1 / 25, 1 / 60, 1 / 240], ids=["25fps", "60fps", "240fps"])
def test_predict_update_match_filterpy(dt: float) -> None:
    rng = np.random.default_rng(1)
    R = np.eye(2) * 4.0
    means = rng.normal(0, 500, (5, 4))
    covs = np.stack([np.diag(rng.uniform(1, 100, 4)) for _ in range(5)])
    z = means[:, :2] + rng.normal(0, 20, (5, 2))
    F, Q = kalman.transition_matrix(dt), kalman.process_noise(dt, 3000.0)
    m_pred, c_pred = kalman.predict(means, covs, F, Q)
    m_new, c_new = kalman.update(m_pred, c_pred, z, R)
    for i in range(5):
        kf = _filterpy(dt, 3000.0, R)
        kf.x, kf.P = means[i].copy(), covs[i].copy()
        kf.predict()
        np.testing.assert_allclose(m_pred[i], kf.x, rtol=1e-9, atol=1e-9)
        kf.update(z[i])
        np.testing.assert_allclose(m_new[i], kf.x, rtol=1e-7, atol=1e-7)
        np.testing.assert_allclose(c_new[i], kf.P, rtol=1e-7, atol=1e-7)


def test_empty_batches() -> None:
    F, Q = kalman.transition_matrix(0.02), kalman.process_noise(0.02, 100.0)
    mean, cov = kalman.predict(np.zeros((0, 4)), np.zeros((0, 4, 4)), F, Q)
    assert mean.shape == (0, 4) and cov.shape == (0, 4, 4)
    assert kalman.pairwise_mahalanobis_sq(mean, cov, np.zeros((3, 2)), np.eye(2)).shape == (0, 3)
    assert kalman.normalized_innovation_sq(np.zeros((0, 2)), np.zeros((0, 2, 2))).shape == (0,)


def test_pairwise_mahalanobis_matches_direct() -> None:
    rng = np.random.default_rng(2)
    mean = rng.normal(0, 100, (3, 4))
    cov = np.stack([np.diag(rng.uniform(1, 50, 4)) for _ in range(3)])
    z = rng.normal(0, 100, (4, 2))
    R = np.eye(2) * 2.0
    d_sq = kalman.pairwise_mahalanobis_sq(mean, cov, z, R)
    for i in range(3):
        S = cov[i, :2, :2] + R
        for j in range(4):
            y = z[j] - mean[i, :2]
            assert d_sq[i, j] == pytest.approx(float(y @ np.linalg.solve(S, y)))


@settings(max_examples=60, deadline=None)
@given(
    variances=st.lists(st.floats(0.1, 1e6), min_size=4, max_size=4),
    z=st.tuples(st.floats(-3000, 3000), st.floats(-3000, 3000)),
    dt=st.floats(1e-3, 0.1),
)
def test_update_keeps_covariance_symmetric_and_shrinks_position_variance(
    variances: list[float], z: tuple[float, float], dt: float
) -> None:
    mean = np.zeros((1, 4))
    cov = np.diag(variances)[None]
    m, c = kalman.predict(mean, cov, kalman.transition_matrix(dt), kalman.process_noise(dt, 500.0))
    _, c_new = kalman.update(m, c, np.array([z]), np.eye(2) * 4.0)
    np.testing.assert_allclose(c_new, np.swapaxes(c_new, 1, 2), rtol=1e-9, atol=1e-6)
    assert np.all(np.diagonal(c_new[0])[:2] <= np.diagonal(c[0])[:2] + 1e-9)
    assert np.all(np.linalg.eigvalsh(c_new[0]) > -1e-6 * np.abs(c_new).max())


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 10_000), cap=st.floats(1.0, 1e4))
def test_cap_variance_keeps_p_positive_definite_and_caps_exactly(seed: int, cap: float) -> None:
    rng = np.random.default_rng(seed)
    a = rng.normal(0.0, 300.0, (3, 4, 4))
    cov = a @ np.swapaxes(a, 1, 2) + np.eye(4) * 1e-3
    max_variance = np.array([cap, cap, np.inf, np.inf])
    capped = kalman.cap_variance(cov, max_variance)
    variance = np.diagonal(capped, axis1=1, axis2=2)
    assert np.all(variance[:, :2] <= cap * (1 + 1e-9))
    assert np.allclose(variance[:, 2:], np.diagonal(cov, axis1=1, axis2=2)[:, 2:])
    assert np.all(np.linalg.eigvalsh(capped) > -1e-6 * np.abs(capped).max())


def test_clipping_only_the_diagonal_would_break_p_but_cap_variance_does_not() -> None:
    # A long-coasting ball: position and velocity strongly correlated.
    cov = np.array([[[1e8, 0, 3e9, 0], [0, 1e8, 0, 3e9], [3e9, 0, 1e11, 0], [0, 3e9, 0, 1e11]]])
    clipped = cov.copy()
    clipped[:, :2, :2] = np.minimum(clipped[:, :2, :2], 1e6)
    assert np.linalg.eigvalsh(clipped).min() < 0
    capped = kalman.cap_variance(cov, np.array([1e6, 1e6, np.inf, np.inf]))
    assert np.linalg.eigvalsh(capped).min() >= -1e-3
    _, updated = kalman.update(np.zeros((1, 4)), capped, np.zeros((1, 2)), np.eye(2) * 4.0)
    assert np.all(np.diagonal(updated, axis1=1, axis2=2) > 0)
