"""The review's machine files: contract header, one row per drop, valid after a crash."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from referee.evaluate_io import read_tracks
from referee.review.history import table_region_px
from referee.review.outputs import TRACKS_HEADER, ReviewWriter, write_json_atomic
from tracking.types import Event, EventKind, TrackSet, TrackStatus


def _tracks(frame: int, status_of_3: TrackStatus) -> TrackSet:
    return TrackSet(
        frame=frame,
        time_s=frame / 60.0,
        ball=np.array([0, 3]),
        xy_mm=np.array([[100.0, 200.0], [2500.0, 30.0]]),
        velocity_mm_s=np.zeros((2, 2)),
        xy_px=np.array([[10.0, 20.0], [np.nan, np.nan]]),
        status=np.array([TrackStatus.ON_TABLE, status_of_3], dtype=object),
    )


def _rows(path: Path) -> list[list[str]]:
    with path.open(newline="") as handle:
        return list(csv.reader(handle))


def test_a_pocketed_ball_gets_one_row_on_the_frame_it_drops(tmp_path: Path) -> None:
    with ReviewWriter(tmp_path) as writer:
        writer.write_tracks(_tracks(0, TrackStatus.ON_TABLE))
        for frame in (1, 2, 3):
            writer.write_tracks(_tracks(frame, TrackStatus.POCKETED))
    rows = _rows(tmp_path / "tracks.csv")
    assert ",".join(rows[0]) + "\n" == TRACKS_HEADER
    threes = [r for r in rows[1:] if r[2] == "3"]
    assert [(r[0], r[7]) for r in threes] == [("0", "on_table"), ("1", "pocketed")]
    assert threes[0][5] == ""  # unknown pixels are left blank, not "nan"
    assert len(read_tracks(tmp_path / "tracks.csv")) == 6


def test_files_are_valid_for_what_was_processed_before_a_crash(tmp_path: Path) -> None:
    writer = ReviewWriter(tmp_path, flush_every_frames=1)
    writer.write_tracks(_tracks(0, TrackStatus.ON_TABLE))
    writer.write_events([Event(0, 0.0, EventKind.STRIKE, (0,))])
    writer.write_shot({"shot": 1, "frame_strike": 0})
    # no close(): as after a crash, the files already hold whole lines
    assert len(read_tracks(tmp_path / "tracks.csv")) == 2
    assert json.loads((tmp_path / "events.jsonl").read_text())["kind"] == "strike"
    assert json.loads((tmp_path / "shots.jsonl").read_text())["shot"] == 1
    writer.close()


def test_summary_is_replaced_atomically(tmp_path: Path) -> None:
    write_json_atomic(tmp_path / "summary.json", {"frames": 1})
    write_json_atomic(tmp_path / "summary.json", {"frames": 2})
    assert json.loads((tmp_path / "summary.json").read_text()) == {"frames": 2}
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize(
    ("corners", "expected"),
    [
        ({"a": (100.0, 100.0), "b": (300.0, 200.0)}, (76, 88, 324, 212)),
        ({"a": (0.0, 0.0), "b": (640.0, 360.0)}, (0, 0, 640, 360)),
        ({"a": (5.0, 5.0), "b": (6.0, 6.0)}, (0, 0, 640, 360)),
    ],
    ids=["inside", "clipped-to-image", "degenerate-whole-frame"],
)
def test_evidence_shows_the_table_and_a_margin(
    corners: dict[str, tuple[float, float]], expected: tuple[int, int, int, int]
) -> None:
    assert table_region_px(corners, (640, 360)) == expected
