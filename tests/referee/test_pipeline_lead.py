"""Where the detector looks for a resting ball a moving one strikes: down the line of centres."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import TableSpec
from referee.pipeline_lead import (
    KNOCK_MAX_RADII,
    LEAD_STEP_RADII,
    knock_corridor,
    knocked_balls,
    lead_centres,
)
from tracking.types import TrackSet, TrackStatus

TABLE = TableSpec()
R = TABLE.ball_radius_mm
WINDOW_RADII = 2.5
STEP_S = 1 / 30


def _tracks(xy: list[tuple[float, float]], velocity: list[tuple[float, float]]) -> TrackSet:
    n = len(xy)
    return TrackSet(
        10,
        1.0,
        np.arange(n, dtype=np.int64),
        np.array(xy, np.float64),
        np.array(velocity, np.float64),
        np.full((n, 2), np.nan),
        np.full(n, TrackStatus.ON_TABLE, dtype=object),
    )


def _covered(centres: np.ndarray, point: np.ndarray) -> bool:
    half = WINDOW_RADII * R
    return bool(np.any(np.all(np.abs(centres - point) <= half, axis=1)))


@pytest.mark.parametrize("offset_radii", [0.0, 0.8, -1.2])
def test_a_struck_ball_is_searched_where_the_line_of_centres_sends_it(
    offset_radii: float,
) -> None:
    # The cue ball at 4 m/s heads for the 1 (its path offset_radii off the 1's centre): a
    # 30 frames/s stroke moves it 4.7 radii a frame, out of its window.
    speed = 4000.0
    target = np.array([1000.0, 600.0])
    cue = (target[0] - 2.5 * R, target[1] + offset_radii * R)
    tracks = _tracks([cue, tuple(target)], [(speed, 0.0), (0.0, 0.0)])
    knocks = knocked_balls(tracks, STEP_S, 100.0, TABLE)
    assert knocks.ball.tolist() == [1]
    # Where it truly goes: along the line of centres at contact.
    back = np.sqrt((2 * R) ** 2 - (offset_radii * R) ** 2)
    contact = np.array([target[0] - back, cue[1]])
    true_direction = (target - contact) / np.linalg.norm(target - contact)
    np.testing.assert_allclose(knocks.direction[0], true_direction, atol=1e-6)
    # Two frames after contact it has gone up to 2 * speed * STEP_S (at most the striker's
    # speed): whatever it kept of that speed, a corridor window holds it.
    centres = knock_corridor(knocks, np.array([2 * STEP_S]), TABLE, WINDOW_RADII)
    for fraction in np.linspace(0.3, 1.0, 8):
        gone = target + true_direction * fraction * 2 * speed * STEP_S
        assert _covered(centres, gone), fraction


def test_no_corridor_for_balls_the_path_does_not_reach() -> None:
    # Passing 4 radii off the 1's centre (beyond touching plus the margin), or slowly, or
    # moving away from it: nothing is knocked.
    far = _tracks([(800.0, 600.0 + 4.0 * R), (1000.0, 600.0)], [(4000.0, 0.0), (0.0, 0.0)])
    slow = _tracks([(1000.0 - 3 * R, 600.0), (1000.0, 600.0)], [(50.0, 0.0), (0.0, 0.0)])
    away = _tracks([(1000.0 - 10 * R, 600.0), (1000.0, 600.0)], [(-4000.0, 0.0), (0.0, 0.0)])
    # A rack: the struck ball touches another, which passes the blow on (no corridor).
    rack = _tracks(
        [(1000.0 - 2.5 * R, 600.0), (1000.0, 600.0), (1000.0 + 2.0 * R, 600.0)],
        [(4000.0, 0.0), (0.0, 0.0), (0.0, 0.0)],
    )
    for tracks in (far, slow, away, rack):
        assert len(knocked_balls(tracks, STEP_S, 100.0, TABLE).ball) == 0
    assert len(knocked_balls(_tracks([], []), STEP_S, 100.0, TABLE).ball) == 0


def test_the_corridor_is_bounded_and_stays_on_the_table() -> None:
    tracks = _tracks([(1000.0 - 2.5 * R, 600.0), (1000.0, 600.0)], [(9000.0, 0.0), (0.0, 0.0)])
    knocks = knocked_balls(tracks, STEP_S, 100.0, TABLE)
    centres = knock_corridor(knocks, np.array([1.0]), TABLE, WINDOW_RADII)
    gone = np.hypot(*(centres - np.array([1000.0, 600.0])).T)
    assert len(centres) > 0
    assert gone.max() <= (KNOCK_MAX_RADII + 2 * WINDOW_RADII) * R
    # Near a cushion the corridor stops at the table's edge.
    edge = _tracks(
        [(TABLE.length_mm - 4 * R, 600.0), (TABLE.length_mm - 1.5 * R, 600.0)],
        [(5000.0, 0.0), (0.0, 0.0)],
    )
    centres = knock_corridor(
        knocked_balls(edge, STEP_S, 100.0, TABLE), np.array([0.2]), TABLE, WINDOW_RADII
    )
    assert np.all(centres[:, 0] < TABLE.length_mm + R)


def test_a_fast_ball_is_searched_where_it_will_be_unless_another_ball_is_there() -> None:
    # 3 m/s at 30 frames/s: 3.5 radii a frame, out of a window centred where it is now.
    alone = _tracks([(800.0, 600.0), (2000.0, 300.0)], [(3000.0, 0.0), (0.0, 0.0)])
    ahead = lead_centres(alone, STEP_S, TABLE, WINDOW_RADII)
    np.testing.assert_allclose(ahead, [[900.0, 600.0]])
    # Slow (under LEAD_STEP_RADII a frame), or another ball where it will be: no window.
    slow = _tracks([(800.0, 600.0)], [(0.9 * LEAD_STEP_RADII * R / STEP_S, 0.0)])
    assert len(lead_centres(slow, STEP_S, TABLE, WINDOW_RADII)) == 0
    crowd = _tracks([(800.0, 600.0), (900.0 + 2 * R, 600.0)], [(3000.0, 0.0), (0.0, 0.0)])
    assert len(lead_centres(crowd, STEP_S, TABLE, WINDOW_RADII)) == 0


def test_the_plan_searches_ahead_of_a_fast_ball_and_down_the_struck_balls_corridor() -> None:
    from pathlib import Path

    from calibration.camera import BALL_CENTRE_HEIGHT_MM
    from calibration.io import load_calibration
    from referee.pipeline import PipelineConfig
    from referee.pipeline_plan import SearchPlan

    clip = Path(__file__).resolve().parents[2] / "sample_videos" / "top_break_green"
    calibration = load_calibration(clip / "calibration.json")
    plan = SearchPlan(calibration, PipelineConfig())
    camera, table = calibration.camera, calibration.table
    radius = table.ball_radius_mm
    target = (1500.0, 600.0)
    for frame, cue_x in enumerate((1500.0 - 2.5 * R - 133.3, 1500.0 - 2.5 * R)):
        xy = np.array([(cue_x, 600.0), target])
        tracks = TrackSet(
            frame,
            frame * STEP_S,
            np.array([0, 1]),
            xy,
            np.array([(4000.0, 0.0), (0.0, 0.0)]),
            camera.project(xy, BALL_CENTRE_HEIGHT_MM),
            np.full(2, TrackStatus.ON_TABLE, dtype=object),
        )
        plan.follow(tracks)
    assert radius == R
    # Where the 1 goes, struck full by the cue ball at 4 m/s: straight on, a window spacing
    # (0.8 windows) apart, as far as 4 m/s carries it by the next frame (counted from the
    # frame before the cue ball came within reach). No window ahead of the cue ball: it
    # would hold the 1, searched in its own window.
    spacing_mm = 2.0 * WINDOW_RADII * R * 0.8
    corridor = np.array([[1500.0 + spacing_mm, 600.0], [1500.0 + 2 * spacing_mm, 600.0]])
    expected = camera.project(corridor, BALL_CENTRE_HEIGHT_MM)
    np.testing.assert_allclose(plan.reach_px, expected, atol=1e-6)
