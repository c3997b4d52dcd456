"""Two code trees' round search (`vision.find`) on the same captured inputs, paired call by call.

    .venv/bin/python tests/benchmarks/bench_find_compare.py capture CLIP_DIR --store DIR
    .venv/bin/python tests/benchmarks/bench_find_compare.py compare CLIP_DIR --store DIR
        --before TREE [--after TREE] [--kinds fast,seeded,thorough,whole] [--repeats N]

`capture` replays `bench_detect_replay.py record`'s calls (STORE/CLIP.calls.pkl) through this
checkout's detector and pickles every input of `find_balls` and `find_seeded` (the search
region's maps, the mosaic, the config) to STORE/CLIP.find.pkl (about 1 MB per call).

`compare` runs both trees' `vision.find` in a worker process each on those inputs, the order
of the two drawn at random per call, and reports per kind of pass (the fast pass over hinted
windows, the thorough pass with seeds, the thorough pass over changed cells, the whole
table): CPU ms per call of each, the ratio of the sums, the median per-call ratio, and how
many calls' outputs (centres, confidences, pixels) differ between the trees (a change meant
to be only faster keeps this at 0). Unlike `bench_detect_compare.py` it times only the round
search, without the per-pixel maps and the identifier around it, so a 5 % change of it shows.

Measured 2026-11-30 (load average 20-29 on 2 cores), b7755d5 -> this round's round-search
changes (bisectors cut at once, patches taken as views, one pixel index per confidence,
`np.nonzero` of a region by its flat form, the outline votes' magnitude only near edges, the
streak tests without sorting or a second eigen-decomposition), top_combo10 (802 calls):
fast pass 2.69 -> 2.44 ms per call (ratio 0.91), the thorough passes 12.5 -> 10.5 (0.84);
no call's output differs.
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("fast", "seeded", "thorough", "whole")

_WORKER = r"""
import hashlib, pickle, sys, time
tree, path, kinds = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
sys.path.insert(0, tree)
import numpy as np
import vision.find as find
with open(path, "rb") as handle:
    captured = [c for c in pickle.load(handle) if c[0] in kinds]
print(len(captured), flush=True)
for line in sys.stdin:
    kind, call, region, mosaic, config, camera, extra = captured[int(line)]
    started = time.thread_time()
    if call == "balls":
        found = find.find_balls(region, mosaic, config, camera, extra)
    else:
        found = find.find_seeded(region, mosaic, config, camera, extra)
    cpu_s = time.thread_time() - started
    digest = hashlib.sha256()
    for part in (found[0], found[1], *found[2]):
        digest.update(np.ascontiguousarray(part).tobytes())
    print(kind, cpu_s, digest.hexdigest()[:16], flush=True)
"""


def _kind(call: str, mosaic: Any, thorough: Any) -> str:
    if call == "seeded":
        return "seeded"
    whole = len(mosaic.frame_boxes) == 1 and mosaic.shape[0] * mosaic.shape[1] > 250_000
    return "whole" if whole else ("thorough" if thorough else "fast")


def capture(clip: Path, store: Path) -> int:
    """Pickle the round search's inputs of a replay of the recorded calls; returns the count."""
    sys.path.insert(0, str(ROOT))
    import vision.detector as detector_module
    from calibration.io import load_calibration
    from vision.sources import VideoFileSource

    with (store / f"{clip.name}.calls.pkl").open("rb") as recorded:
        calls = pickle.load(recorded)
    detector = detector_module.BallDetector(load_calibration(clip / "calibration.json"))
    captured: list[tuple[Any, ...]] = []
    module: Any = detector_module  # its names are patched, not its public API
    find_balls, find_seeded = module.find_balls, module.find_seeded

    def balls(region: Any, mosaic: Any, config: Any, camera: Any, thorough: Any) -> Any:
        kind = _kind("balls", mosaic, thorough)
        captured.append((kind, "balls", region, mosaic, config, camera, thorough))
        return find_balls(region, mosaic, config, camera, thorough)

    def seeded(region: Any, mosaic: Any, config: Any, camera: Any, seeds: Any) -> Any:
        captured.append(("seeded", "seeded", region, mosaic, config, camera, seeds))
        return find_seeded(region, mosaic, config, camera, seeds)

    module.find_balls, module.find_seeded = balls, seeded
    source = VideoFileSource(clip / "video.mp4")
    try:
        frames: dict[int, Any] = {}
        last = max(index for index, _, _ in calls)
        while len(frames) <= last and (frame := source.read()) is not None:
            frames[frame.index] = frame
    finally:
        source.close()
    for index, hints, _ in calls:
        detector.detect(frames[index], hints)
    with (store / f"{clip.name}.find.pkl").open("wb") as handle:
        pickle.dump(captured, handle, protocol=pickle.HIGHEST_PROTOCOL)
    return len(captured)


def compare(path: Path, trees: tuple[str, str], kinds: str, repeats: int) -> dict[str, Any]:
    """Paired CPU per call of both trees' round search, by kind of pass."""
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, tree, str(path), kinds],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for tree in trees
    ]
    assert workers[0].stdout is not None and workers[1].stdout is not None
    count = int(workers[0].stdout.readline())
    assert count == int(workers[1].stdout.readline())
    rng = random.Random(0)
    cpu: dict[str, list[list[float]]] = {}
    differing: dict[str, int] = {}
    for _ in range(repeats):
        for index in range(count):
            answers: list[list[str]] = [[], []]
            for side in rng.sample([0, 1], 2):
                worker = workers[side]
                assert worker.stdin is not None and worker.stdout is not None
                worker.stdin.write(f"{index}\n")
                worker.stdin.flush()
                answers[side] = worker.stdout.readline().split()
            kind = answers[0][0]
            cpu.setdefault(kind, [[], []])
            for side in (0, 1):
                cpu[kind][side].append(float(answers[side][1]))
            differing[kind] = differing.get(kind, 0) + (answers[0][2] != answers[1][2])
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.close()
        worker.wait()
    report: dict[str, Any] = {}
    for kind, (before, after) in cpu.items():
        ratios = sorted(a / b for a, b in zip(after, before, strict=True) if b > 0)
        report[kind] = {
            "calls": len(before) // repeats,
            "before_ms_per_call": round(1000.0 * sum(before) / len(before), 3),
            "after_ms_per_call": round(1000.0 * sum(after) / len(after), 3),
            "ratio_of_sums": round(sum(after) / sum(before), 3),
            "median_ratio": round(ratios[len(ratios) // 2], 3) if ratios else None,
            "differing_calls": differing[kind] // repeats,
        }
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("capture", "compare"))
    parser.add_argument("clips", nargs="+", type=Path)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--before", help="tree to compare against (compare)")
    parser.add_argument("--after", default=str(ROOT), help="tree compared (default: this one)")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    for clip in args.clips:
        if args.mode == "capture":
            print(json.dumps({"clip": clip.name, "calls captured": capture(clip, args.store)}))
            continue
        if not args.before:
            parser.error("compare needs --before TREE")
        path = args.store / f"{clip.name}.find.pkl"
        report = compare(path, (args.before, args.after), args.kinds, args.repeats)
        print(json.dumps({"clip": clip.name, **report}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
