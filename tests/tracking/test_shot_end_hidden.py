"""When a shot ends with a ball out of sight: decided on what is seen, not on a coasting track."""

from __future__ import annotations

import numpy as np

from tests.tracking.builders import TABLE
from tracking.accounting import gone_fate
from tracking.event_config import EventConfig
from tracking.events import EventDetector
from tracking.lost import Loss
from tracking.types import Event, EventKind, TrackSet, TrackStatus

_FPS = 30.0


def _creeping_track_events(creep_mm_s: float) -> tuple[list[Event], EventDetector]:
    """The cue ball struck at 0.5 s stops at 1.5 s; the 3, far away, seen rolling at 0.3 m/s
    from 1.0 s toward the foot cushion 160 mm ahead, is hidden from 1.5 s on, its track
    coasting "occluded" at ``creep_mm_s`` for ever (a track held on a stray sighting)."""
    detector = EventDetector(TABLE)
    rng = np.random.default_rng(0)
    events: list[Event] = []
    for frame in range(round(8.0 * _FPS)):
        t = frame / _FPS
        rolled = min(max(t - 0.5, 0.0), 1.0)
        cue = [500.0 + 1000.0 * rolled - 500.0 * rolled**2, 640.0]
        cue_v = [1000.0 * (1.0 - rolled) if 0.5 < t < 1.5 else 0.0, 0.0]
        three, three_v, status = [2200.0, 1000.0], [0.0, 0.0], TrackStatus.ON_TABLE
        if 1.0 <= t < 1.5:
            three, three_v = [2200.0 + 300.0 * (t - 1.0), 1000.0], [300.0, 0.0]
        elif t >= 1.5:
            three = [2350.0 + creep_mm_s * (t - 1.5), 1000.0]
            three_v, status = [creep_mm_s, 0.0], TrackStatus.OCCLUDED
        xy = np.array([cue, three]) + rng.normal(0.0, 0.7, (2, 2))
        statuses = np.array([TrackStatus.ON_TABLE, status], object)
        tracks = TrackSet(frame, t, np.array([0, 3]), xy, np.array([cue_v, three_v]), xy, statuses)
        events += detector.update(tracks)
    return events, detector


def test_a_hidden_ball_coasting_at_a_creep_does_not_hold_the_shot_open() -> None:
    """Its track coasts at 8 mm/s, slower than a ball at rest is allowed to creep: the shot
    ends (before, it stayed open for ever and the next stroke merged into it), and the 3,
    whose straight way met nothing but the cushion, is not put in a pocket."""
    events, detector = _creeping_track_events(8.0)
    ends = [e for e in events if e.kind == EventKind.SHOT_END]
    assert len(ends) == 1 and ends[0].time_s < 5.0, events
    assert not detector.in_shot
    assert not any(e.kind == EventKind.BALL_POCKET for e in events), events


def test_a_hidden_ball_coasting_at_a_roll_keeps_the_shot_open() -> None:
    """Coasting at 0.2 m/s (a roll the tracker still follows), it keeps the shot open."""
    events, detector = _creeping_track_events(200.0)
    assert not any(e.kind == EventKind.SHOT_END for e in events), events
    assert detector.in_shot


def test_a_guessed_pocket_needs_a_ball_to_turn_the_lost_one_toward_it() -> None:
    """Lost rolling at 0.3 m/s toward the foot cushion 160 mm ahead, 330 mm from the
    foot-right corner pocket, and gone at the shot's end: with nothing near its way it is
    hidden (no pocket); with a ball beside its way it may have been turned into the
    pocket, the nearest it could reach."""
    loss = Loss(3, 1.5, np.array([2350.0, 1000.0]), np.array([300.0, 0.0]), 1.0)
    config = EventConfig()
    far = np.array([[1000.0, 640.0], [np.nan, np.nan]])
    assert gone_fate(TABLE, loss, config, others_mm=far) is None
    beside = np.array([[1000.0, 640.0], [2420.0, 1040.0]])
    guessed = gone_fate(TABLE, loss, config, others_mm=beside)
    assert guessed is not None and guessed.kind == EventKind.BALL_POCKET
    assert gone_fate(TABLE, loss, config) is not None  # others unknown: as before
