"""Track bookkeeping (`tracking.lifecycle`): what a ball lost from sight may be doing."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tracking.builders import TABLE
from tracking.jaws import in_jaws
from tracking.lifecycle import start_pending
from tracking.track_state import PENDING_NONE, PENDING_OFF, PENDING_POCKET, TrackState
from tracking.tracker import BallTracker
from tracking.tracker_config import TrackerConfig
from tracking.types import TrackSet, TrackStatus
from vision.types import NUM_CLASSES, Detections

L, W = TABLE.length_mm, TABLE.width_mm
MOUTH = TABLE.corner_mouth_mm / np.sqrt(2.0)


@pytest.mark.parametrize(
    ("xy", "want"),
    [
        ((L - 0.4 * MOUTH, 0.4 * MOUTH), True),
        ((0.3 * MOUTH, W - 0.5 * MOUTH), True),
        ((L - 0.6 * MOUTH, 0.6 * MOUTH), False),
        ((L / 2 + 20.0, -5.0), True),
        ((L / 2 + 20.0, 5.0), False),
        ((L / 2 + TABLE.side_mouth_mm, -5.0), False),
        ((L / 2, W / 2), False),
    ],
    ids=[
        "corner-deep",
        "head-corner",
        "corner-short-of-mouth",
        "side-past-line",
        "side-on-bed",
        "side-beside-mouth",
        "centre",
    ],
)
def test_in_jaws_is_past_a_pocket_mouth(xy: tuple[float, float], want: bool) -> None:
    assert in_jaws(TABLE, np.array([xy]))[0] == want


def _lost(xy: tuple[float, float], velocity: tuple[float, float]) -> int:
    state = TrackState()
    state.seen_xy_mm[3] = xy
    state.seen_velocity[3] = velocity
    start_pending(state, TABLE, TrackerConfig(), np.array([3]))
    return int(state.pending[3])


@pytest.mark.parametrize(
    ("xy", "velocity", "want"),
    [
        # Rattling back out along the foot rail, deep in the foot_left jaws.
        ((L - 0.4 * MOUTH, 0.45 * MOUTH), (-150.0, -150.0), PENDING_POCKET),
        # The same spot at rest (a ball resting on the lip is found again where it lies).
        ((L - 0.4 * MOUTH, 0.45 * MOUTH), (0.0, 5.0), PENDING_NONE),
        # Moving short of the mouth, away from the pocket: only hidden.
        ((L - 1.5 * MOUTH, 1.5 * MOUTH), (-150.0, 150.0), PENDING_NONE),
        # Heading in from afar.
        ((L - 120.0, 120.0), (1500.0, -1500.0), PENDING_POCKET),
    ],
    ids=["rattling-in-jaws", "resting-in-jaws", "leaving-near-mouth", "heading-in"],
)
def test_start_pending_drop_when_moving_in_the_jaws(
    xy: tuple[float, float], velocity: tuple[float, float], want: int
) -> None:
    assert _lost(xy, velocity) == want


@pytest.mark.parametrize(
    ("xy", "velocity", "want"),
    [
        # Over the side cushion 110 mm from the side pocket, flying along it toward the pocket.
        ((L / 2 + 110.0, -25.0), (-2500.0, -300.0), PENDING_OFF),
        # Beyond the same cushion line inside the side pocket's mouth: dropping.
        ((L / 2 + 30.0, -25.0), (-300.0, -2500.0), PENDING_POCKET),
        # Over the foot cushion beside a corner's jaw, heading for the corner.
        ((L + 25.0, 200.0), (500.0, -2500.0), PENDING_OFF),
        # On the bed, 60 mm from the side pocket's point, driven obliquely (30 degrees to
        # the rail) into the cushion 120 mm beside its middle: it meets the cushion, not the
        # pocket, though its path passes the point within 60 mm.
        ((L / 2 + 224.0, 60.0), (-2600.0, -1500.0), PENDING_NONE),
        # The same spot, steeper, into the mouth.
        ((L / 2 + 40.0, 60.0), (-1000.0, -2500.0), PENDING_POCKET),
    ],
    ids=[
        "over-cushion-by-side-pocket",
        "in-side-mouth",
        "over-cushion-by-corner",
        "oblique-beside-side-mouth",
        "into-side-mouth",
    ],
)
def test_start_pending_off_the_table_over_a_cushion_beside_a_pocket(
    xy: tuple[float, float], velocity: tuple[float, float], want: int
) -> None:
    assert _lost(xy, velocity) == want


def _detections(balls: list[tuple[float, float, int, float]]) -> Detections:
    """Detections at (x, y) mm, each read as ``ball`` with probability ``p``."""
    xy = np.array([[x, y] for x, y, _, _ in balls], np.float32).reshape(-1, 2)
    prob = np.full((len(balls), NUM_CLASSES), 0.002, np.float32)
    for row, (_, _, ball, p) in enumerate(balls):
        prob[row, ball] = p
    prob /= prob.sum(axis=1, keepdims=True)
    ones = np.ones(len(balls), np.float32)
    return Detections(xy, xy, ones, ones, prob)


def _statuses(tracks: TrackSet, ball: int) -> str | None:
    rows = tracks.ball.tolist()
    return str(tracks.status[rows.index(ball)]) if ball in rows else None


@pytest.mark.parametrize("fps", [30.0, 60.0], ids=["30fps", "60fps"])
def test_a_dropped_ball_briefly_found_in_another_ball_still_drops(fps: float) -> None:
    """The 6 rolls at 2.4 m/s into the foot-left corner and vanishes in its mouth; a moment
    later another ball 250 mm away, rolling slowly, is read as the 6 for 0.05 s and then
    lost behind the player. The 6 dropped: it is pocketed, not left hidden where that
    ball was."""
    tracker = BallTracker(TABLE)
    frame, dt = 0, 1.0 / fps
    speed = 2400.0 / np.sqrt(2.0)
    for frame in range(round(0.2 * fps)):
        t = frame * dt
        xy = (L - 400.0 + speed * t, 400.0 - speed * t)
        tracker.update(_detections([(*xy, 6, 0.95)]), frame, t)
    lost_at = frame
    found = [frame + round(0.1 * fps) + k for k in range(max(2, round(0.05 * fps)))]
    statuses = []
    for frame in range(lost_at + 1, lost_at + round(1.5 * fps)):
        t = frame * dt
        dets = [(L - 330.0 - 300.0 * (t - found[0] * dt), 330.0, 6, 0.85)] if frame in found else []
        statuses.append(_statuses(tracker.update(_detections(dets), frame, t), 6))
    assert statuses.count(str(TrackStatus.POCKETED)) == 1
    assert statuses[-1] is None


def test_a_single_look_alike_of_a_pocketed_ball_does_not_bring_it_back() -> None:
    """The 4 drops into the head-right corner; two seconds later one detection, on the
    player's hand, is read as the 4 (a respawn's certainty), then nothing is seen there: the
    4 stays off the table, with no hidden track left at the hand."""
    tracker = BallTracker(TABLE)
    fps = 50.0
    statuses = []
    for frame in range(round(4.0 * fps)):
        t = frame / fps
        dets: list[tuple[float, float, int, float]] = []
        if frame < 10:
            dets = [(80.0 + 0.0 * frame, W - 300.0 + 25.0 * frame, 4, 0.95)]
        elif frame == round(2.0 * fps):
            dets = [(1200.0, 600.0, 4, 0.97)]
        statuses.append(_statuses(tracker.update(_detections(dets), frame, t), 4))
    assert statuses.count(str(TrackStatus.POCKETED)) == 1
    after = statuses[round(2.0 * fps) + 1 :]
    assert after == [None] * len(after)


def test_a_respawned_ball_seen_on_and_on_stays_in_play() -> None:
    """A spotted 10 (pocketed, then put back by hand and seen steadily) is back in play, and
    is only hidden when it is lost again."""
    tracker = BallTracker(TABLE)
    fps = 60.0
    for frame in range(10):
        tracker.update(
            _detections([(L - 300.0 + 30.0 * frame, 300.0 - 30.0 * frame, 10, 0.95)]),
            frame,
            frame / fps,
        )
    back = round(2.0 * fps)
    status = None
    for frame in range(10, back + 30):
        dets = [(0.75 * L, W / 2, 10, 0.95)] if back <= frame < back + 10 else []
        status = _statuses(tracker.update(_detections(dets), frame, frame / fps), 10)
    assert status == str(TrackStatus.OCCLUDED)
