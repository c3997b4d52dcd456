"""Accuracy of tracking + events + shot facts on pooltool-played synthetic clips (no render).

For each seed, `vision.synthetic.clip.build_scene` plans and plays a rack with pooltool; the
truth rows of every frame become noisy detections (position noise, misses, hidden balls
left out, class probabilities with confusion between two balls), which run through
`BallTracker`, `EventDetector` and `ShotSegmenter`. The shot facts are compared with the
truth facts, shot by shot (matched by strike frame).

Run: ``.venv/bin/python tests/benchmarks/eval_tracking_synthetic.py --seeds 0 1 2``
(each seed takes about half a minute of physics; needs the ``synth`` extra).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from calibration.table import TableSpec
from referee.shots import ShotRecord, ShotSegmenter
from tracking.events import EventDetector
from tracking.tracker import BallTracker
from tracking.types import TrackSet
from vision.types import NUM_CLASSES, Detections

SHOTS = ("break", "pot", "pot-with-others", "wrong-ball", "no-cushion", "scratch", "safety")


def noisy_detections(
    rows: list[Any], rng: np.random.Generator, args: argparse.Namespace
) -> Detections:
    """Detections of the visible balls of one frame's truth rows."""
    seen = [r for r in rows if r.status == "on_table" and rng.random() >= args.miss_rate]
    n = len(seen)
    xy = np.array([[r.x_mm, r.y_mm] for r in seen]).reshape(n, 2)
    xy = xy + rng.normal(0.0, args.noise_mm, (n, 2))
    prob = np.full((n, NUM_CLASSES), 0.01)
    for i, r in enumerate(seen):
        prob[i, r.ball] = args.true_prob
        prob[i, (r.ball + 1) % NUM_CLASSES] += 1.0 - args.true_prob - 0.1
    prob /= prob.sum(axis=1, keepdims=True)
    uv = np.array([[r.u_px, r.v_px] for r in seen]).reshape(n, 2)
    order = rng.permutation(n)
    return Detections(
        xy_px=uv[order].astype(np.float32),
        xy_mm=xy[order].astype(np.float32),
        radius_px=np.full(n, 10.0, np.float32),
        confidence=np.full(n, 0.95, np.float32),
        class_prob=prob[order].astype(np.float32),
    )


def score_tracks(
    trackset: TrackSet, rows: list[Any], diameter: float, tally: dict[str, Any]
) -> None:
    truth = {
        r.ball: np.array([r.x_mm, r.y_mm]) for r in rows if r.status in ("on_table", "occluded")
    }
    for ball, xy, status in zip(trackset.ball, trackset.xy_mm, trackset.status, strict=True):
        if ball not in truth or status != "on_table":
            continue
        error = float(np.linalg.norm(xy - truth[ball]))
        tally["errors"].append(error)
        if error > 2 * diameter and any(
            np.linalg.norm(xy - t) < diameter for b, t in truth.items() if b != ball
        ):
            tally["switch_frames"] += 1


def compare(shot: ShotRecord, truth: dict[str, Any], tally: dict[str, Any]) -> None:
    mine, want = shot.facts, truth["facts"]
    tally["shots"] += 1
    tally["first_ok"] += mine["first_object_ball_contacted"] == want["first_object_ball_contacted"]
    same_cushions = {str(b) for b in mine["cushion_after_first_contact"]} == {
        str(b) for b in want["cushion_after_first_contact"]
    }
    tally["cushion_ok"] += same_cushions
    if truth["is_break"]:
        tally["breaks"] += 1
        got, exp = (
            mine.get("object_balls_to_cushion_on_break"),
            want["object_balls_to_cushion_on_break"],
        )
        tally["break_count_ok"] += got == exp
        tally["four_ok"] += (got is not None and got >= 4) == (exp >= 4)
    mine_p = {(p["ball"], p["pocket"]): p["frame"] for p in mine["pocketed"]}
    want_p = {(p["ball"], p["pocket"]): p["frame"] for p in want["pocketed"]}
    tally["pocket_tp"] += len(mine_p.keys() & want_p.keys())
    tally["pocket_fp"] += len(mine_p.keys() - want_p.keys())
    tally["pocket_fn"] += len(want_p.keys() - mine_p.keys())
    tally["pocket_frame_errors"] += [
        abs(mine_p[k] - want_p[k]) for k in mine_p.keys() & want_p.keys()
    ]
    tally["cue_pocket_ok"] += mine["cue_ball_pocketed"] == want["cue_ball_pocketed"]
    if not (
        same_cushions and mine["first_object_ball_contacted"] == want["first_object_ball_contacted"]
    ):
        tally["mismatches"].append(
            {
                "shot": truth["shot"],
                "kind": truth.get("synthetic_kind"),
                "mine": mine,
                "truth": want,
            }
        )


def run_seed(seed: int, args: argparse.Namespace, tally: dict[str, Any]) -> None:
    from vision.synthetic.clip import ClipConfig, build_scene

    config = ClipConfig(
        shots=tuple(args.shots), seed=seed, fps=args.fps, table=args.table, camera="top"
    )
    scene = build_scene(config)
    table: TableSpec = scene.plan.table
    rng = np.random.default_rng(seed + 1000)
    tracker, detector, segmenter = BallTracker(table), EventDetector(table), ShotSegmenter(table)
    shots: list[ShotRecord] = []
    for index in range(scene.timeline.frame_count):
        frame = scene.frame(index)
        trackset = tracker.update(
            noisy_detections(list(frame.rows), rng, args), index, frame.time_s
        )
        score_tracks(trackset, list(frame.rows), table.ball_diameter_mm, tally)
        shots += segmenter.update(detector.update(trackset), trackset)
    truths = [s.record for s in scene.shot_records()]
    for truth in truths:
        match = [s for s in shots if abs(s.frame_strike - truth["frame_strike"]) <= 3]
        if match:
            compare(match[0], truth, tally)
        else:
            tally["shots"] += 1
            tally["missed_shots"] += 1
    tally["extra_shots"] += max(0, len(shots) - len(truths))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--shots", nargs="+", default=list(SHOTS))
    parser.add_argument("--fps", type=float, default=60.0)
    parser.add_argument("--table", default="9ft")
    parser.add_argument("--noise-mm", type=float, default=1.5)
    parser.add_argument("--miss-rate", type=float, default=0.02)
    parser.add_argument("--true-prob", type=float, default=0.8)
    args = parser.parse_args()
    tally: dict[str, Any] = {
        k: 0
        for k in [
            "shots",
            "first_ok",
            "cushion_ok",
            "breaks",
            "break_count_ok",
            "four_ok",
            "pocket_tp",
            "pocket_fp",
            "pocket_fn",
            "cue_pocket_ok",
            "missed_shots",
            "extra_shots",
            "switch_frames",
        ]
    }
    tally.update(errors=[], pocket_frame_errors=[], mismatches=[])
    for seed in args.seeds:
        run_seed(seed, args, tally)
    errors = tally.pop("errors")
    frame_errors = tally.pop("pocket_frame_errors")
    mismatches = tally.pop("mismatches")
    tally["median_error_mm"] = round(float(np.median(errors)), 3) if errors else None
    tally["max_pocket_frame_error"] = max(frame_errors, default=None)
    print(json.dumps(tally, indent=1))
    for m in mismatches:
        print(json.dumps(m))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
