"""Fuzzing the live API from its own OpenAPI schema (schemathesis): never a 5xx.

Every operation of the schema is called on a real server on loopback with generated bodies
and parameters, with the operator token and without (then every POST must be 401); bounded
examples keep this short. /stream.mjpg never ends and is left out.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from referee.live.app import create_app
from referee.live.settings import LiveSettings
from tests.referee.live.helpers import RunningServer, serve

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis (dev extra) not installed")
from schemathesis.checks import not_a_server_error  # noqa: E402

TOKEN = "fuzz-token"
# Its own folder per process: the app takes its database's lock, and two test workers
# collecting this module at once must not share one.
_DB = Path(tempfile.mkdtemp(prefix="tenball-fuzz-")) / "unused.sqlite3"
_SPEC = create_app(LiveSettings(source="none", db=_DB, token=TOKEN)).openapi()
schema = schemathesis.openapi.from_dict(_SPEC).exclude(path="/stream.mjpg")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    db = tmp_path_factory.mktemp("fuzz") / "fuzz.sqlite3"
    with serve(LiveSettings(source="none", db=db, token=TOKEN)) as running:
        running.app.state.runtime.referee.start_match({"A": "Ann", "B": "Ben"}, "A")
        yield running


@schema.parametrize()  # type: ignore[untyped-decorator]  # schemathesis is untyped
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
def test_operator_calls_never_get_a_server_error(case: Any, server: RunningServer) -> None:
    response = case.call(base_url=server.url, headers=server.auth(), timeout=10)
    case.validate_response(response, checks=[not_a_server_error])


@schema.parametrize()  # type: ignore[untyped-decorator]  # schemathesis is untyped
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
def test_anonymous_posts_are_refused(case: Any, server: RunningServer) -> None:
    response = case.call(base_url=server.url, timeout=10)
    case.validate_response(response, checks=[not_a_server_error])
    if case.method == "POST":
        assert response.status_code == 401
