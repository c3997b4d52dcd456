"""A resting ball that no moving ball can reach takes no speed from one detection off its
spot (a ghost beside it, a hand): it was not struck."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tracking.builders import TABLE, Sighting, detections_of
from tracking.tracker import BallTracker
from tracking.types import TrackSet

FOUR, CUE = (1000.0, 600.0), (300.0, 300.0)


def _the_4_read_once_off_its_spot(fps: float, off_mm: float) -> list[TrackSet]:
    """The cue ball and the 4 rest apart; on one frame the 4 is not found but a detection
    ``off_mm`` beside it reads as the 4; then the 4 is unseen for half a second, then seen
    again on its spot."""
    tracker = BallTracker(TABLE)
    cue: Sighting = (*CUE, {0: 0.95})
    four: Sighting = (*FOUR, {4: 0.95})
    ghost: Sighting = (FOUR[0] + off_mm, FOUR[1], {4: 0.9})
    rest = int(fps)
    frames: list[list[Sighting]] = [[cue, four]] * rest + [[cue, ghost]]
    frames += [[cue]] * (rest // 2) + [[cue, four]] * 3
    tracks: list[TrackSet] = []
    for frame, balls in enumerate(frames):
        tracks.append(tracker.update(detections_of(balls), frame, frame / fps))
    return tracks


def _four(tracks: TrackSet) -> tuple[np.ndarray, np.ndarray]:
    row = tracks.ball.tolist().index(4)
    return np.asarray(tracks.xy_mm[row]), np.asarray(tracks.velocity_mm_s[row])


@pytest.mark.parametrize("fps", [30.0, 60.0], ids=["30fps", "60fps"])
def test_a_resting_ball_takes_no_speed_from_one_detection_beside_it(fps: float) -> None:
    tracks = _the_4_read_once_off_its_spot(fps, off_mm=44.0)
    ghost_frame = int(fps)
    for state in tracks[ghost_frame : ghost_frame + int(fps) // 2]:
        xy, velocity = _four(state)
        assert np.hypot(*velocity) == 0.0, state.frame
        assert np.hypot(*(xy - FOUR)) <= 45.0, state.frame
    xy, velocity = _four(tracks[-1])
    assert np.allclose(xy, FOUR, atol=3.0)
    assert np.hypot(*velocity) == 0.0


@pytest.mark.parametrize("fps", [30.0, 60.0], ids=["30fps", "60fps"])
def test_a_ball_pushed_from_rest_takes_its_speed_from_the_next_sightings(fps: float) -> None:
    # A hand pushes the resting 4 off at 0.9 m/s: the first step from rest is a hop, the
    # steps after it give the speed.
    tracker = BallTracker(TABLE)
    speed_mm_s, rest = 900.0, int(fps)
    tracks = TrackSet.empty()
    for frame in range(rest + 12):
        x = FOUR[0] + speed_mm_s * max(frame - rest + 1, 0) / fps
        balls: list[Sighting] = [(*CUE, {0: 0.95}), (x, FOUR[1], {4: 0.95})]
        tracks = tracker.update(detections_of(balls), frame, frame / fps)
    xy, velocity = _four(tracks)
    assert xy[0] == pytest.approx(FOUR[0] + speed_mm_s * 12 / fps, abs=5.0)
    assert velocity[0] == pytest.approx(speed_mm_s, rel=0.15)
