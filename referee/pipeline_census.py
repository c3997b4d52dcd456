"""A count of the balls at rest: says so when the video holds more balls than ten-ball has.

The tracker follows at most the eleven balls of ten-ball (the cue ball and 1-10). Footage of
another game (an eight-ball rack of fifteen, a bar table's full set) is then reviewed as if
four or more balls were not there: shots come out wrong or not at all, and nothing said why.
Only the detector's searches of the whole table see every ball (the other frames search
around the tracked ones), so those are counted. A detection counts as a ball at rest when the
previous whole-table search found one in the same place (within `REST_RADII` of its radius):
a hand, a cue or a moving ball's blur seldom stays put, and a real ball of a full rack
seldom moves between two searches. Several such searches over eleven are needed before the
warning, so a single frame's ghosts (a pocket's shadow beside eleven balls) do not raise it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.types import Detections

TEN_BALL_SET = 11
"""Balls in a ten-ball set: the cue ball and the balls 1 to 10."""

REST_RADII = 0.5
"""How far (in the ball's radius) a detection may lie from one of the previous whole-table
search and still count as the same ball at rest."""

MIN_CONFIDENCE = 0.5
"""Detections less sure than this to be a ball are not counted."""


class BallCensus:
    """Counts balls at rest on the whole-table searches and warns past a ten-ball set.

    Args:
        searches: how many whole-table searches must each count more than `TEN_BALL_SET`
            balls at rest before the warning; 0 turns the census off.
    """

    def __init__(self, searches: int) -> None:
        self.searches = searches
        self._previous: NDArray[np.float64] = np.zeros((0, 2))
        self._over = 0
        self._most = 0

    def add(self, detections: Detections) -> None:
        """Take the detections of one whole-table search (frames in order)."""
        if self.searches <= 0:
            return
        sure = detections.confidence >= MIN_CONFIDENCE
        xy = detections.xy_px[sure].astype(np.float64)
        radius = detections.radius_px[sure].astype(np.float64)
        previous, self._previous = self._previous, xy
        if len(xy) <= TEN_BALL_SET or len(previous) == 0:
            return
        gaps = np.linalg.norm(xy[:, None, :] - previous[None, :, :], axis=2).min(axis=1)
        resting = int(np.count_nonzero(gaps <= REST_RADII * radius))
        if resting > TEN_BALL_SET:
            self._over += 1
            self._most = max(self._most, resting)

    @property
    def warning(self) -> str | None:
        """What to tell the user, or None while the balls seen fit a ten-ball set."""
        if self.searches <= 0 or self._over < self.searches:
            return None
        return (
            f"{self._most} balls seen at rest ({self._over} searches of the table found more "
            f"than {TEN_BALL_SET}): this is not a ten-ball set (eight-ball? a full set of "
            f"fifteen?). Only {TEN_BALL_SET} balls are tracked, so shots may be missing and "
            "calls and pots wrong"
        )
