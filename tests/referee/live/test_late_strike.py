"""A call tapped after the stroke but before the camera is sure of it (the event detector
reports a strike a few frames late) is for the next shot, as one tapped while the balls roll.

The camera here gives its frames only when the test lets it, and the pipeline reports the
strike only when the test opens its gate: the stroke's frame is captured between the two
taps whatever the machine's load, and the strike reaches the service after both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from referee.live.rules_backend import EngineRules
from referee.live.service import LiveReferee
from referee.live.settings import LiveSettings
from referee.live.store import MatchStore
from tests.referee.live.cdp import Browser
from tests.referee.live.helpers import (
    BREAK_FACTS,
    ScriptedPipeline,
    ScriptedShot,
    SteppedCamera,
    break_script,
    serve,
    wait_for,
)
from tests.referee.live.test_browser import CHROMIUM, browser  # noqa: F401 (the fixture)
from tracking.types import Event, EventKind

PLAYERS = {"A": "Alice", "B": "Bob"}
ONE_DOWN = {"first_object_ball_contacted": 1, "cushion_after_first_contact": [],
            "pocketed": [{"ball": 1, "pocket": "foot_left"}]}  # fmt: skip
"""A's shot after the break: the 1 down in the foot left pocket."""


def _post(server: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = httpx.post(f"{server.url}{path}", json=body, headers=server.auth(), timeout=30)
    assert response.is_success, response.text
    reply: dict[str, Any] = response.json()
    return reply


def _processed_up_to(server: Any, frame: int) -> bool:
    health = httpx.get(f"{server.url}/api/health", timeout=30).json()
    return (health["pipeline"]["last_frame"] or -1) >= frame


def _judged(server: Any, shots: int) -> dict[str, Any] | None:
    state: dict[str, Any] = httpx.get(f"{server.url}/api/state", timeout=30).json()
    return state if state["match"]["shots"] == shots else None


def test_a_call_tapped_after_the_stroke_before_the_camera_said_so_is_for_the_next_shot(
    tmp_path: Path,
) -> None:
    """Alice called the 1 in the foot left, struck (frame 10), and the operator tapped her
    next call (the 2 in the side) before the camera reported the strike. The 1 went down where
    called: Alice plays on, with the 2 called for her next shot. Before, the second call
    replaced the first for the rolling shot: the 1 down in an uncalled pocket."""
    camera = SteppedCamera()
    pipeline = break_script(strike=10, end=30)  # its gate holds the strike until opened
    pipeline.shots[30].facts = dict(ONE_DOWN)
    settings = LiveSettings(source="camera", db=tmp_path / "live.sqlite3")
    with serve(settings, pipeline, open_source=lambda: camera) as server, camera.plugged():
        _post(server, "/api/match", {"players": PLAYERS, "breaker": "A"})
        _post(server, "/api/shot", {"facts": BREAK_FACTS, "reason": "break before the camera"})
        camera.allow(5)
        wait_for(lambda: _processed_up_to(server, 4), what="frame 4")
        before = _post(server, "/api/declare/call", {"ball": 1, "pocket": "foot_left"})
        camera.allow(13)  # the stroke (frame 10) is captured, not yet reported
        wait_for(lambda: _processed_up_to(server, 12), what="frame 12")
        after = _post(server, "/api/declare/call", {"ball": 2, "pocket": "side_left"})
        pipeline.gate.set()
        camera.allow(40)
        state = wait_for(lambda: _judged(server, 2), what="the shot's call")
        match = state["match"]
        export = httpx.get(f"{server.url}/api/matches/1/export", timeout=30).json()
    assert before["for_next_shot"] is False and after["for_next_shot"] is False
    call = match["last_call"]
    assert call["declarations"]["call"]["ball"] == 1
    assert call["result"]["foul"] is False and call["result"]["next_shooter"] == "A"
    assert match["declarations"]["call"] == {"ball": 2, "pocket": "side_left",
                                             "source": "announced"}  # fmt: skip
    moved = [a for a in export["audit"] if a["kind"] == "moved_to_next_shot"]
    assert len(moved) == 1 and moved[0]["strike"]["frame"] == 10
    assert [m["payload"]["ball"] for m in moved[0]["moved"]] == [2]


def test_only_the_taps_after_the_stroke_move_and_a_restart_keeps_them(tmp_path: Path) -> None:
    """On the referee itself, with its clock: taps before the stroke's capture stay for the
    rolling shot, taps after it move (an undone one stays undone), and the match a restart
    replays is the same."""
    now = [0.0]
    published: list[dict[str, Any]] = []
    store = MatchStore(tmp_path / "m.sqlite3")
    referee = LiveReferee(store, EngineRules(), published.append, clock=lambda: now[0])
    referee.start_match(PLAYERS, "A")
    referee.enter_shot({"facts": BREAK_FACTS})
    now[0] = 1.0
    referee.act("call", {"ball": 1, "pocket": "foot_left"})
    now[0] = 2.5  # the stroke's frame was captured at 2.0
    referee.act("safety", {})
    referee.act("clear_declarations", {})
    referee.undo()  # the clear: undone before the camera spoke
    referee.act("call", {"ball": 2, "pocket": "side_left"})
    strike = {"frame": 60, "time_s": 2.0, "kind": "strike", "balls": ["cue"]}
    referee.on_event(strike, happened_s=2.0)
    assert referee.view is not None
    assert referee.view.declarations["call"]["ball"] == 1
    assert not referee.view.declarations.get("safety_intended")
    later = referee.view.next_declarations
    assert later is not None and later["call"]["ball"] == 2 and later["safety_intended"]
    told = [m for m in published if m["type"] == "moved_to_next_shot"][-1]
    assert [m["kind"] for m in told["moved"]] == ["safety", "call"]
    before = referee.state_message()
    store.close()
    again = LiveReferee(MatchStore(tmp_path / "m.sqlite3"), EngineRules(), lambda m: None)
    assert again.resume() and again.state_message()["match"] == before["match"]


@pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian package 'chromium')"
)
@pytest.mark.parametrize("answered_on", ["this page", "another operator's"])
def test_the_operator_page_asks_and_takes_a_moved_call_back_for_the_rolling_shot(
    tmp_path: Path,
    browser: Browser,  # noqa: F811 (the fixture)
    answered_on: str,
) -> None:
    """The call tapped on the page after the stroke, before the camera said so, is moved to
    the next shot: the page asks which shot it was for, as for a call tapped while the balls
    roll, and 'the shot rolling now' makes it the rolling shot's (and not the next one's).
    Answered on another operator's page, the question leaves this one."""
    camera = SteppedCamera()
    strike = {10: [Event(10, 10 / 30, EventKind.STRIKE, (0,))]}
    pipeline = ScriptedPipeline(strike, {100_000: ScriptedShot(dict(ONE_DOWN), 10, 100_000)})
    settings = LiveSettings(source="camera", db=tmp_path / "live.sqlite3")
    with serve(settings, pipeline, open_source=lambda: camera) as server, camera.plugged():
        _post(server, "/api/match", {"players": PLAYERS, "breaker": "A"})
        _post(server, "/api/shot", {"facts": BREAK_FACTS, "reason": "break before the camera"})
        browser.emulate_phone()
        browser.navigate(f"{server.url}/operator?token={server.token}")
        browser.wait_for("document.querySelector('#p-A .name').textContent === 'Alice'")
        camera.allow(13)  # the stroke (frame 10) is captured, not yet reported
        wait_for(lambda: _processed_up_to(server, 12), what="frame 12")
        browser.evaluate("document.querySelector('#balls button[data-ball=\"2\"]').click()")
        browser.evaluate("document.querySelector('.pocket[data-pocket=\"side_left\"]')"
                         ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")  # fmt: skip
        declared = "document.getElementById('declared').textContent"
        browser.wait_for(f"{declared} === 'call: 2 in side left'", what="the call, at rest")
        pipeline.gate.set()
        camera.allow(40)
        browser.wait_for("!document.getElementById('ask').classList.contains('hidden')",
                         what="the question")  # fmt: skip
        asked = browser.evaluate("document.querySelector('#ask span').textContent")
        moved = browser.evaluate(declared)
        if answered_on == "this page":
            browser.evaluate("document.getElementById('ask-this').click()")
        else:  # the page's question leaves once answered elsewhere
            _post(server, "/api/declare/clear?for_shot=next", {})
            _post(server, "/api/declare/call?for_shot=this", {"ball": 2, "pocket": "side_left"})
        browser.wait_for(f"{declared} === 'call: 2 in side left'", what="the call taken back")
        browser.wait_for("document.getElementById('ask').classList.contains('hidden')",
                         what="the question gone")  # fmt: skip
        state = httpx.get(f"{server.url}/api/state", timeout=30).json()
    assert asked.startswith("Tapped after the stroke: call: 2 in side left")
    assert moved == "next shot: call: 2 in side left"
    assert state["shot_rolling"] is True
    assert state["match"]["declarations"]["call"]["ball"] == 2
    assert not (state["match"]["next_declarations"] or {}).get("call")


def test_a_strike_on_a_frame_not_analysed_is_timed_from_the_picture() -> None:
    """The machine behind, the stroke's frame was skipped: its capture is the reporting
    frame's, less the picture's time between them."""
    from referee.live.runtime import captured_when
    from referee.live.worker import FrameOutput

    output = FrameOutput(frame=20, time_s=2.0, captured_s=100.0)
    assert captured_when({"frame": 14, "time_s": 1.5}, output) == pytest.approx(99.5)
    assert captured_when({"frame": 14}, output) == pytest.approx(100.0)
