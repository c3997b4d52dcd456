"""Tracks born at a pocket's mouth: a ball first tracked as it falls in
(`lifecycle.newborn_at_mouth`)."""

from __future__ import annotations

import numpy as np

from tests.tracking.builders import TABLE, detections_of
from tracking.tracker import BallTracker
from tracking.types import TrackStatus


def _break_near_the_foot_right_pocket(
    first_seen_at_mouth: bool,
) -> list[tuple[TrackStatus, np.ndarray]]:
    """Statuses of the 7 over a break at 30 fps: the cue ball and the 3 race towards the
    foot-right corner; the 7, hidden in the rack until now, is first seen in that pocket's
    mouth (or, with ``first_seen_at_mouth`` False, 300 mm out on the bed, at rest), then
    not again; from the next frame the 3, 430 mm back, is read 75 % as the 7."""
    length, width = TABLE.length_mm, TABLE.width_mm
    tracker = BallTracker(TABLE)
    fps = 30.0
    for frame in range(5):
        tracker.update(
            detections_of([(length - 700.0, width - 400.0, {3: 0.95}), (900.0, 600.0, {0: 0.95})]),
            frame,
            frame / fps,
        )
    seven = (length - 45.0, width - 45.0) if first_seen_at_mouth else (length - 330.0, 600.0)
    statuses = []
    for frame in range(5, 40):
        t = frame / fps
        cue = (length - 800.0 + 40.0 * (frame - 5), width - 300.0)
        three = (length - 400.0 + 3.0 * (frame - 5), width - 300.0)
        balls = [(*cue, {0: 0.95}), (*three, {3: 0.25, 7: 0.75})]
        if frame == 5:
            balls.append((*seven, {7: 0.95}))
        tracks = tracker.update(detections_of(balls), frame, t)
        if 7 in tracks.ball.tolist():
            row = tracks.ball.tolist().index(7)
            statuses.append((tracks.status[row], tracks.xy_mm[row].copy()))
    return statuses


def test_a_ball_first_seen_in_a_pocket_mouth_drops_rather_than_jumping_back() -> None:
    statuses = _break_near_the_foot_right_pocket(first_seen_at_mouth=True)
    mouth = np.array([TABLE.length_mm - 45.0, TABLE.width_mm - 45.0])
    # It never takes the look-alike 430 mm back on the bed ...
    assert all(np.linalg.norm(xy - mouth) < 60.0 for _, xy in statuses)
    # ... and, lost in the mouth, it dropped.
    assert statuses[-1][0] == TrackStatus.POCKETED


def test_a_ball_first_seen_on_the_bed_is_not_pocketed_when_lost() -> None:
    statuses = _break_near_the_foot_right_pocket(first_seen_at_mouth=False)
    assert all(status != TrackStatus.POCKETED for status, _ in statuses)
