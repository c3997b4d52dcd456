"""`tenball eval`: a review run scored against the truth of a clip (issue 8).

Reads only the contract files of design.md §5 on both sides (plus, where the truth's shots
carry no call, the clip's declarations.jsonl, so the rules engine makes the truth's calls).
Shots are matched by strike frame; facts (rules.md §4) and calls (rules.md §5) are compared
on matched shots, an unmatched truth shot counting as wrong; events are matched by kind,
balls, place and frame; tracks are matched by position frame by frame (evaluate_tracks).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from referee.declarations import DeclarationLog, load_declarations
from referee.evaluate_io import Side, load_side
from referee.evaluate_shots import (
    PrecisionRecall,
    Shot,
    Tally,
    match_by_frame,
    pocket_scores,
    score_events,
)
from referee.evaluate_tracks import score_tracks
from referee.pipeline_calls import CallStage, ShotInput

CALL_KEYS = (
    "foul",
    "fouls",
    "next_shooter",
    "cue_ball_next",
    "spot",
    "remain_pocketed",
    "option",
    "rack_winner",
    "turn_ends",
)
"""The parts of a call that are compared: the decisions, not the carried-over state."""


@dataclass(frozen=True, slots=True)
class EvalConfig:
    """Tolerances of the comparison.

    Attributes:
        shot_tolerance_s: largest strike-time difference of two matched shots; raising it
            matches shots whose strike was found later.
        event_tolerance_s: largest time difference of two matched events.
        pocket_tolerance_s: largest time difference of two matched pocket events: which ball
            went into which pocket is what the call rests on; when is reported as frame error.
        position_gate_mm: largest centre distance of a per-frame ball match.
        default_fps: used when neither side says its frame rate.
    """

    shot_tolerance_s: float = 0.5
    event_tolerance_s: float = 0.15
    pocket_tolerance_s: float = 0.5
    position_gate_mm: float = 57.15
    default_fps: float = 60.0


def _facts(shot: Shot | None) -> dict[str, Any]:
    facts = shot.get("facts") if shot else None
    return facts if isinstance(facts, dict) else {}


def _cushions(shot: Shot | None) -> set[str]:
    return {str(b) for b in _facts(shot).get("cushion_after_first_contact") or []}


def _pocketed(shot: Shot | None) -> set[tuple[str, str | None]]:
    return {(str(p["ball"]), p.get("pocket")) for p in _facts(shot).get("pocketed") or []}


def _scratch(shot: Shot | None) -> tuple[bool, bool]:
    facts = _facts(shot)
    return (bool(facts.get("cue_ball_pocketed")), bool(facts.get("cue_ball_off_table")))


def _normalise(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return sorted((_normalise(v) for v in value), key=repr)
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    return value


def call_differences(truth: Shot, run: Shot | None) -> list[str]:
    """Keys of CALL_KEYS present in the truth's call on which the run's call differs."""
    truth_call = truth.get("call") or {}
    run_call = (run or {}).get("call") or {}
    return [
        key
        for key in CALL_KEYS
        if key in truth_call
        and (key not in run_call or _normalise(truth_call[key]) != _normalise(run_call[key]))
    ]


@dataclass(frozen=True, slots=True)
class _Pairing:
    """Truth shots with their matched run shot (None when unmatched) and unmatched run shots."""

    pairs: tuple[tuple[Shot, Shot | None], ...]
    extra_run: tuple[Shot, ...]


def pair_shots(truth: Side, run: Side, tolerance_frames: float) -> _Pairing:
    """Match shots one-to-one by strike frame within `tolerance_frames`."""
    t_frames = [int(s.get("frame_strike", -1)) for s in truth.shots]
    r_frames = [int(s.get("frame_strike", -1)) for s in run.shots]
    matches = dict(match_by_frame(t_frames, r_frames, tolerance_frames))
    used = set(matches.values())
    pairs = tuple(
        (shot, run.shots[matches[i]] if i in matches else None)
        for i, shot in enumerate(truth.shots)
    )
    extra = tuple(s for j, s in enumerate(run.shots) if j not in used)
    return _Pairing(pairs, extra)


def _set_counts(pairing: _Pairing, facts_set: Any) -> tuple[Tally, PrecisionRecall]:
    exact = tp = fp = fn = 0
    for truth, run in pairing.pairs:
        t, r = facts_set(truth), facts_set(run)
        exact += run is not None and t == r
        tp, fp, fn = tp + len(t & r), fp + len(r - t), fn + len(t - r)
    for run in pairing.extra_run:
        fp += len(facts_set(run))
    return Tally(exact, len(pairing.pairs)), PrecisionRecall(tp, fp, fn)


def _break_scores(pairing: _Pairing) -> dict[str, Any]:
    exact = decision = total = 0
    for truth, run in pairing.pairs:
        if not truth.get("is_break"):
            continue
        total += 1
        t = _facts(truth).get("object_balls_to_cushion_on_break")
        r = _facts(run).get("object_balls_to_cushion_on_break") if run else None
        exact += run is not None and t == r
        decision += run is not None and r is not None and t is not None and (t >= 4) == (r >= 4)
    return {
        "cushion_count_exact": Tally(exact, total).to_json(),
        "four_ball_decision": Tally(decision, total).to_json(),
    }


def _shot_scores(pairing: _Pairing) -> dict[str, Any]:
    pairs = pairing.pairs
    matched = sum(run is not None for _, run in pairs)
    first = sum(
        run is not None
        and _facts(truth).get("first_object_ball_contacted")
        == _facts(run).get("first_object_ball_contacted")
        for truth, run in pairs
    )
    scratch = sum(run is not None and _scratch(truth) == _scratch(run) for truth, run in pairs)
    cushion_exact, cushion_pr = _set_counts(pairing, _cushions)
    pocket_exact, _ = _set_counts(pairing, _pocketed)
    return {
        "matching": {
            "truth": len(pairs),
            "run": matched + len(pairing.extra_run),
            "matched": matched,
            "recall": matched / len(pairs) if pairs else None,
            "precision": matched / (matched + len(pairing.extra_run))
            if matched + len(pairing.extra_run)
            else None,
        },
        "first_contact": Tally(first, len(pairs)).to_json(),
        "cushion_after_contact_exact": cushion_exact.to_json(),
        "cushion_after_contact_per_ball": cushion_pr.to_json(),
        "break": _break_scores(pairing),
        "pocketed_set_exact": pocket_exact.to_json(),
        "scratch": Tally(scratch, len(pairs)).to_json(),
    }


def _call_scores(pairing: _Pairing) -> dict[str, Any]:
    judged = [(t, r) for t, r in pairing.pairs if t.get("call")]
    disagreements = []
    agreed = 0
    for truth, run in judged:
        keys = call_differences(truth, run) if run is not None else ["unmatched"]
        agreed += not keys
        if keys:
            disagreements.append({"shot": truth.get("shot"), "keys": keys})
    return {**Tally(agreed, len(judged)).to_json(), "disagreements": disagreements}


def with_truth_calls(truth: Side, fps: float) -> Side:
    """The truth with a call on every shot: where its shots.jsonl has none, the rules engine
    judges the truth facts with the clip's declarations.jsonl (beside truth/), as a perfect
    camera would make the call."""
    if all(shot.get("call") for shot in truth.shots):
        return truth
    clip = truth.folder.parent if truth.folder.name == "truth" else truth.folder
    path = clip / "declarations.jsonl"
    log = load_declarations(path) if path.exists() else DeclarationLog()
    stage = CallStage(log)
    shots = []
    for shot in truth.shots:
        strike = int(shot.get("frame_strike", 0))
        time_s = float(shot.get("time_strike_s", strike / fps))
        facts = dict(shot.get("facts") or {})
        judged = stage.judge(ShotInput(strike, int(shot.get("frame_end", strike)), time_s, facts))
        shots.append({**shot, "call": shot.get("call") or judged.call})
    return replace(truth, shots=tuple(shots))


def evaluate(
    truth_dir: str | Path, run_dir: str | Path, config: EvalConfig | None = None
) -> dict[str, Any]:
    """Score a run folder against a truth folder (a clip folder or its truth/).

    Returns:
        A JSON-ready dict: shots (matching, facts), calls, events, pockets, tracks, run.
    """
    config = config or EvalConfig()
    truth, run = load_side(truth_dir), load_side(run_dir)
    fps = truth.fps() or run.fps() or config.default_fps
    truth = with_truth_calls(truth, fps)
    pairing = pair_shots(truth, run, config.shot_tolerance_s * fps)
    event_tolerance = config.event_tolerance_s * fps
    events = score_events(truth.events, run.events, event_tolerance)
    return {
        "truth": str(truth.folder),
        "run": str(run.folder),
        "fps": fps,
        "shots": _shot_scores(pairing),
        "calls": _call_scores(pairing),
        "pocketed": pocket_scores(truth.events, run.events, config.pocket_tolerance_s * fps),
        "events": {kind: counts.to_json() for kind, counts in events.items()},
        "tracks": score_tracks(truth.tracks, run.tracks, config.position_gate_mm).to_json(),
        "run_summary": {
            k: run.summary.get(k) for k in ("frames", "fps", "wall_time_s", "frames_per_s")
        },
    }


HEADLINE: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("shot recall", ("shots", "matching", "recall"), True),
    ("shot precision", ("shots", "matching", "precision"), True),
    ("first contact accuracy", ("shots", "first_contact", "rate"), True),
    ("cushion-after-contact exact set", ("shots", "cushion_after_contact_exact", "rate"), True),
    ("cushion-after-contact per-ball F1", ("shots", "cushion_after_contact_per_ball", "f1"), True),
    ("break cushion count exact", ("shots", "break", "cushion_count_exact", "rate"), True),
    ("break four-ball decision", ("shots", "break", "four_ball_decision", "rate"), True),
    ("pocketed set exact (per shot)", ("shots", "pocketed_set_exact", "rate"), True),
    ("pocket (ball+pocket) precision", ("pocketed", "precision"), True),
    ("pocket (ball+pocket) recall", ("pocketed", "recall"), True),
    ("pocket frame error median", ("pocketed", "frame_error_median"), False),
    ("scratch accuracy", ("shots", "scratch", "rate"), True),
    ("detection recall (ball-frames)", ("tracks", "recall"), True),
    ("detection precision (ball-frames)", ("tracks", "precision"), True),
    ("identity accuracy", ("tracks", "identity_accuracy"), True),
    ("identity switches", ("tracks", "identity_switches"), False),
    ("position error median (mm)", ("tracks", "position_error_mm_median"), False),
    ("position error p95 (mm)", ("tracks", "position_error_mm_p95"), False),
    ("call agreement", ("calls", "rate"), True),
)
"""(label, path in the result, higher is better) of the numbers people and baselines watch."""


def lookup(result: dict[str, Any], path: tuple[str, ...]) -> Any:
    """The value at `path` in a nested result dict, or None."""
    value: Any = result
    for part in path:
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def headline(result: dict[str, Any]) -> dict[str, float | None]:
    """The HEADLINE numbers of a result, by label."""
    out: dict[str, float | None] = {}
    for label, path, _ in HEADLINE:
        value = lookup(result, path)
        out[label] = float(value) if isinstance(value, int | float) else None
    return out


def _cell(label: str, value: float | None) -> str:
    if value is None:
        return "n/a"
    if label.endswith(("(mm)", "median", "switches")):
        return f"{value:.2f}" if not label.endswith("switches") else f"{value:.0f}"
    return f"{100.0 * value:.1f}%"


def format_table(result: dict[str, Any]) -> str:
    """A plain-text table of the headline numbers, then the events and call disagreements."""
    lines = [f"truth: {result['truth']}", f"run:   {result['run']}"]
    speed = result.get("run_summary") or {}
    if speed.get("frames_per_s"):
        lines.append(f"review: {speed['frames']} frames at {speed['frames_per_s']} frames/s")
    lines.append("")
    width = max(len(label) for label, _, _ in HEADLINE)
    lines += [f"{label:<{width}}  {_cell(label, v)}" for label, v in headline(result).items()]
    lines += ["", f"{'event':<24} {'precision':>9} {'recall':>7} {'truth':>6} {'run':>6}"]
    for kind, counts in result["events"].items():
        p = "n/a" if counts["precision"] is None else f"{100 * counts['precision']:.1f}%"
        r = "n/a" if counts["recall"] is None else f"{100 * counts['recall']:.1f}%"
        truth_n, run_n = counts["tp"] + counts["fn"], counts["tp"] + counts["fp"]
        lines.append(f"{kind:<24} {p:>9} {r:>7} {truth_n:>6} {run_n:>6}")
    calls = result["calls"]
    lines += ["", f"calls agreed: {calls['hits']}/{calls['total']}"]
    lines += [
        f"  shot {d['shot']}: differs on {', '.join(d['keys'])}" for d in calls["disagreements"]
    ]
    return "\n".join(lines)
