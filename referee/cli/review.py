"""`tenball review VIDEO --out DIR`: review a match video into files and a report.

Exit status: 0 done; 2 the review could not start (unreadable, empty or missing video, bad
calibration or declarations, calibration for another image size, no table found); 3 the
video ended early (truncated) or processing failed: the outputs hold what was processed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

EXIT_BAD_INPUT = 2
EXIT_STOPPED = 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "review",
        help="review a match video: shots, calls, report",
        description=(
            "Process a recorded match faster than real time and write tracks.csv, "
            "events.jsonl, shots.jsonl, summary.json and report.html (design.md §5)."
        ),
    )
    parser.add_argument("video", help="the video file")
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--calibration", help="calibration file (default: find the table)")
    parser.add_argument("--declarations", help="declarations file (JSONL: calls, push-outs, ...)")
    parser.add_argument(
        "--table",
        default="auto",
        help="table size when finding the table: auto (measured from the balls; default), "
        "9ft, 8ft, 7ft or LxW in mm",
    )
    parser.add_argument("--config", help="pipeline settings, TOML (see docs/review.md)")
    parser.add_argument("--annotate", action="store_true", help="also write annotated.mp4")
    parser.add_argument("--max-frames", type=int, help="stop after this many frames")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--truth-detector",
        metavar="CLIP_DIR",
        help="detect balls from a synthetic clip's truth/tracks.csv instead of the pixels "
        "(tests tracking, events and rules without the detector)",
    )
    add_detector_option(parser)


def add_detector_option(parser: argparse.ArgumentParser) -> None:
    """`--detector classical|onnx:PATH`, shared by `tenball review` and `tenball detect`."""
    parser.add_argument(
        "--detector",
        default="classical",
        metavar="classical|onnx:PATH",
        help="ball detector: 'classical' (default, no weights) or 'onnx:PATH' (a learned "
        "model, docs/learned-detector.md)",
    )


def _fail(message: str, code: int = EXIT_BAD_INPUT) -> int:
    print(f"tenball review: {message}", file=sys.stderr)
    return code


def _with_detector(config: Any, choice: str) -> Any:
    """The config with `--detector onnx:PATH`'s model (ModelError, a ValueError, if bad)."""
    import dataclasses

    from vision.learned.detector import model_from_choice

    model = model_from_choice(choice)
    return config if model is None else dataclasses.replace(config, detector_model=model)


def run(args: argparse.Namespace) -> int:
    from calibration.io import CalibrationError
    from calibration.scale import table_choice
    from referee.declarations import DeclarationsError
    from referee.pipeline import PipelineConfig
    from referee.pipeline_config import load_pipeline_config
    from referee.review.session import ReviewInputError, ReviewOptions
    from referee.review.start import open_review
    from vision.sources import SourceError

    try:
        table = table_choice(args.table)
        config = load_pipeline_config(args.config) if args.config else PipelineConfig()
        config = _with_detector(config, getattr(args, "detector", "classical"))
    except ValueError as error:
        return _fail(str(error))
    options = ReviewOptions(
        config=config,
        out_dir=Path(args.out),
        table=table,
        annotate=args.annotate,
        max_frames=args.max_frames,
        progress=not args.no_progress,
    )
    try:
        review = open_review(
            args.video, args.calibration, args.declarations, options, args.truth_detector
        )
    except (SourceError, CalibrationError, DeclarationsError, ReviewInputError) as error:
        return _fail(str(error))
    try:
        summary = review.execute()
    except ReviewInputError as error:
        return _fail(str(error))
    except Exception as error:  # the outputs hold what was processed; say so and fail
        return _fail(f"{error} (outputs for the frames processed are in {args.out})", EXIT_STOPPED)
    finally:
        review.source.close()
    print(
        f"{summary['frames']} frames, {summary['counts']['shots']} shots, "
        f"{summary['counts']['fouls']} fouls, {summary['frames_per_s']} frames/s -> {args.out}"
    )
    for warning in summary["warnings"]:
        print(f"tenball review: warning: {warning}", file=sys.stderr)
    if not summary["complete"]:
        return _fail(str(summary["stopped"]), EXIT_STOPPED)
    return 0
