"""The OBS overlay before any match: a stream set up before the players come showed a
placeholder scoreboard ("A 0–0 B, rack 1"); it shows nothing until a match starts."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from referee.live.settings import LiveSettings
from tests.referee.live.cdp import Browser
from tests.referee.live.helpers import serve
from tests.referee.live.test_browser import CHROMIUM, browser  # noqa: F401 (the fixture)

SHOWN = "getComputedStyle(document.getElementById('top')).display !== 'none'"


@pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian package 'chromium')"
)
def test_the_overlay_shows_no_scoreboard_until_a_match_starts(
    tmp_path: Path,
    browser: Browser,  # noqa: F811 (the fixture)
) -> None:
    settings = LiveSettings(source="none", db=tmp_path / "live.sqlite3", token="t")
    with serve(settings) as server:
        browser.send("Emulation.setDeviceMetricsOverride", width=1920, height=1080,
                     deviceScaleFactor=1, mobile=False)  # fmt: skip
        browser.navigate(f"{server.url}/overlay")
        browser.wait_for("document.getElementById('top').classList.contains('hidden')",
                         what="the state of no match")  # fmt: skip
        before = browser.evaluate(SHOWN)
        body = {"players": {"A": "Alice", "B": "Bob"}, "breaker": "A"}
        httpx.post(f"{server.url}/api/match", json=body, headers=server.auth()).raise_for_status()
        browser.wait_for(SHOWN, what="the scoreboard")
        name = browser.evaluate("document.querySelector('#player-A .name').textContent")
    assert before is False and name == "Alice"
