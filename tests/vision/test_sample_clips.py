"""The detector on the rendered sample clips (sample_videos/), against their truth.

Every 10th frame of each clip; balls on the table in the truth are the ones to find. The
top-camera clips meet issue 4's targets; the angled ones are held to the baseline measured
when this test was written (a far rack seen from a low corner overlaps in the image).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.benchmarks.bench_detector import evaluate_clip

CLIPS = Path(__file__).resolve().parents[2] / "sample_videos"

TARGETS = {
    # clip: (recall, precision, identity, median centre error px)
    "top_break_green": (0.995, 0.995, 0.99, 1.0),
    "top_combo10_blue_arm": (0.98, 0.98, 0.99, 1.0),
    "broadcast_scratch_red_tv": (0.85, 0.93, 0.98, 1.0),
    "corner_offtable_grey": (0.93, 0.85, 0.87, 1.1),
}


@pytest.mark.slow
@pytest.mark.parametrize("clip", list(TARGETS), ids=list(TARGETS))
def test_sample_clip_detection(clip: str) -> None:
    folder = CLIPS / clip
    if not (folder / "truth" / "tracks.csv").is_file() or not (folder / "video.mp4").is_file():
        pytest.skip(f"sample clip {clip} not present")
    result = evaluate_clip(folder, every=10)
    recall, precision, identity, error = TARGETS[clip]
    assert result["recall"] >= recall, result
    assert result["precision"] >= precision, result
    assert result["identity"] >= identity, result
    assert result["median_centre_error_px"] <= error, result
