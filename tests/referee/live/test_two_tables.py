"""Two tables refereed from one machine: one service per table, each with its own database.

A second service given a database another one is using is refused, naming who holds it:
both would otherwise share the database's current match, and a restart of either table
would resume whichever match was started last, on either table.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from referee.live.app import create_app
from referee.live.settings import LiveSettings
from referee.live.store import MatchStore, StoreInUseError
from tests.referee.live.helpers import serve


def _start(url: str, auth: dict[str, str], players: dict[str, str], breaker: str) -> None:
    body = {"players": players, "breaker": breaker}
    httpx.post(f"{url}/api/match", json=body, headers=auth).raise_for_status()


def test_two_tables_keep_their_own_matches_across_restarts(tmp_path: Path) -> None:
    one = LiveSettings(source="none", db=tmp_path / "table1.sqlite3")
    two = LiveSettings(source="none", db=tmp_path / "table2.sqlite3")
    with serve(one) as first, serve(two) as second:
        _start(first.url, first.auth(), {"A": "Ann", "B": "Ben"}, "A")
        _start(second.url, second.auth(), {"A": "Cat", "B": "Dan"}, "B")
        call = {"ball": 1, "pocket": "side_left"}
        httpx.post(f"{first.url}/api/declare/call", json=call, headers=first.auth())
        before = [httpx.get(f"{s.url}/api/state").json()["match"] for s in (first, second)]
    with serve(two) as second, serve(one) as first:  # restarted, in the other order
        after = [httpx.get(f"{s.url}/api/state").json()["match"] for s in (first, second)]
    assert [m["players"]["A"] for m in after] == ["Ann", "Cat"]
    assert after == before
    assert after[0]["declarations"]["call"]["ball"] == 1
    assert after[1]["declarations"]["call"] is None


def test_a_database_in_use_is_refused_naming_its_holder(tmp_path: Path) -> None:
    settings = LiveSettings(source="none", db=tmp_path / "club.sqlite3", token="t")
    holder = rf"in use by .*pid {os.getpid()}.*--db"
    with serve(settings), pytest.raises(StoreInUseError, match=holder):
        create_app(settings)
    create_app(settings).state.runtime.store.close()  # free once the first one stopped


def test_a_closed_store_frees_its_database(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "m.sqlite3")
    with pytest.raises(StoreInUseError):
        MatchStore(tmp_path / "m.sqlite3")
    store.close()
    MatchStore(tmp_path / "m.sqlite3").close()
