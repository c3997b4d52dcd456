"""Compare trackers on identical recorded detections: record a review's detections once, replay.

The detector changes as its engineers work, so a tracker's identity switches measured on
live reviews move with their commits. This records every frame's detections of one real
review (``record``: the real detector, hinted windows and full searches exactly as that run
asked for them) into an ``.npz`` file, then replays them (``replay``: the same review code,
blank frames, the recorded detections handed back whatever the tracker asks for) and scores
the run with `referee.evaluate.evaluate` against the clip's truth. The replay is open loop:
a tracker that would have asked for a full search on another frame gets what the recorded
run saw, so it measures the tracker on fixed input, not the closed pipeline.

Run:
    ``.venv/bin/python tests/benchmarks/eval_tracking_replay.py record CLIP_DIR ... --store DIR``
    ``.venv/bin/python tests/benchmarks/eval_tracking_replay.py replay CLIP_DIR ... --store DIR``
(``--out DIR`` keeps the replayed review folders; ``CLIP_DIR`` has video.mp4,
calibration.json, declarations.jsonl and truth/.)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from calibration.io import load_calibration
from referee.declarations import load_declarations
from referee.evaluate import evaluate
from referee.pipeline import PipelineConfig
from referee.review.session import Review, ReviewOptions
from tracking.association import AssociationConfig
from tracking.identity import IdentityConfig
from tracking.tracker_config import TrackerConfig
from vision.types import Detections, Frame

_FIELDS = ("xy_px", "xy_mm", "radius_px", "confidence", "class_prob")


class _Recorder:
    """Wraps the real detector and keeps what it returned on every frame."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.frames: list[tuple[int, float, bool, Detections]] = []

    def detect(self, frame: Frame, hint_xy_px: NDArray[np.floating] | None = None) -> Detections:
        detections: Detections = self.inner.detect(frame, hint_xy_px)
        self.frames.append((frame.index, frame.time_s, hint_xy_px is None, detections))
        return detections

    def detect_reaching(
        self,
        frame: Frame,
        hint_xy_px: NDArray[np.floating] | None,
        reach_xy_px: NDArray[np.floating],
    ) -> Detections:
        """The reaching search (`PipelineConfig.reach_speed_mm_s`), recorded the same way:
        without it the pipeline, which looks it up by name, would silently not reach."""
        detections: Detections = self.inner.detect_reaching(frame, hint_xy_px, reach_xy_px)
        self.frames.append((frame.index, frame.time_s, hint_xy_px is None, detections))
        return detections


class _Player:
    """Hands back the recorded detections of each frame, whatever hint is asked for."""

    def __init__(self, recorded: dict[int, Detections]) -> None:
        self.recorded = recorded

    def detect(self, frame: Frame, hint_xy_px: NDArray[np.floating] | None = None) -> Detections:
        return self.recorded.get(frame.index, Detections.empty())


class _BlankSource:
    """Blank frames at the recorded frame times (the detector never looks at them)."""

    def __init__(self, times: NDArray[np.float64], size: tuple[int, int], fps: float) -> None:
        self.times, self.fps, self.frame_count = times, fps, len(times)
        self.image = np.zeros((size[1], size[0], 3), np.uint8)
        self.index = 0

    def read(self) -> Frame | None:
        if self.index >= len(self.times):
            return None
        frame = Frame(self.image, self.index, float(self.times[self.index]))
        self.index += 1
        return frame

    def close(self) -> None:
        pass


