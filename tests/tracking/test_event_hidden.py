"""Strokes and balls the camera lost: a cue ball smeared out of sight from its strike to the
rack, and a ball lost near a pocket that rolls on."""

from __future__ import annotations

import numpy as np
import pytest

from referee.shots import facts_from_events
from tests.tracking.builders import TABLE, Noise, run_tracking, simulate
from tracking.strokes import first_reached
from tracking.types import EventKind

DIAMETER = TABLE.ball_diameter_mm


@pytest.mark.parametrize("found_after", [0.5, 2.5], ids=["found-at-once", "found-later"])
@pytest.mark.parametrize(
    "cue_y", [650.0, 420.0, 860.0], ids=["straight", "from-left", "from-right"]
)
def test_break_with_the_cue_ball_unseen_until_after_the_rack(
    cue_y: float, found_after: float
) -> None:
    """The cue ball vanishes at its strike and is next seen after it met the rack: the
    strike is put where it vanished and the first contact is the ball its path meets first."""
    positions = {**TABLE.rack_positions_mm(), 0: (600.0, cue_y)}
    aim = np.array(TABLE.foot_spot_mm) - np.array(positions[0])
    velocity = 8000.0 * aim / np.linalg.norm(aim)
    truth = simulate(positions, [(0.2, 0, (float(velocity[0]), float(velocity[1])))], 2.5)
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    hidden = (0, 0.2 + 0.5 / truth.fps, contact.time_s + found_after / truth.fps)
    noise = Noise(position_std_mm=1.5, occlusions=(hidden,))
    run = run_tracking(truth, noise, seed=3)
    want = facts_from_events(truth.events, range(1, 11), is_break=True)
    got = facts_from_events(run.events, range(1, 11), is_break=True)
    assert got["first_object_ball_contacted"] == want["first_object_ball_contacted"] == 1
    strikes = [e for e in run.events if e.kind == EventKind.STRIKE]
    assert len(strikes) == 1 and abs(strikes[0].time_s - 0.2) < 1.5 / truth.fps, strikes
    assert 0.0 < strikes[0].confidence < 1.0


@pytest.mark.parametrize("fps", [30.0, 50.0, 60.0], ids=["30fps", "50fps", "60fps"])
def test_cue_ball_seen_once_on_its_way_is_struck_where_it_vanished(fps: float) -> None:
    """A hard stroke smears the cue ball out of sight but for one sighting on its way, and
    again until after it met the 1: one strike, where it vanished, and the 1 hit first."""
    positions = {0: (700.0, 640.0), 1: (1700.0, 660.0), 5: (2200.0, 300.0)}
    truth = simulate(positions, [(0.2, 0, (5000.0, 0.0))], 2.0, fps=fps)
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    midway = 0.2 + 0.5 * (contact.time_s - 0.2)
    hidden = (
        (0, 0.2 + 0.5 / fps, midway - 0.5 / fps),
        (0, midway + 0.5 / fps, contact.time_s + 3.0 / fps),
    )
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=hidden), seed=7)
    strikes = [e for e in run.events if e.kind == EventKind.STRIKE]
    assert len(strikes) == 1 and abs(strikes[0].time_s - 0.2) < 1.5 / fps, run.events
    facts = facts_from_events(run.events, [1, 5], is_break=False)
    assert facts["first_object_ball_contacted"] == 1, run.events
    assert all(e.kind != EventKind.BALL_DISTURBED for e in run.events), run.events


def test_first_reached_skips_a_ball_behind_another() -> None:
    origin = np.array([0.0, 0.0])
    # Ball 0 lies straight behind ball 1 (nearer); ball 2 is off to the side, further.
    targets = np.array([[400.0, 0.0], [300.0, 10.0], [250.0, 250.0]])
    assert first_reached(origin, targets, DIAMETER) == 1
    assert first_reached(origin, targets[[0, 2]], DIAMETER) == 1
    with pytest.raises(ValueError, match="at least one"):
        first_reached(origin, np.zeros((0, 2)), DIAMETER)


