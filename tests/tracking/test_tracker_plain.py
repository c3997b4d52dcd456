"""A hidden ball at rest whose search window shows plain cloth is gone from there: its row
stops (`TrackerConfig.plain_cloth_end_s`, `tracking.plain_end`), its track stays to be
found again; one under an arm stays occluded."""

from __future__ import annotations

import numpy as np

from tests.tracking.builders import TABLE, Sighting, detections_of
from tracking.tracker import BallTracker, TrackerConfig
from tracking.types import TrackSet, TrackStatus

FPS = 50.0
END_S = 0.3


def _hidden_ball(
    at_mm: tuple[float, float], plain: bool, end_s: float = END_S, back: int = 99
) -> list[TrackSet]:
    """The 4 rests at ``at_mm`` beside the cue ball for 10 frames, then is not detected
    until frame ``back`` (found 100 mm away: pushed while hidden); the pipeline reports its window
    as plain cloth (``plain``) or not (an arm)."""
    tracker = BallTracker(TABLE, TrackerConfig(plain_cloth_end_s=end_s))
    tracks: list[TrackSet] = []
    for frame in range(60):
        balls: list[Sighting] = [(1200.0, 600.0, {0: 0.95})]
        if frame < 10:
            balls.append((at_mm[0], at_mm[1], {4: 0.95}))
        elif frame >= back:
            balls.append((at_mm[0] + 100.0, at_mm[1], {4: 0.9}))
        state = tracker.update(detections_of(balls), frame, frame / FPS)
        hidden = state.status == TrackStatus.OCCLUDED
        if hidden.any():
            flags = np.full(int(hidden.sum()), plain)
            tracker.note_plain_cloth(state.ball[hidden], flags, frame / FPS)
        tracks.append(state)
    return tracks


def _status(tracks: TrackSet, ball: int) -> str | None:
    rows = tracks.ball.tolist()
    return str(tracks.status[rows.index(ball)]) if ball in rows else None


def test_a_ball_unseen_on_plain_cloth_leaves_the_table() -> None:
    tracks = _hidden_ball((800.0, 400.0), plain=True)
    assert _status(tracks[12], 4) == TrackStatus.OCCLUDED
    # Plain from frame 10: after 0.3 s (15 frames at 50 fps) its row stops, not pocketed.
    assert all(_status(t, 4) is None for t in tracks[27:])
    assert all(_status(t, 4) != TrackStatus.POCKETED for t in tracks)
    assert all(_status(t, 0) == TrackStatus.ON_TABLE for t in tracks)


def test_a_ball_hidden_under_an_arm_stays() -> None:
    tracks = _hidden_ball((800.0, 400.0), plain=False)
    assert all(_status(t, 4) == TrackStatus.OCCLUDED for t in tracks[10:])


def test_off_by_default() -> None:
    tracks = _hidden_ball((800.0, 400.0), plain=True, end_s=0.0)
    assert all(_status(t, 4) == TrackStatus.OCCLUDED for t in tracks[10:])


def test_a_gone_ball_is_found_again_as_a_hidden_one_is() -> None:
    # Its track stays: a detection of it finds it again, as it finds an occluded ball.
    tracks = _hidden_ball((800.0, 400.0), plain=True, back=40)
    assert _status(tracks[35], 4) is None
    assert all(_status(t, 4) == TrackStatus.ON_TABLE for t in tracks[42:])


def test_seen_again_breaks_the_plain_run() -> None:
    tracker = BallTracker(TABLE, TrackerConfig(plain_cloth_end_s=END_S))
    for frame in range(40):
        balls: list[Sighting] = [(1200.0, 600.0, {0: 0.95})]
        # Seen every tenth frame: never unseen for 0.3 s on end.
        if frame % 10 == 0:
            balls.append((800.0, 400.0, {4: 0.95}))
        state = tracker.update(detections_of(balls), frame, frame / FPS)
        hidden = state.status == TrackStatus.OCCLUDED
        tracker.note_plain_cloth(state.ball[hidden], np.ones(int(hidden.sum()), bool), frame / FPS)
        assert 4 in state.ball.tolist(), frame
