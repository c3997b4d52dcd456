"""How well a palette explains a frame: one ball per class, robust to balls that fit none."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vision.assignment import (
    exclusive_probabilities,
    frame_fit_cost,
    labelling_margins,
    ruled_out,
)
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


def _cue_frame() -> np.ndarray:
    """Class scores of a frame with two cue-like detections (the cue ball and a white blob)
    and a blue 2; no 10 among them."""
    scores = np.full((3, NUM_CLASSES), -25.0)
    scores[0, 0] = -1.4  # the cue ball, its rim shaded
    scores[1, 0] = -1.1  # a white blob, all white
    scores[2, [2, 10]] = [-0.3, -2.0]  # the 2, the 10 a stripe's cost away
    scores[:, 10] = np.maximum(scores[:, 10], -12.0)  # white balls are nearest the 10
    return scores


def test_a_ball_is_not_forced_onto_a_number_its_colour_rules_out() -> None:
    left = ruled_out(_cue_frame(), 8.0)
    # One of the two white detections keeps its own reading rather than become the 10.
    assert left.sum() == 1 and not left[2]
    assert not ruled_out(_cue_frame(), np.inf).any()
    # Forcing within the margin stays: the 10 costs 12 - 1.4 < 20 more than the cue.
    assert not ruled_out(_cue_frame(), 20.0).any()


def test_a_ball_left_out_keeps_its_own_probabilities() -> None:
    prob = np.exp(_cue_frame())
    prob /= prob.sum(axis=1, keepdims=True)
    forced = exclusive_probabilities(prob)
    assert sorted(np.argmax(forced, axis=1).tolist()) == [0, 2, 10]
    left = ruled_out(_cue_frame(), 8.0)
    kept = exclusive_probabilities(prob, left_out=left)
    assert np.argmax(kept, axis=1).tolist() == [0, 0, 2]
    assert np.allclose(kept[left], prob[left], atol=1e-4)
    assert np.allclose(kept.sum(axis=1), 1.0, atol=1e-5)


@settings(max_examples=50, deadline=None)
@given(
    arrays(
        np.float64, st.tuples(st.integers(0, 14), st.just(NUM_CLASSES)), elements=st.floats(-30, 0)
    ),
    st.floats(0.0, 20.0),
)
def test_balls_left_out_are_those_forced_far_from_their_best(
    scores: np.ndarray, margin: float
) -> None:
    left = ruled_out(scores, margin)
    assert left.shape == (len(scores),)
    # Every ball past the eleventh must be left out; with a margin wider than any score
    # difference (30 here), no other ball is.
    assert (~left).sum() <= NUM_CLASSES
    assert ruled_out(scores, 31.0).sum() == max(len(scores) - NUM_CLASSES, 0)


def test_a_doubtful_ball_is_sure_when_the_others_claim_its_rivals() -> None:
    """A dull red reads 3 or 7 alike on its own; beside a sure 7 it can only be the 3."""
    scores = np.full((2, NUM_CLASSES), -30.0)
    scores[0, [3, 7]] = [-2.0, -2.5]  # doubtful on its own
    scores[1, 7] = -0.5  # a sure 7
    label, margin = labelling_margins(scores, 12.0)
    assert label.tolist() == [3, 7]
    # Naming the first the 7 would make the 7 something else (-30) or left out (+12).
    assert margin[0] > 10.0 and margin[1] > 10.0
    alone_label, alone_margin = labelling_margins(scores[:1], 12.0)
    assert alone_label.tolist() == [3] and abs(alone_margin[0] - 0.5) < 1e-9


def test_a_ball_left_out_has_no_label_and_no_margin() -> None:
    scores = np.full((2, NUM_CLASSES), -40.0)
    scores[:, 5] = -1.0  # two 5s: one must go elsewhere or be left out
    label, margin = labelling_margins(scores, 6.0)
    assert sorted(label.tolist()) == [-1, 5]
    assert margin[label == -1].tolist() == [0.0]
    assert labelling_margins(np.zeros((0, NUM_CLASSES)), 6.0)[0].shape == (0,)
