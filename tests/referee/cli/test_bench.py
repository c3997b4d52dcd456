"""`tenball bench`: honest throughput numbers (machine, percentiles, CPU, ratio to decode)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.cli import main
from referee.cli.bench import _detect_cpu, _percentiles, _projected_fps

CLIP = Path(__file__).resolve().parents[3] / "sample_videos" / "top_break_green"


@pytest.mark.parametrize(
    ("main_ms", "other_ms", "expected"),
    [(4.0, 3.0, 250.0), (2.0, 6.0, 1000.0 / 6.0), (0.0, 0.0, None)],
    ids=["pipeline-bound", "decode-bound", "nothing-measured"],
)
def test_projection_takes_the_busier_thread(
    main_ms: float, other_ms: float, expected: float | None
) -> None:
    cpu = {"main_thread_ms_per_frame": main_ms, "other_threads_ms_per_frame": other_ms}
    projected = _projected_fps(cpu)
    assert projected == (None if expected is None else pytest.approx(expected, abs=0.1))


def test_percentiles() -> None:
    assert _percentiles([float(v) for v in range(1, 101)]) == {"median": 51.0, "p95": 96.0}
    assert _percentiles([])["median"] != _percentiles([])["median"]  # NaN


def test_bench_reports_machine_percentiles_and_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    if not (CLIP / "video.mp4").is_file():
        pytest.skip("sample clip top_break_green not present")
    argv = ["bench", str(CLIP / "video.mp4"), "--calibration", str(CLIP / "calibration.json")]
    assert main([*argv, "--max-frames", "30", "--truth-detector", str(CLIP), "--json"]) == 0
    numbers = json.loads(capsys.readouterr().out)
    assert numbers["frames"] == 30
    assert numbers["machine"]["cores"] >= 1
    assert numbers["decode_only_fps"] > 0 and numbers["review_fps"] > 0
    ratio = numbers["review_fps"] / numbers["decode_only_fps"]
    assert numbers["ratio_review_to_decode"] == pytest.approx(ratio, abs=0.002)
    detect = numbers["per_frame_ms"]["detect"]
    assert 0 <= detect["median"] <= detect["p95"]
    cpu = numbers["cpu"]
    assert cpu["main_thread_ms_per_frame"] > 0
    # The detector runs on the main thread: its CPU time is part of that thread's.
    assert 0 < cpu["detect_ms_per_frame"] <= cpu["main_thread_ms_per_frame"]
    assert cpu["detect_full_search_ms_mean"] > 0  # the first frame searches the whole table


def test_detect_cpu_splits_hinted_and_full_calls() -> None:
    numbers = _detect_cpu({"hinted": [1.0, 3.0], "full": [10.0]}, frames=3)
    assert numbers == {
        "detect_ms_per_frame": pytest.approx(14.0 / 3.0, abs=1e-3),
        "detect_hinted_ms_mean": 2.0,
        "detect_full_search_ms_mean": 10.0,
    }
    assert _detect_cpu({"hinted": [], "full": []}, frames=0)["detect_ms_per_frame"] == 0.0
