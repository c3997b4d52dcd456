"""`tenball serve` refuses a database another table's service holds, with a clear message."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main
from referee.live.settings import LiveSettings
from tests.referee.live.helpers import serve


def test_serve_with_a_database_in_use_exits_2_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "club.sqlite3"
    with serve(LiveSettings(source="none", db=db, token="t")):
        code = main(["serve", "--source", "none", "--db", str(db), "--port", "0"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("tenball serve: --db: ")
    assert "in use" in err
    assert "Traceback" not in err
