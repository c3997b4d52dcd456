"""A real headless chromium loads the overlay and the operator page and sees a call appear.

Needs Debian's `chromium` package (CI installs it through scripts/setup.sh); skips, saying so,
where it is absent. Screenshots are kept in the test's tmp folder.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import httpx
import pytest

from referee.live.settings import LiveSettings
from tests.referee.live.cdp import Browser, find_chromium
from tests.referee.live.helpers import ScriptedPipeline, break_script, serve, wait_for, write_video
from tracking.types import Event, EventKind

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian package 'chromium')"
)


@pytest.fixture
def browser() -> Iterator[Browser]:
    assert CHROMIUM is not None
    page = Browser(CHROMIUM)
    try:
        yield page
    finally:
        page.close()


def _keep(path: Path) -> None:
    """Copy a screenshot where a person can look at it, when asked to."""
    folder = os.environ.get("TENBALL_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(folder) / path.name)


def test_overlay_shows_the_match_and_animates_a_call_in(tmp_path: Path, browser: Browser) -> None:
    # slow frames: the held call is released by a frame processed after the page is ready,
    # which a loaded machine may take several seconds to reach
    video = write_video(tmp_path / "clip.avi", frames=240, fps=10.0)
    pipeline = break_script(strike=10, end=30)
    pipeline.gate.clear()
    settings = LiveSettings(source=str(video), db=tmp_path / "live.sqlite3", realtime=True)
    with serve(settings, pipeline) as server:
        body = {"players": {"A": "Alice", "B": "Bob"}, "breaker": "A"}
        httpx.post(f"{server.url}/api/match", json=body, headers=server.auth()).raise_for_status()
        browser.navigate(f"{server.url}/overlay")
        browser.wait_for("document.querySelector('#player-A .name').textContent === 'Alice'")
        browser.wait_for("document.querySelector('#player-A').classList.contains('turn')")
        browser.wait_for("document.querySelectorAll('#table-wrap .ball').length === 2",
                         what="the balls on the table diagram")  # fmt: skip
        assert browser.evaluate("document.getElementById('call').classList.contains('hidden')")
        before = browser.evaluate(STATUS)
        pipeline.gate.set()
        browser.wait_for("!document.getElementById('call').classList.contains('hidden')",
                         what="the call to appear")  # fmt: skip
        headline = browser.evaluate("document.getElementById('call-headline').textContent")
        detail = browser.evaluate("document.getElementById('call-detail').textContent")
        browser.wait_for(f"{STATUS}.startsWith('on ')", what="the ball on after the break")
        after = browser.evaluate(STATUS)
        declared = {"ball": 1, "pocket": "foot_right"}
        httpx.post(f"{server.url}/api/declare/call", json=declared, headers=server.auth())
        browser.wait_for(f"{STATUS}.includes('called')", what="the called shot")
        called = browser.evaluate(STATUS)
        browser.evaluate("new Promise(r => setTimeout(r, 600))")  # let the slide-in finish
        shot = _keep_shot(browser, tmp_path / "overlay.png", transparent=True)
    assert before == "Alice to break"
    assert headline == "Legal – continues"
    assert "3" in detail
    # the 1 is the lowest ball left; the shot after the break may be a push-out
    assert after == "on 1push-out available"
    assert called == "on 1push-out availablecalled 1 foot right"
    image = cv2.imread(str(shot), cv2.IMREAD_UNCHANGED)
    assert image is not None
    assert image.shape[2] == 4, "the screenshot has no alpha channel"
    assert image[360, 300, 3] == 0, "the overlay background is not transparent"
    assert image[:, :, 3].max() == 255, "nothing was drawn"


STATUS = "document.getElementById('status').textContent"


def test_overlay_says_fouls_in_words_readable_at_1080p(tmp_path: Path, browser: Browser) -> None:
    """A stream's viewers do not know the foul codes: the headline says what happened; an OBS
    browser source is 1920x1080, where the call's smallest text must stay readable. Once the
    rack is won, the line under the scoreboard says who won it (no ball on, no called shot)."""
    settings = LiveSettings(source="none", db=tmp_path / "live.sqlite3")
    with serve(settings) as server:
        browser.send("Emulation.setDeviceMetricsOverride", width=1920, height=1080,
                     deviceScaleFactor=1, mobile=False)  # fmt: skip
        browser.navigate(f"{server.url}/overlay")
        headline = "r => Tenball.callHeadline({result: {foul: true, fouls: r}}, null)"
        words = browser.evaluate(
            f"[['F2', 'F9'], ['CASSE1_FIRST_CONTACT', 'CASSE1_FOUR_CUSHIONS']].map({headline})"
        )
        sizes = browser.evaluate(
            "['call-detail', 'status', 'rack'].map(id => parseFloat("
            "getComputedStyle(document.getElementById(id)).fontSize))"
        )
        for path, body in [  # a break, then the called 10 down: Alice wins the rack
            ("/api/match", {"players": {"A": "Alice", "B": "Bob"}, "breaker": "A"}),
            ("/api/shot", {"facts": {"first_object_ball_contacted": 1,
                                     "object_balls_to_cushion_on_break": 4,
                                     "pocketed": [{"ball": 3, "pocket": "foot_left"}]}}),
            ("/api/declare/call", {"ball": 10, "pocket": "foot_left"}),
            ("/api/shot", {"facts": {"first_object_ball_contacted": 1,
                                     "cushion_after_first_contact": [1],
                                     "pocketed": [{"ball": 10, "pocket": "foot_left"}]}}),
        ]:  # fmt: skip
            response = httpx.post(f"{server.url}{path}", json=body, headers=server.auth())
            assert response.is_success, response.text
        browser.wait_for(f"{STATUS}.includes('wins')", what="the rack's winner")
        over = browser.evaluate(STATUS)
    assert over == "Alice wins rack 1", "the ball on and the called shot are over with the rack"
    assert words == [
        "FOUL F2 F9 – wrong ball first, ball still moving",
        "FOUL Casse 1 – the break did not hit the 1 first, fewer than four balls to a cushion "
        "on the break",
    ]
    assert min(sizes[:2]) >= 24, sizes  # px at 1080p: readable on a stream
    assert sizes[2] >= 14, sizes


def _keep_shot(browser: Browser, path: Path, transparent: bool = False) -> Path:
    browser.screenshot(path, transparent)
    _keep(path)
    return path


def test_operator_page_declares_a_call_by_tapping(tmp_path: Path, browser: Browser) -> None:
    settings = LiveSettings(source="none", db=tmp_path / "live.sqlite3")
    with serve(settings) as server:
        browser.emulate_phone()
        browser.navigate(f"{server.url}/operator?token={server.token}")
        browser.wait_for("document.getElementById('turn-line').textContent.includes('No match')")
        browser.evaluate(
            "document.getElementById('m-A').value = 'Alice';"
            "document.getElementById('m-B').value = 'Bob';"
            "document.querySelector('[data-start=\"B\"]').click()"
        )
        browser.wait_for("document.querySelector('#p-B').classList.contains('turn')")
        assert browser.evaluate("document.querySelector('#p-B .name').textContent") == "Bob"
        browser.evaluate("document.querySelector('#balls button[data-ball=\"1\"]').click()")
        browser.evaluate(
            "document.querySelector('.pocket[data-pocket=\"foot_right\"]')"
            ".dispatchEvent(new MouseEvent('click', {bubbles: true}))"
        )
        declared = "document.getElementById('declared').textContent"
        browser.wait_for(f"{declared}.includes('1 in foot right')", what="the declared call")
        state = httpx.get(f"{server.url}/api/state").json()
        sizes = browser.evaluate(
            "[...document.querySelectorAll('button')].filter(b => b.offsetParent)"
            ".map(b => Math.min(b.getBoundingClientRect().width, b.getBoundingClientRect().height))"
        )
        _keep_shot(browser, tmp_path / "operator.png")
        browser.evaluate("document.getElementById('undo').click()")
        browser.wait_for(f"{declared} === ''", what="the undone call to leave the page")
        page_without_token = browser.evaluate(
            "fetch('/api/undo', {method: 'POST'}).then(r => r.status)"
        )
    assert state["match"]["declarations"]["call"] == {
        "ball": 1, "pocket": "foot_right", "source": "announced"
    }  # fmt: skip
    assert min(sizes) >= 36, "touch targets must be big enough for a phone"
    assert page_without_token == 401


def test_overlay_shows_a_camera_outage(tmp_path: Path, browser: Browser) -> None:
    def unplugged() -> Any:
        raise OSError("no camera at /dev/video0")

    settings = LiveSettings(source="0", db=tmp_path / "live.sqlite3")
    with serve(settings, break_script(), open_source=unplugged) as server:
        browser.navigate(f"{server.url}/overlay")
        text = browser.wait_for(
            "!document.getElementById('outage').classList.contains('hidden')"
            " && document.getElementById('outage').textContent",
            what="the outage banner",
        )
        _keep_shot(browser, tmp_path / "overlay-outage.png", transparent=True)
    assert "CAMERA LOST" in text and "no camera" in text


def test_operator_corrects_the_last_call_from_the_page(tmp_path: Path, browser: Browser) -> None:
    video = write_video(tmp_path / "clip.avi", frames=60, fps=3.0)  # outlasts a slow page load
    pipeline = break_script(strike=10, end=30)
    pipeline.gate.clear()
    settings = LiveSettings(source=str(video), db=tmp_path / "live.sqlite3", realtime=True)
    with serve(settings, pipeline) as server:
        body = {"players": {"A": "Alice", "B": "Bob"}, "breaker": "A"}
        httpx.post(f"{server.url}/api/match", json=body, headers=server.auth()).raise_for_status()
        browser.navigate(f"{server.url}/operator?token={server.token}")
        browser.wait_for("document.querySelector('#p-A').classList.contains('turn')")
        pipeline.gate.set()
        headline = "document.querySelector('#last-call .headline').textContent"
        browser.wait_for(f"{headline}.includes('Legal')", what="the camera's call")
        browser.evaluate(
            "document.getElementById('correct-panel').open = true;"
            "document.getElementById('c-scratch').checked = true;"
            "document.getElementById('c-reason').value = 'the cue ball dropped';"
            "document.getElementById('correct').click()"
        )
        browser.wait_for(f"{headline}.includes('FOUL F1') && {headline}.includes('corrected')",
                         what="the corrected call")  # fmt: skip
        export = httpx.get(f"{server.url}/api/matches/1/export").json()
    assert export["audit"][0]["correction"]["reason"] == "the cue ball dropped"
    assert [c["superseded"] for c in export["calls"]] == [1, 0]


def test_operator_keeps_an_alert_until_it_is_tapped_away(tmp_path: Path, browser: Browser) -> None:
    """The service came back after stopping during a shot: the operator's page keeps saying
    so (a toast is gone in seconds) until the operator taps it away."""
    settings = LiveSettings(source="none", db=tmp_path / "live.sqlite3")
    strike_only = ScriptedPipeline({10: [Event(10, 1.0, EventKind.STRIKE, (0,))]})
    video = write_video(tmp_path / "clip.avi", frames=20)
    started = threading.Event()  # the file is refereed once the match is there
    make = lambda frame: started.wait(30) and strike_only  # noqa: E731
    with serve(settings.model_copy(update={"source": str(video)}), make_pipeline=make) as server:
        body = {"players": {"A": "Alice", "B": "Bob"}, "breaker": "A"}
        httpx.post(f"{server.url}/api/match", json=body, headers=server.auth()).raise_for_status()
        started.set()
        wait_for(lambda: httpx.get(f"{server.url}/api/matches/1/export").json()["events"],
                 what="the strike to be stored")  # fmt: skip
    with serve(settings) as server:
        browser.navigate(f"{server.url}/operator?token={server.token}")
        alerts = "[...document.querySelectorAll('#alerts .alert span')].map(a => a.textContent)"
        browser.wait_for(f"{alerts}.length === 1", what="the alert on the page")
        kept = browser.evaluate(alerts)
        browser.evaluate("document.querySelector('#alerts .alert button').click()")
        left = browser.evaluate(alerts)
    assert len(kept) == 1 and "stopped during a shot" in kept[0]
    assert left == []


def test_operator_is_asked_which_shot_a_call_tapped_while_rolling_is_for(
    tmp_path: Path, browser: Browser
) -> None:
    """The camera saw a stroke and the balls still roll: a call tapped now may be the rolling
    shot's, entered late, or the next shot's. The page asks, and the answer decides."""
    # 60 s of camera: the shot must still roll when the page is tapped, however loaded the
    # machine (a file's end ends the shot, and with it the question).
    video = write_video(tmp_path / "clip.avi", frames=600, fps=10.0)
    struck = ScriptedPipeline({2: [Event(2, 0.2, EventKind.STRIKE, (0,))]})  # never ends
    settings = LiveSettings(source=str(video), db=tmp_path / "live.sqlite3", realtime=True)
    with serve(settings, struck) as server:
        body = {"players": {"A": "Alice", "B": "Bob"}, "breaker": "A"}
        httpx.post(f"{server.url}/api/match", json=body, headers=server.auth()).raise_for_status()
        wait_for(lambda: httpx.get(f"{server.url}/api/state").json().get("shot_rolling"),
                 what="the strike")  # fmt: skip
        browser.emulate_phone()
        browser.navigate(f"{server.url}/operator?token={server.token}")
        browser.wait_for("document.querySelector('#p-A .name').textContent === 'Alice'")
        declared = "document.getElementById('declared').textContent"
        for ball, pocket, answer in ((1, "foot_right", "ask-this"), (2, "side_left", "ask-next")):
            browser.evaluate(f"document.querySelector('#balls button[data-ball=\"{ball}\"]')"
                             ".click()")  # fmt: skip
            browser.evaluate(
                f"document.querySelector('.pocket[data-pocket=\"{pocket}\"]')"
                ".dispatchEvent(new MouseEvent('click', {bubbles: true}))"
            )
            browser.wait_for("!document.getElementById('ask').classList.contains('hidden')",
                             what="the question")  # fmt: skip
            browser.evaluate(f"document.getElementById('{answer}').click()")
            browser.wait_for(f"{declared}.includes('{ball} in ')", what=f"the call of the {ball}")
        shown = browser.evaluate(declared)
        state = httpx.get(f"{server.url}/api/state").json()["match"]
    assert state["declarations"]["call"]["ball"] == 1
    assert state["next_declarations"]["call"]["ball"] == 2
    assert shown == "call: 1 in foot right · next shot: call: 2 in side left"


def test_overlay_shows_the_race_and_who_won_the_match(tmp_path: Path, browser: Browser) -> None:
    """A match to 2 racks: the scoreboard says so, and once Alice wins her second rack the
    line under it says she won the match, with the score."""
    settings = LiveSettings(source="none", db=tmp_path / "live.sqlite3")
    ten_on_break = {"first_object_ball_contacted": 1, "object_balls_to_cushion_on_break": 4,
                    "pocketed": [{"ball": 10, "pocket": "foot_left"}]}  # fmt: skip
    steps = [
        ("/api/match", {"players": {"A": "Alice", "B": "Bob"}, "breaker": "A", "race_to": 2}),
        ("/api/declare/break-10", {}), ("/api/shot", {"facts": ten_on_break}),
        ("/api/rack", {"breaker": "A"}),
        ("/api/declare/break-10", {}), ("/api/shot", {"facts": ten_on_break}),
    ]  # fmt: skip
    with serve(settings) as server:
        browser.send("Emulation.setDeviceMetricsOverride", width=1920, height=1080,
                     deviceScaleFactor=1, mobile=False)  # fmt: skip
        browser.navigate(f"{server.url}/overlay")
        for path, body in steps:
            response = httpx.post(f"{server.url}{path}", json=body, headers=server.auth())
            assert response.is_success, response.text
        browser.wait_for(f"{STATUS}.includes('match')", what="the match's winner")
        over = browser.evaluate(STATUS)
        rack = browser.evaluate("document.getElementById('rack').textContent")
        score = browser.evaluate("[...'AB'].map(p => document.getElementById('wins-' + p)"
                                 ".textContent)")  # fmt: skip
        _keep_shot(browser, tmp_path / "overlay-match-won.png", transparent=True)
    assert over == "Alice wins the match 2–0"
    assert rack == "rack 2 · race to 2"
    assert score == ["2", "0"]


def test_overlay_says_who_is_on_two_fouls(tmp_path: Path, browser: Browser) -> None:
    """A third foul in a row loses the rack: when Alice comes to the table on two fouls, the
    line under the scoreboard says so, beside her two foul marks."""
    settings = LiveSettings(source="none", db=tmp_path / "live.sqlite3")
    scratch = {"first_object_ball_contacted": 1, "cushion_after_first_contact": ["cue"],
               "cue_ball_pocketed": True}  # fmt: skip
    miss = {"first_object_ball_contacted": 1, "cushion_after_first_contact": [1]}
    steps = [
        ("/api/match", {"players": {"A": "Alice", "B": "Bob"}, "breaker": "A"}),
        ("/api/shot", {"facts": {"first_object_ball_contacted": 1,
                                 "object_balls_to_cushion_on_break": 4,
                                 "pocketed": [{"ball": 3, "pocket": "foot_left"}]}}),
        ("/api/shot", {"facts": scratch}), ("/api/shot", {"facts": scratch}),  # A, then B
        ("/api/shot", {"facts": scratch}), ("/api/warning", {"player": "A"}),  # A's second
        ("/api/shot", {"facts": miss}),  # Bob misses: Alice to play, on two fouls
    ]  # fmt: skip
    with serve(settings) as server:
        browser.navigate(f"{server.url}/overlay")
        for path, body in steps:
            response = httpx.post(f"{server.url}{path}", json=body, headers=server.auth())
            assert response.is_success, response.text
        browser.wait_for(f"{STATUS}.includes('two fouls')", what="the two-foul line")
        status = browser.evaluate(STATUS)
        marks = browser.evaluate("document.querySelectorAll('#player-A .fouls i').length")
        warned = browser.evaluate("document.getElementById('player-A').classList"
                                  ".contains('is-warned')")  # fmt: skip
    assert status == "on 1Alice on two fouls"
    assert marks == 2 and warned
