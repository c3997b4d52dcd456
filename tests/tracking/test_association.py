"""Assignment cost: identity and distance both count; gates and the cost ceiling hold."""

from __future__ import annotations

import numpy as np
import pytest

from tracking.association import AssociationConfig, TrackGates, assign, association_cost

CONFIG = AssociationConfig()


def _cost(distance: np.ndarray, prob: np.ndarray, gate: float = 500.0) -> np.ndarray:
    sigma = 5.0
    d_sq = (distance / sigma) ** 2
    return association_cost(d_sq, distance, prob, np.full(len(distance), gate), CONFIG)


CASES = [
    # (distances (T, D), class probabilities (T, D), expected detection for each track)
    ([[3.0, 4.0], [4.0, 3.0]], [[0.5, 0.5], [0.5, 0.5]], [0, 1]),
    ([[3.0, 4.0], [4.0, 3.0]], [[0.05, 0.9], [0.9, 0.05]], [1, 0]),
    ([[3.0, 200.0], [200.0, 3.0]], [[0.9, 0.05], [0.05, 0.9]], [0, 1]),
]


@pytest.mark.parametrize(
    ("distance", "prob", "expected"),
    CASES,
    ids=["distance-decides-tie", "identity-beats-small-distance", "both-agree"],
)
def test_assignment_uses_identity_and_distance(
    distance: list[list[float]], prob: list[list[float]], expected: list[int]
) -> None:
    rows, cols = assign(_cost(np.array(distance), np.array(prob)), CONFIG.max_cost)
    assert dict(zip(rows.tolist(), cols.tolist(), strict=True)) == dict(enumerate(expected))


def test_detection_beyond_collision_gate_is_infeasible() -> None:
    cost = _cost(np.array([[600.0]]), np.array([[0.99]]), gate=500.0)
    rows, _ = assign(cost, CONFIG.max_cost)
    assert len(rows) == 0


def test_jump_needs_a_sure_identity() -> None:
    sure = _cost(np.array([[150.0]]), np.array([[0.9]]))
    unsure = _cost(np.array([[150.0]]), np.array([[0.01]]))
    assert len(assign(sure, CONFIG.max_cost)[0]) == 1
    assert len(assign(unsure, CONFIG.max_cost)[0]) == 0


def test_empty_inputs() -> None:
    rows, cols = assign(np.zeros((0, 3)), CONFIG.max_cost)
    assert rows.shape == (0,) and cols.shape == (0,)


def test_a_lost_track_never_takes_a_misnamed_detection_from_the_track_expecting_it() -> None:
    """A blurred ball is misnamed for a frame as a ball lost for seconds (table-wide spread):
    its own track, right where the detection lies, keeps it; the lost one pays its spread."""
    distance = np.array([[4.0], [600.0]])
    d_sq = np.array([[1.0], [0.1]])
    prob = np.array([[0.01], [0.6]])  # the identifier: hardly the tracked ball, the lost one
    gates = TrackGates(np.array([500.0, 3000.0]), np.array([2.0, 14.0]))
    rows, cols = assign(association_cost(d_sq, distance, prob, gates, CONFIG), CONFIG.max_cost)
    assert rows.tolist() == [0] and cols.tolist() == [0]


@pytest.mark.parametrize("rate", [-0.1, 1.0], ids=["negative", "one"])
def test_identity_error_rate_must_be_a_share(rate: float) -> None:
    with pytest.raises(ValueError, match="identity_error_rate"):
        AssociationConfig(identity_error_rate=rate)


@pytest.mark.parametrize(
    ("near_rate", "kept_by"),
    [(0.0, 1), (0.1, 0)],
    ids=["identity-only-rotates", "near-rate-keeps-own-ball"],
)
def test_a_resting_ball_keeps_its_misnamed_detection_from_a_track_that_must_jump(
    near_rate: float, kept_by: int
) -> None:
    """A far rack at a break (every ball may have been struck): ball 0's detection, 2 mm from
    where it rests, reads as ball 1, whose track is 180 mm away. Identity alone hands it to
    ball 1 (a jump); with the near-gate error rate, ball 0 keeps its own detection."""
    config = AssociationConfig(near_identity_error_rate=near_rate)
    distance = np.array([[2.0], [180.0]])
    d_sq = (distance / 5.0) ** 2
    prob = np.array([[1e-4], [0.95]])
    gates = TrackGates(np.array([300.0, 300.0]), np.zeros(2))
    rows, _ = assign(association_cost(d_sq, distance, prob, gates, config), config.max_cost)
    assert rows.tolist() == [kept_by]


def test_near_identity_error_rate_leaves_jumps_needing_a_sure_identity() -> None:
    config = AssociationConfig(near_identity_error_rate=0.3)
    distance = np.array([[150.0]])
    cost = association_cost(
        (distance / 5.0) ** 2, distance, np.array([[0.01]]), np.array([500.0]), config
    )
    assert len(assign(cost, config.max_cost)[0]) == 0


@pytest.mark.parametrize("rate", [-0.1, 1.0], ids=["negative", "one"])
def test_near_identity_error_rate_must_be_a_share(rate: float) -> None:
    with pytest.raises(ValueError, match="near_identity_error_rate"):
        AssociationConfig(near_identity_error_rate=rate)
