"""A struck ball unseen for a few frames is taken back within what the top ball speed
reaches in all that time (`TrackerConfig.struck_gate_unseen`), not only in one frame."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tracking.builders import TABLE, Sighting, detections_of
from tracking.tracker import BallTracker, TrackerConfig
from tracking.types import TrackSet, TrackStatus

FPS = 50.0
REST = (400.0, 300.0)
BLURRED = range(20, 23)
"""Frames on which the struck cue ball is seen nowhere (a smear at the stroke)."""
FOUND = (1000.0, 700.0)
"""Where it turns up next: 721 mm from its spot in four frame intervals (9 m/s), more than
the top speed (15 m/s) reaches in one."""


def _break_cue_ball(unseen_gate: bool) -> list[TrackSet]:
    """The cue ball rests, vanishes for three frames at the stroke and is seen again far
    off, read only 0.45 the cue ball (too unsure for re-identification anywhere); then it
    rolls on, read surely."""
    tracker = BallTracker(TABLE, TrackerConfig(struck_gate_unseen=unseen_gate))
    tracks: list[TrackSet] = []
    for frame in range(30):
        balls: list[Sighting] = [(1500.0, 900.0, {3: 0.95})]
        if frame < BLURRED[0]:
            balls.append((*REST, {0: 0.95}))
        elif frame == BLURRED[-1] + 1:
            balls.append((*FOUND, {0: 0.45, 5: 0.3}))
        elif frame > BLURRED[-1] + 1:
            step = frame - BLURRED[-1] - 1
            balls.append((FOUND[0] + 120.0 * step, FOUND[1] + 90.0 * step, {0: 0.95}))
        tracks.append(tracker.update(detections_of(balls), frame, frame / FPS))
    return tracks


def _cue_xy(tracks: TrackSet) -> np.ndarray:
    return np.asarray(tracks.xy_mm[tracks.ball.tolist().index(0)])


def test_a_struck_ball_unseen_is_taken_back_within_its_reach_since_last_seen() -> None:
    tracks = _break_cue_ball(unseen_gate=True)
    found = BLURRED[-1] + 1
    assert _cue_xy(tracks[found]) == pytest.approx(FOUND, abs=5.0)
    assert tracks[found].status[tracks[found].ball.tolist().index(0)] == TrackStatus.ON_TABLE


def test_with_a_one_frame_gate_the_unsure_sighting_is_left() -> None:
    # The default: the same sighting lies outside a one-frame gate and is too unsure to be
    # re-identified, so the cue ball stays lost on it (the scenario above tests the gate).
    tracks = _break_cue_ball(unseen_gate=False)
    found = BLURRED[-1] + 1
    assert np.hypot(*(_cue_xy(tracks[found]) - np.array(FOUND))) > 100.0
