"""The compiled kernels' warm-up (`vision.kernels.warm_up_in_background`, started when a
detector is built) loads exactly the signatures a detector's searches then call: a real
sample frame searched whole and then through the tracker's hints adds none (a warm-up call
with other argument types would compile a specialization no search uses, seconds of CPU,
and leave the searches to load theirs themselves), and the warm-up has left none unused.

Runs in a process of its own: the warm-up happens once a process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vision import kernels

pytestmark = pytest.mark.skipif(not kernels.compiled(), reason="numba is not installed")

ROOT = Path(__file__).resolve().parents[2]
CLIP = ROOT / "sample_videos" / "top_break_green"

_SCRIPT = r"""
import json, sys
from calibration.io import load_calibration
from vision import centre_kernels, confidence_kernels, kernels, peak_kernels, point_kernels
from vision.detector import BallDetector
from vision.sources import VideoFileSource

def signatures():
    return {
        f"{module.__name__}.{name}": sorted(str(s) for s in kernel.signatures)
        for module in (kernels, peak_kernels, point_kernels, confidence_kernels, centre_kernels)
        for name, kernel in module._compiled.items()
    }

clip = sys.argv[1]
detector = BallDetector(load_calibration(clip + "/calibration.json"))
kernels.wait_for_warm_up()
warmed = signatures()
source = VideoFileSource(clip + "/video.mp4")
first, second = source.read(), source.read()
source.close()
found = detector.detect(first)
detector.detect(second, found.xy_px.astype(float) + 2.0)
print(json.dumps({"warmed": warmed, "searched": signatures(), "balls": len(found.xy_px)}))
"""


def test_warm_up_loads_the_signatures_the_searches_use() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(CLIP)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    numbers = json.loads(done.stdout.strip().splitlines()[-1])
    assert numbers["balls"] >= 9  # the rack was searched, not an empty frame
    warmed, searched = numbers["warmed"], numbers["searched"]
    assert warmed == searched
    # Every kernel a search calls from Python was loaded before the first search.
    called = (
        "vision.kernels._refine_centres",
        "vision.kernels._ball_pixels",
        "vision.peak_kernels._ratio_peaks",
        "vision.point_kernels._map_at",
        "vision.point_kernels._tile_of",
        "vision.point_kernels._cut_distance",
        "vision.confidence_kernels._confidence_parts",
        "vision.confidence_kernels._rim_shares",
    )
    assert all(warmed.get(name) for name in called), warmed
