"""The camera goes down during a shot and the operator enters that shot by hand: when the
picture comes back and the camera's pipeline ends its own version of the shot, that version
is not judged a second time (the match would run a shot ahead)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from referee.live.settings import LiveSettings
from tests.referee.live.helpers import BREAK_FACTS, SteppedCamera, break_script, serve, wait_for

PLAYERS = {"A": "Alice", "B": "Bob"}


def _get(server: Any, path: str) -> dict[str, Any]:
    reply: dict[str, Any] = httpx.get(f"{server.url}{path}", timeout=30).json()
    return reply


def _set_aside(server: Any) -> bool:
    audit = _get(server, "/api/matches/1/export")["audit"]
    return any(a["kind"] == "replaced_by_entered_shot" for a in audit)


def test_a_shot_entered_while_the_camera_was_down_is_not_judged_again(tmp_path: Path) -> None:
    """The break is struck, the camera drops, the operator enters the break (the 3 down).
    The camera comes back and its pipeline ends the break: it is set aside (kept in the
    export, the operator told), where before it was judged as the next shot, Alice's."""
    camera = SteppedCamera()
    pipeline = break_script(strike=10, end=30)
    pipeline.gate.set()  # events as they come
    settings = LiveSettings(source="camera", db=tmp_path / "live.sqlite3")
    with serve(settings, pipeline, open_source=lambda: camera) as server, camera.plugged():
        auth = server.auth()
        body = {"players": PLAYERS, "breaker": "A"}
        httpx.post(f"{server.url}/api/match", json=body, headers=auth).raise_for_status()
        camera.allow(16)  # the break is struck (frame 10), then the camera drops
        wait_for(lambda: _get(server, "/api/state").get("shot_rolling"), what="the strike")
        wait_for(lambda: (_get(server, "/api/health")["pipeline"]["last_frame"] or 0) >= 15,
                 what="frame 15")  # fmt: skip
        camera.plug(False)
        wait_for(lambda: _get(server, "/api/health")["source"]["state"] == "reconnecting",
                 what="the outage")  # fmt: skip
        entered = httpx.post(f"{server.url}/api/shot", headers=auth, timeout=30,
                             json={"facts": BREAK_FACTS, "reason": "camera down"})  # fmt: skip
        assert entered.is_success, entered.text
        rolling_after_entry = entered.json()["shot_rolling"]
        camera.plug(True)
        camera.allow(60)  # back: the pipeline ends its break at frame 30
        wait_for(lambda: (_get(server, "/api/health")["pipeline"]["last_frame"] or 0) >= 59,
                 what="frame 59")  # fmt: skip
        wait_for(lambda: _set_aside(server), what="the camera's break set aside")
        state = _get(server, "/api/state")
    assert any("entered by hand" in a["message"] for a in state["alerts"])
    state = state["match"]
    assert rolling_after_entry is False
    assert state["shots"] == 1 and state["turn"] == "A"  # the 3 down on a legal break
    assert state["last_call"]["facts"]["pocketed"] == [{"ball": 3, "pocket": "foot_left"}]
