"""Tracking + events + shot facts on the synthetic clips in sample_videos/, from their truth.

For each clip with a ``truth/`` folder, `vision.synthetic.truth_detector.TruthDetector` makes
noisy detections from the truth tracks (pixel noise, misses, false positives, identity
confusion, hidden balls left out); they run through `BallTracker`, `EventDetector` and
`ShotSegmenter`, and the facts are compared with ``truth/shots.jsonl`` (shots matched by
strike frame), the positions with ``truth/tracks.csv``.

Run: ``.venv/bin/python tests/benchmarks/eval_tracking_clips.py [CLIP_DIR ...]``
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from referee.shots import ShotRecord, ShotSegmenter  # noqa: E402
from tracking.events import EventDetector  # noqa: E402
from tracking.tracker import BallTracker  # noqa: E402
from tracking.types import Event, EventKind, TrackStatus  # noqa: E402
from vision.synthetic.truth import read_jsonl, read_tracks  # noqa: E402
from vision.synthetic.truth_detector import TruthDetector, TruthDetectorConfig  # noqa: E402
from vision.types import Frame  # noqa: E402

BLANK = np.zeros((1, 1, 3), np.uint8)


def run_clip(clip: Path, config: TruthDetectorConfig) -> dict[str, Any]:
    """Run one clip; returns its per-shot comparison and track errors."""
    fps = float(json.loads((clip / "synth.json").read_text())["fps"])
    rows = read_tracks(clip / "truth" / "tracks.csv")
    truth_xy: dict[int, dict[int, tuple[float, float]]] = defaultdict(dict)
    for row in rows:
        if row.status in ("on_table", "occluded"):
            truth_xy[row.frame][row.ball] = (row.x_mm, row.y_mm)
    detector = TruthDetector(rows, _calibration(clip), config)
    table = detector.calibration.table
    tracker, events, segmenter = BallTracker(table), EventDetector(table), ShotSegmenter(table)
    shots: list[ShotRecord] = []
    errors, switches = [], 0
    last = max(r.frame for r in rows)
    for index in range(last + 1):
        tracks = tracker.update(
            detector.detect(Frame(BLANK, index, index / fps)), index, index / fps
        )
        for ball, xy, status in zip(tracks.ball, tracks.xy_mm, tracks.status, strict=True):
            true = truth_xy[index].get(int(ball))
            if status != TrackStatus.ON_TABLE or true is None:
                continue
            error = float(np.hypot(xy[0] - true[0], xy[1] - true[1]))
            errors.append(error)
            others = [
                np.hypot(xy[0] - t[0], xy[1] - t[1])
                for b, t in truth_xy[index].items()
                if b != ball
            ]
            switches += int(
                error > table.ball_diameter_mm and min(others, default=1e9) < table.ball_radius_mm
            )
        shots += segmenter.update(events.update(tracks), tracks)
    if segmenter.open_shot_strike is not None:
        shots += segmenter.update([Event(last + 1, (last + 1) / fps, EventKind.SHOT_END)], tracks)
    return {
        "shots": _compare(shots, read_jsonl(clip / "truth" / "shots.jsonl")),
        "errors": errors,
        "switches": switches,
    }


def _calibration(clip: Path) -> Any:
    from calibration.io import load_calibration

    return load_calibration(clip / "calibration.json")


def _compare(mine: list[ShotRecord], truth: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for want in truth:
        match = [s for s in mine if abs(s.frame_strike - want["frame_strike"]) <= 3]
        got = match[0].facts if match else None
        facts = want["facts"]
        entry: dict[str, Any] = {
            "shot": want["shot"],
            "kind": want.get("synthetic_kind"),
            "found": got is not None,
        }
        if got is not None:
            entry["first_ok"] = (
                got["first_object_ball_contacted"] == facts["first_object_ball_contacted"]
            )
            entry["cushion_ok"] = {str(b) for b in got["cushion_after_first_contact"]} == {
                str(b) for b in facts["cushion_after_first_contact"]
            }
            entry["pocketed_got"] = [(p["ball"], p["pocket"], p["frame"]) for p in got["pocketed"]]
            entry["pocketed_want"] = [
                (p["ball"], p["pocket"], p["frame"]) for p in facts["pocketed"]
            ]
            entry["cue_pocket_ok"] = got["cue_ball_pocketed"] == facts["cue_ball_pocketed"]
            entry["off_table_ok"] = sorted(got["off_table"]) == sorted(facts["off_table"]) and (
                got["cue_ball_off_table"] == facts["cue_ball_off_table"]
            )
            entry["disturbed"] = (got["balls_disturbed"], facts["balls_disturbed"])
            if want["is_break"]:
                entry["break_count"] = (
                    got["object_balls_to_cushion_on_break"],
                    facts["object_balls_to_cushion_on_break"],
                )
        out.append(entry)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clips", nargs="*", type=Path)
    parser.add_argument("--noise-px", type=float, default=0.7)
    parser.add_argument("--miss-rate", type=float, default=0.02)
    parser.add_argument("--false-positives", type=float, default=0.05)
    parser.add_argument("--confusion", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    clips = args.clips or sorted(
        p.parent.parent for p in (ROOT / "sample_videos").glob("*/truth/shots.jsonl")
    )
    config = TruthDetectorConfig(
        args.noise_px, args.miss_rate, args.false_positives, args.confusion, args.seed
    )
    all_errors: list[float] = []
    for clip in clips:
        result = run_clip(clip, config)
        all_errors += result["errors"]
        print(
            json.dumps(
                {"clip": clip.name, "switch_frames": result["switches"], "shots": result["shots"]},
                default=int,
            )
        )
    print(
        json.dumps(
            {
                "clips": len(clips),
                "median_error_mm": round(float(np.median(all_errors)), 3) if all_errors else None,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
