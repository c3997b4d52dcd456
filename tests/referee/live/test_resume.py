"""A new match started by mistake does not lose the match being played: the operator goes
back to it (POST /api/matches/{id}/resume, the page's 'Back to the previous match'), and a
restart resumes the match gone back to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from referee.live.settings import LiveSettings
from tests.referee.live.cdp import Browser
from tests.referee.live.helpers import BREAK_FACTS, RunningServer, serve
from tests.referee.live.test_browser import CHROMIUM, browser  # noqa: F401 (the fixture)


def _post(server: RunningServer, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
    return httpx.post(f"{server.url}{path}", json=body or {}, headers=server.auth(), timeout=30)


def test_going_back_to_the_match_a_new_one_replaced(tmp_path: Path) -> None:
    settings = LiveSettings(source="none", db=tmp_path / "club.sqlite3", token="t")
    with serve(settings) as server:
        _post(server, "/api/match", {"players": {"A": "Alice", "B": "Bob"}, "breaker": "A"})
        _post(server, "/api/shot", {"facts": BREAK_FACTS, "reason": "break"})
        _post(server, "/api/declare/call", {"ball": 1, "pocket": "side_left"})
        before = httpx.get(f"{server.url}/api/state").json()["match"]
        again = {"players": {"A": "Player A", "B": "Player B"}, "breaker": "A"}
        _post(server, "/api/match", again)  # by mistake
        stranger = httpx.post(f"{server.url}/api/matches/1/resume")
        missing = _post(server, "/api/matches/9/resume")
        back = _post(server, "/api/matches/1/resume")
    with serve(settings) as server:
        restarted = httpx.get(f"{server.url}/api/state").json()
    assert stranger.status_code == 401 and missing.status_code == 404
    assert back.status_code == 200 and back.json()["match_id"] == 1
    assert back.json()["match"] == before  # the call for the next shot included
    assert restarted["match_id"] == 1 and restarted["match"] == before


@pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian package 'chromium')"
)
def test_the_page_goes_back_to_the_previous_match(
    tmp_path: Path,
    browser: Browser,  # noqa: F811 (the fixture)
) -> None:
    settings = LiveSettings(source="none", db=tmp_path / "club.sqlite3", token="t")
    with serve(settings) as server:
        _post(server, "/api/match", {"players": {"A": "Alice", "B": "Bob"}, "breaker": "A"})
        _post(server, "/api/shot", {"facts": BREAK_FACTS, "reason": "break"})
        _post(server, "/api/match", {"players": {"A": "Ann", "B": "Ben"}, "breaker": "B"})
        browser.emulate_phone()
        browser.navigate(f"{server.url}/operator?token={server.token}")
        browser.wait_for("document.querySelector('#p-A .name').textContent === 'Ann'")
        browser.evaluate("document.getElementById('previous-match').click()")
        browser.wait_for("document.querySelector('#p-A .name').textContent === 'Alice'",
                         what="match 1 back on the page")  # fmt: skip
        current = httpx.get(f"{server.url}/api/matches", timeout=30).json()["current"]
    assert current == 1
