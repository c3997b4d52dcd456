"""One ball per number: a frame's class probabilities made consistent with ten-ball's set.

Ten-ball has one ball of each number and one cue ball, so two detections cannot both be the
2. `assign_identities` gives each detection a different class (the Hungarian assignment on
-log p), `exclusive_probabilities` makes the probabilities agree with it (Sinkhorn balancing,
then the assigned class made each row's top), `assignment_cost` is the likelihood of the
best labelling, `frame_fit_cost` how well a palette explains a frame, and `ruled_out` which
balls a labelling must not force (a class their own reading rules out).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from vision.types import NUM_CLASSES


def _padded(prob: NDArray[np.float64]) -> NDArray[np.float64]:
    """Square matrix: dummy rows for missing balls, dummy columns for extra detections."""
    count = len(prob)
    size = max(count, NUM_CLASSES)
    square = np.full((size, size), 1.0 / size)
    square[:count, :NUM_CLASSES] = prob
    if count > NUM_CLASSES:
        square[:count, NUM_CLASSES:] = 1e-3
    return square


def assign_identities(class_prob: NDArray[np.floating]) -> NDArray[np.int64]:
    """(N,) one class per detection, each class at most once (Hungarian on -log p).

    With more than eleven detections the least likely extras get -1.
    """
    count = len(class_prob)
    if count == 0:
        return np.zeros(0, np.int64)
    cost = -np.log(_padded(np.asarray(class_prob, np.float64) + 1e-9))
    rows, cols = linear_sum_assignment(cost)
    labels = np.full(count, -1, np.int64)
    inside = rows < count
    labels[rows[inside]] = np.where(cols[inside] < NUM_CLASSES, cols[inside], -1)
    return labels


def assignment_cost(prob: NDArray[np.floating]) -> float:
    """-log likelihood (nats) of the best one-ball-per-class labelling of (N, 11)
    probabilities (0 for no ball)."""
    if len(prob) == 0:
        return 0.0
    labels = assign_identities(prob)
    kept = np.flatnonzero(labels >= 0)
    return -float(np.sum(np.log(np.asarray(prob, np.float64)[kept, labels[kept]] + 1e-9)))


def labelled_costs(scores: NDArray[np.floating], outlier_nats: float) -> NDArray[np.float64]:
    """(N,) each ball's cost (nats) in the best one-ball-per-class labelling of (N, 11)
    class log-likelihoods (`vision.identify.class_scores`, not normalised per ball), where
    any ball may instead be left out at `outlier_nats`."""
    count = len(scores)
    if count == 0:
        return np.zeros(0)
    cost = np.hstack([-np.asarray(scores, np.float64), np.full((count, count), outlier_nats)])
    rows, cols = linear_sum_assignment(cost)
    out: NDArray[np.float64] = np.zeros(count)
    out[rows] = cost[rows, cols]
    return out


def labelling_margins(
    scores: NDArray[np.floating], outlier_nats: float
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """(N,) each ball's class in the best one-ball-per-class labelling of (N, 11) class
    log-likelihoods (-1: left out, which costs `outlier_nats` more than the ball's own
    best class, as in `ruled_out`) and (N,) how much worse (nats) the best labelling that
    gives it another class is: a ball whose colour alone is doubtful (a dim 3 between the
    5 and the 7) is sure when every other ball of the frame claims its rivals."""
    count = len(scores)
    if count == 0:
        return np.zeros(0, np.int64), np.zeros(0)
    own = np.nan_to_num(-np.asarray(scores, np.float64), nan=1e6, posinf=1e6, neginf=-1e6)
    leave = np.repeat((own.min(axis=1) + outlier_nats)[:, None], count, axis=1)
    cost = np.hstack([own, leave])
    rows, cols = linear_sum_assignment(cost)
    best = float(cost[rows, cols].sum())
    label = np.full(count, -1, np.int64)
    label[rows] = np.where(cols < NUM_CLASSES, cols, -1)
    margin = np.zeros(count)
    for row, col in zip(rows.tolist(), cols.tolist(), strict=True):
        if col >= NUM_CLASSES:
            continue
        saved = cost[row, col]
        cost[row, col] = 1e6
        again_rows, again_cols = linear_sum_assignment(cost)
        margin[row] = float(cost[again_rows, again_cols].sum()) - best
        cost[row, col] = saved
    return label, margin


def frame_fit_cost(scores: NDArray[np.floating], outlier_nats: float) -> float:
    """-log likelihood (nats) of the best one-ball-per-class labelling of (N, 11) class
    log-likelihoods, any ball left out at `outlier_nats` (0 for no ball; `labelled_costs`).

    How well a palette explains a frame: unnormalised, so a palette whose classes are
    farther apart (fewer rivals per ball) is not favoured, and robust, so a detection that
    fits no class (a streak, a shadow, a patch of cloth) does not decide between palettes.
    """
    return float(labelled_costs(scores, outlier_nats).sum())


def ruled_out(scores: NDArray[np.floating], margin_nats: float) -> NDArray[np.bool_]:
    """(N,) balls the best one-per-class labelling of (N, 11) class log-likelihoods
    (`vision.identify.class_scores`) leaves unlabelled, where leaving a ball out costs
    `margin_nats` more than its own best class (none when the margin is infinite).

    A detection that is not a ball can look like one (a white blob read as the cue ball, a
    patch of cloth as the green 6): forcing one ball per class then pushes the real ball
    onto whatever number is left, one its colour rules out. Such a ball is better left with
    its own reading, for the tracker to settle by where the balls go.
    """
    count = len(scores)
    if count == 0 or not np.isfinite(margin_nats):
        return np.zeros(count, bool)
    best = np.argmax(scores, axis=1)
    if count <= NUM_CLASSES and len(np.unique(best)) == count:
        return np.zeros(count, bool)  # every ball takes its own best class
    cost = np.nan_to_num(-np.asarray(scores, np.float64), nan=1e6, posinf=1e6, neginf=-1e6)
    leave = np.repeat((cost.min(axis=1) + margin_nats)[:, None], count, axis=1)
    rows, cols = linear_sum_assignment(np.hstack([cost, leave]))
    out = np.zeros(count, bool)
    out[rows[cols >= NUM_CLASSES]] = True
    return out


def exclusive_probabilities(
    class_prob: NDArray[np.floating],
    iterations: int = 12,
    left_out: NDArray[np.bool_] | None = None,
) -> NDArray[np.float32]:
    """(N, 11) probabilities consistent with one ball per class.

    Sinkhorn balancing makes every class's column sum to at most one ball; then, where the
    frame's best one-to-one assignment disagrees with a row's most probable class, that row's
    two values are swapped so its top class is the assigned one. Rows sum to 1. Rows marked
    in the (N,) `left_out` (`ruled_out`) keep their own probabilities and take no part.
    """
    prob = np.asarray(class_prob, np.float64) + 1e-6
    count = len(prob)
    if count == 0:
        return np.zeros((0, NUM_CLASSES), np.float32)
    if left_out is not None and left_out.any():
        own = prob / prob.sum(axis=1, keepdims=True)
        if not left_out.all():
            own[~left_out] = exclusive_probabilities(class_prob[~left_out], iterations)
        return np.asarray(own, dtype=np.float32)
    square = _padded(prob / prob.sum(axis=1, keepdims=True))
    for _ in range(iterations):
        square /= square.sum(axis=1, keepdims=True)
        square /= square.sum(axis=0, keepdims=True)
    balanced = square[:count, :NUM_CLASSES]
    balanced = balanced / balanced.sum(axis=1, keepdims=True)
    labels = assign_identities(balanced)
    for row, label in enumerate(labels):
        top = int(np.argmax(balanced[row]))
        if label >= 0 and label != top:
            balanced[row, [top, label]] = balanced[row, [label, top]]
        if label >= 0:
            # Break ties so the assigned class is the row's strict maximum.
            balanced[row, label] += 1e-3
    balanced /= balanced.sum(axis=1, keepdims=True)
    return np.asarray(balanced, dtype=np.float32)
