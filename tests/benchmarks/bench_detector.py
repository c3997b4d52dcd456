"""Detector benchmark: accuracy on the sample clips and CPU time per frame on one core.

    .venv/bin/python tests/benchmarks/bench_detector.py [--clips sample_videos] [--every 5]

All times are process CPU time of detection plus identification per 1280x720 frame, with
OpenCV limited to one thread (wall time on a shared machine says little).

Rendered frames with motion-blurred balls (`rendered_motion_blur`, per camera): recall,
precision, identity, median centre error, and recall of the smeared balls alone.

For each clip with `truth/tracks.csv`:
- `full`: every K-th frame searched whole by a detector without memory (what a first frame or
  a complete search costs): detection recall and precision (a detection within half a radius
  of an on-table ball), identity accuracy of the matched balls, median centre error (px).
- `hinted`: every frame in order, as the review runs it: the tracker's hints (truth positions
  plus 1 px noise) and the detector's memory of still windows (vision/memory.py), with the
  same accuracy numbers; beside it the same frames with the memory off (every hinted window
  searched: the cost while every ball moves).
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
from referee.cli.bench import machine
from vision.detector import BallDetector, DetectorConfig
from vision.sources import VideoFileSource
from vision.types import Detections, ball_id


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


def _video(clip: Path) -> Path:
    return next(p for p in (clip / "video.mp4", *clip.glob("*.mp4")) if p.is_file())


def evaluate_clip(clip: Path, every: int) -> dict[str, float]:
    """Accuracy and CPU time of complete searches on every `every`-th frame (no memory)."""
    truth = load_truth(clip / "truth" / "tracks.csv")
    config = DetectorConfig(reuse_still_windows=False)
    detector = BallDetector(load_calibration(clip / "calibration.json"), config)
    hits = balls = found = same = 0
    errors: list[float] = []
    hinted_s: list[float] = []
    full_s: list[float] = []
    rng = np.random.default_rng(0)
    with VideoFileSource(_video(clip)) as source:
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


def _score(
    ids: np.ndarray, uv: np.ndarray, found: Detections, totals: dict[str, list[float]]
) -> None:
    """Add one frame's matches to running totals."""
    cost = np.linalg.norm(uv[:, None] - found.xy_px[None], axis=2)
    rows, cols = linear_sum_assignment(cost)
    close = cost[rows, cols] < 0.5 * found.radius_px[cols]
    rows, cols = rows[close], cols[close]
    totals["counts"] = [
        a + b
        for a, b in zip(
            totals.get("counts", [0.0] * 4),
            [len(rows), len(ids), len(found), int(np.sum(found.label[cols] == ids[rows]))],
            strict=True,
        )
    ]
    totals.setdefault("errors", []).extend(cost[rows, cols].tolist())


def _summary(samples_s: list[float], totals: dict[str, list[float]]) -> dict[str, float]:
    ms = 1e3 * np.array(samples_s)
    hits, balls, found, same = totals.get("counts", [0.0] * 4)
    errors = totals.get("errors", [])
    return {
        "frames": len(ms),
        "ms_mean": round(float(ms.mean()), 2),
        "ms_median": round(float(np.median(ms)), 2),
        "ms_p95": round(float(np.percentile(ms, 95)), 2),
        "recall": round(hits / max(balls, 1), 4),
        "precision": round(hits / max(found, 1), 4),
        "identity": round(same / max(hits, 1), 4),
        "median_centre_error_px": round(float(np.median(errors)), 3) if errors else float("nan"),
    }


def time_hinted(clip: Path, noise_px: float = 1.0) -> dict[str, dict[str, float]]:
    """Every frame in order with truth hints: CPU ms and accuracy with and without memory."""
    truth = load_truth(clip / "truth" / "tracks.csv")
    calibration = load_calibration(clip / "calibration.json")
    detectors = {
        "hinted": BallDetector(calibration),
        "hinted_no_memory": BallDetector(calibration, DetectorConfig(reuse_still_windows=False)),
    }
    samples: dict[str, list[float]] = {name: [] for name in detectors}
    totals: dict[str, dict[str, list[float]]] = {name: {} for name in detectors}
    rng = np.random.default_rng(0)
    with VideoFileSource(_video(clip)) as source:
        for frame in source:
            if frame.index not in truth:
                continue
            ids, uv = truth[frame.index]
            hints = uv + rng.normal(0.0, noise_px, uv.shape)
            for name, detector in detectors.items():
                if detector.cloth is None:
                    detector.learn_cloth(frame)
                started = time.process_time()
                found = detector.detect(frame, hint_xy_px=hints)
                samples[name].append(time.process_time() - started)
                _score(ids, uv, found, totals[name])
    return {name: _summary(samples[name], totals[name]) for name in detectors}