def test_ball_lost_in_a_shot_and_found_rolling_is_not_disturbed() -> None:
    """A rolling ball the detector loses for a while and finds again further on is the same
    ball still rolling, not a ball set moving by nothing."""
    truth = simulate(
        {0: (700.0, 640.0), 4: (1200.0, 640.0)}, [(0.1, 0, (2500.0, 0.0))], 3.0, decel_mm_s2=300
    )
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=((4, 0.6, 1.3),)), seed=2)
    assert all(e.kind != EventKind.BALL_DISTURBED for e in run.events), run.events


def test_unseen_stroke_into_a_frozen_pair_hits_the_near_ball() -> None:
    """Cue ball, 1 and 2 in a line with the 1 frozen to the 2: the 1 passes the stroke on
    and barely moves, only the 2 is seen leaving; the first contact is still the 1."""
    positions = {0: (800.0, 640.0), 1: (1500.0, 640.0), 2: (1500.0 + DIAMETER, 640.0)}
    truth = simulate(positions, [(0.2, 0, (3000.0, 0.0))], 1.5)
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    hidden = (0, 0.2 + 0.5 / truth.fps, contact.time_s + 3.0 / truth.fps)
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=(hidden,)), seed=5)
    facts = facts_from_events(run.events, [1, 2], is_break=False)
    assert facts["first_object_ball_contacted"] == 1, run.events


def test_ball_inferred_pocketed_after_it_was_lost_says_why() -> None:
    """The 4, lost rolling toward the foot-left pocket and never seen again, is reported
    pocketed with the inference in words (events.jsonl ``reason``), and below certainty."""
    four = np.array([TABLE.length_mm - 600.0, 500.0])
    unit = (np.array([TABLE.length_mm, 0.0]) - four) / np.linalg.norm(
        np.array([TABLE.length_mm, 0.0]) - four
    )
    cue = four - 300.0 * unit
    positions = {0: (float(cue[0]), float(cue[1])), 4: (float(four[0]), float(four[1]))}
    truth = simulate(positions, [(0.2, 0, (float(2500.0 * unit[0]), float(2500.0 * unit[1])))], 4.0)
    start = next(e.time_s for e in truth.events if e.kind == EventKind.BALL_BALL)
    run = run_tracking(
        truth, Noise(position_std_mm=1.0, occlusions=((4, start + 0.1, 10.0),)), seed=6
    )
    drop = next(e for e in run.events if e.kind == EventKind.BALL_POCKET)
    assert drop.balls == (4,) and drop.confidence < 1.0
    assert drop.reason is not None and "heading into the foot_left pocket" in drop.reason
    assert drop.to_json()["reason"] == drop.reason
    seen = [e for e in truth.events if e.kind == EventKind.BALL_POCKET]
    assert all(e.reason is None for e in seen)


@pytest.mark.parametrize(
    ("found", "expected"),
    [((1600.0, 520.0), [1, 2]), ((600.0, 300.0), [1, 2, 7])],
    ids=["found-far-toward-the-rack", "found-near-its-spot"],
)
def test_a_hidden_strokes_first_ball_lies_on_the_side_the_cue_ball_went(
    found: tuple[float, float], expected: list[int]
) -> None:
    """A ball the tracker places behind the cue ball's rest spot (a misread rack ball) cannot
    have been hit first when the cue ball was found far the other way."""
    from tracking.events import EventDetector

    detector = EventDetector(TABLE)
    rest = np.array([490.0, 286.0])
    detector._anchor[[1, 2, 7]] = [(1674.0, 562.0), (1775.0, 604.0), (315.0, 248.0)]
    detector._seen_xy[0] = found
    assert detector._ahead_of_cue(rest, [1, 2, 7]) == expected
