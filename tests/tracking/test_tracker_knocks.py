"""A resting ball starts only when something can have knocked it: not because a ball lost long
ago might be anywhere (`TrackerConfig.lost_knock_within_coast`), and never towards the ball
rolling by (`TrackerConfig.rest_start_evidence`): one detection off its spot there is a
ghost beside it (a player's arm, a bad fit), and the speed of that jump, kept while the ball
is hidden, would carry its track away."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tracking.builders import TABLE, Sighting, detections_of
from tracking.tracker import BallTracker, TrackerConfig
from tracking.types import TrackSet

FPS = 50.0
THREE = (800.0, 900.0)
CUE_SPEED_MM_S = 500.0
"""The cue ball rolls up past the 3 (+y) at 0.5 m/s, beside it."""
GHOST_FRAME = 80
"""The frame on which the 3 is read 48 mm off its spot towards the cue ball, then hidden."""
FAR = (80.0, 7)
"""The cue ball 80 mm to the 3's left, level with it 7 frames after `GHOST_FRAME`: 108 mm
away then (no frame's roll brings it within a diameter)."""
CLOSE = (58.0, 3)
"""58 mm to its left (passing by, not touching), level 3 frames after: 65 mm away then."""


def _play(
    config: TrackerConfig, lost_one: bool, passing: tuple[float, int] = FAR
) -> list[TrackSet]:
    """The 3 rests; the 1, if ``lost_one``, rolls at 1 m/s from frame 0 and vanishes mid-table
    at frame 20 (a player over it), never seen again; the cue ball rolls past the 3 from
    frame 60 (``passing``: how far to its left, and how many frames after `GHOST_FRAME` it
    is level with it). On `GHOST_FRAME` the 3 is read 48 mm off its spot towards the cue
    ball, then it is hidden by the player for 10 frames and seen on its spot again."""
    tracker = BallTracker(TABLE, config)
    left_mm, level = passing
    cue_x = THREE[0] - left_mm

    def cue_y(frame: int) -> float:
        return THREE[1] + CUE_SPEED_MM_S * (max(frame, 60) - GHOST_FRAME - level) / FPS

    towards = np.array([cue_x, cue_y(GHOST_FRAME)]) - THREE
    ghost = THREE + 48.0 * towards / np.hypot(*towards)
    tracks: list[TrackSet] = []
    for frame in range(120):
        balls: list[Sighting] = [(cue_x, cue_y(frame), {0: 0.95})]
        if lost_one and frame < 20:
            balls.append((1500.0 + 1000.0 * frame / FPS, 300.0, {1: 0.95}))
        if frame == GHOST_FRAME:
            balls.append((float(ghost[0]), float(ghost[1]), {3: 0.9}))
        elif not GHOST_FRAME < frame <= GHOST_FRAME + 10:
            balls.append((*THREE, {3: 0.95}))
        tracks.append(tracker.update(detections_of(balls), frame, frame / FPS))
    return tracks


def _three(tracks: TrackSet) -> tuple[np.ndarray, np.ndarray]:
    row = tracks.ball.tolist().index(3)
    return np.asarray(tracks.xy_mm[row]), np.asarray(tracks.velocity_mm_s[row])


def _fastest_three_mm_s(tracks: list[TrackSet]) -> float:
    hidden = tracks[GHOST_FRAME : GHOST_FRAME + 11]
    return max(float(np.hypot(*_three(state)[1])) for state in hidden)


def test_a_ball_lost_long_ago_knocks_no_resting_ball() -> None:
    config = TrackerConfig(lost_knock_within_coast=True)
    tracks = _play(config, lost_one=True)
    assert _fastest_three_mm_s(tracks) == 0.0
    xy, velocity = _three(tracks[-1])
    assert np.allclose(xy, THREE, atol=3.0)
    assert np.hypot(*velocity) == 0.0


def test_without_it_the_lost_ball_lets_the_ghost_start_the_resting_ball() -> None:
    # The defect the flag mends: the 1, lost 1.2 s ago and "anywhere", reaches the 3, so
    # the ghost is a knock and the 3 coasts away at the speed of the 48 mm jump.
    tracks = _play(TrackerConfig(), lost_one=True)
    assert _fastest_three_mm_s(tracks) > 1000.0


@pytest.mark.parametrize("lost_one", [False, True], ids=["alone", "lost-one"])
def test_a_resting_ball_is_not_knocked_towards_the_ball_rolling_by(lost_one: bool) -> None:
    # Make the cue ball pass near enough to reach the 3 on the ghost frame: only the
    # direction of the jump (towards it) says it was no knock.
    config = TrackerConfig(lost_knock_within_coast=True, rest_start_evidence=True)
    tracker_tracks = _play(config, lost_one, CLOSE)
    assert _fastest_three_mm_s(tracker_tracks) == 0.0
    xy, _ = _three(tracker_tracks[-1])
    assert np.allclose(xy, THREE, atol=3.0)


def test_without_it_a_jump_towards_the_ball_rolling_by_is_a_start() -> None:
    tracks = _play(TrackerConfig(), lost_one=False, passing=CLOSE)
    assert _fastest_three_mm_s(tracks) > 1000.0


def test_a_resting_ball_knocked_away_from_the_ball_rolling_by_still_starts() -> None:
    # The cue ball hits the 3 full: it leaves along the line of centres, away from it, at
    # the cue ball's speed.
    config = TrackerConfig(
        lost_knock_within_coast=True, rest_start_evidence=True, knock_speed_cap=True
    )
    tracker = BallTracker(TABLE, config)
    hit = 60
    tracks = TrackSet.empty()
    for frame in range(hit + 8):
        cue_x = THREE[0] - 57.0 - 1000.0 * (hit - frame) / FPS
        three_x = THREE[0] + 1000.0 * max(frame - hit, 0) / FPS
        balls: list[Sighting] = [
            (min(cue_x, THREE[0] - 57.0), THREE[1], {0: 0.95}),
            (three_x, THREE[1], {3: 0.95}),
        ]
        tracks = tracker.update(detections_of(balls), frame, frame / FPS)
    xy, velocity = _three(tracks)
    assert xy[0] == pytest.approx(THREE[0] + 1000.0 * 7 / FPS, abs=5.0)
    assert velocity[0] == pytest.approx(1000.0, rel=0.2)


def _grazed_three(config: TrackerConfig) -> list[TrackSet]:
    """The cue ball rolls up past the 3 at 0.5 m/s, 58 mm to its left (passing by); on
    `GHOST_FRAME` the 3 is read 30 mm off its spot away from the cue ball (a bad fit of
    the ball half hidden by a player: it looks like a knock), then hidden for 10 frames."""
    tracker = BallTracker(TABLE, config)
    left_mm, level = CLOSE
    cue_x = THREE[0] - left_mm
    tracks: list[TrackSet] = []
    for frame in range(100):
        cue_y = THREE[1] + CUE_SPEED_MM_S * (max(frame, 60) - GHOST_FRAME - level) / FPS
        balls: list[Sighting] = [(cue_x, cue_y, {0: 0.95})]
        if frame == GHOST_FRAME:
            balls.append((THREE[0] + 30.0, THREE[1], {3: 0.9}))
        elif not GHOST_FRAME < frame <= GHOST_FRAME + 10:
            balls.append((*THREE, {3: 0.95}))
        tracks.append(tracker.update(detections_of(balls), frame, frame / FPS))
    return tracks


def test_a_knock_gives_no_more_speed_than_the_ball_that_hits() -> None:
    # Equal masses: the 3 can leave at 0.5 m/s at most (plus two measurement errors over a
    # frame, 0.2 m/s at 50 frames/s), not at the 1.5 m/s of a 30 mm jump in one frame.
    config = TrackerConfig(
        lost_knock_within_coast=True, rest_start_evidence=True, knock_speed_cap=True
    )
    assert _fastest_three_mm_s(_grazed_three(config)) <= CUE_SPEED_MM_S + 200.0 + 1.0


def test_without_it_the_ghost_knock_is_as_fast_as_the_jump() -> None:
    config = TrackerConfig(lost_knock_within_coast=True, rest_start_evidence=True)
    assert _fastest_three_mm_s(_grazed_three(config)) > 1200.0


def test_a_ball_cut_by_a_fast_ball_whose_prediction_overshoots_still_starts() -> None:
    # At 30 frames/s the cue ball at 8 m/s cuts the 1 (centres 20 mm apart across its
    # path) a third of a frame after its last sighting; its prediction ends 117 mm past the
    # 1, so the 1's way lies "towards" that prediction, but away from where the cue ball
    # was: a knock, judged from the cue ball's whole path over the frame.
    fps, speed = 30.0, 8000.0
    one = np.array([1200.0, 920.0])
    contact_dx = float(np.sqrt(57.15**2 - 20.0**2))
    normal = np.array([contact_dx, 20.0]) / np.hypot(contact_dx, 20.0)
    after_s = 1.0 / fps - (150.0 - contact_dx) / speed
    one_after = one + speed * normal[0] * normal * after_s
    cue_velocity = np.array([speed, 0.0]) - speed * normal[0] * normal
    config = TrackerConfig(lost_knock_within_coast=True, rest_start_evidence=True)
    tracker = BallTracker(TABLE, config)
    hit = 30
    tracks = TrackSet.empty()
    for frame in range(hit + 1):
        # At rest 550 mm back until 3 frames before, then rolling at 8 m/s.
        cue = (float(one[0] - 150.0 - speed * min(hit - 1 - frame, 2) / fps), 900.0)
        one_xy = one
        if frame == hit:
            contact = np.array([one[0] - contact_dx, 900.0])
            cue = tuple(contact + cue_velocity * after_s)
            one_xy = one_after
        balls: list[Sighting] = [(*cue, {0: 0.95}), (*one_xy, {1: 0.95})]
        tracks = tracker.update(detections_of(balls), frame, frame / fps)
    row = tracks.ball.tolist().index(1)
    assert np.hypot(*tracks.velocity_mm_s[row]) > 3000.0
