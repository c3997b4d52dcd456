"""Detector benchmark: accuracy on the sample clips and CPU time per frame on one core.

    .venv/bin/python tests/benchmarks/bench_detector.py [--clips sample_videos] [--every 5]

For each clip with `truth/tracks.csv`: detection recall and precision (a detection within half
a radius of an on-table ball), identity accuracy of the matched balls and the median centre
error in pixels. Then the time of detection plus identification per 1280x720 frame, with the
tracker's hints (truth positions plus 3 px noise) and searching the whole table, measured as
process CPU time with OpenCV limited to one thread.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from calibration.io import load_calibration
from vision.detector import BallDetector
from vision.sources import VideoFileSource
from vision.types import ball_id


def load_truth(path: Path) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """frame -> ((N,) ball ids, (N, 2) pixel centres) of the balls on the table."""
    rows: dict[int, list[tuple[int, float, float]]] = defaultdict(list)
    with path.open() as handle:
        for row in csv.DictReader(handle):
            if row["status"] == "on_table":
                rows[int(row["frame"])].append(
                    (ball_id(row["ball"]), float(row["u_px"]), float(row["v_px"]))
                )
    return {
        frame: (np.array([b for b, _, _ in items]), np.array([(u, v) for _, u, v in items]))
        for frame, items in rows.items()
    }


def evaluate_clip(clip: Path, every: int) -> dict[str, float]:
    truth = load_truth(clip / "truth" / "tracks.csv")
    detector = BallDetector(load_calibration(clip / "calibration.json"))
    hits = balls = found = same = 0
    errors: list[float] = []
    hinted_s: list[float] = []
    full_s: list[float] = []
    rng = np.random.default_rng(0)
    video = next(p for p in (clip / "video.mp4", *clip.glob("*.mp4")) if p.is_file())
    with VideoFileSource(video) as source:
        for frame in source:
            if frame.index % every or frame.index not in truth:
                continue
            ids, uv = truth[frame.index]
            started = time.process_time()
            detections = detector.detect(frame)
            full_s.append(time.process_time() - started)
            started = time.process_time()
            detector.detect(frame, hint_xy_px=uv + rng.normal(0.0, 3.0, uv.shape))
            hinted_s.append(time.process_time() - started)
            cost = np.linalg.norm(uv[:, None] - detections.xy_px[None], axis=2)
            rows, cols = linear_sum_assignment(cost)
            close = cost[rows, cols] < 0.5 * detections.radius_px[cols]
            rows, cols = rows[close], cols[close]
            hits += len(rows)
            balls += len(ids)
            found += len(detections)
            same += int(np.sum(detections.label[cols] == ids[rows]))
            errors.extend(cost[rows, cols].tolist())
    return {
        "frames": len(full_s),
        "recall": hits / max(balls, 1),
        "precision": hits / max(found, 1),
        "identity": same / max(hits, 1),
        "median_centre_error_px": float(np.median(errors)) if errors else float("nan"),
        "hinted_ms": 1e3 * float(np.median(hinted_s)) if hinted_s else float("nan"),
        "full_frame_ms": 1e3 * float(np.median(full_s)) if full_s else float("nan"),
    }


def time_rendered(repeats: int = 30) -> dict[str, float]:
    """CPU ms per frame on a rendered 1280x720 table with eleven scattered balls."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.
    from tests.vision.scenes import render_scene, scatter

    scene = render_scene(scatter(np.random.default_rng(1), 11), list(range(11)), seed=1)
    detector = BallDetector(scene.calibration)
    detector.detect(scene.frame)
    hints = scene.uv_px + np.random.default_rng(0).normal(0.0, 3.0, scene.uv_px.shape)
    timings = {}
    for name, hint in (("hinted_ms", hints), ("full_frame_ms", None)):
        samples = []
        for _ in range(repeats):
            started = time.process_time()
            detector.detect(scene.frame, hint_xy_px=hint)
            samples.append(time.process_time() - started)
        timings[name] = 1e3 * float(np.median(samples))
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clips", type=Path, default=Path("sample_videos"))
    parser.add_argument("--every", type=int, default=5, help="evaluate every K-th frame")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    print(json.dumps({"rendered_11_balls": time_rendered()}))
    results = {}
    for clip in sorted(p for p in args.clips.iterdir() if (p / "truth" / "tracks.csv").is_file()):
        results[clip.name] = evaluate_clip(clip, args.every)
        print(json.dumps({clip.name: results[clip.name]}))


if __name__ == "__main__":
    main()
