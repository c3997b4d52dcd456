"""Tests for tracking.fastnp."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tracking.fastnp import row_norms, true_indices


@given(arrays(np.bool_, st.integers(0, 40)))
def test_true_indices_matches_flatnonzero(mask: np.ndarray) -> None:
    result = true_indices(mask)
    expected = np.flatnonzero(mask)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("shape", [(2, 3), ()], ids=["2d", "0d"])
def test_true_indices_rejects_other_shapes(shape: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="1-D"):
        true_indices(np.ones(shape, bool))


@given(
    arrays(
        np.float64,
        st.tuples(st.integers(0, 12), st.integers(1, 4)),
        elements=st.floats(-1e6, 1e6, allow_nan=False),
    )
)
def test_row_norms_has_the_bits_of_linalg_norm(x: np.ndarray) -> None:
    expected = np.linalg.norm(x, axis=1)
    assert row_norms(x).tobytes() == expected.tobytes()


def test_row_norms_rejects_a_vector() -> None:
    with pytest.raises(ValueError, match="shape"):
        row_norms(np.ones(3))
