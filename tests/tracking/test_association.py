"""Assignment cost: identity and distance both count; gates and the cost ceiling hold."""

from __future__ import annotations

import numpy as np
import pytest

from tracking.association import AssociationConfig, assign, association_cost

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
