"""The standing rack's hidden balls are filled in on a corner view's first frame, named by the
rack's law (the names the balls seen on places leave, sure enough for a track to start), and
nothing is added where the detector already finds every racked ball or no rack stands."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from calibration.io import load_calibration
from tracking.rack_fill import RackFillConfig, RackFiller, rack_names
from vision.detector import BallDetector
from vision.sources import open_source
from vision.types import CUE, Detections, Frame

SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"
CORNER = SAMPLES / "corner_lip_stay_8ft_green"
CORNER_TABLE = load_calibration(CORNER / "calibration.json").table


def _first_frame(clip: Path) -> tuple[Frame, np.ndarray]:
    source = open_source(str(clip / "video.mp4"))
    try:
        frame = source.read()
    finally:
        source.close()
    assert frame is not None
    with (clip / "truth" / "tracks.csv").open() as handle:
        rows = [row for row in csv.DictReader(handle) if row["frame"] == "0"]
    truth = {row["ball"]: (float(row["x_mm"]), float(row["y_mm"])) for row in rows}
    return frame, np.array([truth[str(ball)] for ball in range(1, 11)])


def _racked_found(detections: Detections, rack_mm: np.ndarray, within_mm: float = 20.0) -> int:
    xy = detections.xy_mm.astype(np.float64)
    if len(xy) == 0:
        return 0
    apart = np.hypot(rack_mm[:, None, 0] - xy[None, :, 0], rack_mm[:, None, 1] - xy[None, :, 1])
    return int(np.count_nonzero(apart.min(axis=1) < within_mm))


@pytest.fixture(scope="module")
def corner() -> tuple[BallDetector, Frame, np.ndarray, Detections]:
    """A far-end corner rack's first frame: the detector, the frame, the racked balls'
    (10, 2) true centres (mm) and the detector's own detections."""
    detector = BallDetector(load_calibration(CORNER / "calibration.json"))
    frame, rack = _first_frame(CORNER)
    return detector, frame, rack, detector.detect(frame)


def test_a_far_corner_racks_hidden_balls_are_filled_in(
    corner: tuple[BallDetector, Frame, np.ndarray, Detections],
) -> None:
    detector, frame, rack, plain = corner
    filler = RackFiller(detector, CORNER_TABLE)
    filled = filler.fill(frame, plain)
    assert _racked_found(plain, rack) <= 7  # the detector alone misses racked balls here
    assert _racked_found(filled, rack) >= 9
    assert filler.filled_frames == 1
    # One ball per class, and no racked ball named the cue ball.
    assert len(set(np.argmax(filled.class_prob, axis=1).tolist())) == len(filled)
    assert np.count_nonzero(np.argmax(filled.class_prob, axis=1) == CUE) == 1
    # Named by the rack's law, each filled ball is sure enough of its name for the tracker
    # to start its track (init_min_probability 0.5 of probability times confidence), and
    # takes a name no ball the detector sees in the rack holds.
    named = RackFillConfig(snap=False, rack_weight=0.6)
    loose = RackFiller(detector, CORNER_TABLE, named).fill(frame, plain)
    added = ~np.any(np.all(np.isclose(loose.xy_mm[:, None], plain.xy_mm[None]), axis=2), axis=1)
    assert added.sum() >= 2
    top = loose.class_prob[added].max(axis=1) * loose.confidence[added]
    assert np.all(top > 0.5)
    seen = set(np.argmax(loose.class_prob[~added], axis=1).tolist())
    assert not seen & set(np.argmax(loose.class_prob[added], axis=1).tolist())
    # Every racked ball, filled or detected, stands on its place (the rack located once):
    # one offset from the nominal places for all, so no racked ball's track moves.
    xy = filled.xy_mm.astype(np.float64)
    offset = xy[:, None] - filler.places[None]
    nearest = np.argmin(np.hypot(offset[..., 0], offset[..., 1]), axis=1)
    racked = np.argmax(filled.class_prob, axis=1) != CUE
    shifts = offset[np.flatnonzero(racked), nearest[racked]]
    assert np.ptp(shifts, axis=0).max() < 0.5