def _save(path: Path, fps: float, frames: list[tuple[int, float, bool, Detections]]) -> None:
    counts = np.array([len(d) for _, _, _, d in frames], np.int64)
    arrays: dict[str, Any] = {
        name: np.concatenate([getattr(d, name) for _, _, _, d in frames])
        if frames
        else np.zeros(0, np.float32)
        for name in _FIELDS
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(
        tmp,
        fps=np.float64(fps),
        index=np.array([f[0] for f in frames], np.int64),
        time_s=np.array([f[1] for f in frames], np.float64),
        full=np.array([f[2] for f in frames], bool),
        counts=counts,
        **arrays,
    )
    os.replace(tmp, path)


def _load(path: Path) -> tuple[float, NDArray[np.float64], dict[int, Detections], int]:
    """(fps, frame times, detections by frame index, full searches) of a recording."""
    data = np.load(path)
    ends = np.cumsum(data["counts"])
    recorded: dict[int, Detections] = {}
    for index, end, count in zip(data["index"], ends, data["counts"], strict=True):
        rows = slice(int(end - count), int(end))
        recorded[int(index)] = Detections(*(data[name][rows] for name in _FIELDS))
    return float(data["fps"]), data["time_s"], recorded, int(data["full"].sum())


def record(clip: Path, store: Path) -> None:
    """Review ``clip`` with the real detector and store its detections."""
    from vision.detector import BallDetector
    from vision.sources import open_source

    calibration = load_calibration(clip / "calibration.json")
    recorder = _Recorder(BallDetector(calibration))
    source = open_source(clip / "video.mp4")
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as out:
            options = ReviewOptions(Path(out), progress=False)
            Review(source, calibration, _declarations(clip), options, recorder).execute()
    finally:
        source.close()
    _save(store / f"{clip.name}.npz", float(source.fps), recorder.frames)
    seconds = time.perf_counter() - started
    print(f"{clip.name}: {len(recorder.frames)} frames recorded in {seconds:.0f} s", flush=True)


def tracker_config(settings: list[str]) -> TrackerConfig:
    """A `TrackerConfig` with ``name=value`` settings (``association.name=value`` and
    ``identity.name=value`` for the nested tunables) over the defaults."""
    top: dict[str, Any] = {}
    nested: dict[str, dict[str, Any]] = {"association": {}, "identity": {}}
    for setting in settings:
        name, _, value = setting.partition("=")
        group, _, leaf = name.rpartition(".")
        target = nested[group] if group else top
        target[leaf] = float(value) if "." in value or "e" in value else int(value)
    return replace(
        TrackerConfig(),
        association=replace(AssociationConfig(), **nested["association"]),
        identity=replace(IdentityConfig(), **nested["identity"]),
        **top,
    )


def replay(
    clip: Path, store: Path, out: Path, config: TrackerConfig | None = None
) -> dict[str, Any]:
    """Replay the stored detections of ``clip`` through the review; returns the scores."""
    fps, times, recorded, full = _load(store / f"{clip.name}.npz")
    calibration = load_calibration(clip / "calibration.json")
    source = _BlankSource(times, calibration.image_size, fps)
    options = ReviewOptions(out, progress=False, config=PipelineConfig(tracker=config))
    review = Review(source, calibration, _declarations(clip), options, _Player(recorded))
    review.execute()
    result = evaluate(clip, out)
    ms = review.pipeline.mean_ms()
    tracks, calls = result["tracks"], result["calls"]
    return {
        "clip": clip.name,
        "switches": tracks["identity_switches"],
        "identity": tracks["identity_accuracy"],
        "recall": tracks["recall"],
        "precision": tracks["precision"],
        "error_mm": tracks["position_error_mm_median"],
        "calls": f"{calls['hits']}/{calls['total']}",
        "track_ms": ms.get("track", float("nan")),
        "full_searches": full,
    }


def _declarations(clip: Path) -> Any:
    path = clip / "declarations.jsonl"
    return load_declarations(path) if path.exists() else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("record", "replay"))
    parser.add_argument("clips", nargs="+", type=Path)
    parser.add_argument("--store", type=Path, required=True, help="folder of the .npz files")
    parser.add_argument("--out", type=Path, help="keep the replayed review folders here")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a TrackerConfig tunable for the replay (association.NAME, identity.NAME nested)",
    )
    args = parser.parse_args()
    if args.mode == "record":
        for clip in args.clips:
            record(clip, args.store)
        return 0
    total = 0
    for clip in args.clips:
        with tempfile.TemporaryDirectory() as tmp:
            out = args.out / clip.name if args.out else Path(tmp)
            row = replay(clip, args.store, out, tracker_config(args.set))
        total += int(row["switches"])
        print(
            f"{row['clip']:34} switches {row['switches']:3d}  identity {row['identity']:.3f}  "
            f"recall {row['recall']:.3f}  precision {row['precision']:.3f}  "
            f"error {row['error_mm']:.2f} mm  calls {row['calls']}  "
            f"track {row['track_ms']:.2f} ms/frame",
            flush=True,
        )
    print(f"switches in all: {total}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
