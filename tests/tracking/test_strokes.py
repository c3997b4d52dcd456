"""Strokes the camera did not see (`tracking.strokes`): which ball the hidden cue ball met."""

from __future__ import annotations

import math

import numpy as np
import pytest

from referee.shots import facts_from_events
from tests.tracking.builders import TABLE, Noise, run_tracking, simulate
from tracking.strokes import first_reached
from tracking.types import EventKind

DIAMETER = TABLE.ball_diameter_mm


def test_first_reached_ignores_a_target_on_the_origin() -> None:
    """A 'ball' sighted where the cue ball rested is the cue ball under another label."""
    origin = np.array([445.0, 621.0])
    targets = np.array([[450.0, 621.5], [1686.0, 575.0], [1724.0, 529.0]])
    assert first_reached(origin, targets, DIAMETER) == 1
    # Only such a sighting left: it is still the answer rather than none.
    assert first_reached(origin, targets[:1], DIAMETER) == 0


@pytest.mark.parametrize("gap_mm", [20.0, 60.0], ids=["close", "apart"])
def test_hidden_stroke_into_a_combination_hits_the_near_ball(gap_mm: float) -> None:
    """The cue ball is out of sight from its strike until just after it met the 1, which
    sends the 10 on at once: both are first seen leaving within a frame or two, and the
    first contact is the 1 however their starts were ordered."""
    positions = {0: (700.0, 640.0), 1: (1500.0, 640.0), 10: (1500.0 + DIAMETER + gap_mm, 630.0)}
    truth = simulate(positions, [(0.2, 0, (3500.0, 0.0))], 1.5)
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    hidden = (0, 0.2 + 0.5 / truth.fps, contact.time_s + 1.0 / truth.fps)
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=(hidden,)), seed=4)
    facts = facts_from_events(run.events, [1, 10], is_break=False)
    assert facts["first_object_ball_contacted"] == 1, run.events
    cue_contacts = [e for e in run.events if e.kind == EventKind.BALL_BALL and 0 in e.balls]
    assert {e.balls for e in cue_contacts} <= {(0, 1)}, cue_contacts


@pytest.mark.parametrize("hidden_again", [False, True], ids=["found", "found-then-hidden"])
def test_hidden_stroke_whose_ball_is_seen_once_then_lost(hidden_again: bool) -> None:
    """The cue ball is out of sight from its strike until it met the 3, which the camera
    then sees displaced in one frame only before losing it (driven hard into a pocket or
    off the table): the cue ball found far from its rest spot still hit that ball, and the
    stroke is put where it vanished, not when it was next seen moving (s1_broadcast shot 3,
    s3_top shot 2 with the real detector: strikes 11 and 17 frames late, first contact lost)."""
    positions = {0: (700.0, 640.0), 3: (1600.0, 640.0), 5: (1000.0, 1100.0)}
    # Over before the 3 comes back off the foot cushion.
    truth = simulate(positions, [(0.2, 0, (4000.0, 0.0))], 0.6)
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    frame = 1.0 / truth.fps
    seen = math.ceil(contact.time_s * truth.fps) * frame  # the first frame after the contact
    occlusions = [(0, 0.2 + 0.5 * frame, seen - 0.5 * frame), (3, seen + 0.5 * frame, 10.0)]
    if hidden_again:  # seen in one frame, then hidden in the next
        occlusions.append((0, seen + 0.5 * frame, seen + 1.5 * frame))
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=tuple(occlusions)), seed=5)
    strikes = [e for e in run.events if e.kind == EventKind.STRIKE]
    assert len(strikes) == 1 and abs(strikes[0].time_s - 0.2) < 1.5 * frame, run.events
    facts = facts_from_events(run.events, [3, 5], is_break=False)
    assert facts["first_object_ball_contacted"] == 3, run.events


@pytest.mark.parametrize("hidden_frames", [3, 4, 5], ids=str)
def test_a_cue_ball_seen_leaving_once_then_hidden_is_struck_once(hidden_frames: int) -> None:
    """The cue ball is seen once just displaced after the stroke, then out of sight until
    some frames after it met the 1: the hidden stroke found from the 1's start takes the
    cue ball's own start, which must not end the shot with a second strike from the spot
    of that one sighting (s2_corner break with the real detector: a strike at frame 78
    split the break's shot in two)."""
    positions = {0: (700.0, 640.0), 1: (1500.0, 640.0), 5: (1000.0, 1100.0)}
    truth = simulate(positions, [(0.2, 0, (4000.0, 0.0))], 1.5)
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    frame = 1.0 / truth.fps
    hidden = (0, 0.2 + 1.5 * frame, contact.time_s + hidden_frames * frame)
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=(hidden,)), seed=6)
    strikes = [e for e in run.events if e.kind == EventKind.STRIKE]
    ends = [e for e in run.events if e.kind == EventKind.SHOT_END]
    assert len(strikes) == 1 and abs(strikes[0].time_s - 0.2) < 2.0 * frame, run.events
    assert all(e.time_s > 1.0 for e in ends), ends
    facts = facts_from_events(run.events, [1, 5], is_break=False)
    assert facts["first_object_ball_contacted"] == 1, run.events


@pytest.mark.parametrize("fps", [30.0, 60.0], ids=["30fps", "60fps"])
def test_a_cue_ball_found_rolling_off_a_cushion_was_struck_when_it_vanished(fps: float) -> None:
    """The cue ball vanishes as it is struck into the cushion beside it and is found
    rolling back out, with no ball seen leaving (the one it met went straight down unseen):
    its path does not lead back to its spot, yet it was struck when it vanished, not put
    down (broadcast_pushout shot 4 with the real detector: strike 8 frames late)."""
    positions = {0: (700.0, 150.0), 5: (1800.0, 1000.0)}
    truth = simulate(positions, [(0.5, 0, (-1200.0, -2500.0))], 1.5, fps)
    frame = 1.0 / fps
    hidden = (0, 0.5 + 0.5 * frame, 0.5 + 0.2)
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=(hidden,)), seed=3)
    strikes = [e for e in run.events if e.kind == EventKind.STRIKE]
    assert len(strikes) == 1 and abs(strikes[0].time_s - 0.5) < 1.5 * frame, run.events