def test_nothing_is_added_when_every_racked_ball_is_found() -> None:
    clip = SAMPLES / "top_break_green"
    calibration = load_calibration(clip / "calibration.json")
    frame, rack = _first_frame(clip)
    plain = BallDetector(calibration).detect(frame)
    filler = RackFiller(BallDetector(calibration), calibration.table)
    assert _racked_found(plain, rack) == 10
    assert len(filler.detect(frame)) == len(plain)


def test_a_cue_ball_beside_the_apex_breaks_the_rack(
    corner: tuple[BallDetector, Frame, np.ndarray, Detections],
) -> None:
    detector, corner_frame, _, seen = corner
    breaking = RackFiller(detector, CORNER_TABLE)
    apex = breaking.places[0] + np.array([-60.0, 0.0])
    cue_row = np.zeros((1, seen.class_prob.shape[1]), np.float32)
    cue_row[0, CUE] = 1.0
    arriving = Detections(
        xy_px=np.vstack([seen.xy_px, seen.xy_px[:1]]),
        xy_mm=np.vstack([seen.xy_mm, apex[None].astype(np.float32)]),
        radius_px=np.concatenate([seen.radius_px, seen.radius_px[:1]]),
        confidence=np.concatenate([seen.confidence, np.ones(1, np.float32)]),
        class_prob=np.vstack([seen.class_prob, cue_row]),
    )
    assert len(breaking.fill(corner_frame, arriving)) == len(arriving)
    assert breaking.filled_frames == 0


def _frame_at(clip: Path, index: int) -> Frame:
    source = open_source(str(clip / "video.mp4"))
    try:
        frame = source.read()
        while frame is not None and frame.index < index:
            frame = source.read()
    finally:
        source.close()
    assert frame is not None
    return frame


@pytest.mark.parametrize(
    ("changed_fraction", "fills"), [(0.3, False), (1.1, True)], ids=["default", "never"]
)
def test_a_struck_rack_is_no_longer_filled_though_its_detections_stay(
    corner: tuple[BallDetector, Frame, np.ndarray, Detections],
    changed_fraction: float,
    fills: bool,
) -> None:
    # On the frame the cue ball reaches the apex the racked balls start to move, while the
    # detections (from windows still hinted at the rack) stand on their places and no ball
    # named the cue ball is beside it: the places' pixels tell that the rack was struck.
    detector, frame, _, seen = corner
    filler = RackFiller(detector, CORNER_TABLE, RackFillConfig(changed_fraction=changed_fraction))
    assert filler.filled_frames == 0
    filler.fill(frame, seen)
    assert filler.filled_frames == 1
    struck = _frame_at(CORNER, 33)
    assert (len(filler.fill(struck, seen)) > len(seen)) is fills
    assert filler.filled_frames == 1 + fills


def test_the_pipeline_wraps_the_detector_only_when_asked() -> None:
    from referee.pipeline import Pipeline, PipelineConfig

    calibration = load_calibration(SAMPLES / "top_break_green" / "calibration.json")
    assert isinstance(Pipeline(calibration).detector, BallDetector)
    wrapped = Pipeline(calibration, PipelineConfig(rack_fill=RackFillConfig(enabled=True)))
    assert isinstance(wrapped.detector, RackFiller)
    assert wrapped.detector.view is wrapped.detector.inner.view  # the rest is the detector's


@pytest.mark.parametrize(
    ("taken", "favoured"),
    [((), (1, 10)), ((2, 5, 7), (3, 3)), ((1, 2, 3, 4, 5, 6, 7, 8), (9, 9))],
    ids=["none_taken", "some_taken", "two_left"],
)
def test_hidden_places_take_different_balls_the_others_leave(
    taken: tuple[int, ...], favoured: tuple[int, int]
) -> None:
    rng = np.random.default_rng(len(taken))
    weights = rng.uniform(0.01, 1.0, (2, 11))
    weights[:, list(favoured)] += 5.0  # both places' pixels favour the same ball(s)
    weights[:, list(taken)] = 0.0
    label = rack_names(weights)
    assert label[0] != label[1]
    assert not set(label.tolist()) & ({CUE} | set(taken))
    assert set(favoured) & set(label.tolist())
