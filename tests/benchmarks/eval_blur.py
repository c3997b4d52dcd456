"""Motion blur on the break: detection recall by how far each ball travels per exposure.

A ball struck hard out of the rack crosses several of its radii while the shutter is open, so
the camera sees a streak, not a disc (`vision.streaks`). This runs the real detector on every
frame of each clip's first shot from the strike to ``--window`` seconds after it and matches
its detections to the truth (within half a radius, one to one). Each on-table ball is binned
by its travel per exposure in ball radii (half the larger of its image moves to the frames
either side, over its radius: the renderer's exposure is half a frame interval), so the
numbers say the same at any frame rate, image size or table:
``still`` < 0.1, ``slow`` < 0.8, ``mid`` < 2, ``fast`` < 4, ``vfast`` >= 4.

Three ways to search (``--search``):
- ``full``: the whole table each frame, no memory (what a full search finds);
- ``here``: only windows around each ball's true position this frame (a tracker that
  predicts perfectly);
- ``before``: only windows around where each ball was the frame before (a tracker that
  asks for its balls where it last saw them: a ball faster than its window is lost).

Run:
    ``.venv/bin/python tests/benchmarks/eval_blur.py CLIP_DIR ... [--search full] [--window 1.5]``
(``CLIP_DIR`` has video.mp4, calibration.json, truth/tracks.csv and truth/shots.jsonl; render
fresh breaks with ``tenball synth --shots break --fps 30 --seed N ...``.)

Measured 2026-11-30, 9 breaks (8 rendered: seeds 101-108; top, broadcast and corner views;
7, 8 and 9 ft; red, green, blue and grey cloth; 30, 50 and 60 frames/s; one 1920x1080, one
with noise 3; plus sample_videos/broadcast_pushout_others_8ft_red), strike to +1.5 s:
``full`` at 559505b: precision 0.962, fast 54/79, vfast 19/26, mid 718/842; at d1a66e7
(streaks as wide as a ball with its shadow): 0.964, 58/79, 20/26, 721/842. Three 30 frames/s
breaks (seeds 101, 105, 107) at d1a66e7: ``here`` fast 17/29, vfast 6/14, mid 278/340;
``before`` fast 4/29, vfast 1/14, mid 211/340 (the review's hints are where its tracks are).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from calibration.io import load_calibration
from vision.detector import BallDetector, DetectorConfig
from vision.sources import VideoFileSource
from vision.types import Detections, ball_id

BINS = ((0.1, "still"), (0.8, "slow"), (2.0, "mid"), (4.0, "fast"), (np.inf, "vfast"))
"""Upper travel per exposure (ball radii) of each bin."""

Truth = dict[int, dict[int, tuple[float, float]]]
"""frame -> ball -> (u, v) image centre of each on-table ball."""


@dataclass
class Tally:
    """Running counts of one clip or of all."""

    found: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    detections: int = 0
    matched: int = 0
    missed: list[tuple[int, int, float]] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name, (hit, total) in other.found.items():
            self.found[name][0] += hit
            self.found[name][1] += total
        self.detections += other.detections
        self.matched += other.matched

    def line(self) -> str:
        precision = self.matched / max(self.detections, 1)
        bins = " ".join(
            f"{name} {self.found[name][0]}/{self.found[name][1]}"
            for _, name in BINS
            if name in self.found
        )
        false = self.detections - self.matched
        return f"precision {precision:.3f} ({false} false)  {bins}"


def load_truth(clip: Path) -> Truth:
    """On-table balls' image centres per frame."""
    truth: Truth = defaultdict(dict)
    with (clip / "truth" / "tracks.csv").open() as handle:
        for row in csv.DictReader(handle):
            if row["status"] == "on_table":
                uv = (float(row["u_px"]), float(row["v_px"]))
                truth[int(row["frame"])][ball_id(row["ball"])] = uv
    return truth


def travel_radii(truth: Truth, frame: int, ball: int, radius: float) -> float:
    """The ball's travel per exposure (half a frame interval) in its radii."""
    here = np.array(truth[frame][ball])
    moves = [
        float(np.linalg.norm(np.array(truth[k][ball]) - here))
        for k in (frame - 1, frame + 1)
        if ball in truth.get(k, {})
    ]
    return 0.5 * max(moves, default=0.0) / max(radius, 1e-9)


def bin_name(travel: float) -> str:
    return next(name for upper, name in BINS if travel < upper)


def hints(truth: Truth, frame: int, search: str) -> NDArray[np.float64] | None:
    """(M, 2) hint pixels for the search mode (None: the whole table)."""
    if search == "full":
        return None
    source = truth[frame] if search == "here" else truth.get(frame - 1, {})
    return np.array(list(source.values()), np.float64).reshape(-1, 2)


def score_frame(
    truth: Truth, frame: int, found: Detections, radius_map: NDArray[np.float32]
) -> Tally:
    """One frame's matches, binned by travel."""
    tally = Tally()
    balls = list(truth[frame])
    uv = np.array([truth[frame][b] for b in balls], np.float64).reshape(-1, 2)
    matched: set[int] = set()
    if len(found) and len(uv):
        cost = np.linalg.norm(uv[:, None] - found.xy_px[None].astype(np.float64), axis=2)
        rows, cols = linear_sum_assignment(cost)
        close = cost[rows, cols] < 0.5 * found.radius_px[cols]
        matched = set(rows[close].tolist())
    tally.detections, tally.matched = len(found), len(matched)
    height, width = radius_map.shape
    for k, ball in enumerate(balls):
        u = int(np.clip(uv[k, 0], 0, width - 1))
        v = int(np.clip(uv[k, 1], 0, height - 1))
        travel = travel_radii(truth, frame, ball, float(radius_map[v, u]))
        counts = tally.found[bin_name(travel)]
        counts[0] += int(k in matched)
        counts[1] += 1
        if k not in matched and travel >= 0.8:
            tally.missed.append((frame, ball, round(travel, 1)))
    return tally


def evaluate_clip(clip: Path, search: str, window_s: float) -> Tally:
    """Detection around the clip's first strike."""
    truth = load_truth(clip)
    first = json.loads((clip / "truth" / "shots.jsonl").read_text().splitlines()[0])
    detector = BallDetector(
        load_calibration(clip / "calibration.json"), DetectorConfig(reuse_still_windows=False)
    )
    total = Tally()
    video = VideoFileSource(next(clip.glob("*.mp4")))
    with video as source:
        end = first["frame_strike"] + round(window_s * video.fps)
        for frame in source:
            if detector.cloth is None:
                detector.learn_cloth(frame)
            if not first["frame_strike"] <= frame.index <= end or frame.index not in truth:
                continue
            found = detector.detect(frame, hints(truth, frame.index, search))
            tally = score_frame(truth, frame.index, found, detector.view.radius_px)
            total.add(tally)
            total.missed += tally.missed
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clips", nargs="+", type=Path)
    parser.add_argument("--search", choices=("full", "here", "before"), default="full")
    parser.add_argument("--window", type=float, default=1.5, help="seconds after the strike")
    parser.add_argument("--missed", action="store_true", help="list missed moving balls")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    overall = Tally()
    for clip in args.clips:
        tally = evaluate_clip(clip, args.search, args.window)
        overall.add(tally)
        print(f"{clip.name}: {tally.line()}")
        if args.missed:
            print("  missed (frame, ball, travel):", tally.missed)
    print(f"all ({args.search}): {overall.line()}")


if __name__ == "__main__":
    main()
