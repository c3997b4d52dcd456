"""How much of a shot the live pipeline analysed, and the flag on a call made from too little."""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

import pytest

from referee.live.runtime import LiveRuntime, shot_coverage
from referee.live.settings import LiveSettings
from referee.live.worker import FrameOutput
from tests.referee.live.helpers import BREAK_FACTS, break_script

FPS = 30.0


def _seen(frames: list[int]) -> collections.deque[tuple[int, float]]:
    return collections.deque((f, f / FPS) for f in frames)


@pytest.mark.parametrize(
    ("frames", "fps", "expected"),
    [
        (list(range(100)), FPS, {"frames_seen": 41, "frames_in_shot": 41}),
        (list(range(0, 100, 3)), FPS, {"frames_seen": 13, "frames_in_shot": 41}),
        ([], FPS, {"frames_seen": 0, "frames_in_shot": 41}),
        (list(range(100)), 2 * FPS, {"frames_seen": 41, "frames_in_shot": 81}),
    ],
    ids=["every-frame", "every-third", "none-seen", "camera-lost-half-its-frames"],
)
def test_frames_of_a_shot_that_were_analysed(
    frames: list[int], fps: float, expected: dict[str, int]
) -> None:
    # a camera whose driver lost frames numbers the ones it kept 0, 1, 2...: only their
    # times (here at half the camera's rate) show the loss
    shot = {"frame_strike": 10, "frame_end": 50}
    assert shot_coverage(_seen(frames), shot, fps) == expected


def test_no_frame_range_no_coverage() -> None:
    assert shot_coverage(_seen([1, 2, 3]), {"facts": {}}, FPS) is None


@pytest.mark.parametrize(("stride", "flagged"), [(1, False), (3, True)], ids=["kept-up", "behind"])
def test_a_call_made_from_too_few_frames_is_flagged(
    tmp_path: Path, stride: int, flagged: bool
) -> None:
    from referee.live import defaults

    runtime = LiveRuntime(
        LiveSettings(source="none", db=tmp_path / "l.sqlite3"),
        defaults.rules(),
        None,
        lambda frame: break_script(),  # never built: on_output is fed directly
    )
    runtime.referee.start_match({"A": "Ann", "B": "Ben"}, "A")
    calls: list[dict[str, Any]] = []
    runtime.referee.publish = lambda m: calls.append(m) if m.get("type") == "call" else None
    for frame in range(0, 31, stride):
        runtime.on_output(FrameOutput(frame, frame / FPS, float(frame)))
    shot = {"shot": 1, "frame_strike": 0, "frame_end": 30, "facts": dict(BREAK_FACTS)}
    runtime.on_output(FrameOutput(30, 1.0, 30.0, shots=[shot]))
    runtime.store.close()
    (call,) = calls
    assert call["coverage"]["frames_in_shot"] == 31
    assert bool(call["review_reasons"]) is flagged
    if flagged:
        assert "of the shot's frames were analysed" in call["review_reasons"][0]
