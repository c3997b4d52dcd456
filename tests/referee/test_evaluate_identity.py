"""The identity switches listed one by one are the ones `tenball eval` counts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from referee.evaluate_identity import Switch, identity_switches, main
from referee.evaluate_io import TrackRows, read_tracks
from referee.evaluate_tracks import score_tracks

CLIP = Path(__file__).resolve().parents[2] / "sample_videos" / "top_break_green"


def _swapped(first: int, second: int, frames: range) -> tuple[TrackRows, TrackRows]:
    truth = read_tracks(CLIP / "truth" / "tracks.csv")
    ball = truth.ball.copy()
    inside = (truth.frame >= frames.start) & (truth.frame < frames.stop)
    ball[inside & (truth.ball == first)] = second
    ball[inside & (truth.ball == second)] = first
    return truth, replace(truth, ball=ball)


def test_a_run_that_swaps_two_balls_for_ten_frames_lists_four_switches() -> None:
    truth, run = _swapped(3, 7, range(60, 70))
    switches = identity_switches(truth, run)
    assert switches == [
        Switch(3, 59, 60, 3, 7),
        Switch(3, 69, 70, 7, 3),
        Switch(7, 59, 60, 7, 3),
        Switch(7, 69, 70, 3, 7),
    ]
    assert len(switches) == score_tracks(truth, run).identity_switches
    assert str(switches[0]) == "truth 3: frame 59 -> 60, run 3 -> 7"


def test_the_truth_against_itself_has_none(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(CLIP), str(CLIP / "truth")]) == 0
    assert capsys.readouterr().out.strip() == "0 identity switches"
    truth = read_tracks(CLIP / "truth" / "tracks.csv")
    assert identity_switches(truth, truth) == []
    assert np.all(truth.ball >= 0)


def test_a_wrong_call_is_a_usage_error() -> None:
    assert main(["only-one"]) == 2
