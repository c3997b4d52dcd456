"""How well a palette explains a frame: one ball per class, robust to balls that fit none."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vision.assignment import frame_fit_cost
from vision.types import NUM_CLASSES


def test_a_ball_that_fits_no_class_costs_at_most_the_outlier_cost() -> None:
    scores = np.full((2, NUM_CLASSES), -20.0)
    scores[0, 3] = -0.5  # a good 3
    # The second fits nothing (a patch of cloth): it is left out at the outlier cost.
    assert frame_fit_cost(scores, 4.0) == 0.5 + 4.0


def test_two_balls_of_one_class_cannot_both_take_it() -> None:
    scores = np.full((2, NUM_CLASSES), -10.0)
    scores[:, 2] = -1.0
    scores[1, 10] = -2.0
    assert frame_fit_cost(scores, 30.0) == 1.0 + 2.0


def test_the_comparison_is_not_normalised_per_ball() -> None:
    """A blue ball explained equally by two sets costs the same under both, whether or not
    a set has a rival colour near it (normalised posteriors favoured the sparser set)."""
    blue = np.full((1, NUM_CLASSES), -9.0)
    blue[0, 2] = -0.3
    with_rival = blue.copy()
    with_rival[0, 4] = -0.8
    assert frame_fit_cost(blue, 4.0) == frame_fit_cost(with_rival, 4.0)


@settings(max_examples=50, deadline=None)
@given(
    arrays(
        np.float64, st.tuples(st.integers(0, 14), st.just(NUM_CLASSES)), elements=st.floats(-30, 0)
    ),
    st.floats(0.0, 20.0),
)
def test_fit_cost_is_bounded_by_leaving_every_ball_out(scores: np.ndarray, outlier: float) -> None:
    cost = frame_fit_cost(scores, outlier)
    assert 0.0 <= cost <= outlier * len(scores) + 1e-9
    assert frame_fit_cost(scores, outlier + 1.0) >= cost - 1e-9
