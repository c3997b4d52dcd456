"""Physical continuity: detections on top of a known ball belong to it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracking.continuity import continuity_pairs, crowded_jumps, occupied

WITHIN = 43.0


@pytest.mark.parametrize(
    ("track_xy", "std", "det_xy", "pairs"),
    [
        ([[100, 100]], [2.0], [[110, 100]], [(0, 0)]),
        ([[100, 100]], [2.0], [[160, 100]], []),
        ([[100, 100]], [80.0], [[105, 100]], []),
        ([[100, 100], [157, 100]], [2.0, 2.0], [[128, 100]], []),
        ([[100, 100]], [2.0], [[90, 100], [110, 100]], []),
        ([[100, 100], [400, 100]], [2.0, 2.0], [[402, 98], [101, 103]], [(0, 1), (1, 0)]),
    ],
    ids=["on-top", "a-diameter-away", "vague-track", "between-two", "two-on-one", "two-pairs"],
)
def test_continuity_pairs(
    track_xy: list[list[float]],
    std: list[float],
    det_xy: list[list[float]],
    pairs: list[tuple[int, int]],
) -> None:
    rows, cols = continuity_pairs(
        np.array(track_xy, float), np.array(std), np.array(det_xy, np.float32), WITHIN
    )
    assert sorted(zip(rows.tolist(), cols.tolist(), strict=True)) == pairs


def test_occupied_ignores_vague_tracks_and_far_detections() -> None:
    tracks = np.array([[100.0, 100.0], [1000.0, 500.0]])
    std = np.array([3.0, 300.0])
    dets = np.array([[120, 110], [170, 100], [1000, 500]], np.float32)
    assert occupied(tracks, std, dets, WITHIN).tolist() == [True, False, False]
    assert occupied(tracks[:0], std[:0], dets, WITHIN).tolist() == [False] * 3


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 2000), st.floats(0, 1000)), min_size=0, max_size=8),
    st.lists(st.tuples(st.floats(0, 2000), st.floats(0, 1000)), min_size=0, max_size=8),
)
def test_pairs_are_one_to_one_and_near(
    tracks: list[tuple[float, float]], dets: list[tuple[float, float]]
) -> None:
    track_xy = np.array(tracks, float).reshape(-1, 2)
    det_xy = np.array(dets, float).reshape(-1, 2)
    rows, cols = continuity_pairs(track_xy, np.zeros(len(track_xy)), det_xy, WITHIN)
    assert len(set(rows.tolist())) == len(rows)
    assert len(set(cols.tolist())) == len(cols)
    if len(rows):
        assert np.all(np.linalg.norm(track_xy[rows] - det_xy[cols], axis=1) < WITHIN)


def test_crowded_jump_is_refused_and_steady_pairs_kept() -> None:
    predicted = np.array([[1000.0, 700.0], [1600.0, 400.0], [300.0, 300.0]])
    taken = np.array([[1001.0, 700.0], [1030.0, 700.0], [500.0, 300.0]])
    assert crowded_jumps(predicted, taken, WITHIN).tolist() == [False, True, False]
    assert crowded_jumps(predicted[:1], taken[:1], WITHIN).tolist() == [False]
