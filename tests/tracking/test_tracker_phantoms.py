"""A track held by something that is not its ball lets go when its ball shows up
(`tracking.phantoms`)."""

from __future__ import annotations

import numpy as np

from tests.tracking.builders import TABLE, detections_of
from tracking.tracker import BallTracker, TrackerConfig

FPS = 30.0
RELEASE = TrackerConfig(release_phantoms=True)


def _cue_lost_then_a_ghost(ghost_cue: float) -> tuple[BallTracker, int]:
    """The 5 rests; the cue ball rolls up the table and is lost behind a player; a sleeve at
    the head rail, read ``ghost_cue`` as the cue ball, is then the only thing seen besides
    the 5, long enough for the cue ball's track to take it and stop there."""
    tracker = BallTracker(TABLE, RELEASE)
    frame = 0
    for frame in range(10):
        tracker.update(
            detections_of([(1800.0, 300.0, {5: 0.95}), (700.0, 600.0, {0: 0.95})]), frame, 0
        )
    for frame in range(10, 20):
        x = 700.0 + 60.0 * (frame - 10)
        dets = detections_of([(1800.0, 300.0, {5: 0.95}), (x, 600.0, {0: 0.95})])
        tracker.update(dets, frame, frame / FPS)
    for frame in range(20, 50):
        dets = detections_of([(1800.0, 300.0, {5: 0.95}), (40.0, 1200.0, {0: ghost_cue, 3: 0.3})])
        tracker.update(dets, frame, frame / FPS)
    return tracker, frame


def test_a_cue_ball_track_on_a_ghost_lets_go_when_the_cue_ball_shows_up() -> None:
    # On by default (`TrackerConfig.release_phantoms`).
    tracker, last = _cue_lost_then_a_ghost(ghost_cue=0.45)
    tracks = tracker.update(detections_of([]), last + 1, (last + 1) / FPS)
    assert np.allclose(tracks.xy_mm[tracks.ball.tolist().index(0)], (40.0, 1200.0), atol=5.0)
    # The cue ball comes to rest in sight, 1.2 m from the ghost; the sleeve is still there.
    for frame in range(last + 2, last + 8):
        dets = detections_of(
            [
                (1800.0, 300.0, {5: 0.95}),
                (40.0, 1200.0, {0: 0.45, 3: 0.3}),
                (1500.0, 800.0, {0: 0.9}),
            ]
        )
        tracks = tracker.update(dets, frame, frame / FPS)
    assert np.allclose(tracks.xy_mm[tracks.ball.tolist().index(0)], (1500.0, 800.0), atol=5.0)


def test_a_sure_cue_ball_is_kept_against_a_second_look_alike() -> None:
    # The held detection is a sure likeness of the cue ball (0.9): nothing is let go.
    tracker, last = _cue_lost_then_a_ghost(ghost_cue=0.9)
    for frame in range(last + 1, last + 6):
        dets = detections_of(
            [
                (1800.0, 300.0, {5: 0.95}),
                (40.0, 1200.0, {0: 0.9}),
                (1500.0, 800.0, {0: 0.8}),
            ]
        )
        tracks = tracker.update(dets, frame, frame / FPS)
    assert np.allclose(tracks.xy_mm[tracks.ball.tolist().index(0)], (40.0, 1200.0), atol=5.0)


def test_a_rack_ball_held_since_the_start_is_never_let_go() -> None:
    # The 5, resting since the first frame, is read only 0.5 as itself; a look-alike
    # elsewhere (0.8) does not take its track away.
    tracker = BallTracker(TABLE, RELEASE)
    for frame in range(30):
        dets = [(1800.0, 300.0, {5: 0.5, 6: 0.4})]
        if frame >= 10:
            dets.append((900.0, 900.0, {5: 0.8}))
        tracks = tracker.update(detections_of(dets), frame, frame / FPS)
    assert np.allclose(tracks.xy_mm[tracks.ball.tolist().index(5)], (1800.0, 300.0), atol=5.0)
