"""Centre jumps (tracking.jumps): a resting ball's detected centre jumping half a radius as
a ball rolls past is no contact; a struck ball, however its start is seen, still is."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from referee.shots import facts_from_events
from tests.tracking.builders import TABLE, Noise, Truth, run_tracking, simulate
from tracking.event_config import EventConfig
from tracking.jumps import StartSightings, cushioned, stopped_dead
from tracking.types import EventKind

DIAMETER = TABLE.ball_diameter_mm
SLIDING = EventConfig().sliding_deceleration_mm_s2


def _sightings(steps_mm: list[float], fps: float = 60.0) -> StartSightings:
    """A ball at x = 1000 mm seen at ``steps_mm`` along x from its rest spot, one a frame
    from the first displaced sighting on (its last sighting before lies on the spot)."""
    dt = 1.0 / fps
    xy = np.array([[1000.0 + s, 500.0] for s in steps_mm])
    return StartSightings(
        0.0, np.array([1000.0, 500.0]), dt * np.arange(1, len(xy) + 1, dtype=np.float64), xy
    )


@pytest.mark.parametrize(
    ("steps", "jump"),
    [
        ([14.0, 14.0, 14.0, 14.0, 14.0], True),  # the centre moved and stayed
        ([14.0, 14.0, 0.0, 0.0, 0.0], True),  # ... and came back
        ([14.0, 28.0, 42.0, 56.0, 70.0], False),  # a ball leaving at 840 mm/s
        ([14.0, 22.0, 28.0, 32.0, 34.0], False),  # ... braking as hard as sliding can
        ([3.0, 3.5, 4.0, 4.5, 5.0], False),  # creeping: its first step tells nothing
        ([14.0, 14.0], False),  # too few sightings to tell
        ([60.0, 60.0, 60.0, 60.0, 60.0], False),  # beyond its own image: a hand moved it
    ],
)
def test_stopped_dead(steps: list[float], jump: bool) -> None:
    assert stopped_dead(_sightings(steps), 1.5, (4.0, 28.0), SLIDING) is jump


def test_a_neighbour_or_cushion_may_stop_a_struck_ball() -> None:
    extent = (TABLE.length_mm, TABLE.width_mm)
    alone = np.full((11, 2), np.nan)
    assert not cushioned(np.array([1000.0, 500.0]), alone, extent, DIAMETER)
    beside = alone.copy()
    beside[5] = (1000.0 + DIAMETER + 10.0, 500.0)
    assert cushioned(np.array([1000.0, 500.0]), beside, extent, DIAMETER)
    assert cushioned(np.array([1000.0, 20.0 + DIAMETER]), alone, extent, DIAMETER)


ON = EventConfig(jump_check=True)


def _passing_jump(
    fps: float, jump_frames: int, angle_deg: float, config: EventConfig = ON
) -> list[tuple[int, ...]]:
    """The cue ball rolls past the 6 (centres 12 mm beyond touching) on its way to the 3;
    as it passes, the 6's centre is seen 14 mm off for ``jump_frames`` frames (0: for good)
    towards ``angle_deg``. Returns the contacts found, in order."""
    positions = {0: (500.0, 640.0), 6: (1000.0, 640.0 + DIAMETER + 12.0), 3: (1600.0, 650.0)}
    truth = simulate(positions, [(0.1, 0, (1500.0, 0.0))], 1.2, fps=fps, decel_mm_s2=150.0)
    xy = truth.xy_mm.copy()
    nearest = int(np.nanargmin(np.linalg.norm(xy[:, 0] - xy[:, 6], axis=1)))
    angle = math.radians(angle_deg)
    end = len(xy) if jump_frames == 0 else nearest + jump_frames
    xy[nearest:end, 6] += 14.0 * np.array([math.cos(angle), math.sin(angle)])
    run = run_tracking(replace(truth, xy_mm=xy), Noise(position_std_mm=1.0), 3, (None, config))
    facts = facts_from_events(run.events, [3, 6], is_break=False)
    assert facts["first_object_ball_contacted"] in (3, 6, None)
    return [e.balls for e in run.events if e.kind == EventKind.BALL_BALL]


@pytest.mark.parametrize(
    ("fps", "jump_frames", "angle_deg"),
    [(60.0, 3, 90.0), (60.0, 0, 0.0), (30.0, 2, -90.0)],
    ids=["60fps-3-frames-away", "60fps-for-good-along", "30fps-2-frames-toward"],
)
def test_a_centre_jump_beside_a_passing_ball_is_no_contact(
    fps: float, jump_frames: int, angle_deg: float
) -> None:
    """Failure type 1: the 6's centre jumps as the cue ball rolls past; its first contact is
    still the 3 (without the check, the 6)."""
    assert _passing_jump(fps, jump_frames, angle_deg) == [(0, 3)]


def test_without_the_check_the_jump_is_a_contact() -> None:
    """The case above is a real one: with `jump_check` off (the default) the 6 is taken as
    touched."""
    found = _passing_jump(60.0, 3, 90.0, EventConfig())
    assert found[0] == (0, 6)


def _struck(truth: Truth, on_table: list[int]) -> tuple[object, set[tuple[int, ...]]]:
    """The first object ball contacted and the pairs of balls found touching."""
    run = run_tracking(truth, Noise(position_std_mm=1.5), 5, (None, ON))
    facts = facts_from_events(run.events, on_table, is_break=False)
    pairs = {tuple(sorted(e.balls)) for e in run.events if e.kind == EventKind.BALL_BALL}
    return facts["first_object_ball_contacted"], pairs


@pytest.mark.parametrize("fps", [30.0, 60.0])
def test_a_ball_struck_into_a_ball_beside_it_is_still_a_contact(fps: float) -> None:
    """The 3, 12 mm from the 5, is struck full into it: it stops dead after one step (the
    5 takes its momentum), which the check must not take for a jump."""
    positions = {0: (600.0, 560.0), 3: (1000.0, 560.0), 5: (1000.0 + DIAMETER + 12.0, 560.0)}
    truth = simulate(positions, [(0.1, 0, (2500.0, 0.0))], 1.0, fps=fps, decel_mm_s2=150.0)
    assert _struck(truth, [3, 5]) == (3, {(0, 3), (3, 5)})


@pytest.mark.parametrize("fps", [30.0, 60.0])
def test_a_thin_cut_is_still_a_contact(fps: float) -> None:
    """The cue ball clips the 6 thinly (line of centres at 75 degrees to its way): the 6
    leaves slowly, sideways, and its start is no jump."""
    offset = DIAMETER * math.sin(math.radians(75.0))
    positions = {0: (500.0, 640.0), 6: (1000.0, 640.0 + offset)}
    truth = simulate(positions, [(0.1, 0, (1500.0, 0.0))], 1.2, fps=fps, decel_mm_s2=150.0)
    assert _struck(truth, [6]) == (6, {(0, 6)})
