"""A camera replugged or rebooted at another resolution (a USB camera back at its default
640x480): the pipeline made for the old picture (its table, its masks) is made again for the
new one, and the operator is told. Before, every frame failed (or, worse, was read with the
old picture's table) until the service was restarted."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from referee.live.settings import LiveSettings
from tests.referee.live.helpers import ScriptedPipeline, serve, wait_for
from vision.types import Frame


class _Resizing:
    """A live camera: 20 frames of 16x12, then 16x8 ones, once `start` is set."""

    fps = 100.0
    frame_count = None

    def __init__(self, start: threading.Event) -> None:
        self.index, self.start = 0, start

    def read(self) -> Frame | None:
        self.start.wait(30)
        time.sleep(0.01)
        height = 12 if self.index < 20 else 8
        self.index += 1
        return Frame(np.zeros((height, 16, 3), np.uint8), self.index - 1, self.index / self.fps)

    def close(self) -> None:
        return None


def _resized(url: str) -> list[dict[str, Any]]:
    alerts = httpx.get(f"{url}/api/state", timeout=30).json()["alerts"]
    return [a for a in alerts if "changed size" in a["message"]]


def test_a_camera_back_at_another_size_gets_a_new_pipeline(tmp_path: Path) -> None:
    built: list[tuple[int, ...]] = []

    def make(frame: Frame) -> Any:
        built.append(frame.image.shape[:2])
        return ScriptedPipeline()

    start = threading.Event()
    camera = _Resizing(start)
    settings = LiveSettings(source="camera", db=tmp_path / "live.sqlite3", token="t")
    with serve(settings, open_source=lambda: camera, make_pipeline=make) as server:
        start.set()
        alerts = wait_for(lambda: _resized(server.url), timeout_s=30, what="the alert")
        health = httpx.get(f"{server.url}/api/health", timeout=30).json()
    assert built == [(12, 16), (8, 16)]
    assert "(16x12 to 16x8)" in alerts[0]["message"]
    assert health["pipeline"]["error"] == ""
