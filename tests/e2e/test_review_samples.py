"""End to end: `tenball review` over the sample clips, scored by `tenball eval` against the
baselines stored in tests/baselines/ (refresh them with `python tests/e2e/refresh_baselines.py`).

The quick clip (top_break_green, else the shortest) runs with the real detector through the
command line, with a real browser looking at the report; its first 90 frames are annotated
(annotation writes a video frame per frame: the whole clip would cost as much as its review).
Every clip runs with the truth detector, which isolates tracking, events, shots and rules
from the detector. The other clip of the README's first command (top_combo10_blue_arm) also
runs with the real detector; the others with the real detector run when TENBALL_E2E_ALL=1
(they take minutes on two cores).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from referee.evaluate import evaluate
from tests.e2e.harness import baseline_path, clips, compare, review_clip, truth_fingerprint

CLIPS = clips()
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _frames(clip: Path) -> int:
    return (clip / "truth" / "tracks.csv").stat().st_size


QUICK_NAME = "top_break_green"
"""The clip sample_videos/README.md names as the quick one; else the shortest is used."""
QUICK = next((c for c in CLIPS if c.name == QUICK_NAME), min(CLIPS, key=_frames, default=None))
README_NAME = "top_combo10_blue_arm"
"""The clip of the README's first command: it runs with the real detector in every CI run."""
OTHERS = [c for c in CLIPS if c != QUICK]
ALWAYS_REAL = [c for c in OTHERS if c.name == README_NAME]
LATER_REAL = [c for c in OTHERS if c.name != README_NAME]
needs_clips = pytest.mark.skipif(not CLIPS, reason="sample_videos/ holds no clip with truth yet")


def _check(result: dict[str, object], clip: Path, detector: str) -> None:
    path = baseline_path(clip, detector)
    if not path.exists():  # a clip added after the baselines were made
        pytest.skip(f"no baseline {path.name} yet: run python tests/e2e/refresh_baselines.py")
    baseline = json.loads(path.read_text())
    assert baseline.get("truth_sha256") == truth_fingerprint(clip), (
        f"{clip.name} changed since {path.name} was made: run python tests/e2e/refresh_baselines.py"
    )
    failures = compare(result, baseline)
    assert not failures, f"{clip.name} ({detector} detector) below baseline:\n" + "\n".join(
        failures
    )


@needs_clips
def test_quick_clip_through_the_command_line(tmp_path: Path) -> None:
    assert QUICK is not None
    out = tmp_path / "review"
    code = main(
        [
            "review",
            str(QUICK / "video.mp4"),
            "--calibration",
            str(QUICK / "calibration.json"),
            "--declarations",
            str(QUICK / "declarations.jsonl"),
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    for name in ("tracks.csv", "events.jsonl", "shots.jsonl", "summary.json", "report.html"):
        assert (out / name).stat().st_size > 0, name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] and summary["frames"] > 0
    _check(evaluate(QUICK, out), QUICK, "real")
    shots = len((out / "shots.jsonl").read_text().splitlines())
    html = (out / "report.html").read_text()
    assert len(re.findall(r'<section class="card" id="shot-\d+">', html)) == shots
    if CHROMIUM is not None:
        dom = subprocess.run(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--dump-dom",
                (out / "report.html").as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        assert len(re.findall(r'id="shot-\d+"', dom)) == shots


@needs_clips
def test_annotated_video_is_written_and_readable(tmp_path: Path) -> None:
    """Annotation (a frame of video written per frame reviewed, the costliest output) runs
    here on the quick clip's first 90 frames, not on the whole clip above."""
    assert QUICK is not None
    args = ["review", str(QUICK / "video.mp4"), "--calibration", str(QUICK / "calibration.json")]
    args += ["--out", str(tmp_path), "--annotate", "--max-frames", "90", "--no-progress"]
    args += ["--truth-detector", str(QUICK)]
    assert main(args) == 0
    import cv2

    capture = cv2.VideoCapture(str(tmp_path / "annotated.mp4"))
    frames = 0
    while capture.read()[0]:
        frames += 1
    capture.release()
    assert frames == 90
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["complete"] and summary["frames"] == 90
    assert not list(tmp_path.glob("*.partial*"))


@needs_clips
@pytest.mark.parametrize("clip", CLIPS, ids=[c.name for c in CLIPS])
def test_truth_detector_keeps_its_baseline(
    clip: Path, truth_review: Callable[[Path], dict[str, Any]]
) -> None:
    _check(truth_review(clip), clip, "truth")


@needs_clips
@pytest.mark.parametrize("clip", ALWAYS_REAL, ids=[c.name for c in ALWAYS_REAL])
def test_readme_clip_with_the_real_detector_keeps_its_baseline(clip: Path, tmp_path: Path) -> None:
    _check(review_clip(clip, tmp_path, "real"), clip, "real")


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("TENBALL_E2E_ALL") != "1",
    reason="the other clips with the real detector take minutes: set TENBALL_E2E_ALL=1",
)
@pytest.mark.parametrize("clip", LATER_REAL, ids=[c.name for c in LATER_REAL])
def test_real_detector_keeps_its_baseline(clip: Path, tmp_path: Path) -> None:
    _check(review_clip(clip, tmp_path, "real"), clip, "real")
