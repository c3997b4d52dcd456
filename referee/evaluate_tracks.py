"""Per-frame detection and identity scores from two tracks.csv files.

In every frame the balls in play on each side (status on_table or occluded) are matched by
position alone (minimum total distance, gated), so that detection and identity are scored
separately: a ball found in the right place under the wrong name is a detection hit and an
identity miss.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from referee.evaluate_io import TrackRows


@dataclass(frozen=True, slots=True)
class TrackScores:
    """Scores of a run's tracks against the truth's.

    Attributes:
        truth_rows: ball-frames in play in the truth.
        run_rows: ball-frames in play in the run.
        matched: pairs matched by position within the gate.
        same_identity: matched pairs where both sides name the same ball.
        identity_switches: times the run ball matched to a truth ball changes from one of its
            matched frames to the next (summed over truth balls).
        error_mm_median / error_mm_p95: ball-centre distance of matched pairs, mm (None if no pair).
        error_px_median: image distance of matched pairs with pixels on both sides, px.
    """

    truth_rows: int
    run_rows: int
    matched: int
    same_identity: int
    identity_switches: int
    error_mm_median: float | None
    error_mm_p95: float | None
    error_px_median: float | None

    @property
    def recall(self) -> float | None:
        return self.matched / self.truth_rows if self.truth_rows else None

    @property
    def precision(self) -> float | None:
        return self.matched / self.run_rows if self.run_rows else None

    @property
    def identity_accuracy(self) -> float | None:
        return self.same_identity / self.matched if self.matched else None

    def to_json(self) -> dict[str, Any]:
        return {
            "truth_rows": self.truth_rows,
            "run_rows": self.run_rows,
            "matched": self.matched,
            "recall": self.recall,
            "precision": self.precision,
            "identity_accuracy": self.identity_accuracy,
            "identity_switches": self.identity_switches,
            "position_error_mm_median": self.error_mm_median,
            "position_error_mm_p95": self.error_mm_p95,
            "position_error_px_median": self.error_px_median,
        }


@dataclass(frozen=True, slots=True, eq=False)
class _Pairs:
    """Matched row pairs: indices into the truth and run rows, (M,) int64 each."""

    truth: NDArray[np.int64]
    run: NDArray[np.int64]


def _frame_groups(rows: TrackRows) -> dict[int, NDArray[np.int64]]:
    keep = np.flatnonzero(rows.in_play())
    frames = rows.frame[keep]
    order = np.argsort(frames, kind="stable")
    keep, frames = keep[order], frames[order]
    values, starts = np.unique(frames, return_index=True)
    return {
        int(value): part for value, part in zip(values, np.split(keep, starts[1:]), strict=True)
    }


def match_rows(truth: TrackRows, run: TrackRows, gate_mm: float) -> _Pairs:
    """Match in-play rows frame by frame by position (Hungarian on distance, gated).

    Args:
        truth: truth rows.
        run: run rows.
        gate_mm: largest centre distance of a match, mm; raising it forgives larger errors.
    """
    truth_groups = _frame_groups(truth)
    run_groups = _frame_groups(run)
    truth_out: list[NDArray[np.int64]] = []
    run_out: list[NDArray[np.int64]] = []
    for frame, t_index in truth_groups.items():
        r_index = run_groups.get(frame)
        if r_index is None:
            continue
        # cost[i, j] = |truth_i - run_j|
        cost = np.linalg.norm(truth.xy_mm[t_index, None, :] - run.xy_mm[None, r_index, :], axis=2)
        cost = np.where(np.isfinite(cost), cost, 1e9)
        rows, cols = linear_sum_assignment(cost)
        ok = cost[rows, cols] <= gate_mm
        truth_out.append(t_index[rows[ok]])
        run_out.append(r_index[cols[ok]])
    if not truth_out:
        return _Pairs(np.zeros(0, np.int64), np.zeros(0, np.int64))
    return _Pairs(np.concatenate(truth_out), np.concatenate(run_out))


def _identity_switches(truth: TrackRows, run: TrackRows, pairs: _Pairs) -> int:
    truth_ball = truth.ball[pairs.truth]
    order = np.lexsort((truth.frame[pairs.truth], truth_ball))
    balls = truth_ball[order]
    names = run.ball[pairs.run][order]
    same_ball = balls[1:] == balls[:-1]
    return int(np.count_nonzero(same_ball & (names[1:] != names[:-1])))


def _stat(values: NDArray[np.float64], percentile: float) -> float | None:
    finite = values[np.isfinite(values)]
    return float(np.percentile(finite, percentile)) if len(finite) else None


def score_tracks(truth: TrackRows, run: TrackRows, gate_mm: float = 57.15) -> TrackScores:
    """Detection recall/precision, identity accuracy and switches, position error.

    Args:
        truth: the truth's tracks.csv rows.
        run: the run's tracks.csv rows.
        gate_mm: largest centre distance of a match, mm (default one ball diameter).
    """
    pairs = match_rows(truth, run, gate_mm)
    error_mm = np.linalg.norm(truth.xy_mm[pairs.truth] - run.xy_mm[pairs.run], axis=1)
    error_px = np.linalg.norm(truth.uv_px[pairs.truth] - run.uv_px[pairs.run], axis=1)
    return TrackScores(
        truth_rows=int(np.count_nonzero(truth.in_play())),
        run_rows=int(np.count_nonzero(run.in_play())),
        matched=len(pairs.truth),
        same_identity=int(np.count_nonzero(truth.ball[pairs.truth] == run.ball[pairs.run])),
        identity_switches=_identity_switches(truth, run, pairs),
        error_mm_median=_stat(error_mm, 50),
        error_mm_p95=_stat(error_mm, 95),
        error_px_median=_stat(error_px, 50),
    )
