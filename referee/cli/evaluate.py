"""`tenball eval --truth CLIP_DIR --run OUT_DIR [--json]`: score a review against truth."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="score a review run against a clip's truth",
        description=(
            "Compare the contract files (tracks.csv, events.jsonl, shots.jsonl) of a review "
            "run with a clip's truth: shots, facts, calls, events, detection and identity."
        ),
    )
    parser.add_argument("--truth", required=True, help="clip folder (with truth/) or truth folder")
    parser.add_argument("--run", required=True, help="output folder of `tenball review`")
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument(
        "--shot-tolerance-s", type=float, default=0.5, help="strike-time tolerance of shot matching"
    )
    parser.add_argument(
        "--event-tolerance-s", type=float, default=0.15, help="time tolerance of event matching"
    )
    parser.add_argument(
        "--pocket-tolerance-s", type=float, default=0.5, help="time tolerance of pocket matching"
    )


def run(args: argparse.Namespace) -> int:
    from referee.evaluate import EvalConfig, evaluate, format_table
    from referee.evaluate_io import EvalInputError

    config = EvalConfig(
        shot_tolerance_s=args.shot_tolerance_s,
        event_tolerance_s=args.event_tolerance_s,
        pocket_tolerance_s=args.pocket_tolerance_s,
    )
    try:
        result = evaluate(args.truth, args.run, config)
    except EvalInputError as error:
        print(f"tenball eval: {error}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2) if args.json else format_table(result))
    return 0
