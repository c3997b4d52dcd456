"""A review's detector calls, recorded once and replayed: CPU per part, and a bit-for-bit check.

    .venv/bin/python tests/benchmarks/bench_detect_replay.py record CLIP_DIR... --store DIR
    .venv/bin/python tests/benchmarks/bench_detect_replay.py replay CLIP_DIR... --store DIR
        [--max-calls N] [--profile OUT.prof]

`record` reviews each clip with the real detector (no declarations, as `bench_review_work`)
and keeps, per call of `BallDetector.detect`, the frame index, the tracker's hints (None for a
full search) and the detections returned (pickled: read them back with the same code base).

`replay` decodes the clip, feeds a fresh detector the same frames with the same hints in the
same order, and reports:
- whether every call returned bit-for-bit the detections recorded (the detector is
  deterministic, so a change meant to be only faster must keep this at 0 differing calls;
  the replay is open loop: the hints are the recorded ones whatever the detector returns);
- the main thread's CPU milliseconds per frame of the whole detector and of its parts
  (find_balls' fast, thorough and whole-table passes, the per-pixel maps, the change test,
  identification features and probabilities, the assembly of the output). CPU time, unlike
  wall-clock time, changes little with what else a shared machine runs; parts nest (the
  indented ones are inside the one above).

Measured at daf80fd (2026-11-30, load average 18-22 on 2 cores), CPU ms per frame, all calls:
top_combo10 10.1 (hinted 4.8 = find_balls fast 2.1 + thorough 0.6 + maps; full searches 2.0
over 39 calls; output 1.2 with identify.probabilities 0.75; remembering 0.87 with
identify.features 0.61; change test 0.63 with memory.changed 0.45); broadcast_nudge 8.6 (full
searches 0.8 over 30 calls); corner_lip_stay 9.9 (full searches 2.3 over 56 calls). About half
is inside find_balls, a sixth in the identifier; OpenCV's own threads make no difference
(hinted windows are too small to split). Runs a minute apart on this machine differ by up
to 30 %: compare trees with `bench_detect_compare.py` (paired per call), not two replays.

Decoding and tracking are not part of the replay, so a detector change is measured in a
fraction of a review's time, without the tracker's feedback hiding a difference.

Measured at 3bca641 (top_combo10_blue_arm, all 721 calls, machine load about 30 on 2 cores,
so about 1.5-2x a quiet machine's CPU times), CPU ms per frame: detection 7.6 = hinted
searches 3.9 (find_balls fast pass 1.7 over 607 calls, per-pixel maps 1.2, find_balls
thorough pass over the windows the fast one left unexplained, with the changed cells of
full searches, 1.2) + full searches 1.2 (11 whole-table find_balls 0.45) + output 0.9
(identify.probabilities 0.56) + remembering 0.7 (identify.features 0.50) + change test 0.5
(memory.changed 0.38). About 85 % of the searched windows hold a ball that moved since the
last frame (truth), so searching fewer windows has little left to win: the cost is
find_balls' many small numpy calls per window (discs._own_disc, sample_uv, map_at,
confidence) and the identifier's per-frame work.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import vision.detector as detector_module  # noqa: E402
import vision.find as find_module  # noqa: E402
import vision.region as region_module  # noqa: E402
from calibration.io import load_calibration  # noqa: E402
from referee.review.session import ReviewOptions  # noqa: E402
from referee.review.start import open_review  # noqa: E402
from vision.sources import VideoFileSource  # noqa: E402
from vision.types import Detections  # noqa: E402

Call = tuple[int, np.ndarray | None, Detections]
"""(frame index, hints or None, detections returned)."""

FIELDS = ("xy_px", "xy_mm", "radius_px", "confidence", "class_prob")


def record(clip: Path, store: Path) -> int:
    """Review a clip and pickle its detector calls to STORE/CLIP.calls.pkl; returns the count."""
    calls: list[Call] = []
    with tempfile.TemporaryDirectory(prefix="tenball-replay-") as folder:
        options = ReviewOptions(out_dir=Path(folder), progress=False)
        review = open_review(clip / "video.mp4", clip / "calibration.json", None, options)
        detector = review.pipeline.detector
        inner = detector.detect

        def detect(frame: Any, hint_xy_px: Any = None) -> Detections:
            found = inner(frame, hint_xy_px)
            hints = None if hint_xy_px is None else np.array(hint_xy_px, copy=True)
            calls.append((frame.index, hints, found))
            return found

        detector.detect = detect  # type: ignore[method-assign]
        try:
            review.execute()
        finally:
            review.source.close()
    # learn_cloth's own whole-table search on the first frame goes through `detect` too: a
    # replay repeats it by learning the cloth, so it is not a call of its own.
    if len(calls) > 1 and calls[1][0] == calls[0][0]:
        calls = calls[1:]
    store.mkdir(parents=True, exist_ok=True)
    path = store / f"{clip.name}.calls.pkl"
    temporary = path.with_suffix(".tmp")
    with temporary.open("wb") as handle:
        pickle.dump(calls, handle, protocol=pickle.HIGHEST_PROTOCOL)
    temporary.replace(path)
    return len(calls)


class PartTimer:
    """CPU time of the detector's parts, by wrapping them (module functions and methods)."""

    def __init__(self) -> None:
        self.cpu_s: dict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self._undo: list[tuple[Any, str, Any]] = []

    def wrap(self, owner: Any, name: str, key: Callable[..., str] | str) -> None:
        inner = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return inner(*args, **kwargs)
            finally:
                label = key if isinstance(key, str) else key(*args, **kwargs)
                self.cpu_s[label] += time.thread_time() - started
                self.calls[label] += 1

        self._undo.append((owner, name, inner))
        setattr(owner, name, timed)

    def undo(self) -> None:
        for owner, name, inner in reversed(self._undo):
            setattr(owner, name, inner)
        self._undo.clear()


