"""A shot played while the camera was down is never seen: the balls before and after the
outage are compared, and the operator is told when they changed."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from websockets.sync.client import connect

from referee.live.outage import OutageWatch
from referee.live.settings import LiveSettings
from tests.referee.live.helpers import receive_until, serve
from tracking.types import TrackSet, TrackStatus
from vision.types import Frame

REST: list[dict[str, Any]] = [{"ball": "cue", "x_mm": 500.0, "y_mm": 600.0, "status": "on_table"},
        {"ball": "3", "x_mm": 1800.0, "y_mm": 300.0, "status": "on_table"}]  # fmt: skip


def _moved(ball: str, dx_mm: float = 0.0, status: str = "on_table") -> list[dict[str, Any]]:
    return [b | {"x_mm": b["x_mm"] + dx_mm, "status": status} if b["ball"] == ball else b
            for b in REST]  # fmt: skip


def _outage(watch: OutageWatch, events: tuple[str, ...] = ()) -> None:
    watch.on_state("reconnecting", REST, 10.0)
    watch.on_state("live", REST, 12.0)
    for kind in events:
        watch.on_event(kind)


@pytest.mark.parametrize(
    ("after", "before_events", "after_events", "says"),
    [
        (REST, (), (), None),
        (_moved("3", 20.0), (), (), None),  # tracker jitter, not a move
        (_moved("3", 400.0), (), (), "the 3 moved"),
        (_moved("cue", -300.0), (), (), "the cue ball moved"),
        (_moved("3", status="pocketed"), (), (), "the 3 gone"),
        (_moved("3", status="occluded"), (), (), None),  # hidden, not gone
        (_moved("3", 400.0), (), ("strike",), None),  # a stroke seen after: explained
        (_moved("3", 400.0), ("strike",), (), None),  # down during a shot: the shot's
        (_moved("3", 400.0), ("strike", "shot_end"), (), "the 3 moved"),
    ],
    ids=[
        "still",
        "jitter",
        "moved",
        "cue-moved",
        "gone",
        "occluded",
        "stroke-after",
        "in-shot",
        "after-a-shot",
    ],
)
def test_balls_before_and_after_an_outage(
    after: list[dict[str, Any]],
    before_events: tuple[str, ...],
    after_events: tuple[str, ...],
    says: str | None,
) -> None:
    watch = OutageWatch(settle_s=1.0)
    for kind in before_events:
        watch.on_event(kind)
    _outage(watch, after_events)
    assert watch.on_balls(after, 12.5) is None, "compared before the tracker settled"
    message = watch.on_balls(after, 13.5)
    if says is None:
        assert message is None
    else:
        assert message is not None and says in message and "enter it" in message
    assert watch.on_balls(after, 14.0) is None, "said once"


class _Camera:
    """A live camera at 100 fps: `frames` frames once `start` is set, then it stops
    delivering (the capture reopens it)."""

    fps = 100.0
    frame_count = None

    def __init__(self, frames: int, start: threading.Event) -> None:
        self.frames, self.index, self.start = frames, 0, start

    def read(self) -> Frame | None:
        self.start.wait(30)
        if self.index >= self.frames:
            return None
        time.sleep(0.01)
        self.index += 1
        return Frame(np.zeros((8, 8, 3), np.uint8), self.index - 1, (self.index - 1) / self.fps)

    def close(self) -> None:
        return None


class _Table:
    """The 3 at rest; where it rests changes at `moved_after_s` (frame time)."""

    def __init__(self, moved_after_s: float) -> None:
        self.moved_after_s = moved_after_s

    def process(self, frame: Frame) -> Any:
        x_mm = 1800.0 if frame.time_s < self.moved_after_s else 1200.0
        xy = np.array([[500.0, 600.0], [x_mm, 300.0]])
        status = np.array([TrackStatus.ON_TABLE] * 2, dtype=object)
        tracks = TrackSet(frame.index, frame.time_s, np.array([0, 3]), xy, np.zeros((2, 2)),
                          xy / 2, status)  # fmt: skip
        return type("Result", (), {"events": (), "shots": (), "tracks": tracks})()


def test_a_shot_played_while_the_camera_was_down_is_told(tmp_path: Path) -> None:
    watching = threading.Event()  # the camera plays once the viewer listens
    cameras = iter([_Camera(30, watching), _Camera(400, watching)])  # 0.3 s, out, then 4 s
    settings = LiveSettings(source="camera", db=tmp_path / "l.sqlite3")
    with (
        serve(settings, _Table(0.3), open_source=lambda: next(cameras)) as server,
        connect(server.ws_url) as ws,
    ):
        receive_until(ws, "source_status")
        watching.set()
        alert, seen = receive_until(ws, "alert", timeout_s=15)
    states = [m["state"] for m in seen if m["type"] == "source_status"]
    assert "reconnecting" in states
    assert "the 3 moved" in alert["message"]
