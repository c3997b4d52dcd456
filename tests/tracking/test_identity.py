"""Identity from accumulated class evidence: a misidentified start is corrected, a few bad
frames change nothing, swapped tracks swap back, a pocketed number is never taken."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tracking.builders import class_probabilities, track_sightings
from tracking.identity import (
    SLOT_FREE,
    SLOT_IN_PLAY,
    SLOT_REMOVED,
    SLOT_VACANT,
    IdentityConfig,
    accumulate,
    faded,
    log_probabilities,
    relabels,
)
from tracking.types import TrackSet
from vision.types import NUM_CLASSES

CONFIG = IdentityConfig()


def _at(tracks: TrackSet, ball: int) -> np.ndarray:
    result: np.ndarray = tracks.xy_mm[tracks.ball.tolist().index(ball)]
    return result


def test_a_track_started_on_a_misidentified_ball_takes_its_true_number() -> None:
    # The first frames read the ball as the 7 (as a corner camera may); then it is the 3.
    frames = [[(800.0, 400.0, {7: 0.6, 3: 0.4})]] * 3 + [[(800.0, 400.0, {3: 0.9, 7: 0.1})]] * 30
    tracks = track_sightings(frames)
    assert tracks.ball.tolist() == [3]


@pytest.mark.parametrize("bad_frames", [1, 2, 3], ids=["one", "two", "three"])
def test_a_few_misread_frames_never_change_a_number(bad_frames: int) -> None:
    good = [(800.0, 400.0, {3: 0.9, 7: 0.1}), (1500.0, 700.0, {7: 0.9, 3: 0.1})]
    misread = [(800.0, 400.0, {7: 0.95, 3: 0.05}), (1500.0, 700.0, {3: 0.95, 7: 0.05})]
    tracks = track_sightings([good] * 30 + [misread] * bad_frames + [good] * 5)
    assert sorted(tracks.ball.tolist()) == [3, 7]
    assert np.allclose(_at(tracks, 3), (800.0, 400.0), atol=5.0)
    assert np.allclose(_at(tracks, 7), (1500.0, 700.0), atol=5.0)


def _evidence(rows: dict[int, dict[int, float]]) -> np.ndarray:
    evidence = np.full((NUM_CLASSES, NUM_CLASSES), np.log(CONFIG.min_probability))
    for slot, weights in rows.items():
        evidence[slot] = log_probabilities(class_probabilities(weights)[None, :], CONFIG)[0]
    return evidence


@pytest.mark.parametrize(
    ("kind_of_5", "expected"),
    [(SLOT_IN_PLAY, [(2, 5)]), (SLOT_FREE, [(2, 5)]), (SLOT_REMOVED, [])],
    ids=["swap-with-track", "take-free-number", "never-a-pocketed-number"],
)
def test_relabels_exchange_numbers_only_on_clear_evidence(
    kind_of_5: int, expected: list[tuple[int, int]]
) -> None:
    evidence = _evidence({2: {5: 0.9, 2: 0.1}, 5: {2: 0.9, 5: 0.1}})
    count = np.full(NUM_CLASSES, 10, np.int64)
    kind = np.zeros(NUM_CLASSES, np.int64)
    kind[2], kind[5] = SLOT_IN_PLAY, kind_of_5
    if kind_of_5 == SLOT_FREE:
        count[5] = 0
    seen = kind == SLOT_IN_PLAY
    pairs = relabels(evidence, count, seen, kind, CONFIG)
    assert [sorted(p) for p in pairs] == [sorted(p) for p in expected]


@pytest.mark.parametrize(
    ("kind_of_5", "expected"),
    [(SLOT_VACANT, [(2, 5)]), (SLOT_FREE, []), (SLOT_IN_PLAY, [])],
    ids=["vacant-number-taken", "maybe-hidden-in-the-rack", "a-tracked-number-needs-more"],
)
def test_a_steady_lean_to_a_vacant_number_renames_one_track(
    kind_of_5: int, expected: list[tuple[int, int]]
) -> None:
    """Slot 2's track leans steadily to the 5 (0.6 against 0.25 for its own number: a
    track that took another ball at the break and kept it, a far ball read as its
    look-alike). When no track ever held the 5 and no rack stands to hide it, taking it
    renames one track and costs half the margin. While a rack stands the never-seen 5 is
    likely hidden in it (the track reads its pixels beside its own ball's): a full margin,
    as for a swap with a track holding the 5, which shows nothing against its number."""
    evidence = _evidence({2: {5: 0.6, 2: 0.25}, 5: {5: 0.4, 2: 0.4}})
    count = np.full(NUM_CLASSES, 10, np.int64)
    kind = np.zeros(NUM_CLASSES, np.int64)
    kind[2], kind[5] = SLOT_IN_PLAY, kind_of_5
    if kind_of_5 != SLOT_IN_PLAY:
        count[5] = 0
        evidence[5] = 0.0
    seen = kind == SLOT_IN_PLAY
    pairs = relabels(evidence, count, seen, kind, CONFIG)
    assert [sorted(p) for p in pairs] == [sorted(p) for p in expected]


def test_accumulate_starts_from_the_first_detections_then_forgets_slowly() -> None:
    evidence = np.zeros((NUM_CLASSES, NUM_CLASSES))
    count = np.zeros(NUM_CLASSES, np.int64)
    first = log_probabilities(class_probabilities({4: 0.9})[None, :], CONFIG)
    accumulate(evidence, count, np.array([4]), first, weight=0.05)
    assert np.allclose(evidence[4], first[0])
    other = log_probabilities(class_probabilities({6: 0.9})[None, :], CONFIG)
    accumulate(evidence, count, np.array([4]), other, weight=0.05)
    # The second detection counts half (running mean until the memory is full).
    assert np.allclose(evidence[4], 0.5 * (first[0] + other[0]))
    assert count[4] == 2


@pytest.mark.parametrize(
    ("unseen_5_s", "expected"),
    [(0.0, []), (2.0, [(2, 5)])],
    ids=["partner-seen-keeps-its-number", "long-lost-partner-gives-it-up"],
)
def test_a_lost_partners_stale_evidence_fades(
    unseen_5_s: float, expected: list[tuple[int, int]]
) -> None:
    """Slot 2's track shows the 5; slot 5's track, which showed the 5 too, is lost: once
    it has been unseen for several memories its stale evidence no longer vetoes the
    exchange (a ghost keeps no number from the ball that is seen)."""
    evidence = _evidence({2: {5: 0.9, 2: 0.05}, 5: {5: 0.9, 2: 0.05}})
    count = np.full(NUM_CLASSES, 10, np.int64)
    kind = np.zeros(NUM_CLASSES, np.int64)
    kind[[2, 5]] = SLOT_IN_PLAY
    seen = np.zeros(NUM_CLASSES, bool)
    seen[2] = True
    unseen = np.zeros(NUM_CLASSES)
    unseen[5] = unseen_5_s
    pairs = relabels(faded(evidence, unseen, CONFIG), count, seen, kind, CONFIG)
    assert [sorted(p) for p in pairs] == [sorted(p) for p in expected]


def _numbers_after(pairs: list[tuple[int, int]]) -> list[int]:
    """Which track (by its slot before) holds each number once ``pairs`` are applied."""
    holder = list(range(NUM_CLASSES))
    for a, b in pairs:
        holder[a], holder[b] = holder[b], holder[a]
    return holder


@pytest.mark.parametrize(
    ("confidence", "rotated"),
    [(0.9, True), (0.45, False)],
    ids=["clear-rotation", "weak-rotation-kept"],
)
def test_three_tracks_rotate_their_numbers(confidence: float, rotated: bool) -> None:
    """Slot 2's track shows the 5, 5's the 7 and 7's the 2: no exchange of two tracks
    gives more than one its number, the rotation of all three gives each its own. A
    rotation needs more evidence than a swap (three numbers change hands)."""
    rest = (1.0 - confidence) / 2
    evidence = _evidence(
        {
            2: {5: confidence, 2: rest, 7: rest},
            5: {7: confidence, 5: rest, 2: rest},
            7: {2: confidence, 7: rest, 5: rest},
        }
    )
    count = np.full(NUM_CLASSES, 10, np.int64)
    kind = np.zeros(NUM_CLASSES, np.int64)
    kind[[2, 5, 7]] = SLOT_IN_PLAY
    seen = kind == SLOT_IN_PLAY
    holder = _numbers_after(relabels(evidence, count, seen, kind, CONFIG))
    expected = {5: 2, 7: 5, 2: 7} if rotated else {2: 2, 5: 5, 7: 7}
    assert {number: holder[number] for number in (2, 5, 7)} == expected


def test_a_rotation_needs_a_track_seen_now() -> None:
    evidence = _evidence({2: {5: 0.9}, 5: {7: 0.9}, 7: {2: 0.9}})
    count = np.full(NUM_CLASSES, 10, np.int64)
    kind = np.zeros(NUM_CLASSES, np.int64)
    kind[[2, 5, 7]] = SLOT_IN_PLAY
    assert relabels(evidence, count, np.zeros(NUM_CLASSES, bool), kind, CONFIG) == []
