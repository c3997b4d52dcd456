"""`tenball review` on bad input: a clear message, a non-zero exit, no half-written files."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli import main
from referee.evaluate_io import read_tracks


def _video(
    path: Path, frames: int = 30, size: tuple[int, int] = (320, 180), noise: bool = False
) -> Path:
    """Random noise, or a plain dark frame (cheap for the detector)."""
    codec = "MJPG" if path.suffix == ".avi" else "mp4v"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*codec), 30.0, size)
    rng = np.random.default_rng(0)
    for _ in range(frames):
        image = np.full((size[1], size[0], 3), 40, np.uint8)
        if noise:
            image = rng.integers(0, 255, (size[1], size[0], 3), dtype=np.uint8)
        writer.write(image)
    writer.release()
    return path


def _calibration(path: Path, size: tuple[int, int]) -> Path:
    w, h = size
    top, bottom = h / 2 - 0.2 * w, h / 2 + 0.2 * w  # a 2:1 table seen from straight above
    data = {
        "schema": "tenball-calibration/1",
        "table": {"length_mm": 2540, "width_mm": 1270, "ball_diameter_mm": 57.15},
        "image_size": [w, h],
        "corners_px": {
            "head_left": [0.1 * w, top],
            "head_right": [0.1 * w, bottom],
            "foot_right": [0.9 * w, bottom],
            "foot_left": [0.9 * w, top],
        },
    }
    path.write_text(json.dumps(data))
    return path


def _review(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["review", *args, "--no-progress"])
    return code, capsys.readouterr().err


def test_a_missing_video_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _review([str(tmp_path / "nope.mp4"), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "not found" in err and "nope.mp4" in err


def test_an_empty_video_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    video = tmp_path / "empty.mp4"
    video.write_bytes(b"")
    code, err = _review([str(video), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "empty" in err


def test_an_unreadable_video_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    video = tmp_path / "garbage.mp4"
    video.write_bytes(np.random.default_rng(1).integers(0, 255, 50_000, dtype=np.uint8).tobytes())
    code, err = _review([str(video), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "garbage.mp4" in err


def test_a_calibration_for_another_image_size_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    video = _video(tmp_path / "small.mp4")
    calibration = _calibration(tmp_path / "calibration.json", (1280, 720))
    out = tmp_path / "out"
    code, err = _review([str(video), "--calibration", str(calibration), "--out", str(out)], capsys)
    assert code == 2 and "1280x720" in err and "320x180" in err
    assert json.loads((out / "summary.json").read_text())["frames"] == 0


def test_a_video_without_a_table_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    video = _video(tmp_path / "noise.mp4", noise=True)
    code, err = _review([str(video), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "no pool table found" in err


def test_a_bad_declarations_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    video = _video(tmp_path / "small.mp4")
    declarations = tmp_path / "declarations.jsonl"
    declarations.write_text('{"shot": 1, "type": "call", "ball": 12, "pocket": "foot_left"}\n')
    args = [str(video), "--declarations", str(declarations), "--out", str(tmp_path / "out")]
    code, err = _review(args, capsys)
    assert code == 2 and "declarations.jsonl:1" in err and "'ball'" in err


def test_a_truncated_video_keeps_what_was_processed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # AVI keeps its frame count in the header and its frames readable when cut short
    whole = _video(tmp_path / "whole.avi", frames=90)
    cut = tmp_path / "cut.avi"
    data = whole.read_bytes()
    cut.write_bytes(data[: len(data) * 2 // 3])
    calibration = _calibration(tmp_path / "calibration.json", (320, 180))
    out = tmp_path / "out"
    code, err = _review([str(cut), "--calibration", str(calibration), "--out", str(out)], capsys)
    assert code == 3, err
    assert "ended early" in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False and 0 < summary["frames"] < 90
    read_tracks(out / "tracks.csv")  # valid, header and whole rows
    assert (out / "report.html").read_text().endswith("</html>\n")
