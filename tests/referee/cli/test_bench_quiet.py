"""`tenball bench` says how many frames the detector's memory skipped (quiet frames)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.cli import main
from referee.cli.bench import _quiet_frames
from vision import kernels

CLIP = Path(__file__).resolve().parents[3] / "sample_videos" / "top_break_green"


def test_quiet_frames_split_the_hinted_calls() -> None:
    numbers = _quiet_frames([0.5, 1.5], [0.5, 1.5, 9.0, 11.0], frames=5)
    assert numbers == {
        "count": 2,
        "share": 0.4,
        "detect_ms_mean": 1.0,
        "searched_hinted_count": 2,
        "searched_hinted_detect_ms_mean": 10.0,
    }


def test_no_hinted_calls_no_quiet_frames() -> None:
    numbers = _quiet_frames([], [], frames=0)
    assert numbers["count"] == 0 and numbers["share"] == 0.0
    assert numbers["searched_hinted_detect_ms_mean"] == 0.0


def test_the_real_detector_keeps_still_frames(capsys: pytest.CaptureFixture[str]) -> None:
    """The opening frames of the break clip show a still rack and a still cue ball: after
    the first frame's full search the memory hands most of them back unsearched."""
    if not (CLIP / "video.mp4").is_file():
        pytest.skip("sample clip top_break_green not present")
    argv = ["bench", str(CLIP / "video.mp4"), "--calibration", str(CLIP / "calibration.json")]
    assert main([*argv, "--max-frames", "6", "--json"]) == 0
    numbers = json.loads(capsys.readouterr().out)
    quiet = numbers["quiet_frames"]
    hinted = quiet["count"] + quiet["searched_hinted_count"]
    # The first frame searches the whole table; every later one is hinted here.
    assert 1 <= quiet["count"] <= hinted < numbers["frames"]
    assert quiet["share"] == pytest.approx(quiet["count"] / numbers["frames"], abs=1e-3)
    assert numbers["compiled_kernels"] is kernels.compiled()
