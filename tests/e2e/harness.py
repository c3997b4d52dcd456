"""Shared by the end-to-end tests and the baseline refresh script.

`review_clip` runs the real review (the same code as `tenball review`) over a sample clip,
with the real detector or with the truth detector, and scores it with `tenball eval`;
`compare` holds a result against a stored baseline.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from calibration.io import load_calibration
from referee.declarations import load_declarations
from referee.evaluate import HEADLINE, evaluate, headline
from referee.review.prefetch import PrefetchSource
from referee.review.session import Review, ReviewOptions
from referee.review.truth_detector import TruthDetector
from vision.sources import open_source

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_videos"
BASELINES = ROOT / "tests" / "baselines"
DETECTORS = ("real", "truth")

SLACK_RATE = 0.01
"""A rate may fall this much (absolute) below its baseline before a test fails."""
SLACK_RELATIVE = 0.25
"""An error measure (mm, frames, switches) may grow this much (relative) above its baseline..."""
SLACK_ABSOLUTE = 1.0
"""...plus this much (absolute), so a baseline of 0 tolerates tiny noise."""


def clips() -> list[Path]:
    """Sample clips that have a video, a calibration and truth, by name."""
    if not SAMPLES.is_dir():
        return []
    return sorted(
        p
        for p in SAMPLES.iterdir()
        if (p / "video.mp4").exists() and (p / "truth" / "shots.jsonl").exists()
    )


def review_clip(clip: Path, out_dir: Path, detector: str) -> dict[str, Any]:
    """Review a clip into `out_dir` and return `tenball eval`'s result."""
    calibration = load_calibration(clip / "calibration.json")
    declarations_file = clip / "declarations.jsonl"
    declarations = load_declarations(declarations_file) if declarations_file.exists() else None
    fake = (
        TruthDetector(clip / "truth" / "tracks.csv", calibration) if detector == "truth" else None
    )
    source = PrefetchSource(open_source(clip / "video.mp4"))
    try:
        review = Review(
            source, calibration, declarations, ReviewOptions(out_dir, progress=False), fake
        )
        summary = review.execute()
    finally:
        source.close()
    result = evaluate(clip, out_dir)
    result["review_summary"] = summary
    result["judged_in_worker"] = review.worker is not None
    return result


def baseline_path(clip: Path, detector: str) -> Path:
    return BASELINES / f"{clip.name}.{detector}.json"


def _higher_is_better() -> dict[str, bool]:
    return {label: better for label, _, better in HEADLINE}


def compare(result: dict[str, Any], baseline: dict[str, Any]) -> list[str]:
    """Headline numbers of `result` that are worse than the baseline beyond the slack."""
    numbers = headline(result)
    better = _higher_is_better()
    failures = []
    for label, floor in baseline["metrics"].items():
        value = numbers.get(label)
        if floor is None or (value is None and better[label] and floor <= 0.0):
            continue  # nothing is worse than a rate of 0 (e.g. no false pockets left at all)
        if value is None:
            failures.append(f"{label}: no value (baseline {floor})")
        elif better[label] and value < floor - SLACK_RATE:
            failures.append(f"{label}: {value:.4f} < baseline {floor:.4f}")
        elif not better[label] and value > floor * (1 + SLACK_RELATIVE) + SLACK_ABSOLUTE:
            failures.append(f"{label}: {value:.3f} > baseline {floor:.3f}")
    return failures


def truth_fingerprint(clip: Path) -> str:
    """SHA-256 of the clip's truth events and shots: a baseline holds only for that truth."""
    digest = hashlib.sha256()
    for name in ("events.jsonl", "shots.jsonl"):
        digest.update((clip / "truth" / name).read_bytes())
    return digest.hexdigest()


def write_baseline(clip: Path, detector: str, result: dict[str, Any]) -> Path:
    path = baseline_path(clip, detector)
    data = {
        "clip": clip.name,
        "truth_sha256": truth_fingerprint(clip),
        "detector": detector,
        "made_with": "python tests/e2e/refresh_baselines.py",
        "metrics": headline(result),
        "review_frames_per_s": result["review_summary"]["frames_per_s"],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path
