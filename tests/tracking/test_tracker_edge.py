"""A ball held over a pocket's line (a hand at the lip) keeps no growing velocity: a moving
prediction held within the table loses its velocity out of it
(`TrackerConfig.edge_stops_velocity`, `tracking.bounce.CushionModel.stop_at_edge`)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tracking.builders import TABLE, Sighting, detections_of
from tracking.bounce import CushionModel, bounce_off_cushions
from tracking.tracker import BallTracker, TrackerConfig
from tracking.types import TrackSet

FPS = 50.0
HELD = (TABLE.length_mm / 2.0, -10.0)
"""10 mm beyond the table's edge in the side pocket's mouth (pocket point y = 0)."""


def _held_four(stop_at_edge: bool) -> list[TrackSet]:
    """The 4 rolls 280 mm into the side pocket's mouth in 20 frames and is held there by a
    hand for 60 frames, seen every frame."""
    tracker = BallTracker(TABLE, TrackerConfig(edge_stops_velocity=stop_at_edge))
    tracks: list[TrackSet] = []
    for frame in range(80):
        left = max(0, 20 - frame) / 20
        four: Sighting = (HELD[0] + 200.0 * left, HELD[1] + 200.0 * left, {4: 0.95})
        balls: list[Sighting] = [four, (1000.0, 600.0, {0: 0.95})]
        tracks.append(tracker.update(detections_of(balls), frame, frame / FPS))
    return tracks


def _speed(tracks: TrackSet) -> float:
    return float(np.hypot(*tracks.velocity_mm_s[tracks.ball.tolist().index(4)]))


def test_a_ball_held_over_a_pocket_line_comes_to_rest() -> None:
    tracks = _held_four(stop_at_edge=True)
    assert max(_speed(state) for state in tracks[30:]) == 0.0
    row = tracks[-1].ball.tolist().index(4)
    assert tracks[-1].xy_mm[row] == pytest.approx(HELD, abs=2.0)


def test_without_it_the_held_ball_gathers_speed() -> None:
    # The defect: pulled back to the edge every frame, seen 10 mm beyond it every frame.
    tracks = _held_four(stop_at_edge=False)
    assert _speed(tracks[-1]) > 5000.0


def test_a_prediction_already_beyond_the_edge_stays_and_stops_going_out() -> None:
    model = CushionModel(0.8, 0.15, stop_at_edge=True)
    mean = np.array([[HELD[0], -14.0, 100.0, -200.0]])
    bounce_off_cushions(TABLE, np.array([HELD]), mean, np.eye(4)[None] * 100.0, model)
    assert mean[0].tolist() == pytest.approx([HELD[0], HELD[1], 100.0, 0.0])
