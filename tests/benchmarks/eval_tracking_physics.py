"""Accuracy of tracking + events + facts on many random pooltool shots (no render, no planner).

Each shot is played by pooltool (`vision.synthetic.physics`): breaks (cue ball behind the
head string into a full rack at 6-9 m/s) and open-table shots (3-8 object balls placed at
random, the cue ball aimed at one of them with a cut, 0.8-4 m/s, random spin). The exact
states at the frame instants become noisy detections (position noise, misses, class
confusion, and sometimes an arm hiding a disc of the table for a while). Truth facts come
from the exact pooltool events through `referee.shots.facts_from_events`; the tracked facts
from `BallTracker` -> `EventDetector` -> `ShotSegmenter`.

Run: ``.venv/bin/python tests/benchmarks/eval_tracking_physics.py --shots 40 --breaks 10``
(needs the ``synth`` extra).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from calibration.table import TableSpec
from referee.shots import ShotRecord, ShotSegmenter, facts_from_events
from tracking.events import EventDetector
from tracking.tracker import BallTracker
from tracking.types import Event, EventKind, TrackSet, TrackStatus
from vision.types import NUM_CLASSES, Detections

LEAD_S = 0.5
TAIL_S = 1.2


def _layout(
    rng: np.random.Generator, table: TableSpec, is_break: bool
) -> dict[int, tuple[float, float]]:
    radius = table.ball_radius_mm
    if is_break:
        positions = table.rack_positions_mm([int(b) for b in rng.permutation(np.arange(2, 10))])
        positions[0] = (
            float(rng.uniform(200, table.head_string_x_mm - 40)),
            float(rng.uniform(200, table.width_mm - 200)),
        )
        return positions
    positions: dict[int, tuple[float, float]] = {}
    balls = [0, *rng.choice(np.arange(1, 11), size=int(rng.integers(3, 9)), replace=False).tolist()]
    for ball in balls:
        for _ in range(200):
            xy = (
                float(rng.uniform(2 * radius, table.length_mm - 2 * radius)),
                float(rng.uniform(2 * radius, table.width_mm - 2 * radius)),
            )
            if all(math.dist(xy, other) > 2.2 * radius for other in positions.values()):
                positions[int(ball)] = xy
                break
    return positions


def _stroke(
    rng: np.random.Generator, positions: dict[int, tuple[float, float]], is_break: bool
) -> Any:
    from vision.synthetic.physics import ShotParams

    target = 1 if is_break else int(rng.choice([b for b in positions if b != 0]))
    aim = np.subtract(positions[target], positions[0])
    aim = aim / np.linalg.norm(aim)
    cut = rng.normal(0.0, 0.01 if is_break else 0.25)
    direction = (
        aim[0] * math.cos(cut) - aim[1] * math.sin(cut),
        aim[0] * math.sin(cut) + aim[1] * math.cos(cut),
    )
    speed = rng.uniform(6.0, 9.0) if is_break else rng.uniform(0.8, 4.0)
    spin = (
        (0.0, 0.0) if is_break else (float(rng.uniform(-0.4, 0.4)), float(rng.uniform(-0.4, 0.4)))
    )
    return ShotParams(float(speed), (float(direction[0]), float(direction[1])), spin[0], spin[1])


def play(rng: np.random.Generator, table: TableSpec, is_break: bool, fps: float) -> dict[str, Any]:
    """One pooltool shot sampled at ``fps``: states, truth events and facts."""
    from vision.synthetic.physics import build_system, pooltool_table, simulate_shot

    positions = _layout(rng, table, is_break)
    system = build_system(pooltool_table(table), positions, table.ball_radius_mm)
    shot = simulate_shot(system, _stroke(rng, positions, is_break), table)
    times = np.arange(0.0, LEAD_S + shot.duration_s + TAIL_S, 1.0 / fps)
    states = shot.states(np.maximum(times - LEAD_S, 0.0))
    events = [
        Event(
            math.ceil((e.time_s + LEAD_S) * fps - 1e-9),
            e.time_s + LEAD_S,
            EventKind(e.kind),
            e.balls,
            e.cushion,
            e.pocket,
        )
        for e in shot.events
    ]
    on_table = [b for b in positions if b != 0]
    return {
        "time_s": times,
        "states": states,
        "events": events,
        "facts": facts_from_events(events, on_table, is_break),
        "is_break": is_break,
    }


def detections(
    states: Any, frame: int, rng: np.random.Generator, args: argparse.Namespace, hidden: Any
) -> Detections:
    """Noisy detections of the balls on the table at one frame."""
    visible = states.present & ~states.pocketed[frame]
    balls = np.flatnonzero(visible & (rng.random(NUM_CLASSES) >= args.miss_rate))
    xy = states.xy_mm[frame, balls]
    if hidden is not None:
        centre, radius, start, end = hidden
        if start <= frame <= end:
            keep = np.linalg.norm(xy - centre, axis=1) > radius
            balls, xy = balls[keep], xy[keep]
    xy = xy + rng.normal(0.0, args.noise_mm, xy.shape)
    prob = np.full((len(balls), NUM_CLASSES), 0.01)
    prob[np.arange(len(balls)), balls] = args.true_prob
    prob[np.arange(len(balls)), (balls + 1) % NUM_CLASSES] += 1.0 - args.true_prob - 0.1
    prob /= prob.sum(axis=1, keepdims=True)
    return Detections(
        xy.astype(np.float32),
        xy.astype(np.float32),
        np.full(len(balls), 10.0, np.float32),
        np.full(len(balls), 0.95, np.float32),
        prob.astype(np.float32),
    )


def _switches_and_errors(
    trackset: TrackSet, states: Any, frame: int, tally: dict[str, Any]
) -> None:
    truth = states.xy_mm[frame]
    live = states.present & ~states.pocketed[frame]
    for ball, xy, status in zip(trackset.ball, trackset.xy_mm, trackset.status, strict=True):
        if status != TrackStatus.ON_TABLE or not live[ball]:
            continue
        error = float(np.linalg.norm(xy - truth[ball]))
        tally["errors"].append(error)
        others = np.linalg.norm(truth - xy, axis=1)
        others[ball] = np.inf
        others[~live] = np.inf
        if error > 57.15 and others.min() < 28.0:
            tally["switch_frames"] += 1


def run_shot(
    shot: dict[str, Any],
    table: TableSpec,
    rng: np.random.Generator,
    args: argparse.Namespace,
    tally: dict[str, Any],
) -> ShotRecord | None:
    tracker, detector, segmenter = BallTracker(table), EventDetector(table), ShotSegmenter(table)
    records: list[ShotRecord] = []
    frames = len(shot["time_s"])
    hidden = None
    if rng.random() < args.arm_rate:
        start = int(rng.integers(0, frames // 2))
        centre = rng.uniform([0, 0], [table.length_mm, table.width_mm])
        hidden = (
            centre,
            float(rng.uniform(100, 250)),
            start,
            start + int(rng.uniform(0.2, 1.0) * len(shot["time_s"]) / 10),
        )
    spent = 0.0
    for frame, time_s in enumerate(shot["time_s"]):
        dets = detections(shot["states"], frame, rng, args, hidden)
        tick = time.process_time()
        trackset = tracker.update(dets, frame, float(time_s))
        events = detector.update(trackset)
        spent += time.process_time() - tick
        records += segmenter.update(events, trackset)
        _switches_and_errors(trackset, shot["states"], frame, tally)
    tally["ms_per_frame"].append(1000.0 * spent / frames)
    # Close a shot still open at the end of the recording.
    if not records and segmenter.open_shot_strike is not None:
        end = Event(frames, float(shot["time_s"][-1]), EventKind.SHOT_END)
        records += segmenter.update([end], trackset)
    return records[0] if records else None


def compare(mine: ShotRecord | None, shot: dict[str, Any], tally: dict[str, Any]) -> None:
    want = shot["facts"]
    tally["shots"] += 1
    if mine is None:
        tally["missed_shots"] += 1
        return
    got = mine.facts
    first = got["first_object_ball_contacted"] == want["first_object_ball_contacted"]
    cushions = {str(b) for b in got["cushion_after_first_contact"]} == {
        str(b) for b in want["cushion_after_first_contact"]
    }
    tally["first_ok"] += first
    tally["cushion_ok"] += cushions
    if shot["is_break"]:
        tally["breaks"] += 1
        n_got, n_want = (
            got["object_balls_to_cushion_on_break"],
            want["object_balls_to_cushion_on_break"],
        )
        tally["break_count_ok"] += n_got == n_want
        tally["four_ok"] += (n_got is not None and n_got >= 4) == (n_want >= 4)
    mine_p = {(p["ball"], p["pocket"]): p["frame"] for p in got["pocketed"]}
    want_p = {(p["ball"], p["pocket"]): p["frame"] for p in want["pocketed"]}
    if got["cue_ball_pocketed"]:
        mine_p[(0, got.get("cue_ball_pocket"))] = -1
    if want["cue_ball_pocketed"]:
        want_p[(0, want.get("cue_ball_pocket"))] = -1
    both = mine_p.keys() & want_p.keys()
    tally["pocket_tp"] += len(both)
    tally["pocket_fp"] += len(mine_p.keys() - want_p.keys())
    tally["pocket_fn"] += len(want_p.keys() - mine_p.keys())
    tally["pocket_frame_errors"] += [abs(mine_p[k] - want_p[k]) for k in both]
    tally["disturbed_false"] += bool(got["balls_disturbed"])
    if not (first and cushions) or mine_p.keys() != want_p.keys():
        keys = (
            "first_object_ball_contacted",
            "cushion_after_first_contact",
            "pocketed",
            "cue_ball_pocketed",
        )
        tally["mismatches"].append(
            {
                "break": shot["is_break"],
                "got": {k: got[k] for k in keys},
                "want": {k: want[k] for k in keys},
            }
        )


def summary(tally: dict[str, Any]) -> dict[str, Any]:
    def rate(hits: str, total: str) -> float | None:
        return round(tally[hits] / tally[total], 4) if tally[total] else None

    tp, fp, fn = tally["pocket_tp"], tally["pocket_fp"], tally["pocket_fn"]
    return {
        "shots": tally["shots"],
        "missed_shots": tally["missed_shots"],
        "first_contact_rate": rate("first_ok", "shots"),
        "cushion_set_exact_rate": rate("cushion_ok", "shots"),
        "breaks": tally["breaks"],
        "break_count_exact_rate": rate("break_count_ok", "breaks"),
        "break_four_ball_decision_rate": rate("four_ok", "breaks"),
        "pocket_precision": round(tp / (tp + fp), 4) if tp + fp else None,
        "pocket_recall": round(tp / (tp + fn), 4) if tp + fn else None,
        "pocket_frame_error_max": max(
            (e for e in tally["pocket_frame_errors"] if e >= 0), default=None
        ),
        "identity_switch_frames": tally["switch_frames"],
        "median_position_error_mm": round(float(np.median(tally["errors"])), 3),
        "shots_with_false_disturbance": tally["disturbed_false"],
        "tracking_events_ms_per_frame_median": round(float(np.median(tally["ms_per_frame"])), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=int, default=30, help="open-table shots")
    parser.add_argument("--breaks", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fps", type=float, default=60.0)
    parser.add_argument("--table", default="9ft")
    parser.add_argument("--noise-mm", type=float, default=1.5)
    parser.add_argument("--miss-rate", type=float, default=0.02)
    parser.add_argument("--true-prob", type=float, default=0.8)
    parser.add_argument(
        "--arm-rate", type=float, default=0.3, help="share of shots with an arm hiding balls"
    )
    parser.add_argument("--show-mismatches", action="store_true")
    args = parser.parse_args()
    table = TableSpec.from_name(args.table)
    rng = np.random.default_rng(args.seed)
    tally: dict[str, Any] = dict.fromkeys(
        [
            "shots",
            "missed_shots",
            "first_ok",
            "cushion_ok",
            "breaks",
            "break_count_ok",
            "four_ok",
            "pocket_tp",
            "pocket_fp",
            "pocket_fn",
            "switch_frames",
            "disturbed_false",
        ],
        0,
    )
    tally.update(errors=[], pocket_frame_errors=[], mismatches=[], ms_per_frame=[])
    kinds = [True] * args.breaks + [False] * args.shots
    for is_break in kinds:
        shot = play(rng, table, is_break, args.fps)
        compare(run_shot(shot, table, rng, args, tally), shot, tally)
    print(json.dumps(summary(tally), indent=1))
    if args.show_mismatches:
        for mismatch in tally["mismatches"]:
            print(json.dumps(mismatch))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