def time_rendered(repeats: int = 30) -> dict[str, float]:
    """CPU ms per frame on a rendered 1280x720 table with eleven scattered balls."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.
    from tests.vision.scenes import render_scene, scatter

    scene = render_scene(scatter(np.random.default_rng(1), 11), list(range(11)), seed=1)
    # Without memory: the same frame again would keep every window.
    detector = BallDetector(scene.calibration, DetectorConfig(reuse_still_windows=False))
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


def _blurred_scene(preset: str, cloth: str, seed: int):  # type: ignore[no-untyped-def]
    """Eleven scattered balls, about 60 % of them smeared over 1-7 radii in random
    directions (only where the smeared path stays on the table and clear of other balls)."""
    from tests.vision.scenes import R_MM, TABLE, render_scene, scatter

    rng = np.random.default_rng(seed)
    xy = scatter(rng, 11)
    angle = rng.uniform(0.0, 2.0 * np.pi, 11)
    blur = np.column_stack([np.cos(angle), np.sin(angle)]) * rng.uniform(1.0, 7.0, (11, 1)) * R_MM
    ends = np.stack([xy - 0.5 * blur, xy + 0.5 * blur])
    limit = np.array([TABLE.length_mm - R_MM, TABLE.width_mm - R_MM])
    clear = np.all((ends >= R_MM) & (ends <= limit), axis=(0, 2))
    for a in range(11):
        # Nearest point of each path to every other ball's centre.
        offset = xy - xy[a]
        along = np.clip(offset @ blur[a] / max(float(blur[a] @ blur[a]), 1e-9), -0.5, 0.5)
        gap = np.linalg.norm(offset - along[:, None] * blur[a], axis=1)
        gap[a] = np.inf
        clear[a] &= bool(np.all(gap > 2.2 * R_MM + 0.5 * np.linalg.norm(blur, axis=1)))
    moving = clear & (rng.random(11) < 0.6)
    blur[~moving] = 0.0
    scene = render_scene(xy, list(range(11)), seed=seed, preset=preset, cloth=cloth, blur_mm=blur)
    return scene, moving


def evaluate_rendered_blur(seeds: int) -> dict[str, dict[str, float]]:
    """Complete searches of rendered frames with motion-blurred balls, per camera (three
    cloths, `seeds` frames each): recall, precision, identity and median centre error over
    all balls, and recall of the smeared ones alone."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.
    results = {}
    for preset in ("top", "broadcast", "corner"):
        totals: dict[str, list[float]] = {}
        smeared = [0, 0]
        for cloth in ("green", "blue", "red"):
            for seed in range(seeds):
                scene, moving = _blurred_scene(preset, cloth, 7 * seed + 1)
                detector = BallDetector(
                    scene.calibration, DetectorConfig(reuse_still_windows=False)
                )
                found = detector.detect(scene.frame)
                _score(scene.ball, scene.uv_px, found, totals)
                cost = np.linalg.norm(scene.uv_px[:, None] - found.xy_px[None], axis=2)
                rows, cols = linear_sum_assignment(cost)
                hit = rows[cost[rows, cols] < 0.5 * found.radius_px[cols]]
                smeared[0] += int(np.sum(moving[hit]))
                smeared[1] += int(np.sum(moving))
        summary = _summary([0.0], totals)
        summary = {k: v for k, v in summary.items() if not k.startswith("ms")}
        summary["frames"] = 3 * seeds
        summary["smeared_recall"] = round(smeared[0] / max(smeared[1], 1), 4)
        results[preset] = summary
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clips", type=Path, default=Path("sample_videos"))
    parser.add_argument("--every", type=int, default=5, help="evaluate every K-th frame")
    parser.add_argument("--no-hinted", action="store_true", help="skip the every-frame run")
    parser.add_argument("--only", nargs="*", default=None, help="clip names to run")
    parser.add_argument(
        "--blur-seeds", type=int, default=3, help="rendered blurred frames per camera and cloth"
    )
    args = parser.parse_args()
    cv2.setNumThreads(1)
    print(json.dumps({"machine": machine(), "rendered_11_balls": time_rendered()}))
    if args.blur_seeds > 0:
        print(json.dumps({"rendered_motion_blur": evaluate_rendered_blur(args.blur_seeds)}))
    clips = sorted(p for p in args.clips.iterdir() if (p / "truth" / "tracks.csv").is_file())
    for clip in [c for c in clips if args.only is None or c.name in args.only]:
        result: dict[str, object] = {"full": evaluate_clip(clip, args.every)}
        if not args.no_hinted:
            result.update(time_hinted(clip))
        print(json.dumps({clip.name: result}))


if __name__ == "__main__":
    main()
