"""A lost ball is found again only where it could have rolled since it was last seen
(`tracking.lifecycle.reidentify_need`)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tracking.builders import TABLE, Sighting, detections_of
from tracking.tracker import BallTracker, TrackerConfig
from tracking.types import TrackSet

FPS = 60.0
SPEED_MM_S = 3000.0
LOOK_ALIKE = (1500.0, 1100.0)


def _cue_lost_then_a_look_alike(far_mm: float, within_reach: bool = True) -> list[TrackSet]:
    """The cue ball rolls at 3 m/s along the table; it is lost for three frames, and on
    the second a detection ``far_mm`` ahead of its last sighting, across the table, reads
    as the cue ball; then the cue ball is seen again on its path."""
    tracker = BallTracker(TABLE, TrackerConfig(reidentify_within_reach=within_reach))
    tracks: list[TrackSet] = []
    lost = range(20, 23)
    for frame in range(30):
        x = 400.0 + SPEED_MM_S * frame / FPS
        balls: list[Sighting] = [(x, 300.0, {0: 0.95}), (400.0, 900.0, {3: 0.95})]
        if frame in lost:
            balls = balls[1:]
        if frame == lost[1]:
            seen_x = 400.0 + SPEED_MM_S * (lost[0] - 1) / FPS
            balls.append((seen_x + far_mm * 0.6, 300.0 + far_mm * 0.8, {0: 0.9}))
        tracks.append(tracker.update(detections_of(balls), frame, frame / FPS))
    return tracks


def _cue_xy(tracks: TrackSet) -> np.ndarray:
    return np.asarray(tracks.xy_mm[tracks.ball.tolist().index(0)])


def test_a_lost_ball_is_not_found_beyond_the_top_speed_reach() -> None:
    # 1000 mm in two frames is 30 m/s: another ball.
    tracks = _cue_lost_then_a_look_alike(far_mm=1000.0)
    for state in tracks[20:]:
        assert _cue_xy(state)[1] < 400.0, state.frame
    assert _cue_xy(tracks[-1])[0] == pytest.approx(400.0 + SPEED_MM_S * 29 / FPS, abs=10.0)


def test_a_lost_ball_is_found_within_the_top_speed_reach() -> None:
    # 400 mm in two frames is 12 m/s: a hard hit could send it there (the scenario above
    # fails for the right reason).
    tracks = _cue_lost_then_a_look_alike(far_mm=400.0)
    assert _cue_xy(tracks[21])[1] == pytest.approx(300.0 + 400.0 * 0.8, abs=5.0)


def test_without_the_reach_a_lost_ball_is_found_on_any_look_alike() -> None:
    # The default (off): the behaviour the reach removes.
    tracks = _cue_lost_then_a_look_alike(far_mm=1000.0, within_reach=False)
    assert _cue_xy(tracks[21])[1] == pytest.approx(300.0 + 1000.0 * 0.8, abs=5.0)
