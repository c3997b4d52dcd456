"""Two code trees' detectors on the same recorded calls, paired call by call: CPU before -> after.

    .venv/bin/python tests/benchmarks/bench_detect_compare.py CLIP_DIR... --store DIR
        --before TREE [--after TREE] [--max-calls N]

The recordings are `bench_detect_replay.py record`'s (STORE/CLIP.calls.pkl). Each tree (a
`git archive` snapshot, or this checkout for --after) runs in a worker process of its own
that decodes the clip and builds its own detector; the parent hands both workers the same
call, one after the other (the order drawn at random per call), so both see the same load:
on a shared machine whose load swings by a factor of two within a minute, comparing two
separate runs cannot resolve a 5 % change, the paired one resolves about 1 %. Only the
workers' main-thread CPU time inside `BallDetector.detect` is counted.

Reports per clip: CPU ms per call of each tree (mean and median), the ratio after/before of
the sums and the median of the per-call ratios, and how many calls differ from the
recording in each tree and between the trees (a change meant to be only faster keeps all
three at 0).

Measured 2026-11-30 (load average 15-18 on 2 cores), daf80fd -> the change test's shortcut
(`vision.memory.changed`: a window no pixel of which changed beyond the limit is unchanged
without the 3x3 averaging): top_combo10 changed() 0.33 -> 0.24 ms per call, whole detector
per-call median ratio 0.97-0.98; all calls identical.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

_WORKER = r"""
import hashlib, pickle, sys, time
tree, clip, store, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, tree)
from pathlib import Path
import numpy as np
from calibration.io import load_calibration
from vision.detector import BallDetector
from vision.sources import VideoFileSource
clip = Path(clip)
with (Path(store) / f"{clip.name}.calls.pkl").open("rb") as handle:
    calls = pickle.load(handle)[:count]
last = max(index for index, _, _ in calls)
source, frames = VideoFileSource(clip / "video.mp4"), []
while len(frames) <= last:
    frame = source.read()
    if frame is None:
        break
    frames.append(frame)
source.close()
detector = BallDetector(load_calibration(clip / "calibration.json"))
fields = ("xy_px", "xy_mm", "radius_px", "confidence", "class_prob")
print(len(calls), flush=True)
for line in sys.stdin:
    index, hints, expected = calls[int(line)]
    started = time.thread_time()
    found = detector.detect(frames[index], hints)
    spent = time.thread_time() - started
    same = all(
        np.array_equal(getattr(found, f), getattr(expected, f), equal_nan=True) for f in fields
    )
    digest = hashlib.sha1(
        b"".join(np.ascontiguousarray(getattr(found, f)).tobytes() for f in fields)
    ).hexdigest()
    print(spent, int(same), digest, flush=True)
"""


class _Worker:
    """One tree's detector in a process of its own, fed call numbers on stdin."""

    def __init__(self, tree: Path, clip: Path, store: Path, count: int) -> None:
        command = [sys.executable, "-c", _WORKER, str(tree), str(clip), str(store), str(count)]
        self.tree = tree
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=str(tree)
        )
        self.calls = int(self._line())

    def _line(self) -> str:
        stdout: IO[str] | None = self._process.stdout
        line = stdout.readline() if stdout is not None else ""
        if not line:
            raise RuntimeError(f"the worker for {self.tree} stopped (see its error above)")
        return line

    def run(self, call: int) -> tuple[float, bool, str]:
        """(CPU seconds, equal to the recording, digest of the detections) of one call."""
        assert self._process.stdin is not None
        self._process.stdin.write(f"{call}\n")
        self._process.stdin.flush()
        spent, same, digest = self._line().split()
        return float(spent), same == "1", digest

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=60)


def compare(
    clip: Path, store: Path, trees: tuple[Path, Path], max_calls: int | None
) -> dict[str, Any]:
    """Paired CPU per call of the two trees over a clip's recorded calls."""
    count = max_calls if max_calls is not None else 10**9
    before, after = (_Worker(tree, clip, store, count) for tree in trees)
    cpu: dict[str, list[float]] = {"before": [], "after": []}
    differ = {"before": 0, "after": 0, "between": 0}
    draw = random.Random(0)
    try:
        for call in range(min(before.calls, after.calls)):
            arms = [("before", before), ("after", after)]
            draw.shuffle(arms)
            digests = []
            for name, worker in arms:
                spent, same, digest = worker.run(call)
                cpu[name].append(spent)
                differ[name] += not same
                digests.append(digest)
            differ["between"] += digests[0] != digests[1]
    finally:
        before.close()
        after.close()
    a, b = (1000.0 * np.array(cpu[name]) for name in ("before", "after"))
    return {
        "clip": clip.name,
        "calls": len(a),
        "cpu ms per call before": {"mean": round(a.mean(), 3), "median": round(np.median(a), 3)},
        "cpu ms per call after": {"mean": round(b.mean(), 3), "median": round(np.median(b), 3)},
        "after / before (sums)": round(b.sum() / max(a.sum(), 1e-9), 3),
        "after / before (median per call)": round(float(np.median(b / np.maximum(a, 1e-6))), 3),
        "differing calls": differ,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clips", nargs="+", type=Path, help="clip folders")
    parser.add_argument("--store", type=Path, required=True, help="folder of the recordings")
    parser.add_argument("--before", type=Path, required=True, help="code tree before")
    parser.add_argument("--after", type=Path, default=ROOT, help="code tree after (this one)")
    parser.add_argument("--max-calls", type=int, default=None, help="compare only the first N")
    args = parser.parse_args()
    trees = (args.before.resolve(), args.after.resolve())
    for clip in args.clips:
        print(json.dumps(compare(clip.resolve(), args.store, trees, args.max_calls)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
