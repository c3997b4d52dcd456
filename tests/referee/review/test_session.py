"""A review that fails part-way leaves valid files for what it processed, and says so."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from calibration.camera import CameraModel
from calibration.io import Calibration
from calibration.table import TableSpec
from referee.evaluate_io import read_tracks
from referee.review.session import Review, ReviewOptions
from vision.types import NUM_CLASSES, Detections, Frame

TABLE = TableSpec()
SIZE = (320, 180)


def _calibration() -> Calibration:
    centre = (TABLE.length_mm / 2, TABLE.width_mm / 2)
    camera = CameraModel.look_at((*centre, 3000.0), (*centre, 0.0), SIZE, focal_px=200.0)
    corners = {k: tuple(camera.project(np.array(v))[0]) for k, v in TABLE.corners_xy_mm().items()}
    return Calibration(TABLE, camera, corners)  # type: ignore[arg-type]


class Frames:
    """A frame source of plain frames."""

    fps = 60.0
    frame_count = 40
    path = Path("clip.mp4")

    def __init__(self) -> None:
        self.index = 0

    def read(self) -> Frame | None:
        if self.index >= self.frame_count:
            return None
        self.index += 1
        return Frame(
            np.zeros((SIZE[1], SIZE[0], 3), np.uint8), self.index - 1, (self.index - 1) / self.fps
        )

    def close(self) -> None:
        pass


def _cue_ball(camera: CameraModel, x_mm: float) -> Detections:
    """The cue ball seen at (``x_mm``, 635) on the table."""
    xy_mm = np.array([[x_mm, 635.0]])
    probability = np.zeros((1, NUM_CLASSES))
    probability[0, 0] = 1.0
    return Detections(
        camera.project(xy_mm, 28.575), xy_mm, np.array([5.0]), np.array([0.99]), probability
    )


class BrokenDetector:
    """Sees the cue ball at rest, then fails at frame 25."""

    def __init__(self, calibration: Calibration) -> None:
        self.camera = calibration.camera

    def detect(self, frame: Frame, hint_xy_px: NDArray[np.floating] | None = None) -> Detections:
        if frame.index == 25:
            raise RuntimeError("detector crashed")
        return _cue_ball(self.camera, 635.0)


@pytest.mark.parametrize("parallel", [False, True], ids=["one-process", "judged-apart"])
def test_a_failure_leaves_the_processed_frames_and_says_where(
    tmp_path: Path, parallel: bool
) -> None:
    calibration = _calibration()
    review = Review(
        Frames(),
        calibration,
        None,
        ReviewOptions(tmp_path, progress=False, parallel=parallel),
        BrokenDetector(calibration),
    )
    with pytest.raises(RuntimeError, match="detector crashed"):
        review.execute()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["complete"] is False
    assert summary["frames"] == 25 and "failed at frame 25" in summary["stopped"]
    rows = read_tracks(tmp_path / "tracks.csv")
    assert set(rows.frame.tolist()) == set(range(25))
    html = (tmp_path / "report.html").read_text()
    assert "failed at frame 25" in html and html.endswith("</html>\n")


@pytest.mark.parametrize("parallel", [False, True], ids=["one-process", "judged-apart"])
def test_max_frames_stops_early_and_completes(tmp_path: Path, parallel: bool) -> None:
    calibration = _calibration()
    options = ReviewOptions(tmp_path, max_frames=10, progress=False, parallel=parallel)
    summary = Review(Frames(), calibration, None, options, BrokenDetector(calibration)).execute()
    assert summary["complete"] is True and summary["frames"] == 10
    assert summary["stage_ms_per_frame"].keys() == {"detect", "track", "events", "shots", "rules"}


class StrokeDetector:
    """Sees the cue ball at rest for half a second, then rolling at 1 m/s to the last frame
    (the video stops mid-shot)."""

    def __init__(self, calibration: Calibration) -> None:
        self.camera = calibration.camera

    def detect(self, frame: Frame, hint_xy_px: NDArray[np.floating] | None = None) -> Detections:
        return _cue_ball(self.camera, 635.0 + max(0.0, frame.time_s - 0.5) * 1000.0)


@pytest.mark.parametrize("parallel", [False, True], ids=["one-process", "judged-apart"])
def test_a_shot_the_video_cuts_short_is_judged_and_flagged(tmp_path: Path, parallel: bool) -> None:
    """The video ends while the cue ball still rolls: the shot is not dropped; it ends at the
    last frame, is called, and the call says the video ended mid-shot."""
    calibration = _calibration()
    source = Frames()
    source.frame_count = 60
    options = ReviewOptions(tmp_path, progress=False, parallel=parallel)
    Review(source, calibration, None, options, StrokeDetector(calibration)).execute()
    shots = [json.loads(line) for line in (tmp_path / "shots.jsonl").read_text().splitlines()]
    assert len(shots) == 1 and shots[0]["frame_end"] == 59
    assert shots[0]["review"] is True
    assert any("video ended while balls were still moving" in r for r in shots[0]["review_reasons"])
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert [e["kind"] for e in events][-1] == "shot_end"
