"""BallTracker on exact kinematic sequences: identities kept, drops, occlusion, off table."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.table import TableSpec
from tests.tracking.builders import (
    TABLE,
    Noise,
    Truth,
    detections_of,
    identity_switches,
    position_errors,
    run_tracking,
    simulate,
)
from tracking.tracker import BallTracker, TrackerConfig
from tracking.types import TrackSet, TrackStatus
from vision.types import NUM_CLASSES, Detections

W = TABLE.width_mm


def _scenarios() -> dict[str, Truth]:
    return {
        "straight-line": simulate({0: (500, 300), 3: (2000, 900)}, [(0.1, 0, (1500, 200))], 1.5),
        "cushion-bounce": simulate({0: (1800, 400)}, [(0.1, 0, (2500, -1500))], 1.5),
        "two-ball-collision": simulate({0: (600, 640), 1: (1900, 640)}, [(0.1, 0, (3000, 0))], 1.5),
        "crossing-paths": simulate(
            {0: (600, 300), 5: (600, 980)}, [(0.1, 0, (2000, 1100)), (0.1, 5, (2000, -1100))], 1.2
        ),
        "drop-in-corner": simulate({0: (400, 400), 2: (2300, 1030)}, [(0.1, 2, (1500, 1500))], 1.2),
        "break": simulate(
            {**TABLE.rack_positions_mm(), 0: (600, 650)},
            [(0.2, 0, (8000, 20))],
            2.5,
            decel_mm_s2=500,
        ),
    }


SCENARIOS = _scenarios()
NOISES = {
    "clean": Noise(position_std_mm=0.5),
    "noisy-misses": Noise(position_std_mm=2.0, miss_rate=0.05),
    "confused-ids": Noise(
        position_std_mm=1.5, true_class_prob=0.6, confusion={0: 1, 1: 0, 2: 3, 3: 2, 5: 0}
    ),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS), ids=list(SCENARIOS))
@pytest.mark.parametrize("noise", list(NOISES), ids=list(NOISES))
def test_no_identity_switches_and_small_error(scenario: str, noise: str) -> None:
    truth = SCENARIOS[scenario]
    run = run_tracking(truth, NOISES[noise], seed=3)
    assert identity_switches(truth, run) == 0
    errors = position_errors(truth, run)
    assert np.median(errors) <= 4.0
    assert len(errors) >= 0.9 * np.isfinite(truth.xy_mm[:, :, 0]).sum() * 0.9


def test_one_track_per_ball_number_even_with_duplicates() -> None:
    tracker = BallTracker(TABLE)
    prob = np.zeros((3, NUM_CLASSES), np.float32)
    prob[:, 4] = 1.0
    xy = np.array([[500, 500], [900, 500], [1300, 500]], np.float32)
    dets = Detections(xy, xy, np.ones(3, np.float32), np.ones(3, np.float32), prob)
    tracks = tracker.update(dets, 0, 0.0)
    assert tracks.ball.tolist() == [4]


def test_drop_is_pocketed_at_the_pocket_and_hidden_ball_is_occluded() -> None:
    truth = SCENARIOS["drop-in-corner"]
    noise = Noise(occlusions=((0, 0.3, 0.9),))
    run = run_tracking(truth, noise)
    status: dict[int, list[TrackStatus]] = {int(b): [] for b in (0, 2)}
    for trackset in run.tracksets:
        for ball, s in zip(trackset.ball, trackset.status, strict=True):
            status[int(ball)].append(s)
    assert status[2].count(TrackStatus.POCKETED) == 1
    assert status[2][-1] == TrackStatus.POCKETED
    assert TrackStatus.OCCLUDED in status[0]
    assert TrackStatus.POCKETED not in status[0]
    assert status[0][-1] == TrackStatus.ON_TABLE


def test_reidentified_after_occlusion_while_moving() -> None:
    truth = simulate({0: (500, 640), 7: (1500, 300)}, [(0.1, 0, (1500, 0))], 1.5)
    run = run_tracking(truth, Noise(occlusions=((0, 0.4, 0.8),)))
    assert identity_switches(truth, run) == 0
    last = run.tracksets[-1]
    cue = int(np.flatnonzero(last.ball == 0)[0])
    assert last.status[cue] == TrackStatus.ON_TABLE
    assert np.linalg.norm(last.xy_mm[cue] - truth.xy_mm[-1, 0]) < 5.0


def test_ball_leaving_over_a_cushion_is_off_table() -> None:
    tracker = BallTracker(TABLE)
    prob = np.zeros((1, NUM_CLASSES), np.float32)
    prob[0, 6] = 1.0
    statuses = []
    for frame in range(60):
        t = frame / 60
        x = 1200.0
        y = W - 200.0 + 3000.0 * t
        if y < W + 60:
            xy = np.array([[x, y]], np.float32)
            dets = Detections(xy, xy, np.ones(1, np.float32), np.ones(1, np.float32), prob)
        else:
            dets = Detections.empty()
        statuses += [str(s) for s in tracker.update(dets, frame, t).status]
    assert statuses.count("off_table") == 1
    assert "pocketed" not in statuses


@pytest.mark.parametrize("fps", [30.0, 60.0, 120.0], ids=["30fps", "60fps", "120fps"])
def test_same_behaviour_at_other_frame_rates(fps: float) -> None:
    truth = simulate({0: (600, 640), 1: (1900, 640)}, [(0.1, 0, (3000, 0))], 1.2, fps=fps)
    run = run_tracking(truth, Noise(position_std_mm=1.0, miss_rate=0.03), seed=5)
    assert identity_switches(truth, run) == 0
    assert np.median(position_errors(truth, run)) <= 4.0


def test_other_table_size() -> None:
    table = TableSpec.from_name("7ft")
    truth = simulate({0: (400, 500), 4: (1500, 500)}, [(0.1, 0, (2500, 0))], 1.2, table=table)
    run = run_tracking(truth, Noise(), seed=1)
    assert identity_switches(truth, run) == 0


def test_config_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="measurement_std_mm"):
        TrackerConfig(measurement_std_mm=0.0)
    with pytest.raises(ValueError, match="cushion_restitution"):
        TrackerConfig(cushion_restitution=1.5)
    with pytest.raises(ValueError, match="spawn_clearance_diameters"):
        TrackerConfig(spawn_clearance_diameters=1.5)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    speed=st.floats(800.0, 7000.0),
    angle=st.floats(-np.pi, np.pi),
)
def test_random_shots_never_swap_identities(seed: int, speed: float, angle: float) -> None:
    rng = np.random.default_rng(seed)
    balls = rng.choice(np.arange(1, 11), size=4, replace=False)
    positions = {0: (700.0, 640.0)}
    for ball in balls:
        positions[int(ball)] = (float(rng.uniform(900, 2300)), float(rng.uniform(150, 1120)))
    velocity = (speed * np.cos(angle), speed * np.sin(angle))
    truth = simulate(positions, [(0.1, 0, velocity)], 1.5, decel_mm_s2=600)
    run = run_tracking(truth, Noise(position_std_mm=1.5, miss_rate=0.02), seed=seed)
    assert identity_switches(truth, run) == 0


def _single_ball_frames(
    tracker: BallTracker, xs: list[float], ball: int, first: int = 0
) -> TrackSet:
    prob = np.zeros((1, NUM_CLASSES), np.float32)
    prob[0, ball] = 0.95
    prob[0, 1 if ball != 1 else 2] = 0.05
    tracks = TrackSet.empty()
    for frame, x in enumerate(xs, start=first):
        xy = np.array([[x, 600.0]], np.float32)
        dets = Detections(xy, xy, np.ones(1, np.float32), np.ones(1, np.float32), prob)
        tracks = tracker.update(dets, frame, frame / 60)
    return tracks


@pytest.mark.parametrize(
    ("ball", "frames_there", "found"),
    [(0, 2, True), (9, 2, False), (9, 70, True)],
    ids=["cue-ball-at-once", "resting-object-ball-not-at-once", "resting-object-ball-later"],
)
def test_lost_ball_is_found_again_by_its_identity_far_from_its_gate(
    ball: int, frames_there: int, found: bool
) -> None:
    # A resting object ball that nothing moving came near cannot have jumped 1.3 m: a
    # look-alike there (a hand, an arm) is not taken for it until the ball has been unseen
    # for rest_reidentify_after_s (moved by hand). The cue ball can always have been struck.
    tracker = BallTracker(TABLE)
    tracks = _single_ball_frames(tracker, [500.0] * 10 + [1800.0] * frames_there, ball)
    assert tracks.ball.tolist() == [ball]
    expected = 1800.0 if found else 500.0
    assert abs(tracks.xy_mm[0, 0] - expected) < 5.0
    assert (tracks.status[0] == TrackStatus.ON_TABLE) is found


def test_config_accepts_a_nested_table_for_association() -> None:
    config = TrackerConfig(association={"identity_weight": 3.0})  # type: ignore[arg-type]
    assert config.association.identity_weight == 3.0


def _bounce_detections(t: float, line_y: float, restitution: float) -> Detections:
    """Ball 4 rolling at 2 m/s into the right cushion, bouncing back at ``restitution``;
    unseen from y = 1150 mm until 0.18 s after the bounce."""
    hit_s = (line_y - 900.0) / 2000.0
    if 0.125 <= t < hit_s + 0.18:
        return Detections.empty()
    y = 900.0 + 2000.0 * t if t < hit_s else line_y - restitution * 2000.0 * (t - hit_s)
    prob = np.full((1, NUM_CLASSES), 0.045, np.float32)
    prob[0, 4] = 0.55  # below the re-identification threshold: association must take it
    xy = np.array([[1800.0, y]], np.float32)
    return Detections(xy, xy, np.ones(1, np.float32), np.ones(1, np.float32), prob)


@pytest.mark.parametrize("restitution", [0.6, 0.75, 0.9], ids=["dead", "typical", "lively"])
def test_ball_unseen_through_a_cushion_bounce_is_predicted_back_and_reacquired(
    restitution: float,
) -> None:
    tracker = BallTracker(TABLE)
    r = TABLE.ball_radius_mm
    line_y = W - r
    hit_s = (line_y - 900.0) / 2000.0
    coasting: list[tuple[float, float]] = []
    last = None
    for frame in range(36):
        t = frame / 60
        dets = _bounce_detections(t, line_y, restitution)
        tracks = tracker.update(dets, frame, t)
        (row,) = np.flatnonzero(tracks.ball == 4)
        if len(dets) == 0:
            assert tracks.status[row] == TrackStatus.OCCLUDED
            coasting.append((t, float(tracks.xy_mm[row, 1])))
        last = tracks, row
    assert coasting and max(y for _, y in coasting) <= line_y + 1e-6
    t_end, y_end = coasting[-1]
    truth_end = line_y - restitution * 2000.0 * (t_end - hit_s)
    assert abs(y_end - truth_end) < 2.5 * r  # inside the detector's search window
    assert last is not None
    tracks, row = last
    truth_now = line_y - restitution * 2000.0 * (35 / 60 - hit_s)
    assert tracks.status[row] == TrackStatus.ON_TABLE
    assert abs(tracks.xy_mm[row, 1] - truth_now) < 5.0
    assert tracks.velocity_mm_s[row, 1] < 0.0


def test_a_long_lost_ball_cannot_take_a_struck_ball_from_its_own_track() -> None:
    # The 3 rolled out of sight long ago (its prediction is vague, table-wide); the 1, at
    # rest, is sent towards a pocket by the cue ball and jumps out of its kinematic gate.
    # The detection of the moving 1 (read 75 % as the 1) belongs to the 1, not to the vague 3.
    tracker = BallTracker(TABLE)
    frame = 0
    for frame in range(10):
        x3 = 1000.0 + 40.0 * frame
        tracker.update(
            detections_of(
                [(300.0, 150.0, {1: 0.9}), (x3, 600.0, {3: 0.9}), (700.0, 300.0, {0: 0.9})]
            ),
            frame,
            frame / 30,
        )
    for frame in range(10, 40):  # the 3 is lost; the cue ball rolls towards the 1
        cue_x = 700.0 - 12.0 * (frame - 10)
        dets = detections_of(
            [(300.0, 150.0, {1: 0.9}), (cue_x, 300.0 - 4.0 * (frame - 10), {0: 0.9})]
        )
        tracker.update(dets, frame, frame / 30)
    dets = detections_of([(250.0, 110.0, {1: 0.75, 3: 0.2}), (330.0, 190.0, {0: 0.9})])
    tracks = tracker.update(dets, 40, 40 / 30)
    one = tracks.ball.tolist().index(1)
    assert np.allclose(tracks.xy_mm[one], (250.0, 110.0), atol=5.0)
    assert tracks.status[tracks.ball.tolist().index(3)] == TrackStatus.OCCLUDED


def test_an_arm_over_a_resting_ball_is_not_taken_for_it() -> None:
    # A resting 5 with nothing moving near it is hidden by an arm; the arm, 450 mm away,
    # is read as the 5 (p 0.8). The 5 stays where it was hidden and is found there again.
    tracker = BallTracker(TABLE)
    for frame in range(20):
        tracker.update(detections_of([(1400.0, 1000.0, {5: 0.9})]), frame, frame / 30)
    for frame in range(20, 40):  # 0.67 s: under rest_reidentify_after_s
        tracks = tracker.update(detections_of([(1000.0, 800.0, {5: 0.8})]), frame, frame / 30)
        assert np.allclose(tracks.xy_mm[0], (1400.0, 1000.0), atol=3.0)
        assert tracks.status[0] == TrackStatus.OCCLUDED
    tracks = tracker.update(detections_of([(1400.0, 1000.0, {5: 0.9})]), 40, 40 / 30)
    assert tracks.status[0] == TrackStatus.ON_TABLE


def test_a_ball_lost_heading_into_a_pocket_is_not_found_across_the_table() -> None:
    # The 6 rolls into the foot-right pocket and vanishes in the mouth; a moment later another
    # ball across the table is read as the 6. The 6 dropped: the look-alike is not it.
    length = TABLE.length_mm
    tracker = BallTracker(TABLE)
    tracks = TrackSet.empty()
    for frame in range(12):
        x, y = length - 300.0 + 20.0 * frame, 300.0 - 20.0 * frame
        tracks = tracker.update(detections_of([(x, y, {6: 0.95})]), frame, frame / 60)
    dropped = False
    for frame in range(12, 60):
        look_alike = (1300.0 - 10.0 * (frame - 12), 560.0)
        tracks = tracker.update(detections_of([(*look_alike, {6: 0.85})]), frame, frame / 60)
        if 6 in tracks.ball.tolist():
            row = tracks.ball.tolist().index(6)
            assert tracks.xy_mm[row, 0] > length - 200.0
            dropped |= tracks.status[row] == TrackStatus.POCKETED
    assert dropped


def test_a_ball_rattling_in_the_jaws_and_coming_back_is_not_pocketed() -> None:
    # The 5 runs along the head cushion into the head-left corner at 2 m/s, is lost in the
    # jaws for 0.35 s (the detector does not see it there) and rolls back out.
    tracker = BallTracker(TABLE)
    statuses = []
    for frame in range(10):
        x = 600.0 - 60.0 * frame
        statuses.append(
            tracker.update(detections_of([(x, 60.0, {5: 0.95})]), frame, frame / 30).status
        )
    for frame in range(10, 21):
        statuses.append(tracker.update(detections_of([]), frame, frame / 30).status)
    for frame in range(21, 30):
        x = 40.0 + 12.0 * (frame - 21)
        tracks = tracker.update(detections_of([(x, 45.0, {5: 0.95})]), frame, frame / 30)
        statuses.append(tracks.status)
    assert all(TrackStatus.POCKETED not in s for s in statuses)
    assert tracks.ball.tolist() == [5]
    assert tracks.status[0] == TrackStatus.ON_TABLE


CONTINUITY = TrackerConfig(overlap_diameters=0.75)


def _one(xy: tuple[float, float], ball: int, prob: float = 0.95) -> Detections:
    class_prob = np.full((1, NUM_CLASSES), (1.0 - prob) / (NUM_CLASSES - 1), np.float32)
    class_prob[0, ball] = prob
    point = np.array([xy], np.float32)
    return Detections(point, point, np.ones(1, np.float32), np.ones(1, np.float32), class_prob)


def test_misnamed_detection_on_a_hidden_ball_stays_with_it() -> None:
    """A resting ball hidden for a frame, then seen right where it was but read as another
    number for a few frames (shade, a cue over it): still that ball, and no second track
    starts on top of it."""
    tracker = BallTracker(TABLE, CONTINUITY)
    for frame in range(30):
        tracks = tracker.update(_one((800.0, 400.0), 3), frame, frame / 60)
    tracker.update(Detections.empty(), 30, 30 / 60)
    for frame in range(31, 36):
        tracks = tracker.update(_one((801.0, 402.0), 7, 0.99), frame, frame / 60)
        assert tracks.ball.tolist() == [3]
        assert tracks.status[0] == TrackStatus.ON_TABLE


def test_lost_ball_does_not_jump_onto_a_split_of_a_seen_one() -> None:
    """A rolling ball hidden for a moment must not take a second detection lying on top of
    another ball's steady one (a smeared cue ball split in two, one half misread as the
    lost number): two centres that near are one ball."""
    tracker = BallTracker(TABLE, CONTINUITY)
    for frame in range(20):
        t = frame / 60
        dets = _one((1000.0, 700.0), 0)
        rolling = _one((1200.0 + 1200.0 * t, 400.0), 5)
        tracker.update(_concat(dets, rolling), frame, t)
    tracker.update(_one((1000.0, 700.0), 0), 20, 20 / 60)
    split = _concat(_one((1000.0, 700.0), 0), _one((1030.0, 700.0), 5, 0.99))
    tracks = tracker.update(split, 21, 21 / 60)
    five = int(np.flatnonzero(tracks.ball == 5)[0])
    assert tracks.status[five] == TrackStatus.OCCLUDED
    assert tracks.xy_mm[five, 0] > 1400.0


def _concat(a: Detections, b: Detections) -> Detections:
    return Detections(
        *(np.concatenate([getattr(a, name), getattr(b, name)]) for name in Detections.__slots__)
    )


@pytest.mark.parametrize(
    ("offset_mm", "started"),
    [(38.0, False), (20.0, False), (60.0, True)],
    ids=["cue-tip-beside-the-cue-ball", "smear-half", "a-real-ball-one-diameter-off"],
)
def test_a_detection_on_top_of_a_seen_ball_starts_no_other_ball(
    offset_mm: float, started: bool
) -> None:
    """At the stroke a full search reads the cue stick's tip, 38 mm from the cue ball's
    centre, as the 6 (a rendered 30 fps break, where that 6 then became the first ball
    contacted): two centres nearer than a diameter are one ball, so no 6 starts there; a
    detection a diameter away is another ball and starts its track."""
    tracker = BallTracker(TABLE)
    for frame in range(10):
        tracks = tracker.update(_one((400.0, 760.0), 0), frame, frame / 30)
    beside = _concat(_one((400.0, 760.0), 0), _one((400.0 + offset_mm, 760.0), 6, 0.96))
    tracks = tracker.update(beside, 10, 10 / 30)
    assert (6 in tracks.ball.tolist()) == started
    assert tracks.ball.tolist().count(0) == 1


def test_the_spawn_clearance_can_be_turned_off() -> None:
    tracker = BallTracker(TABLE, TrackerConfig(spawn_clearance_diameters=0.0))
    tracker.update(_one((400.0, 760.0), 0), 0, 0.0)
    tracks = tracker.update(_concat(_one((400.0, 760.0), 0), _one((438.0, 760.0), 6)), 1, 1 / 30)
    assert 6 in tracks.ball.tolist()
