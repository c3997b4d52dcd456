"""Shot, event and call scores for `tenball eval`.

Both sides index the same video, so shots are matched by strike frame (within a tolerance,
one-to-one, nearest first) and events by kind, balls, cushion or pocket and frame. Facts and
calls are compared on matched shots; an unmatched truth shot counts as wrong for every
per-shot rate, so a run that misses shots cannot score well by being right on the rest.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from tracking.types import Event, EventKind

Shot = dict[str, Any]
UNMATCHED_COST = 1e9


@dataclass(frozen=True, slots=True)
class Tally:
    """`hits` right out of `total` cases; `rate` is None when there was nothing to judge."""

    hits: int
    total: int

    @property
    def rate(self) -> float | None:
        return self.hits / self.total if self.total else None

    def to_json(self) -> dict[str, Any]:
        return {"rate": self.rate, "hits": self.hits, "total": self.total}


@dataclass(frozen=True, slots=True)
class PrecisionRecall:
    """Counts of a detection task: true positives, false positives, false negatives."""

    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def f1(self) -> float | None:
        total = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / total if total else None

    def to_json(self) -> dict[str, Any]:
        return {
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
        }


def match_by_frame(
    truth_frames: Sequence[int], run_frames: Sequence[int], tolerance_frames: float
) -> list[tuple[int, int]]:
    """One-to-one pairs (truth index, run index) with |frame difference| <= tolerance.

    Minimises the total frame difference (Hungarian); pairs beyond the tolerance are dropped.
    """
    if not truth_frames or not run_frames:
        return []
    t = np.asarray(truth_frames, np.float64)
    r = np.asarray(run_frames, np.float64)
    cost = np.abs(t[:, None] - r[None, :])
    cost = np.where(cost <= tolerance_frames, cost, UNMATCHED_COST)
    rows, cols = linear_sum_assignment(cost)
    return [
        (int(i), int(j)) for i, j in zip(rows, cols, strict=True) if cost[i, j] < UNMATCHED_COST
    ]


def match_grouped(
    truth: Sequence[Any],
    run: Sequence[Any],
    key: Callable[[Any], Hashable],
    frame: Callable[[Any], int],
    tolerance_frames: float,
) -> list[tuple[int, int]]:
    """`match_by_frame` within groups of equal `key` (same kind, balls, pocket...)."""
    groups: dict[Hashable, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    for i, item in enumerate(truth):
        groups[key(item)][0].append(i)
    for j, item in enumerate(run):
        groups[key(item)][1].append(j)
    pairs: list[tuple[int, int]] = []
    for t_index, r_index in groups.values():
        t_frames = [frame(truth[i]) for i in t_index]
        r_frames = [frame(run[j]) for j in r_index]
        for a, b in match_by_frame(t_frames, r_frames, tolerance_frames):
            pairs.append((t_index[a], r_index[b]))
    return sorted(pairs)


def event_key(event: Event) -> Hashable:
    """What must agree for two events to be the same: kind, balls (unordered), place."""
    return (event.kind, frozenset(event.balls), event.cushion, event.pocket)


def score_events(
    truth: Sequence[Event], run: Sequence[Event], tolerance_frames: float
) -> dict[str, PrecisionRecall]:
    """Precision and recall of each event kind (shot_end excluded: its timing is a choice)."""
    out: dict[str, PrecisionRecall] = {}
    for kind in EventKind:
        if kind is EventKind.SHOT_END:
            continue
        t = [e for e in truth if e.kind is kind]
        r = [e for e in run if e.kind is kind]
        tp = len(match_grouped(t, r, event_key, lambda e: e.frame, tolerance_frames))
        out[str(kind)] = PrecisionRecall(tp, len(r) - tp, len(t) - tp)
    # which balls reached a cushion matters to the rules; which cushion is descriptive
    t = [e for e in truth if e.kind is EventKind.BALL_CUSHION]
    r = [e for e in run if e.kind is EventKind.BALL_CUSHION]
    tp = len(match_grouped(t, r, lambda e: frozenset(e.balls), lambda e: e.frame, tolerance_frames))
    out["ball_cushion (any name)"] = PrecisionRecall(tp, len(r) - tp, len(t) - tp)
    return out


def pocket_scores(
    truth: Sequence[Event], run: Sequence[Event], tolerance_frames: float
) -> dict[str, Any]:
    """Pocketed ball + pocket precision and recall, and the frame error of the hits."""
    t = [e for e in truth if e.kind is EventKind.BALL_POCKET]
    r = [e for e in run if e.kind is EventKind.BALL_POCKET]
    pairs = match_grouped(t, r, event_key, lambda e: e.frame, tolerance_frames)
    errors = [abs(t[i].frame - r[j].frame) for i, j in pairs]
    counts = PrecisionRecall(len(pairs), len(r) - len(pairs), len(t) - len(pairs))
    return {
        **counts.to_json(),
        "frame_error_median": float(np.median(errors)) if errors else None,
        "frame_error_max": int(max(errors)) if errors else None,
    }
