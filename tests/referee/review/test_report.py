"""report.html: self-contained, every shot shown, and it renders in a real browser."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from calibration.table import TableSpec
from referee.review.history import Evidence
from referee.review.plot import encode_png, plot_shot
from referee.review.report import ReportInput, ShotView, describe, render_report
from tracking.types import Event, EventKind

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _shot(number: int, foul: bool, review: list[str]) -> dict[str, Any]:
    return {
        "shot": number,
        "rack": 1,
        "frame_strike": 100 * number,
        "frame_end": 100 * number + 80,
        "time_strike_s": number * 1.5,
        "is_break": number == 1,
        "shooter": "A" if number < 3 else "B",
        "facts": {
            "first_object_ball_contacted": 1,
            "cushion_after_first_contact": ["cue", 1],
            "pocketed": [{"ball": 2, "pocket": "foot_left", "frame": 100 * number + 40}],
            "cue_ball_pocketed": foul,
        },
        "call": {
            "foul": foul,
            "fouls": ["F1"] if foul else [],
            "next_shooter": "B",
            "cue_ball_next": "in_hand_anywhere" if foul else "in_position",
            "rack_winner": None,
            "summary": "Foul <F1>: the cue ball dropped." if foul else "Legal: A continues.",
            "reasons": [{"code": "F1", "clause": "Fautes 1", "text": "The cue ball dropped."}],
        },
        "confidence": 0.8 if review else 1.0,
        "review": bool(review),
        "review_reasons": review,
    }


def _plot() -> bytes:
    table = TableSpec()
    path = np.array([[600.0, 635.0], [1500.0, 500.0], [1900.0, 635.0]])
    events = [
        Event(10, 0.1, EventKind.BALL_BALL, (0, 1)),
        Event(20, 0.2, EventKind.BALL_CUSHION, (0,), cushion="foot"),
        Event(30, 0.3, EventKind.BALL_POCKET, (1,), pocket="foot_left"),
    ]
    image = plot_shot(
        table,
        {0: path, 1: path[1:] + 50},
        {0: np.array([0, 10, 20]), 1: np.array([10, 30])},
        events,
    )
    assert image.ndim == 3 and image.shape[1] == 720
    return encode_png(image)


def _jpeg() -> bytes:
    import cv2

    ok, data = cv2.imencode(".jpg", np.full((90, 160, 3), 90, np.uint8))
    assert ok
    return bytes(data.tobytes())


def _report(shots: int = 4) -> str:
    views = tuple(
        ShotView(
            _shot(n, foul=n == 2, review=["facts uncertain (confidence 0.80)"] if n == 3 else []),
            (Evidence(100 * n, "strike", f"strike (frame {100 * n})", _jpeg()),),
            _plot(),
        )
        for n in range(1, shots + 1)
    )
    return render_report(
        ReportInput(
            title="match.mp4",
            players={"A": "Alice", "B": "Bob"},
            summary={
                "frames": 900,
                "fps": 60,
                "frames_per_s": 300,
                "calibration": {"source": "file"},
            },
            shots=views,
        )
    )


def test_report_is_self_contained_and_shows_every_shot() -> None:
    html = _report()
    assert len(re.findall(r'<section class="card" id="shot-\d+">', html)) == 4
    sources = re.findall(r'src="([^"]*)"', html)
    assert sources and all(s.startswith("data:image/") for s in sources)
    assert "http://" not in html and "https://" not in html and "<link" not in html
    assert "Alice (A)" in html and "Bob (B)" in html
    assert "&lt;F1&gt;" in html and "<F1>" not in html  # engine text is escaped
    assert "Check this call" in html and "No declarations file" in html


def test_what_happened_is_said_from_the_facts() -> None:
    lines = describe(_shot(1, foul=True, review=[])["facts"], is_break=False)
    assert lines[0] == "Cue ball hit the 1 first."
    assert "The 2 dropped in foot left." in lines
    assert "The cue ball dropped (scratch)." in lines


def test_a_first_contact_the_camera_could_not_order_is_said_as_a_tie() -> None:
    facts = {"first_object_ball_contacted": 6, "simultaneous_first_contact": [1, 6]}
    lines = describe(facts, is_break=False)
    assert lines[0] == "Cue ball hit the 1 and the 6 too close together to tell which first."


@pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (scripts/setup.sh installs it as root)"
)
def test_a_real_browser_renders_every_shot(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(_report(shots=6))
    common = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
    ]
    dom = subprocess.run(
        [*common, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert len(re.findall(r'id="shot-\d+"', dom)) == 6
    shot = tmp_path / "phone.png"
    subprocess.run(
        [*common, f"--screenshot={shot}", "--window-size=412,2400", page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    import cv2

    image = cv2.imread(str(shot))
    assert image is not None and image.shape[1] == 412
    assert float(image.std()) > 10.0  # not a blank page
