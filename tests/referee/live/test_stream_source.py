"""A network stream that drops: the service shows the outage, reconnects with backoff when
the stream comes back, and keeps the match. The stream is another live service's
/stream.mjpg over real HTTP, read by OpenCV as a camera's would be."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from referee.live.settings import LiveSettings
from tests.referee.live.helpers import (
    RunningServer,
    ScriptedPipeline,
    receive_until,
    serve,
    wait_for,
    write_video,
)


def _source(url: str) -> dict[str, Any]:
    source: dict[str, Any] = httpx.get(f"{url}/api/health", timeout=5).json()["source"]
    return source


@pytest.mark.slow
def test_a_dropped_stream_is_reconnected_and_the_match_kept(tmp_path: Path) -> None:
    video = write_video(tmp_path / "camera.avi", frames=1800, fps=30.0)
    camera = LiveSettings(source=str(video), db=tmp_path / "camera.db", realtime=True, mjpeg_fps=30)
    # any free port; it comes back on the same one
    upstream: AbstractContextManager[RunningServer] = serve(camera, ScriptedPipeline())
    url = upstream.__enter__().url
    upstream_up = True
    port = int(url.rsplit(":", 1)[1])
    try:
        settings = LiveSettings(source=f"{url}/stream.mjpg", db=tmp_path / "ref.db",
                                stall_after_s=0.5)  # fmt: skip
        with serve(settings, ScriptedPipeline()) as server, connect(server.ws_url) as ws:
            wait_for(lambda: _source(server.url)["frames"] > 10, timeout_s=20, what="frames")
            body = {"players": {"A": "Ann", "B": "Ben"}, "breaker": "A"}
            httpx.post(
                f"{server.url}/api/match", json=body, headers=server.auth()
            ).raise_for_status()
            upstream.__exit__(None, None, None)  # the stream drops
            upstream_up = False
            outage, _ = receive_until(ws, "source_status", timeout_s=20,
                                      where={"state": "stalled"})  # fmt: skip
            assert _source(server.url)["state"] in ("stalled", "reconnecting")
            frames_before = _source(server.url)["frames"]
            upstream = serve(camera, ScriptedPipeline(), port=port)  # ... and comes back
            upstream.__enter__()
            upstream_up = True
            receive_until(ws, "source_status", timeout_s=40, where={"state": "live"})
            wait_for(lambda: _source(server.url)["frames"] > frames_before + 10, timeout_s=20,
                     what="frames after the reconnection")  # fmt: skip
            health = httpx.get(f"{server.url}/api/health").json()
            state = httpx.get(f"{server.url}/api/state").json()
    finally:
        if upstream_up:
            upstream.__exit__(None, None, None)
    assert "no frame for" in outage["message"]
    assert health["source"]["reconnects"] >= 1
    assert health["source"]["state"] == "live"
    assert state["match"]["players"] == {"A": "Ann", "B": "Ben"}
