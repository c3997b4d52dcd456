"""`tenball serve` as a user runs it: flags, the printed token, clear errors."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.referee.live.helpers import wait_for

TENBALL = [sys.executable, "-c", "from referee.cli import main; raise SystemExit(main())"]
ROOT = Path(__file__).resolve().parents[3]


def _listening_url(lines: Iterator[str]) -> str:
    """The first http://127.0.0.1:PORT with a real port the server printed or logged (with
    `--port 0` the system chose it; a link still saying :0 is not it)."""
    for line in lines:
        found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if found and int(found.group(1)) != 0:
            return found.group(0)
    raise AssertionError("tenball serve never said where it listens")


def test_serve_prints_a_token_and_serves_until_stopped(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [
            *TENBALL,
            "serve",
            "--source",
            "none",
            "--port",
            "0",
            "--db",
            str(tmp_path / "l.db"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        first = process.stdout.readline()  # type: ignore[union-attr]
        assert first.startswith("tenball serve: operator token: ")
        token = first.split(": ")[-1].strip()
        assert len(token) >= 16
        url = _listening_url(iter(process.stdout.readline, ""))  # type: ignore[union-attr]

        def healthy() -> bool:
            try:
                return httpx.get(f"{url}/api/health", timeout=1).is_success
            except httpx.TransportError:
                return False

        wait_for(healthy, timeout_s=30, what="tenball serve to answer")
        body = {"players": {"A": "Ann", "B": "Ben"}, "breaker": "A"}
        assert httpx.post(f"{url}/api/match", json=body).status_code == 401
        auth = {"Authorization": f"Bearer {token}"}
        assert httpx.post(f"{url}/api/match", json=body, headers=auth).status_code == 201
        assert httpx.get(f"{url}/overlay").headers["content-type"].startswith("text/html")
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(15)
    assert (tmp_path / "l.db").exists()


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--calibration", "missing.json"], "--calibration"),
        (["--table", "12ft"], "--table"),
        (["--source", "match.mp4"], "--source match.mp4: video file not found"),
        (["--db", "notes.txt/l.db"], "--db notes.txt/l.db: cannot open the match database"),
    ],
    ids=["missing-calibration", "unknown-table", "missing-video", "db-under-a-file"],
)
def test_bad_inputs_exit_2_naming_the_flag(tmp_path: Path, flags: list[str], words: str) -> None:
    """A mistyped video file used to start a service that retried it for ever, saying
    nothing on the console; a database that cannot be made ended in a traceback."""
    (tmp_path / "notes.txt").write_text("not a folder")
    command = [*TENBALL, "serve", "--source", "none", "--db", str(tmp_path / "l.db")]
    result = subprocess.run(
        [*command, "--port", "0", *flags],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert words in result.stderr
    assert "Traceback" not in result.stderr


def test_a_restart_keeps_the_operator_token(tmp_path: Path) -> None:
    """Without --token the service used to make a new token at each start: after a restart
    (a crash, a reboot) every phone got 401 until someone read the new one off the console.
    The token is now the database's; an explicit --token still wins, and another database
    has its own."""
    from referee.live.app import create_app
    from referee.live.settings import LiveSettings

    def token(db: Path, given: str = "") -> str:
        app = create_app(LiveSettings(source="none", db=db, token=given))
        try:
            return str(app.state.settings.token)
        finally:
            app.state.runtime.store.close()

    first = token(tmp_path / "club.sqlite3")
    assert len(first) >= 16
    assert token(tmp_path / "club.sqlite3") == first
    assert token(tmp_path / "club.sqlite3", given="chosen") == "chosen"
    assert token(tmp_path / "club.sqlite3") == first
    assert token(tmp_path / "table2.sqlite3") != first


def test_the_printed_links_are_ones_a_phone_can_open() -> None:
    """Listening on every address, the links used to read http://0.0.0.0:8000/..., which no
    phone opens; on this machine only (the default), nothing said why the phones could not
    connect."""
    from referee.cli.serve import page_base

    anywhere, said = page_base("0.0.0.0", 8000)
    assert re.fullmatch(r"http://[0-9.]+:8000", anywhere) and "0.0.0.0" not in anywhere
    assert said == ""
    local, note = page_base("127.0.0.1", 8000)
    assert local == "http://127.0.0.1:8000" and "--host 0.0.0.0" in note
    assert page_base("::1", 8000)[0] == "http://[::1]:8000"
    assert page_base("192.168.1.20", 8000) == ("http://192.168.1.20:8000", "")