def _find_kind(*args: Any, **kwargs: Any) -> str:
    mosaic, thorough = args[1], (args[4] if len(args) > 4 else kwargs.get("thorough"))
    whole = len(mosaic.frame_boxes) == 1 and mosaic.shape[0] * mosaic.shape[1] > 250_000
    kind = "whole table" if whole else ("thorough" if thorough else "fast")
    return f"  find_balls {kind}"


def _instrument(timer: PartTimer, detector: Any) -> None:
    cls = detector_module.BallDetector
    timer.wrap(detector_module, "find_balls", _find_kind)
    timer.wrap(detector_module, "changed", "  memory.changed")
    for name, label in (
        ("_search_table", "full search (all)"),
        ("_search_hinted", "hinted search"),
        ("_search_region", "  per-pixel maps (_search_region)"),
        ("_recall", "change test (_recall)"),
        ("_remember", "_remember"),
        ("_output", "_output"),
        ("_assemble", "  _assemble"),
    ):
        timer.wrap(cls, name, label)
    timer.wrap(detector.identifier, "features", "  identify.features")
    timer.wrap(detector.identifier, "probabilities", "    identify.probabilities")
    timer.wrap(region_module, "distance_and_shade", "    cloth.distance_and_shade")
    # Inside find_balls (all its passes), by the owners' functions: what to make faster.
    for name in (
        "_candidates",
        "refine_centres",
        "confidence",
        "fit_outlines",
        "_try_outlines",
        "_shaded_centres",
        "_find_streaks",
        "streaks",
        "_seeded_balls",
        "ball_pixels",
    ):
        timer.wrap(find_module, name, f"    find: {name}")


def _frames(clip: Path, last: int) -> list[Any]:
    source = VideoFileSource(clip / "video.mp4")
    frames: list[Any] = []
    try:
        while len(frames) <= last:
            frame = source.read()
            if frame is None:
                break
            frames.append(frame)
    finally:
        source.close()
    return frames


def _same(found: Detections, expected: Detections) -> bool:
    return all(
        np.array_equal(getattr(found, name), getattr(expected, name), equal_nan=True)
        for name in FIELDS
    )


def replay(clip: Path, store: Path, max_calls: int | None, profile: Path | None) -> dict[str, Any]:
    """Replay a clip's recorded calls; the equality count and CPU per frame of each part."""
    with (store / f"{clip.name}.calls.pkl").open("rb") as handle:
        calls: list[Call] = pickle.load(handle)[:max_calls]
    frames = _frames(clip, max(index for index, _, _ in calls))
    detector = detector_module.BallDetector(load_calibration(clip / "calibration.json"))
    timer = PartTimer()
    _instrument(timer, detector)
    profiler = None
    if profile is not None:
        import cProfile

        profiler = cProfile.Profile(time.process_time)
    differing: list[int] = []
    kinds: Counter[str] = Counter()
    cpu: dict[str, float] = defaultdict(float)
    try:
        if profiler is not None:
            profiler.enable()
        for index, hints, expected in calls:
            started = time.thread_time()
            found = detector.detect(frames[index], hints)
            kind = "full" if hints is None else "hinted"
            cpu[kind] += time.thread_time() - started
            kinds[kind] += 1
            if not _same(found, expected):
                differing.append(index)
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(profile))
        timer.undo()
    count = len(calls)
    return {
        "clip": clip.name,
        "calls": count,
        "differing calls": len(differing),
        "first differing frames": differing[:5],
        "detect cpu ms per frame": round(1000.0 * sum(cpu.values()) / count, 3),
        "cpu ms per call": {k: round(1000.0 * cpu[k] / kinds[k], 3) for k in kinds},
        "calls by kind": dict(kinds),
        "parts cpu ms per frame": {
            label: round(1000.0 * seconds / count, 3)
            for label, seconds in sorted(timer.cpu_s.items(), key=lambda kv: -kv[1])
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("record", "replay"))
    parser.add_argument("clips", nargs="+", type=Path, help="clip folders")
    parser.add_argument("--store", type=Path, required=True, help="folder of the recordings")
    parser.add_argument("--max-calls", type=int, default=None, help="replay only the first N")
    parser.add_argument("--profile", type=Path, help="cProfile (CPU time) of the replay")
    args = parser.parse_args()
    for clip in args.clips:
        if args.mode == "record":
            print(json.dumps({"clip": clip.name, "calls recorded": record(clip, args.store)}))
        else:
            print(json.dumps(replay(clip, args.store, args.max_calls, args.profile)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
