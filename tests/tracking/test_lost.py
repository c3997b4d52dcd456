"""Lost balls: where a ball that vanished and was never found again went (`tracking.lost`),
and the event detector's inferences from it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.typing import NDArray

from referee.shots import FactsDict, facts_with_confidence
from tests.tracking.builders import TABLE, Noise, run_tracking, simulate
from tracking.event_config import EventConfig
from tracking.events import EventDetector
from tracking.lost import Loss, LossBook, fate, median_velocity, taken_over
from tracking.types import Event, EventKind, TrackSet, TrackStatus
from vision.types import NUM_CLASSES

CONFIG = EventConfig()
L, W = TABLE.length_mm, TABLE.width_mm
FRAME_S = 1.0 / 60.0
NOBODY = np.full((NUM_CLASSES, 2), np.nan)


def _loss(
    xy: tuple[float, float], velocity: tuple[float, float], struck_by: int | None = None
) -> Loss:
    sure = 1.0 if struck_by is None else 0.6
    return Loss(6, 1.0, np.array(xy), np.array(velocity), sure, struck_by)


@pytest.mark.parametrize(
    ("xy", "velocity", "pocket"),
    [
        ((L - 55.0, 65.0), (1290.0, -1200.0), "foot_left"),
        ((L / 2 + 40.0, 300.0), (-100.0, -2000.0), "side_left"),
        ((300.0, W - 300.0), (-900.0, 900.0), "head_right"),
    ],
    ids=["corner-close", "side-pocket", "corner-far"],
)
def test_a_ball_lost_heading_into_a_pocket_was_pocketed(
    xy: tuple[float, float], velocity: tuple[float, float], pocket: str
) -> None:
    where = fate(TABLE, _loss(xy, velocity), NOBODY, CONFIG)
    assert where is not None and where.kind == EventKind.BALL_POCKET
    assert where.pocket == pocket
    assert where.confidence == pytest.approx(CONFIG.lost_pocket_confidence)
    assert where.time_s > 1.0


@pytest.mark.parametrize(
    ("gap_mm", "speed", "off"),
    [(800.0, 7000.0, True), (1500.0, 2500.0, True), (800.0, 1900.0, False)],
    ids=["far-and-hard", "across-the-table", "too-soft"],
)
def test_a_ball_lost_rolling_at_a_far_cushion_left_the_table_if_it_hit_it_hard_enough(
    gap_mm: float, speed: float, off: bool
) -> None:
    """A fast ball blurs out of sight long before the cushion: however far off it was lost,
    never seen again, it left the table if it reached the cushion fast enough to jump it."""
    where = fate(TABLE, _loss((L - 28.6 - gap_mm, 600.0), (speed, 0.0)), NOBODY, CONFIG)
    assert (where is not None and where.kind == EventKind.BALL_OFF_TABLE) == off
    if where is not None:
        assert where.time_s == pytest.approx(1.0 + gap_mm / speed, abs=1e-3)


def test_a_ball_struck_hard_at_a_near_cushion_left_the_table_uncertainly() -> None:
    # At rest 115 mm from the foot cushion line, hit straight at it at 7 m/s by the cue ball.
    where = fate(TABLE, _loss((L - 115.0, W - 160.0), (7000.0, 500.0), 0), NOBODY, CONFIG)
    assert where is not None and where.kind == EventKind.BALL_OFF_TABLE
    assert where.confidence == pytest.approx(CONFIG.lost_off_table_confidence)
    assert where.confidence < 0.9  # below the review threshold: a call on it is flagged
    assert 1.0 < where.time_s < 1.0 + FRAME_S
    assert "hit by the cue ball" in where.reason


@pytest.mark.parametrize(
    ("y", "off"),
    [(W - 7.0, True), (W - 20.0, False), (W - 50.0, False)],
    ids=["seen-climbing", "on-the-nose", "short-of-it"],
)
def test_a_slow_ball_seen_climbing_the_cushion_left_the_table(y: float, off: bool) -> None:
    # 1.4 m/s, too slow to have jumped by speed alone; seen 7 mm from the cushion line (a
    # ball on the bed cannot get nearer than a radius, 28.6 mm) it was on the cushion.
    where = fate(TABLE, _loss((1600.0, y), (-570.0, 1440.0)), NOBODY, CONFIG)
    assert (where is not None and where.kind == EventKind.BALL_OFF_TABLE) == off
    # The same in a corner pocket's mouth is a ball going down, not over.
    in_mouth = fate(TABLE, _loss((L - 40.0, W - 7.0), (600.0, 1440.0)), NOBODY, CONFIG)
    assert in_mouth is not None and in_mouth.kind == EventKind.BALL_POCKET


@pytest.mark.parametrize(
    ("xy", "velocity"),
    [
        ((L - 115.0, 600.0), (600.0, 0.0)),  # too slow to jump the cushion: it bounced, hidden
        ((L / 2, W / 2), (0.0, 0.0)),  # hidden at rest
        ((L / 2, W / 2), (10.0, 0.0)),  # creeping: it stopped where it was
    ],
    ids=["soft-cushion", "at-rest", "creeping"],
)
def test_no_fate_for_a_ball_that_cannot_have_gone(
    xy: tuple[float, float], velocity: tuple[float, float]
) -> None:
    assert fate(TABLE, _loss(xy, velocity), NOBODY, CONFIG) is None


def test_no_fate_when_another_ball_lies_on_the_path() -> None:
    others = NOBODY.copy()
    others[3] = (L - 200.0, 140.0)  # between the lost ball and the foot-left pocket
    loss = _loss((L - 400.0, 330.0), (1000.0, -950.0))
    assert fate(TABLE, loss, NOBODY, CONFIG) is not None
    assert fate(TABLE, loss, others, CONFIG) is None


@pytest.mark.parametrize(
    ("stray", "sightings"),
    [(None, 3), (1, 3), (0, 5), (3, 5), (None, 2)],
    ids=["clean-three", "middle-of-three-stray", "first-of-five", "fourth-of-five", "two"],
)
def test_median_velocity_follows_the_path_through_one_stray_sighting(
    stray: int | None, sightings: int
) -> None:
    velocity = np.array([1440.0, -1890.0])
    times = np.arange(sightings, dtype=np.float64) / 30.0
    xy = np.array([1850.0, 500.0]) + times[:, None] * velocity
    if stray is not None:
        xy[stray] += (-110.0, 80.0)  # another ball's detection, two radii off the path
    found, used = median_velocity(times, xy)
    np.testing.assert_allclose(found, velocity, atol=1.0)
    assert used == sightings


def test_median_velocity_skips_unseen_rows_and_needs_two_sightings() -> None:
    times = np.array([0.0, 0.01, 0.02])
    xy = np.array([[0.0, 0.0], [np.nan, np.nan], [20.0, -10.0]])
    found, used = median_velocity(times, xy)
    np.testing.assert_allclose(found, (1000.0, -500.0))
    assert used == 2
    alone, used = median_velocity(times[:2], xy[:2])
    assert used == 1 and not np.any(alone)


@pytest.mark.parametrize(
    ("xy", "velocity", "kind"),
    [
        ((L / 2 + 224.0, 60.0), (-3400.0, -2000.0), EventKind.BALL_OFF_TABLE),
        ((L / 2 + 224.0, W - 60.0), (-3400.0, 2000.0), EventKind.BALL_OFF_TABLE),
        ((L / 2 + 100.0, 200.0), (-700.0, -2500.0), EventKind.BALL_POCKET),
    ],
    ids=["oblique-beside-side-left", "oblique-beside-side-right", "steep-into-side-left"],
)
def test_a_ball_lost_heading_obliquely_beside_a_side_pocket_meets_the_cushion(
    xy: tuple[float, float], velocity: tuple[float, float], kind: EventKind
) -> None:
    """Driven at 3.9 m/s, 30 degrees to the rail, into the cushion 120 mm beside the side
    pocket's middle: its path passes the pocket's point within half the mouth, but it meets
    the cushion (2 m/s along its normal: off the table), not the pocket."""
    where = fate(TABLE, _loss(xy, velocity), NOBODY, CONFIG)
    assert where is not None and where.kind == kind, where


def test_loss_checks_its_shapes() -> None:
    with pytest.raises(ValueError, match=r"velocity_mm_s must have shape \(2,\)"):
        Loss(1, 0.0, np.zeros(2), np.zeros(3), 1.0)


def _frame(index: int, status: TrackStatus) -> TrackSet:
    return TrackSet(
        index,
        index * FRAME_S,
        np.array([6]),
        np.array([[500.0, 500.0]]),
        np.zeros((1, 2)),
        np.full((1, 2), np.nan),
        np.array([status], dtype=object),
    )


def test_loss_book_finds_a_ball_only_on_sightings_in_a_row() -> None:
    seen, hidden = TrackStatus.ON_TABLE, TrackStatus.OCCLUDED
    book = LossBook()
    lost = [book.observe(_frame(i, s)).tolist() for i, s in enumerate([seen, seen, hidden])]
    assert lost == [[], [], [6]]
    book.add(_loss((500.0, 500.0), (0.0, 0.0)), None)
    # Single sightings (another ball given its name) neither find it nor lose it anew.
    for i, status in enumerate([seen, hidden, seen, seen, hidden], start=3):
        assert book.observe(_frame(i, status)).tolist() == []
        assert 6 in book.losses
    for i in range(8, 11):
        book.observe(_frame(i, seen))
    assert 6 not in book.losses
    with pytest.raises(ValueError, match="found_frames"):
        book.observe(_frame(12, seen), found_frames=1)


def test_loss_book_forgets_a_ball_judged_gone_until_it_is_found() -> None:
    seen, hidden = TrackStatus.ON_TABLE, TrackStatus.OCCLUDED
    book = LossBook()
    for i, status in enumerate([seen, seen, hidden]):
        book.observe(_frame(i, status))
    where = fate(TABLE, _loss((L - 55.0, 65.0), (1290.0, -1200.0)), NOBODY, CONFIG)
    book.add(_loss((L - 55.0, 65.0), (1290.0, -1200.0)), where)
    assert book.take(lost_before_s=0.5) == [] and 6 in book.losses  # lost at 1 s: too fresh
    assert book.gone == set()
    assert [loss.ball for loss, _ in book.take(lost_before_s=1.5)] == [6] and book.losses == {}
    assert book.gone == {6}
    # Seen twice and lost again: still gone, no second loss.
    assert [book.observe(_frame(i, s)).tolist() for i, s in enumerate([seen, seen, hidden], 3)] == [
        [],
        [],
        [],
    ]
    for i in range(6, 9):
        book.observe(_frame(i, seen))
    assert book.gone == set()


def _shot_facts(run_events: list[Event], on_table: list[int]) -> tuple[FactsDict, dict[str, float]]:
    return facts_with_confidence(run_events, on_table, is_break=False)


@pytest.mark.parametrize(
    ("gap_mm", "seen_frames"), [(115.0, 0), (330.0, 2)], ids=["lost-at-once", "seen-leaving"]
)
def test_ball_knocked_over_a_near_cushion_between_frames_is_inferred_off_the_table(
    gap_mm: float, seen_frames: int
) -> None:
    """The 2 rests near the foot cushion; the cue ball sends it straight at the cushion at
    6 m/s and the 2, seen leaving for ``seen_frames`` frames, is never seen again (it flew
    off between two frames): an off-table removal, uncertain, so a call on it is flagged,
    not stated; the contact is found either way."""
    two = np.array([L - gap_mm, W - 300.0])
    contact_at = two - np.array([TABLE.ball_diameter_mm, 0.0])
    cue = contact_at + np.array([-500.0, -400.0])
    aim = 6000.0 * (contact_at - cue) / np.linalg.norm(contact_at - cue)
    positions = {0: (float(cue[0]), float(cue[1])), 2: (float(two[0]), float(two[1]))}
    truth = simulate(positions, [(0.2, 0, (float(aim[0]), float(aim[1])))], 5.0, decel_mm_s2=900)
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    hidden = contact.time_s + seen_frames / truth.fps
    noise = Noise(position_std_mm=1.0, occlusions=((2, hidden, 10.0),))
    run = run_tracking(truth, noise, seed=4)
    assert EventKind.SHOT_END in [e.kind for e in run.events], run.events
    facts, confidence = _shot_facts(run.events, [2])
    assert facts["first_object_ball_contacted"] == 2
    assert facts["off_table"] == [2]
    assert confidence["off_table"] < 0.9
    assert confidence["pocketed"] == 1.0 and confidence["cue_ball_off_table"] == 1.0


def test_ball_lost_rolling_into_a_pocket_is_inferred_pocketed() -> None:
    """The 4 is sent toward the foot-left pocket and lost 500 mm before it, never seen
    again: pocketed there, uncertainly."""
    four = np.array([L - 600.0, 500.0])
    unit = (np.array([L, 0.0]) - four) / np.linalg.norm(np.array([L, 0.0]) - four)
    cue = four - 300.0 * unit
    positions = {0: (float(cue[0]), float(cue[1])), 4: (float(four[0]), float(four[1]))}
    truth = simulate(positions, [(0.2, 0, (float(2500.0 * unit[0]), float(2500.0 * unit[1])))], 4.0)
    drop = next(e for e in truth.events if e.kind == EventKind.BALL_POCKET)
    assert drop.balls == (4,) and drop.pocket == "foot_left"
    start = next(e.time_s for e in truth.events if e.kind == EventKind.BALL_BALL)
    noise = Noise(position_std_mm=1.0, occlusions=((4, start + 0.1, 10.0),))
    run = run_tracking(truth, noise, seed=6)
    facts, confidence = _shot_facts(run.events, [4])
    assert [p["ball"] for p in facts["pocketed"]] == [4], run.events
    assert facts["pocketed"][0]["pocket"] == "foot_left"
    assert confidence["pocketed"] < 0.9


def test_ball_hidden_at_rest_stays_on_the_table() -> None:
    positions = {0: (700.0, 640.0), 3: (L - 300.0, 200.0), 5: (1500.0, 900.0)}
    truth = simulate(positions, [(0.2, 0, (2000.0, 0.0))], 3.0)
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=((3, 0.5, 10.0),)), seed=1)
    assert not [e for e in run.events if e.kind.removes_ball()], run.events


@pytest.mark.parametrize(
    ("other", "taken"),
    [((1530.0, 640.0), True), ((1700.0, 640.0), False), (None, False)],
    ids=["another-ball-where-it-would-be", "another-ball-further-on", "nobody"],
)
def test_a_ball_lost_where_another_is_seen_may_have_taken_its_name(
    other: tuple[float, float] | None, taken: bool
) -> None:
    # Lost at (1500, 640) rolling at 1.8 m/s: a frame later it would be at (1530, 640).
    loss = _loss((1500.0, 640.0), (1800.0, 0.0))
    seen = NOBODY.copy()
    seen[6] = (1530.0, 640.0)  # its own row is ignored
    if other is not None:
        seen[9] = other
    reach = TABLE.ball_diameter_mm + CONFIG.ball_contact_tolerance_mm
    assert taken_over(loss, 1.0 + FRAME_S, seen, reach) == taken


def test_resting_ball_hidden_briefly_as_a_ball_passes_close_was_not_hit() -> None:
    """The cue ball passes 65 mm from the 5 (a near miss: no contact) while the 5 is hidden
    for a few frames behind it; the 5 is seen again where it was: no contact, no removal."""
    positions = {0: (700.0, 600.0), 5: (1500.0, 665.0)}
    truth = simulate(positions, [(0.2, 0, (3000.0, 0.0))], 2.5)
    assert not [e for e in truth.events if e.kind == EventKind.BALL_BALL]
    passing = 0.2 + (1500.0 - 700.0) / 3000.0
    noise = Noise(position_std_mm=1.0, occlusions=((5, passing - 0.01, passing + 0.05),))
    run = run_tracking(truth, noise, seed=3)
    assert not [e for e in run.events if e.kind == EventKind.BALL_BALL or e.kind.removes_ball()]


def test_ball_struck_by_a_ball_unseen_until_the_contact_is_inferred_off_the_table() -> None:
    """The cue ball, blurred by its speed, is unseen from the stroke until it is found
    beside the 2 (a cut at 7 m/s), and the 2, 800 mm from the foot cushion and sent at it
    at 6.6 m/s, is never seen again: the contact comes from the cue ball's jump from its
    last sighting to the 2's side, and the 2 left the table (uncertainly: a call on it is
    flagged)."""
    two = np.array([L - 800.0, W - 500.0])
    normal = np.array([math.cos(math.radians(20.0)), math.sin(math.radians(20.0))])
    contact_at = two - TABLE.ball_diameter_mm * normal
    cue = contact_at - np.array([1200.0, 0.0])
    positions = {0: (float(cue[0]), float(cue[1])), 2: (float(two[0]), float(two[1]))}
    truth = simulate(positions, [(0.2, 0, (7000.0, 0.0))], 5.0, decel_mm_s2=900)
    contact = next(e for e in truth.events if e.kind == EventKind.BALL_BALL)
    blur = ((0, 0.2, contact.time_s), (2, contact.time_s, 10.0))
    run = run_tracking(truth, Noise(position_std_mm=1.0, occlusions=blur), seed=2)
    assert EventKind.SHOT_END in [e.kind for e in run.events], run.events
    hit = [e for e in run.events if e.kind == EventKind.BALL_BALL and set(e.balls) == {0, 2}]
    assert len(hit) == 1 and abs(hit[0].time_s - contact.time_s) < 2.0 / truth.fps, run.events
    off = [e for e in run.events if e.kind == EventKind.BALL_OFF_TABLE]
    assert [e.balls for e in off] == [(2,)], run.events
    assert off[0].confidence < 0.9 and hit[0].confidence < 0.9


def _rows_at(
    frame: int, way: dict[int, list[tuple[float, float] | None]]
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.object_]]:
    """Each ball's row on ``frame`` of ``way`` (its last entry held; None: occluded, held at
    its last sighting)."""
    balls, xy, status = [], [], []
    for ball, spots in way.items():
        index = min(frame, len(spots) - 1)
        seen = [spot for spot in spots[: index + 1] if spot is not None]
        balls.append(ball)
        xy.append(seen[-1])
        status.append(TrackStatus.ON_TABLE if spots[index] else TrackStatus.OCCLUDED)
    return np.array(balls), np.array(xy, np.float64), np.array(status, dtype=object)


def test_a_ball_seen_leaving_faster_than_its_striker_was_measured_left_over_the_rail() -> None:
    """A 30 fps top view (the real detector's tracks, rounded): the cue ball sends the 2
    into the 7 (at rest 300 mm from the long cushion, 145 mm from the foot cushion's
    line); the 2 is lost as it hits the 7 and found rebounding, so its last two sightings
    before the 7 is lost straddle the contact and give a slow line of centres. The 7 is
    seen once, 84 mm off its spot a frame after it was seen there (at least 2.5 m/s, at the
    long cushion) and never again: it left the table over that cushion, not into the
    corner pocket nearest where it was lost."""
    rest: list[tuple[float, float] | None] = [(2395.2, 969.0)] * 20
    cue = [(1967.8, 201.5)] * 16 + [(2004.0, 252.2), None, (2213.6, 591.7), (2253.8, 691.1)]
    cue += [(2218.2 - 30.0 * k, 746.4 + 50.0 * k * 0.97**k) for k in range(12)]
    two = [(2310.6, 711.0)] * 19 + [(2359.5, 749.6), None, (2433.9, 912.6)]
    two += [(2379.9 - 46.0 * k * 0.97**k, 897.2 - 25.0 * k * 0.97**k) for k in range(12)]
    way: dict[int, list[tuple[float, float] | None]] = {0: cue, 2: two, 7: rest[:21]}
    way[7] += [(2357.3, 1043.8), None]
    detector = EventDetector(TABLE)
    events: list[Event] = []
    for frame in range(120):
        balls, xy, status = _rows_at(frame, way)
        seen = np.where((status == TrackStatus.ON_TABLE)[:, None], xy, np.nan)
        trackset = TrackSet(frame, frame / 30.0, balls, xy, np.zeros_like(xy), seen, status, seen)
        events += detector.update(trackset)
    gone = [e for e in events if e.kind.removes_ball()]
    assert [(e.kind, e.balls) for e in gone] == [(EventKind.BALL_OFF_TABLE, (7,))], events
    assert gone[0].confidence < 0.9
