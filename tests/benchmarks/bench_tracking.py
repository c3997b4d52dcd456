"""Benchmark: tracking plus event inference, milliseconds per frame (target <= 1 ms).

Plays a break (cue ball into the full rack at 8 m/s) and a follow-up shot with the exact
kinematic builder, makes noisy detections with misses, then times `BallTracker.update` and
`EventDetector.update` over every frame. Detection making is not timed.

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
    per_frame_ms = []
    for _ in range(args.repeats):
        tracker, detector = BallTracker(TABLE), EventDetector(TABLE)
        start = time.perf_counter()
        for index, (detections, time_s) in enumerate(zip(frames, truth.time_s, strict=True)):
            detector.update(tracker.update(detections, index, float(time_s)))
        per_frame_ms.append((time.perf_counter() - start) / len(frames) * 1000.0)
    print(
        f"tracking + events: median {statistics.median(per_frame_ms):.3f} ms/frame, "
        f"best {min(per_frame_ms):.3f} ms/frame over {len(frames)} frames x {args.repeats}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
