"""The `tenball` command line.

Each subcommand lives in its own module of this package with two functions:
`register(subparsers)` adds its parser and `run(args) -> int` does the work. Modules are
imported only when their command runs, so `tenball rules` never loads OpenCV or FastAPI.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMANDS: dict[str, str] = {
    "rules": "referee.cli.rules",
    "synth": "referee.cli.synth",
    "calibrate": "referee.cli.calibrate",
    "detect": "referee.cli.detect",
    "review": "referee.cli.review",
    "eval": "referee.cli.evaluate",
    "bench": "referee.cli.bench",
    "serve": "referee.cli.serve",
    "train-detector": "referee.cli.train_detector",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tenball",
        description="A camera referee for ten-ball pool (FFB rules).",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMANDS.values():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            continue  # command not built yet
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    module = importlib.import_module(COMMANDS[args.command])
    try:
        return int(module.run(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
