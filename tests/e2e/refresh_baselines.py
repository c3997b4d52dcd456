"""Refresh the stored end-to-end baselines (tests/baselines/<clip>.<detector>.json).

Usage (from the repository root):

    .venv/bin/python tests/e2e/refresh_baselines.py            # every clip, both detectors
    .venv/bin/python tests/e2e/refresh_baselines.py top_break_green --detector truth

Run it after an accuracy improvement, look at the diff of tests/baselines/ and commit it: the
end-to-end tests then hold every later change to the new numbers.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from referee.evaluate import format_table
from tests.e2e.harness import DETECTORS, clips, review_clip, write_baseline


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("clips", nargs="*", help="clip names (default: all in sample_videos/)")
    parser.add_argument("--detector", choices=DETECTORS, action="append", help="default: both")
    args = parser.parse_args()
    chosen = [c for c in clips() if not args.clips or c.name in args.clips]
    if not chosen:
        print("no sample clip found", file=sys.stderr)
        return 2
    for clip in chosen:
        for detector in args.detector or DETECTORS:
            with tempfile.TemporaryDirectory() as folder:
                result = review_clip(clip, Path(folder), detector)
            path = write_baseline(clip, detector, result)
            print(f"== {clip.name} ({detector}) -> {path}")
            print(format_table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
