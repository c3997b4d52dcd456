"""The live service end to end: a real video file played at its frame rate, a real uvicorn
server on loopback, real HTTP and websocket clients."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from referee.live.settings import LiveSettings
from tests.referee.live.helpers import (
    BREAK_FACTS,
    RunningServer,
    ScriptedPipeline,
    ScriptedShot,
    break_script,
    receive_until,
    serve,
    wait_for,
    write_video,
)

FPS = 30.0
FRAMES = 60


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_video(tmp_path_factory.mktemp("video") / "clip.avi", FRAMES, FPS)


def _settings(tmp_path: Path, source: str, **extra: Any) -> LiveSettings:
    return LiveSettings(source=source, db=tmp_path / "live.sqlite3", realtime=True, **extra)


def _start(server: RunningServer, client: httpx.Client) -> int:
    body = {"players": {"A": "Alice", "B": "Bob"}, "breaker": "A"}
    response = client.post(f"{server.url}/api/match", json=body, headers=server.auth())
    assert response.status_code == 201, response.text
    return int(response.json()["match_id"])


def test_video_is_refereed_at_its_frame_rate(tmp_path: Path, video: Path) -> None:
    pipeline = break_script(strike=10, end=30)
    pipeline.gate.set()
    listening = threading.Event()  # the file plays once built: built once the viewer listens
    make = lambda frame: listening.wait(30) and pipeline  # noqa: E731
    settings = _settings(tmp_path, str(video))
    with serve(settings, make_pipeline=make) as server, httpx.Client() as client:
        match_id = _start(server, client)
        with connect(server.ws_url) as ws:
            first, _ = receive_until(ws, "state")
            assert first["match"]["players"] == {"A": "Alice", "B": "Bob"}
            listening.set()
            call, seen = receive_until(ws, "call")
            events = [m for m in seen if m["type"] == "event"]
            assert {"strike", "ball_ball", "ball_pocket", "shot_end"} <= {e["kind"] for e in events}
            # capture -> websocket on one machine, one monotonic clock; the p99 target is
            # measured by tests/benchmarks/bench_live.py, here a loaded CI box must pass too
            latencies = sorted(e["received_s"] - e["captured_s"] for e in events)
            assert latencies[len(latencies) // 2] < 0.1, latencies
            assert latencies[-1] < 1.0, latencies
            assert call["result"]["foul"] is False
            assert call["result"]["next_shooter"] == "A"
            assert call["result"]["remain_pocketed"] == [3]
            state, _ = receive_until(ws, "state")
            assert state["match"]["rules_state"]["balls_on_table"] == [1, 2, 4, 5, 6, 7, 8, 9, 10]
        health = wait_for(
            lambda: (
                (h := client.get(f"{server.url}/api/health").json())["source"]["state"] == "ended"
                and h
            ),
            timeout_s=10,
            what="the video to end",
        )
        exported = client.get(f"{server.url}/api/matches/{match_id}/export").json()
    assert health["source"]["frames"] == FRAMES
    assert health["source"]["dropped"] == 0
    assert health["source"]["fps"] == pytest.approx(FPS)
    assert pipeline.processed == list(range(FRAMES))
    assert [c["result"]["remain_pocketed"] for c in exported["calls"]] == [[3]]
    assert {e["kind"] for e in exported["events"]} >= {"strike", "shot_end"}
    assert [a["kind"] for a in exported["actions"]] == ["shot"]


def test_file_source_takes_its_own_duration(tmp_path: Path, video: Path) -> None:
    """A file played as a camera is paced at its frame rate, not read as fast as it
    decodes: timed from before the server starts (the capture cannot begin earlier), it
    lasts about the clip's length. The pace is kept from when the pipeline is ready, so the
    frames read before that shorten it a little (measured 1.95 s for this 2 s clip on a
    clean CI run); the upper bound only catches a file played far too slowly (a loaded
    machine drops frames to keep pace, and starting the server takes its own time)."""
    pipeline = break_script()
    started = time.monotonic()
    with serve(_settings(tmp_path, str(video)), pipeline) as server, httpx.Client() as client:
        wait_for(
            lambda: client.get(f"{server.url}/api/health").json()["source"]["state"] == "ended",
            what="the video to end",
        )
        elapsed = time.monotonic() - started
    assert 0.8 * FRAMES / FPS <= elapsed < 2.0 * FRAMES / FPS + 5.0


@pytest.fixture
def api(tmp_path: Path) -> Any:
    with serve(_settings(tmp_path, "none")) as server, httpx.Client() as client:
        yield server, client


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic dGVzdA=="}],
    ids=["missing", "wrong", "not-bearer"],
)
def test_operator_actions_need_the_token(api: Any, headers: dict[str, str]) -> None:
    server, client = api
    _start(server, client)
    before = client.get(f"{server.url}/api/state").json()
    for path, body in [
        ("/api/declare/call", {"ball": 1, "pocket": "foot_left"}),
        ("/api/match", {"players": {"A": "X", "B": "Y"}, "breaker": "B"}),
        ("/api/undo", {}),
        ("/api/rack", {}),
        ("/api/shot", {}),
    ]:
        response = client.post(f"{server.url}{path}", json=body, headers=headers)
        assert response.status_code == 401, (path, response.text)
    assert client.get(f"{server.url}/api/state").json()["match"] == before["match"]


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/declare/call", {"ball": 11, "pocket": "foot_left"}, "ball"),
        ("/api/declare/call", {"ball": 3, "pocket": "corner"}, "pocket"),
        ("/api/declare/call", {"pocket": "foot_left"}, "ball"),
        ("/api/option", {"choice": "pass"}, "choice"),
        ("/api/foul", {"foul": "rude"}, "foul"),
        ("/api/warning", {"player": "C"}, "player"),
        ("/api/match", {"players": {"A": "X"}, "breaker": "A"}, "B"),
        ("/api/shot", {"facts": {"pocketed": [{"ball": 11, "pocket": "foot_left"}]}}, "ball"),
    ],
    ids=[
        "ball-range",
        "pocket-name",
        "ball-missing",
        "choice",
        "foul-name",
        "player",
        "players",
        "shot-ball",
    ],
)
def test_malformed_bodies_get_422_naming_the_field(
    api: Any, path: str, body: Any, field: str
) -> None:
    server, client = api
    _start(server, client)
    response = client.post(f"{server.url}{path}", json=body, headers=server.auth())
    assert response.status_code == 422
    assert any(field in error["loc"] for error in response.json()["detail"])


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        ("/api/option", {"choice": "shoot"}, "no option is pending"),
        ("/api/declare/push-out", {}, "push-out"),
        ("/api/undo", {}, "nothing to undo"),
    ],
    ids=["option-without-option", "push-out-on-break", "undo-with-nothing-done"],
)
def test_rules_refusals_are_409_with_the_engines_reason(
    api: Any, path: str, body: Any, words: str
) -> None:
    server, client = api
    _start(server, client)
    response = client.post(f"{server.url}{path}", json=body, headers=server.auth())
    assert response.status_code == 409
    assert words in response.json()["detail"]


@pytest.mark.parametrize("path", ["/api/undo", "/api/shot"])
def test_actions_without_a_match_are_409(api: Any, path: str) -> None:
    server, client = api
    response = client.post(f"{server.url}{path}", headers=server.auth(), json={})
    assert response.status_code == 409
    assert "no match" in response.json()["detail"]


def test_declarations_reach_every_viewer(api: Any) -> None:
    server, client = api
    _start(server, client)
    with connect(server.ws_url) as one, connect(server.ws_url) as two:
        receive_until(one, "state")
        receive_until(two, "state")
        body = {"ball": 1, "pocket": "foot_right"}
        assert client.post(
            f"{server.url}/api/declare/call", json=body, headers=server.auth()
        ).is_success
        for ws in (one, two):
            state, _ = receive_until(ws, "state")
            assert state["match"]["declarations"]["call"] == {**body, "source": "announced"}
    match = client.get(f"{server.url}/api/matches/1").json()
    assert match["players"] == {"A": "Alice", "B": "Bob"}
    assert client.get(f"{server.url}/api/matches/99").status_code == 404


def test_mjpeg_stream_sends_jpeg_frames(tmp_path: Path, video: Path) -> None:
    pipeline = break_script()
    watching = threading.Event()  # frames are drawn only for a viewer: play once one watches
    make = lambda frame: watching.wait(30) and pipeline  # noqa: E731
    with (
        serve(_settings(tmp_path, str(video)), make_pipeline=make) as server,
        httpx.Client() as client,
        client.stream("GET", f"{server.url}/stream.mjpg", timeout=10) as response,
    ):
        assert response.headers["content-type"].startswith("multipart/x-mixed-replace")
        watching.set()
        data = b""
        for chunk in response.iter_bytes():
            data += chunk
            if data.count(b"\xff\xd9") >= 2:
                break
    assert data.startswith(b"--frame\r\nContent-Type: image/jpeg")
    assert b"\xff\xd8" in data  # JPEG start of image


def test_settings_are_overridden_through_dependency_overrides(api: Any) -> None:
    from referee.live.app import get_settings

    server, client = api
    rotated = server.app.state.settings.model_copy(update={"token": "rotated"})
    server.app.dependency_overrides[get_settings] = lambda: rotated
    try:
        body = {"players": {"A": "X", "B": "Y"}, "breaker": "A"}
        old = client.post(f"{server.url}/api/match", json=body, headers=server.auth())
        new = client.post(
            f"{server.url}/api/match", json=body, headers={"Authorization": "Bearer rotated"}
        )
    finally:
        server.app.dependency_overrides.clear()
    assert old.status_code == 401
    assert new.status_code == 201


def test_a_stranger_gets_401_even_with_a_malformed_body(api: Any) -> None:
    server, client = api
    response = client.post(f"{server.url}/api/declare/call", content=b"{not json")
    assert response.status_code == 401


def test_an_early_warning_is_answered_with_the_engines_words(api: Any) -> None:
    server, client = api
    _start(server, client)
    response = client.post(f"{server.url}/api/warning", json={"player": "B"}, headers=server.auth())
    assert response.status_code == 200
    assert "no effect" in response.json()["result"]["summary"]
    assert response.json()["match"]["rules_state"]["warned"] == {"A": False, "B": False}


@pytest.mark.parametrize("realtime", [True, False], ids=["realtime", "fast"])
def test_a_shot_open_when_the_file_ends_is_still_called(tmp_path: Path, realtime: bool) -> None:
    """A clip that stops while balls still roll (or a ball sits on a lip) gets its last call
    when the file ends, as a review of the same file does; a stop of the service does not."""
    video = write_video(tmp_path / "short.avi", frames=20, fps=10.0)
    pipeline = ScriptedPipeline(at_end=(ScriptedShot(dict(BREAK_FACTS), 5, 19),))
    settings = LiveSettings(source=str(video), db=tmp_path / "live.sqlite3", realtime=realtime)
    pipeline.gate.clear()  # the file waits for the pipeline's first frame, then plays
    with (
        serve(settings, make_pipeline=lambda frame: pipeline.gate.wait(10) and pipeline) as (
            server
        ),
        httpx.Client() as client,
    ):
        _start(server, client)
        with connect(server.ws_url) as ws:
            receive_until(ws, "state")
            pipeline.gate.set()
            end, _ = receive_until(ws, "event", timeout_s=20, where={"kind": "shot_end"})
            call, _ = receive_until(ws, "call", timeout_s=10)
        health = client.get(f"{server.url}/api/health").json()
    assert end["frame"] == 19
    assert call["result"]["remain_pocketed"] == [3]
    assert health["source"]["state"] == "ended"
    assert health["source"]["frames"] == 20


def test_a_pipeline_that_cannot_start_is_told_to_the_operator(tmp_path: Path) -> None:
    """No table found in the picture (a player hides it, a bad calibration): the operator's
    page hears it at once, and once, not only /api/health; and the file plays on so that the
    build is retried on later frames (it used to wait minutes for the first build)."""
    attempts: list[int] = []

    def no_table(frame: Any) -> Any:
        attempts.append(frame.index)
        raise ValueError("no table found in the picture")

    video = write_video(tmp_path / "five_s.avi", frames=75, fps=15.0)
    with serve(_settings(tmp_path, str(video)), make_pipeline=no_table) as server:
        with connect(server.ws_url) as ws:
            alert, _ = receive_until(ws, "alert", timeout_s=10)
            with pytest.raises(TimeoutError):  # the rebuild fails the same way: no repeat
                while True:
                    again = json.loads(ws.recv(timeout=3.0))
                    assert again["type"] != "alert", again
        health = wait_for(
            lambda: (
                (h := httpx.get(f"{server.url}/api/health").json())["source"]["state"] == "ended"
                and h
            ),
            timeout_s=10,
            what="the file to play to its end",
        )
    assert "no table found in the picture" in alert["message"]
    assert health["status"] == "degraded"
    assert health["source"]["frames"] == 75
    assert attempts[0] == 0 and len(attempts) >= 2, attempts
