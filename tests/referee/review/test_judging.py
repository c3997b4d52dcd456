"""Judging in a second process gives the same events, shots and calls as in one process."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from calibration.camera import CameraModel
from calibration.io import Calibration
from referee.pipeline import Pipeline, Stages
from referee.review.judging import (
    JudgeWorker,
    JudgeWorkerError,
    decode_tracks,
    encode_tracks,
    parallel_available,
)
from tests.tracking.builders import TABLE, Noise, detections_from, simulate
from tracking.types import Event, TrackSet, TrackStatus
from vision.types import Detections, Frame

SIZE = (640, 360)
needs_fork = pytest.mark.skipif(not parallel_available(), reason="one core or no fork here")


def _calibration() -> Calibration:
    centre = (TABLE.length_mm / 2, TABLE.width_mm / 2)
    camera = CameraModel.look_at((*centre, 3000.0), (*centre, 0.0), SIZE, focal_px=220.0)
    corners = {k: tuple(camera.project(np.array(v))[0]) for k, v in TABLE.corners_xy_mm().items()}
    return Calibration(TABLE, camera, corners)  # type: ignore[arg-type]


class ReplayDetector:
    """The detections of a simulated break, one list entry per frame index."""

    def __init__(self, frames: list[Detections]) -> None:
        self.frames = frames

    def detect(self, frame: Frame, hint_xy_px: NDArray[np.floating] | None = None) -> Detections:
        return self.frames[frame.index]


def _break() -> tuple[list[Detections], NDArray[np.float64]]:
    positions = TABLE.rack_positions_mm()
    positions[0] = (600.0, 640.0)
    truth = simulate(positions, [(0.2, 0, (8000.0, 40.0))], 3.0)
    return detections_from(truth, Noise(miss_rate=0.03), seed=3), truth.time_s


def _frames(times: NDArray[np.float64]) -> list[Frame]:
    image = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    return [Frame(image, index, float(t)) for index, t in enumerate(times)]


tracksets = st.integers(0, 16).flatmap(
    lambda n: st.tuples(
        st.integers(0, 10**6),
        st.floats(0, 1e4),
        st.lists(st.integers(0, 10), min_size=n, max_size=n),
        st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=8 * n, max_size=8 * n),
        st.lists(st.sampled_from(list(TrackStatus)), min_size=n, max_size=n),
    )
)


@settings(max_examples=60, deadline=None)
@given(tracksets)
def test_tracks_cross_the_pipe_bit_for_bit(case: tuple) -> None:  # type: ignore[type-arg]
    frame, time_s, balls, values, statuses = case
    n = len(balls)
    arrays = np.array(values, np.float64).reshape(4, n, 2)
    tracks = TrackSet(
        frame, time_s, np.array(balls), *arrays[:3], np.array(statuses, dtype=object), arrays[3]
    )
    back = decode_tracks(encode_tracks(tracks))
    assert (back.frame, back.time_s) == (frame, time_s)
    for name in ("ball", "xy_mm", "velocity_mm_s", "xy_px", "measured_xy_mm"):
        assert getattr(back, name).tobytes() == getattr(tracks, name).tobytes(), name
        assert getattr(back, name).dtype == getattr(tracks, name).dtype
    assert all(a is b for a, b in zip(back.status, tracks.status, strict=True))


@needs_fork
def test_a_forked_worker_judges_a_break_like_one_process() -> None:
    detections, times = _break()
    frames = _frames(times)
    serial = Pipeline(_calibration(), detector=ReplayDetector(detections))
    expected = [serial.process(frame) for frame in frames]
    parallel = Pipeline(_calibration(), detector=ReplayDetector(detections))
    worker = JudgeWorker(parallel)
    try:
        got = []
        for frame in frames:
            worker.submit(parallel.perceive(frame).tracks)
            while worker.ready():
                got.append(worker.receive())
        while worker.pending:
            got.append(worker.receive())
        totals = worker.finish()
    finally:
        worker.close()
    assert len(got) == len(frames)
    events = [[e.to_json() for e in r.events] for r in expected]
    assert [[e.to_json() for e in g[0]] for g in got] == events
    assert sum(map(len, events)) > 10  # the break makes strikes, contacts, cushions
    shots = [json.dumps(s.to_json()) for r in expected for s in r.shots]
    assert [json.dumps(s.to_json()) for g in got for s in g[1]] == shots
    assert totals.keys() == {"events", "shots", "rules"} and worker.cpu_s > 0


class FailingEvents:
    def update(self, trackset: TrackSet) -> list[Event]:
        if trackset.frame == 3:
            raise ValueError("events stage broke")
        return []


@needs_fork
def test_a_failure_in_the_worker_is_raised_with_its_traceback() -> None:
    detections, times = _break()
    pipeline = Pipeline(
        _calibration(), detector=ReplayDetector(detections), stages=Stages(events=FailingEvents())
    )
    worker = JudgeWorker(pipeline)
    try:
        for frame in _frames(times)[:3]:
            worker.submit(pipeline.perceive(frame).tracks)
        for _ in range(3):
            worker.receive()
        worker.submit(pipeline.perceive(_frames(times)[3]).tracks)
        with pytest.raises(JudgeWorkerError, match=r"(?s)ValueError: events stage broke"):
            worker.receive()
        with pytest.raises(JudgeWorkerError, match=r"events stage broke|died"):
            for frame in _frames(times)[4:40]:  # it reads no more: the error comes back
                worker.submit(pipeline.perceive(frame).tracks)
    finally:
        worker.close()


@needs_fork
def test_finish_refuses_frames_not_received() -> None:
    detections, times = _break()
    pipeline = Pipeline(_calibration(), detector=ReplayDetector(detections))
    worker = JudgeWorker(pipeline)
    try:
        worker.submit(pipeline.perceive(_frames(times)[0]).tracks)
        with pytest.raises(JudgeWorkerError, match="1 frames were not received"):
            worker.finish()
    finally:
        worker.close()


CLIP = Path(__file__).resolve().parents[3] / "sample_videos" / "top_break_green"


@needs_fork
def test_a_review_writes_the_same_files_judged_in_one_or_two_processes(
    tmp_path: Path, truth_review: Callable[[Path], dict[str, Any]]
) -> None:
    """The review judged in one process against the end-to-end tests' review of the same
    clip, judged in a worker (`truth_review`, shared)."""
    if not (CLIP / "video.mp4").is_file():
        pytest.skip("sample clip top_break_green not present")
    from referee.review.session import ReviewOptions
    from referee.review.start import open_review

    two = truth_review(CLIP)
    assert two["judged_in_worker"]
    assert two["review_summary"]["complete"] and two["review_summary"]["counts"]["shots"] >= 1
    options = ReviewOptions(tmp_path, progress=False, parallel=False)
    declarations = CLIP / "declarations.jsonl"
    review = open_review(
        CLIP / "video.mp4", CLIP / "calibration.json", declarations, options, truth_clip=CLIP
    )
    try:
        summary = review.execute()
    finally:
        review.source.close()
    assert review.worker is None
    assert summary["complete"] and summary["counts"]["shots"] >= 1
    for name in ("tracks.csv", "events.jsonl", "shots.jsonl"):
        assert (tmp_path / name).read_bytes() == (two["out_dir"] / name).read_bytes(), name
