"""Benchmark: tracking plus event inference, milliseconds per frame (target <= 1 ms).

Plays a break (cue ball into the full rack at 8 m/s) and a follow-up shot with the exact
kinematic builder, makes noisy detections with misses, then times `BallTracker.update` and
`EventDetector.update` over every frame. Detection making is not timed.

Reports wall time and process CPU time (the latter is steadier on a shared machine).

Run: ``.venv/bin/python tests/benchmarks/bench_tracking.py [--repeats N]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.tracking.builders import TABLE, Noise, detections_from, simulate
from tracking.events import EventDetector
from tracking.tracker import BallTracker


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--fps", type=float, default=60.0)
    args = parser.parse_args()
    positions = TABLE.rack_positions_mm()
    positions[0] = (600.0, 640.0)
    truth = simulate(positions, [(0.2, 0, (8000.0, 40.0))], 6.0, fps=args.fps)
    frames = detections_from(truth, Noise(miss_rate=0.03), seed=7)
    wall_ms, cpu_ms = [], []
    for _ in range(args.repeats):
        tracker, detector = BallTracker(TABLE), EventDetector(TABLE)
        wall, cpu = time.perf_counter(), time.process_time()
        for index, (detections, time_s) in enumerate(zip(frames, truth.time_s, strict=True)):
            detector.update(tracker.update(detections, index, float(time_s)))
        wall_ms.append((time.perf_counter() - wall) / len(frames) * 1000.0)
        cpu_ms.append((time.process_time() - cpu) / len(frames) * 1000.0)
    print(
        f"tracking + events over {len(frames)} frames x {args.repeats}: "
        f"wall median {statistics.median(wall_ms):.3f} ms/frame (best {min(wall_ms):.3f}), "
        f"CPU median {statistics.median(cpu_ms):.3f} ms/frame (best {min(cpu_ms):.3f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
