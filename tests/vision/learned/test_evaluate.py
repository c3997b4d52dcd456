"""Matching detections to truth (the evaluation's counting rules)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.learned.evaluate import Tally, match_boxes, match_centres, read_yolo_boxes


def test_match_centres_pairs_one_to_one_within_half_a_radius() -> None:
    truth = np.array([[100.0, 100.0], [120.0, 100.0], [300.0, 300.0]])
    found = np.array([[119.0, 101.0], [101.0, 99.0], [101.5, 100.0], [300.0, 306.0]])
    rows, cols = match_centres(truth, np.full(3, 10.0), found)
    pairs = sorted(zip(rows.tolist(), cols.tolist(), strict=True))
    # The third detection duplicates the first ball; the ball at 300 is 6 px off (> 5 px).
    assert pairs in ([(0, 1), (1, 0)], [(0, 2), (1, 0)])


def test_match_boxes_counts_a_centre_inside_its_box_once() -> None:
    boxes = np.array([[0.0, 0.0, 10.0, 10.0], [20.0, 0.0, 30.0, 10.0]])
    found = np.array([[5.0, 5.0], [6.0, 5.0], [40.0, 5.0]])
    rows, cols = match_boxes(boxes, found)
    assert rows.tolist() == [0] and cols.tolist() in ([0], [1])


@pytest.mark.parametrize("empty", ["truth", "found"], ids=["no-truth", "no-detections"])
def test_matching_nothing(empty: str) -> None:
    some = np.array([[1.0, 1.0]])
    none = np.zeros((0, 2))
    truth, found = (none, some) if empty == "truth" else (some, none)
    assert len(match_centres(truth, np.ones(len(truth)), found)[0]) == 0
    boxes = np.zeros((0, 4)) if empty == "truth" else np.array([[0.0, 0.0, 2.0, 2.0]])
    assert len(match_boxes(boxes, found)[0]) == 0


def test_read_yolo_boxes_in_pixels(tmp_path: Path) -> None:
    label = tmp_path / "a.txt"
    label.write_text("0 0.5 0.25 0.1 0.2\n")
    classes, boxes = read_yolo_boxes(label, 200, 100)
    assert classes.tolist() == [0]
    assert boxes.tolist() == [[90.0, 15.0, 110.0, 35.0]]
    assert len(read_yolo_boxes(tmp_path / "missing.txt", 10, 10)[0]) == 0


def test_tally_summary() -> None:
    tally = Tally(balls=10, found=8, hits=6, same_class=3, frames=2, errors_px=[1.0, 2.0, 3.0])
    summary = tally.summary()
    assert (summary["recall"], summary["precision"], summary["identity"]) == (0.6, 0.75, 0.5)
    assert summary["median_centre_error_px"] == 2.0
