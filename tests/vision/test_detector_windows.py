"""The detector's search windows: duplicates, hints explained, layout."""

from __future__ import annotations

import numpy as np

from vision.windows import dedupe, hint_boxes, unexplained, window_half


def test_duplicates_within_one_radius_go_the_less_confident_first() -> None:
    """A detection 1 px from a surer one is that ball again; one two radii away is another."""
    xy = np.array([[100.0, 100.0], [100.8, 100.6], [112.0, 100.0]])
    kept = dedupe(xy, np.array([0.9, 0.5, 0.8]), np.full(3, 6.0))
    assert kept.tolist() == [True, False, True]
    # The surer of two duplicates stays, whichever comes first.
    assert dedupe(xy[:2], np.array([0.4, 0.9]), np.full(2, 6.0)).tolist() == [False, True]


def test_hints_are_explained_only_by_balls_near_them() -> None:
    hints = np.array([[100.0, 100.0], [300.0, 100.0]])
    found = np.array([[104.0, 101.0]])
    assert unexplained(hints, np.full(2, 8.0), found).tolist() == [False, True]
    assert unexplained(hints, np.full(2, 8.0), np.zeros((0, 2))).tolist() == [True, True]


def test_hint_windows_merge_and_stay_inside_the_bounds() -> None:
    hints = np.array([[10.0, 10.0], [14.0, 12.0], [200.0, 150.0]])
    half = window_half(np.full(3, 8.0), 2.5)
    assert half.tolist() == [22.0, 22.0, 22.0]
    boxes = hint_boxes(hints, half, (0, 0, 210, 160))
    assert len(boxes) == 2
    for u0, v0, u1, v1 in boxes:
        assert 0 <= u0 < u1 <= 210 and 0 <= v0 < v1 <= 160
    assert hint_boxes(np.zeros((0, 2)), np.zeros(0), (0, 0, 210, 160)) == []
