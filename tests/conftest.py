"""Fixtures shared across the test packages."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """Let the suite run in one process with pytest-xdist turned off (``-p no:xdist``).

    pyproject.toml's addopts spread the suite over two worker processes with xdist's
    ``--numprocesses``; without xdist that option would be unknown and pytest would refuse to
    start, so it is accepted here and does nothing.
    """
    if not pluginmanager.has_plugin("xdist"):
        parser.getgroup("xdist").addoption(
            "--numprocesses", default=None, help="ignored: pytest-xdist is off (-p no:xdist)"
        )


@pytest.fixture(scope="session")
def truth_review(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], dict[str, Any]]:
    """Review a sample clip with the truth detector, once per session whoever asks.

    The review is `tests.e2e.harness.review_clip`'s (the clip's declarations, judged in a
    worker process where the machine allows): its `tenball eval` result, with ``out_dir``
    (the review's files) and ``judged_in_worker`` added. Treat it as read-only.
    """
    from tests.e2e.harness import review_clip

    done: dict[Path, dict[str, Any]] = {}

    def review(clip: Path) -> dict[str, Any]:
        if clip not in done:
            out_dir = tmp_path_factory.mktemp(f"truth-{clip.name}")
            done[clip] = {**review_clip(clip, out_dir, "truth"), "out_dir": out_dir}
        return done[clip]

    return review
