"""The position history's ring buffer, its remembered window fits and the status masks."""

from __future__ import annotations

import numpy as np
import pytest

from tracking.history import PositionHistory, WindowFits, fit_lines
from tracking.status_masks import status_is
from tracking.types import TrackSet, TrackStatus
from vision.types import NUM_CLASSES


def _trackset(frame: int, rng: np.random.Generator) -> TrackSet:
    """Every ball in play, a random few hidden, at random centres."""
    ball = np.arange(NUM_CLASSES, dtype=np.int64)
    hidden = rng.random(NUM_CLASSES) < 0.3
    status = np.array(
        [TrackStatus.OCCLUDED if h else TrackStatus.ON_TABLE for h in hidden], dtype=object
    )
    xy = rng.uniform(0.0, 2000.0, (NUM_CLASSES, 2))
    return TrackSet(frame, frame / 30.0, ball, xy, np.zeros((NUM_CLASSES, 2)), xy, status, xy)


def _filled(capacity: int, frames: int, seed: int) -> tuple[PositionHistory, list[TrackSet]]:
    rng = np.random.default_rng(seed)
    history, pushed = PositionHistory(capacity), []
    for frame in range(frames):
        pushed.append(_trackset(frame, rng))
        history.push(pushed[-1])
    return history, pushed


@pytest.mark.parametrize(
    ("frames", "first", "stop"),
    [(5, 0, 5), (23, 13, 23), (23, 10, 23), (23, 15, 19), (40, 0, 40), (23, 22, 23)],
    ids=["unwrapped", "wrapped-full", "clipped-to-kept", "wrapped-inside", "clipped", "latest"],
)
def test_window_holds_the_pushed_frames(frames: int, first: int, stop: int) -> None:
    history, pushed = _filled(10, frames, seed=frames)
    times, frame, xy = history.window(first, stop)
    kept = range(max(first, frames - 10), min(stop, frames))
    assert frame.tolist() == list(kept)
    np.testing.assert_array_equal(times, [pushed[n].time_s for n in kept])
    for row, n in enumerate(kept):
        visible = pushed[n].status == TrackStatus.ON_TABLE
        np.testing.assert_array_equal(xy[row, visible], pushed[n].xy_mm[visible])
        assert np.isnan(xy[row, ~visible]).all()


def test_window_fits_equal_fresh_fits_and_follow_the_buffer() -> None:
    history, _ = _filled(12, 12, seed=1)
    fits = WindowFits()
    first = fits.fit(history, 4, 8)
    again = fits.fit(history, 4, 8)
    assert again is first  # remembered
    for got, want in zip(first, fit_lines(*history.window(4, 8)[::2]), strict=True):
        np.testing.assert_array_equal(got, want)
    assert not first[2].flags.writeable
    # Pushes overwrite frames 0..7: the window is fitted afresh on what is kept now.
    rng = np.random.default_rng(2)
    for frame in range(12, 20):
        history.push(_trackset(frame, rng))
    later = fits.fit(history, 4, 8)
    for got, want in zip(later, fit_lines(*history.window(4, 8)[::2]), strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("value", list(TrackStatus), ids=[str(s) for s in TrackStatus])
def test_status_is_matches_equality(value: TrackStatus) -> None:
    status = np.array(list(TrackStatus) * 2, dtype=object)
    np.testing.assert_array_equal(status_is(status, value), status == value)
    assert status_is(status[:0], value).shape == (0,)
