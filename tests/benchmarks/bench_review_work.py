"""Where a review's detection time goes, counted in work rather than wall-clock time.

    .venv/bin/python tests/benchmarks/bench_review_work.py [CLIP_DIR ...] [--max-frames N]

Reviews each clip (default: every sample clip) with the real detector and counts, per
frame, what the detector did: whether the hinted call kept every window from memory or
searched some, how many windows the fast pass and the thorough pass (outlines, streaks)
searched, and how many full-table searches ran. Beside the counts, the main thread's CPU
milliseconds per call of each kind, which a busy shared machine changes far less than
wall-clock time. With the truth (`truth/tracks.csv`) it also says in how many frames some
ball moves (by more than 0.05 px): the floor of frames that must search a window.

The counts do not depend on the machine, so they compare runs before and after a change to
the memory or the pipeline's search schedule exactly; the CPU times show what a window and a
frame cost, and the main thread's CPU per frame is split by stage (`STAGES`; nested stages
are part of their callers': find_balls runs inside the hinted and the full searches).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from referee.review.session import ReviewOptions  # noqa: E402
from referee.review.start import open_review  # noqa: E402


def moving_frames(clip: Path) -> int | None:
    """Frames of the truth in which some on-table ball moved more than 0.05 px."""
    path = clip / "truth" / "tracks.csv"
    if not path.is_file():
        return None
    where: dict[int, dict[str, tuple[float, float]]] = defaultdict(dict)
    with path.open() as handle:
        for row in csv.DictReader(handle):
            if row["status"] == "on_table" and row["u_px"]:
                where[int(row["frame"])][row["ball"]] = (float(row["u_px"]), float(row["v_px"]))
    count = 0
    for frame, balls in where.items():
        before = where.get(frame - 1, {})
        shared = [b for b in balls if b in before]
        steps = [np.hypot(*np.subtract(balls[b], before[b])) for b in shared]
        count += int(bool(steps) and max(steps) > 0.05)
    return count


class Counting:
    """Wraps a BallDetector's calls to count windows and time each kind of call."""

    def __init__(self, detector: Any) -> None:
        self.counts: Counter[str] = Counter()
        self.cpu_ms: dict[str, list[float]] = defaultdict(list)
        self._detect, self._search = detector.detect, detector._search
        detector.detect, detector._search = self.detect, self.search

    def search(self, image: Any, hints: Any, thorough: bool) -> Any:
        if hints is not None:
            self.counts["thorough windows" if thorough else "fast windows"] += len(hints)
        return self._search(image, hints, thorough)

    def detect(self, frame: Any, hint_xy_px: Any = None) -> Any:
        windows = self.counts["fast windows"]
        started = time.thread_time()
        found = self._detect(frame, hint_xy_px)
        spent = 1000.0 * (time.thread_time() - started)
        if hint_xy_px is None:
            kind = "full search"
        else:
            kind = "searched" if self.counts["fast windows"] > windows else "all kept"
        self.counts[kind] += 1
        self.cpu_ms[kind].append(spent)
        return found


STAGES = {
    # key: (where, attribute); nested stages are inside their callers' times.
    "recall (window comparison)": ("detector", "_recall"),
    "search region (maps of the windows)": ("detector", "_search_region"),
    "find_balls (round search)": ("detector module", "find_balls"),
    "find_seeded (thorough, with seeds)": ("detector module", "find_seeded"),
    "full-table search (all of it)": ("detector", "_search_table"),
    "features (of fresh balls)": ("identifier", "features"),
    "class probabilities (all balls)": ("identifier", "probabilities"),
    "tracker update": ("tracker", "update"),
}
"""Stages timed by `StageClock`: calls a frame makes a few of, so wrapping them costs far
less than cProfile, whose per-call cost inflates the many small NumPy calls several times
over and misplaces where the time goes."""


class StageClock:
    """Main-thread CPU time per stage (`STAGES`), where the review's objects have them."""

    def __init__(self, review: Any) -> None:
        import vision.detector as detector_module

        pipeline = review.pipeline
        owners = {
            "detector": pipeline.detector,
            "detector module": detector_module,
            "identifier": getattr(pipeline.detector, "identifier", None),
            "tracker": pipeline.tracker,
        }
        self.cpu_s: dict[str, float] = defaultdict(float)
        self._undo: list[tuple[Any, str, Any, bool]] = []
        for stage, (where, name) in STAGES.items():
            owner = owners[where]
            if owner is not None and callable(getattr(owner, name, None)):
                self._wrap(stage, owner, name)

    def _wrap(self, stage: str, owner: Any, name: str) -> None:
        original = getattr(owner, name)
        own = name in vars(owner) if hasattr(owner, "__dict__") else False

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                self.cpu_s[stage] += time.thread_time() - started

        setattr(owner, name, timed)
        self._undo.append((owner, name, original, own))

    def restore(self) -> None:
        """Unwrap what was wrapped (a module's functions must not stay timed)."""
        for owner, name, original, own in reversed(self._undo):
            if own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)

    def per_frame_ms(self, frames: int) -> dict[str, float]:
        return {k: round(1000.0 * v / max(1, frames), 3) for k, v in self.cpu_s.items()}


def measure(clip: Path, max_frames: int | None) -> dict[str, Any]:
    """Counts and CPU times of one clip's review."""
    with tempfile.TemporaryDirectory(prefix="tenball-work-") as folder:
        options = ReviewOptions(out_dir=Path(folder), max_frames=max_frames, progress=False)
        review = open_review(clip / "video.mp4", clip / "calibration.json", None, options)
        counting = Counting(review.pipeline.detector)
        stages = StageClock(review)
        started = time.thread_time()
        try:
            summary = review.execute()
        finally:
            main_s = time.thread_time() - started
            stages.restore()
            review.source.close()
    frames = int(summary["frames"])
    counts = counting.counts
    return {
        "clip": clip.name,
        "frames": frames,
        "frames with a moving ball (truth)": moving_frames(clip) if max_frames is None else None,
        "hinted frames searching some window": counts["searched"],
        "hinted frames keeping every window": counts["all kept"],
        "full searches": counts["full search"],
        "fast windows per searched frame": round(
            counts["fast windows"] / max(1, counts["searched"]), 2
        ),
        "thorough windows per searched frame": round(
            counts["thorough windows"] / max(1, counts["searched"]), 2
        ),
        "cpu ms per call": {
            kind: round(float(np.mean(ms)), 3) for kind, ms in counting.cpu_ms.items() if ms
        },
        "detect cpu ms per frame": round(
            sum(sum(ms) for ms in counting.cpu_ms.values()) / max(1, frames), 3
        ),
        "main thread cpu ms per frame": round(1000.0 * main_s / max(1, frames), 3),
        "cpu ms per frame by stage": stages.per_frame_ms(frames),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clips", nargs="*", type=Path, help="clip folders (default: samples)")
    parser.add_argument("--max-frames", type=int, default=None)
    args = parser.parse_args()
    clips = args.clips or sorted(
        p for p in (ROOT / "sample_videos").iterdir() if (p / "video.mp4").is_file()
    )
    for clip in clips:
        print(json.dumps(measure(clip, args.max_frames)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
