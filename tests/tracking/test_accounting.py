"""Balls gone at a shot's end (`tracking.accounting`), and the event detector's removals
inferred from them."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tracking.builders import TABLE, Noise, run_tracking, simulate
from tracking.accounting import GONE_CONFIDENCE, gone_fate, reachable_pockets, rest_segment
from tracking.event_config import EventConfig
from tracking.geometry import POCKETS
from tracking.lost import Loss, LossBook
from tracking.types import EventKind, TrackSet, TrackStatus

CONFIG = EventConfig()
L, W = TABLE.length_mm, TABLE.width_mm


def _loss(
    xy: tuple[float, float],
    velocity: tuple[float, float],
    struck_by: int | None = None,
    taken: bool = False,
) -> Loss:
    return Loss(8, 1.0, np.array(xy), np.array(velocity), 1.0, struck_by, taken)


@pytest.mark.parametrize(
    ("loss", "pocket"),
    [
        (_loss((L - 400.0, W / 2 - 10.0), (0.0, 0.0), struck_by=0), "foot_left"),
        (_loss((L - 150.0, 70.0), (0.0, -3500.0), taken=True), "foot_left"),
        (_loss((L / 2 + 60.0, 200.0), (2000.0, 2000.0), taken=True), "side_left"),
        (_loss((600.0, W - 300.0), (0.0, 0.0)), "head_right"),
    ],
    ids=["struck-in-a-rack", "taken-over-by-a-bouncing-ball", "taken-over-near-a-side", "at-rest"],
)
def test_a_gone_ball_whose_path_tells_nothing_went_to_the_nearest_pocket(
    loss: Loss, pocket: str
) -> None:
    """Struck from rest with an unknown speed, lost at rest, or with last sightings that may
    have been another ball: the nearest pocket, uncertainly."""
    where = gone_fate(TABLE, loss, CONFIG, trust_path=not loss.taken_over)
    assert where is not None and where.kind == EventKind.BALL_POCKET
    assert where.pocket == pocket
    assert where.confidence == GONE_CONFIDENCE
    assert where.time_s >= loss.time_s


def test_a_gone_ball_follows_its_own_path_past_the_balls_in_its_way() -> None:
    """Rolling at 2 m/s toward the side pocket, the nearest pocket behind it: its path wins."""
    where = gone_fate(TABLE, _loss((L / 2 - 300.0, 500.0), (600.0, -1000.0)), CONFIG)
    assert where is not None and where.pocket == "side_left", where
    assert where.confidence == GONE_CONFIDENCE


def test_a_gone_ball_driven_hard_at_a_cushion_left_the_table() -> None:
    where = gone_fate(TABLE, _loss((900.0, 300.0), (0.0, -4000.0)), CONFIG)
    assert where is not None and where.kind == EventKind.BALL_OFF_TABLE


@pytest.mark.parametrize(
    ("loss", "kind"),
    [
        (_loss((40.0, W / 2), (-1400.0, -2100.0)), EventKind.BALL_OFF_TABLE),
        (_loss((900.0, 60.0), (300.0, -1200.0)), EventKind.BALL_OFF_TABLE),
        (_loss((40.0, W / 2), (-300.0, -2400.0)), EventKind.BALL_POCKET),
        (_loss((900.0, 400.0), (600.0, -1800.0)), EventKind.BALL_POCKET),
    ],
    ids=["at-the-head-cushion", "at-a-side-cushion", "glancing", "far-from-the-cushion"],
)
def test_a_gone_ball_lost_moving_into_a_near_cushion_left_over_it(
    loss: Loss, kind: EventKind
) -> None:
    """Lost a few centimetres before a cushion it met at 1.2 m/s or more along its normal
    (too soft for a rolling ball to clear it, judged when lost) and never seen again: it
    left over that cushion. A glancing approach (0.3 m/s along the normal) or a loss far
    from the cushion says nothing of the kind: the nearest pocket it could reach."""
    where = gone_fate(TABLE, loss, CONFIG)
    assert where is not None and where.kind == kind, where
    assert where.confidence == GONE_CONFIDENCE
    assert where.time_s >= loss.time_s


def test_a_ball_too_slow_to_reach_any_hole_is_hidden_not_gone() -> None:
    loss = _loss((L / 2, W / 2), (80.0, 0.0))
    assert reachable_pockets(TABLE, loss, CONFIG) == []
    assert gone_fate(TABLE, loss, CONFIG) is None


def test_a_slow_ball_beside_a_side_cushion_far_from_the_side_pocket_reaches_no_pocket() -> None:
    """Lost rolling at 86 mm/s near the head-left corner, by the cushion the side pocket
    cuts: that hole is square to it only 60 mm away, but 1 m along it."""
    loss = _loss((295.0, 57.0), (-70.0, -50.0))
    assert reachable_pockets(TABLE, loss, CONFIG) == []


def test_reachable_pockets_are_the_holes_within_the_stopping_distance() -> None:
    # 400 mm/s at 50 mm/s^2 stops within 1.6 m: from near the foot-left corner, not the
    # head pockets.
    loss = _loss((L - 400.0, 250.0), (400.0, 0.0))
    reached = {str(POCKETS[index]) for _, index in reachable_pockets(TABLE, loss, CONFIG)}
    assert reached == {"foot_left", "foot_right", "side_left", "side_right"}
    distances = [d for d, _ in reachable_pockets(TABLE, loss, CONFIG)]
    assert distances == sorted(distances)


@pytest.mark.parametrize(
    ("loss", "length"),
    [
        (_loss((1000.0, 500.0), (0.0, 0.0)), 0.0),
        (_loss((1000.0, 500.0), (400.0, 0.0), taken=True), 0.0),
        (_loss((1000.0, 500.0), (300.0, 0.0)), 300.0**2 / (2 * CONFIG.rolling_deceleration_mm_s2)),
        (_loss((1000.0, 500.0), (0.0, -3000.0)), 500.0 - TABLE.ball_radius_mm),
    ],
    ids=["at-rest", "taken-over", "stops-on-the-bed", "meets-a-cushion"],
)
def test_rest_segment_ends_where_the_ball_stops_or_meets_a_cushion(
    loss: Loss, length: float
) -> None:
    start, end = rest_segment(TABLE, loss, CONFIG)
    assert np.allclose(start, loss.xy_mm)
    assert float(np.linalg.norm(end - start)) == pytest.approx(length, abs=1e-6)


def _frame(visible: list[int], hidden: list[int]) -> TrackSet:
    balls = np.array(visible + hidden, np.int64)
    status = np.array(
        [TrackStatus.ON_TABLE] * len(visible) + [TrackStatus.OCCLUDED] * len(hidden), object
    )
    count = len(balls)
    zeros = np.zeros((count, 2))
    return TrackSet(0, 0.0, balls, zeros, zeros.copy(), zeros.copy(), status)


def test_loss_book_keeps_a_lost_ball_approached_until_it_is_found() -> None:
    book = LossBook()
    for _ in range(3):
        book.observe(_frame([3], []))
    lost = book.observe(_frame([], [3]))
    assert lost.tolist() == [3]
    book.add(Loss(3, 1.0, np.zeros(2), np.zeros(2), 1.0), None)
    assert [loss.ball for loss in book.resting()] == [3]
    book.approached.add(3)
    assert book.resting() == []
    book.observe(_frame([], [3]))
    taken = book.take()
    assert [loss.ball for loss, _ in taken] == [3] and 3 in book.approached
    for _ in range(4):
        book.observe(_frame([3], []))
    assert 3 not in book.approached


def test_ball_hit_out_of_sight_by_a_blurred_cue_ball_is_pocketed_at_the_shot_end() -> None:
    """The cue ball, struck at 6 m/s, is lost in its blur at once and found only after it
    sent the 4, resting near the foot-left corner, toward the pocket; the 4 is never seen
    again. At the shot's end, the table quiet and the 4 nowhere, it was pocketed: in the
    nearest pocket it could reach, uncertainly."""
    four = np.array([L - 500.0, 430.0])
    cue = four + np.array([-900.0, 500.0])
    unit = (np.array([L, 0.0]) - four) / np.linalg.norm(np.array([L, 0.0]) - four)
    aim_at = four - TABLE.ball_diameter_mm * unit
    aim = 6000.0 * (aim_at - cue) / np.linalg.norm(aim_at - cue)
    positions = {0: (float(cue[0]), float(cue[1])), 4: (float(four[0]), float(four[1]))}
    truth = simulate(positions, [(0.3, 0, (float(aim[0]), float(aim[1])))], 6.0, decel_mm_s2=900)
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    blur = ((0, 0.3, contact.time_s + 0.15), (4, contact.time_s - 0.01, 10.0))
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=blur), seed=5)
    assert EventKind.SHOT_END in [e.kind for e in run.events], run.events
    gone = [e for e in run.events if e.kind.removes_ball()]
    assert [e.balls for e in gone] == [(4,)], run.events
    assert gone[0].confidence < 0.9
    assert gone[0].kind == EventKind.BALL_POCKET


@pytest.mark.parametrize(
    ("seven", "gone"),
    [((L - 200.0, 430.0), []), ((300.0, W - 200.0), [(4,)])],
    ids=["hidden-beside-its-path", "hidden-across-the-table"],
)
def test_a_ball_gone_where_a_resting_ball_is_hidden_too_is_not_pocketed(
    seven: tuple[float, float], gone: list[tuple[int, ...]]
) -> None:
    """As above, but a player leans over the table from before the stroke to the end and
    hides the 7, at rest. Where the 7 is hidden the 4 may be hidden too: its absence near
    there says nothing, and no pocket is given; a 7 hidden across the table says nothing of
    the 4."""
    four = np.array([L - 500.0, 430.0])
    cue = four + np.array([-900.0, 500.0])
    unit = (np.array([L, 0.0]) - four) / np.linalg.norm(np.array([L, 0.0]) - four)
    aim_at = four - TABLE.ball_diameter_mm * unit
    aim = 6000.0 * (aim_at - cue) / np.linalg.norm(aim_at - cue)
    positions = {0: (float(cue[0]), float(cue[1])), 4: (float(four[0]), float(four[1])), 7: seven}
    truth = simulate(positions, [(0.3, 0, (float(aim[0]), float(aim[1])))], 6.0, decel_mm_s2=900)
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    blur = ((0, 0.3, contact.time_s + 0.15), (4, contact.time_s - 0.01, 10.0), (7, 0.2, 10.0))
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=blur), seed=5)
    assert EventKind.SHOT_END in [e.kind for e in run.events], run.events
    assert [e.balls for e in run.events if e.kind.removes_ball()] == gone, run.events
