"""`tenball bench VIDEO`: review throughput against decoding alone, and time per stage."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="measure review throughput against decode-only on a video",
        description=(
            "Decode the video alone, then review it (outputs to a temporary folder); print "
            "frames per second of both, their ratio and milliseconds per frame per stage."
        ),
    )
    parser.add_argument("video", help="the video file")
    parser.add_argument("--calibration", help="calibration file (default: find the table)")
    parser.add_argument("--max-frames", type=int, help="frames to process (default: all)")
    parser.add_argument("--truth-detector", metavar="CLIP_DIR", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")


def decode_only(video: str, max_frames: int | None) -> tuple[int, float]:
    """(frames decoded, seconds) for reading the video with nothing else done."""
    from vision.sources import open_source

    source = open_source(video)
    frames = 0
    started = time.perf_counter()
    try:
        while max_frames is None or frames < max_frames:
            if source.read() is None:
                break
            frames += 1
    finally:
        source.close()
    return frames, time.perf_counter() - started


def _review(args: argparse.Namespace, out_dir: Path) -> dict[str, Any]:
    from referee.review.session import ReviewOptions
    from referee.review.start import open_review

    options = ReviewOptions(out_dir=out_dir, max_frames=args.max_frames, progress=False)
    review = open_review(args.video, args.calibration, None, options, args.truth_detector)
    try:
        return review.execute()
    finally:
        review.source.close()


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Decode-only and review numbers for one video."""
    frames, decode_s = decode_only(args.video, args.max_frames)
    with tempfile.TemporaryDirectory(prefix="tenball-bench-") as folder:
        summary = _review(args, Path(folder))
    decode_fps = frames / decode_s if decode_s > 0 else float("inf")
    review_fps = float(summary["frames_per_s"] or 0.0)
    stages = dict(summary["stage_ms_per_frame"])
    per_frame_ms = 1000.0 / review_fps if review_fps else float("nan")
    accounted = summary["decode_ms_per_frame"] + sum(stages.values())
    return {
        "video": args.video,
        "image_size": summary["image_size"],
        "frames": summary["frames"],
        "decode_only_fps": round(decode_fps, 1),
        "review_fps": round(review_fps, 1),
        "ratio_review_to_decode": round(review_fps / decode_fps, 3) if decode_fps else None,
        "realtime_factor": summary["realtime_factor"],
        "ms_per_frame": {
            "decode": summary["decode_ms_per_frame"],
            **stages,
            "outputs_and_report": round(max(0.0, per_frame_ms - accounted), 3),
            "total": round(per_frame_ms, 3),
        },
    }


def run(args: argparse.Namespace) -> int:
    from calibration.io import CalibrationError
    from referee.review.session import ReviewInputError
    from vision.sources import SourceError

    try:
        numbers = measure(args)
    except (SourceError, CalibrationError, ReviewInputError) as error:
        print(f"tenball bench: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(numbers, indent=2))
        return 0
    print(f"{numbers['video']}: {numbers['frames']} frames {numbers['image_size']}")
    print(f"decode only : {numbers['decode_only_fps']:8.1f} frames/s")
    print(f"review      : {numbers['review_fps']:8.1f} frames/s")
    print(f"ratio       : {numbers['ratio_review_to_decode']:8.3f} (review / decode)")
    print(f"real time   : {numbers['realtime_factor']}x")
    for stage, ms in numbers["ms_per_frame"].items():
        print(f"  {stage:<20} {ms:7.3f} ms/frame")
    return 0
