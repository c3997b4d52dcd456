"""A server killed with SIGKILL mid-match comes back with the match exactly where it was."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

from referee.live.settings import LiveSettings
from tests.referee.live.helpers import (
    BREAK_FACTS,
    RunningServer,
    ScriptedPipeline,
    ScriptedShot,
    receive_until,
    serve,
    wait_for,
    write_video,
)
from tracking.types import Event, EventKind

SERVER = Path(__file__).with_name("server_main.py")
TOKEN = "restart-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@contextmanager
def _server(db: Path, source: str = "none") -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    process = subprocess.Popen(
        [sys.executable, str(SERVER), str(db), "0", TOKEN, source],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    first = process.stdout.readline().decode()  # type: ignore[union-attr]
    if not first.startswith("port "):
        process.kill()
        raise AssertionError(f"server died: {process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
    url = f"http://127.0.0.1:{int(first.split()[1])}"

    def up() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"server died: {process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
        try:
            return httpx.get(f"{url}/api/health", timeout=1).is_success
        except httpx.TransportError:
            return False

    try:
        wait_for(up, timeout_s=30, what="the server to start")
        yield url, process
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(10)


def _post(url: str, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
    response = httpx.post(f"{url}{path}", json=body or {}, headers=AUTH, timeout=5)
    assert response.is_success, response.text
    return response


def test_state_survives_sigkill(tmp_path: Path) -> None:
    db = tmp_path / "match.sqlite3"
    # 20 s of frames: the held break needs a frame after the test opens the gate
    video = write_video(tmp_path / "clip.avi", frames=60, fps=3.0)
    with _server(db, str(video)) as (url, process):
        _post(url, "/api/match", {"players": {"A": "Ann", "B": "Ben"}, "breaker": "B"})
        # the scripted break is judged from the video: B pockets the 3 and continues
        (tmp_path / "match.sqlite3.go").touch()
        wait_for(lambda: httpx.get(f"{url}/api/state").json()["match"]["shots"] == 1,
                 what="the break to be judged")  # fmt: skip
        _post(url, "/api/declare/call", {"ball": 1, "pocket": "side_left"})
        _post(url, "/api/foul", {"foul": "ball_touched"})
        _post(url, "/api/declare/safety")
        _post(url, "/api/undo")  # the safety
        before = httpx.get(f"{url}/api/state").json()
        export_before = httpx.get(f"{url}/api/matches/1/export").json()
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
    assert before["match"]["declarations"]["call"]["ball"] == 1
    assert before["match"]["declarations"]["referee_fouls"] == ["ball_touched"]
    assert "safety_intended" not in before["match"]["declarations"]
    time.sleep(0.1)
    with _server(db) as (url, _process):
        after = httpx.get(f"{url}/api/state").json()
        export_after = httpx.get(f"{url}/api/matches/1/export").json()
    assert after["match_id"] == before["match_id"] == 1
    assert after["match"] == before["match"]
    assert after["match"]["turn"] == "B"
    assert after["match"]["rack_wins"] == {"A": 0, "B": 0}
    assert export_after["actions"] == export_before["actions"]
    assert export_after["calls"] == export_before["calls"]
    assert export_after["events"] == export_before["events"]
    assert {e["kind"] for e in export_after["events"]} >= {"strike", "ball_pocket", "shot_end"}


def test_a_shot_cut_by_a_stop_is_announced_and_can_be_entered_by_hand(tmp_path: Path) -> None:
    """Stopped between a strike and the end of its shot (a kill -9 or a crash: the stop here
    judges nothing either), the service comes back knowing a shot lost its call: every
    viewer that connects is told, until the operator enters the shot (POST /api/shot, judged
    as a camera shot) or the next shot is judged."""
    settings = LiveSettings(source="none", db=tmp_path / "match.sqlite3", realtime=True)
    video = write_video(tmp_path / "clip.avi", frames=100, fps=10.0)
    strike_only = ScriptedPipeline({10: [Event(10, 1.0, EventKind.STRIKE, (0,))]})
    with serve(settings.model_copy(update={"source": str(video)}), strike_only) as server:
        _post_to(server, "/api/match", {"players": {"A": "Ann", "B": "Ben"}, "breaker": "A"})
        wait_for(lambda: any(e["kind"] == "strike" for e in
                             httpx.get(f"{server.url}/api/matches/1/export").json()["events"]),
                 timeout_s=60, what="the strike to be stored")  # fmt: skip
    with serve(settings) as server:
        with connect(server.ws_url) as ws:
            alert, _ = receive_until(ws, "alert")
        before = httpx.get(f"{server.url}/api/health").json()
        facts = {"first_object_ball_contacted": 1, "object_balls_to_cushion_on_break": 4,
                 "pocketed": [{"ball": 3, "pocket": "foot_left"}]}  # fmt: skip
        entered = _post_to(server, "/api/shot", {"facts": facts, "reason": "service restarted"})
        after = httpx.get(f"{server.url}/api/health").json()
        export = httpx.get(f"{server.url}/api/matches/1/export").json()
    assert "stopped during a shot" in alert["message"]
    assert before["interrupted_shot"]["kind"] == "strike"
    assert after["interrupted_shot"] is None
    call = entered.json()["call"]
    assert call["result"]["foul"] is False and call["result"]["next_shooter"] == "A"
    assert entered.json()["match"]["rules_state"]["balls_on_table"] == [1, 2, 4, 5, 6, 7, 8, 9, 10]
    shot = export["actions"][-1]
    assert shot["kind"] == "shot" and shot["payload"]["source"] == "operator"
    assert shot["payload"]["facts"]["cue_ball_pocketed"] is False


def _post_to(server: RunningServer, path: str, body: dict[str, Any]) -> httpx.Response:
    response = httpx.post(f"{server.url}{path}", json=body, headers=server.auth(), timeout=5)
    assert response.is_success, response.text
    return response


def test_alerts_stay_until_dismissed_across_restarts_and_pages(tmp_path: Path) -> None:
    """An alert (here a camera shot seen before any match) is kept by the service: a page
    opened later, or after a restart, still shows it; OK on one page removes it from every
    page and for good."""
    settings = LiveSettings(source="none", db=tmp_path / "match.sqlite3", realtime=True)
    video = write_video(tmp_path / "clip.avi", frames=20, fps=20.0)
    no_match = ScriptedPipeline(shots={3: ScriptedShot(dict(BREAK_FACTS), 1, 3)})
    no_match.gate.set()
    camera = settings.model_copy(update={"source": str(video)})
    with serve(camera, no_match) as server, connect(server.ws_url) as ws:
        first, _ = receive_until(ws, "alert")
    with serve(settings) as server:
        state = httpx.get(f"{server.url}/api/state").json()
        with connect(server.ws_url) as page, connect(server.ws_url) as other:
            again, _ = receive_until(page, "alert")
            receive_until(other, "alert")
            _post_to(server, f"/api/alerts/{again['id']}/dismiss", {})
            gone, _ = receive_until(other, "alert_dismissed")
        refused = httpx.post(f"{server.url}/api/alerts/{again['id']}/dismiss",
                             headers=server.auth())  # fmt: skip
    with serve(settings) as server:
        after = httpx.get(f"{server.url}/api/state").json()
    assert first["message"] == "shot seen but no match started"
    assert [a["message"] for a in state["alerts"]] == [first["message"]]
    assert again["id"] == first["id"] == gone["id"]
    assert refused.status_code == 404
    assert after["alerts"] == []
