"""The shot plots' ball paths: every ball on the bed, seen or hidden, by frame."""

from __future__ import annotations

import numpy as np
import pytest

from referee.review.history import TrackHistory
from tracking.types import TrackSet, TrackStatus


def _tracks(frame: int, statuses: list[TrackStatus]) -> TrackSet:
    n = len(statuses)
    xy = np.column_stack([np.arange(n) * 100.0 + frame, np.full(n, 50.0)])
    return TrackSet(
        frame,
        frame / 60.0,
        np.arange(n, dtype=np.int64),
        xy,
        np.zeros((n, 2)),
        np.full((n, 2), np.nan),
        np.array(statuses, dtype=object),
    )


@pytest.mark.parametrize(
    ("status", "kept"),
    [
        (TrackStatus.ON_TABLE, True),
        (TrackStatus.OCCLUDED, True),
        (TrackStatus.POCKETED, True),
        (TrackStatus.OFF_TABLE, False),
    ],
    ids=["on-table", "occluded", "pocketed", "off-table"],
)
def test_paths_keep_every_ball_but_one_off_the_table(status: TrackStatus, kept: bool) -> None:
    history = TrackHistory()
    for frame in range(5):
        history.add(_tracks(frame, [TrackStatus.ON_TABLE, status]))
    xy, frames = history.paths(1, 3)
    assert frames[0].tolist() == [1, 2, 3]
    assert xy[0][:, 0].tolist() == [1.0, 2.0, 3.0]
    assert (1 in xy) is kept
    if kept:
        assert frames[1].tolist() == [1, 2, 3] and xy[1][:, 0].tolist() == [101.0, 102.0, 103.0]


def test_only_the_last_frames_are_kept() -> None:
    history = TrackHistory(keep_frames=3)
    for frame in range(10):
        history.add(_tracks(frame, [TrackStatus.ON_TABLE]))
    _, frames = history.paths(0, 9)
    assert frames[0].tolist() == [7, 8, 9]
