"""Benchmark: whole-review throughput against decoding alone (target >= 240 frames/s on
1280x720 60 fps video on a 2-core machine), and milliseconds per frame per stage.

Runs `tenball bench` on every sample clip (or the videos given) with its calibration, with
the real detector and, for comparison, with the truth detector (the cost of everything but
detection).

Run: ``.venv/bin/python tests/benchmarks/bench_pipeline.py [CLIP_DIR ...] [--max-frames N]``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from referee.cli import main as tenball  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "clips", nargs="*", type=Path, help="clip folders (default: sample_videos/*)"
    )
    parser.add_argument("--max-frames", type=int, default=None)
    args = parser.parse_args()
    clips = args.clips or sorted(
        p for p in (ROOT / "sample_videos").iterdir() if (p / "video.mp4").exists()
    )
    for clip in clips:
        for truth in (False, True):
            print(f"== {clip.name} ({'truth' if truth else 'real'} detector)")
            argv = [
                "bench",
                str(clip / "video.mp4"),
                "--calibration",
                str(clip / "calibration.json"),
            ]
            argv += ["--max-frames", str(args.max_frames)] if args.max_frames else []
            argv += ["--truth-detector", str(clip)] if truth else []
            tenball(argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
