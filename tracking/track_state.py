"""The mutable per-ball state of `tracking.tracker.BallTracker`, one slot per ball number.

Slot ``i`` holds the Kalman estimate of ball ``i`` (0 cue, 1..10) and what the tracker
remembers of it: when and where it was last seen, whether it is in play or was removed
(pocketed, off the table), whether it is lost in a pocket mouth or beyond a cushion line
(``pending``), and the identity evidence of the detections it took. Two slots exchange
everything when the identity evidence says their tracks follow each other's balls.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np
from numpy.typing import NDArray

from tracking.fastnp import true_indices
from tracking.types import TrackSet, TrackStatus
from vision.types import NUM_CLASSES

PENDING_NONE, PENDING_POCKET, PENDING_OFF = 0, 1, 2
"""What a lost ball may be doing: nothing known, dropping into a pocket, leaving the table."""


@dataclass(slots=True)
class TrackState:
    """Mutable per-ball state, indexed by ball class (0 cue, 1..10).

    Attributes:
        mean: (11, 4) Kalman state ``[x, y, vx, vy]``, table mm and mm/s.
        cov: (11, 4, 4) its covariance.
        alive: (11,) the ball is in play (seen or hidden).
        removed: (11,) object: ``TrackStatus.POCKETED`` / ``OFF_TABLE`` or None.
        removed_time_s: (11,) when it was removed, s.
        seen_time_s: (11,) when it last took a detection, s.
        seen_xy_mm: (11, 2) that detection's centre, mm.
        seen_velocity: (11, 2) the estimated velocity then, mm/s.
        pending: (11,) ``PENDING_*``: what a lost ball may be doing.
        xy_px: (11, 2) last detection's image centre, px.
        measured_xy_mm: (11, 2) last detection's centre, mm.
        evidence: (11, 11) average log class probabilities per slot (`tracking.identity`).
        identity_count: (11,) detections taken since the track started.
        lost_checked: (11,) ``pending`` was decided for the current loss.
        mixed_s: (11, 11) last time each pair of tracks could have exchanged balls, s
            (``-inf``: never; `tracking.mixing`).
        confirmed_s: (11,) last time each track clearly showed its own number, s.
        pocket_lost_s: (11,) when the ball was last seen before it was lost heading into a
            pocket, s (``-inf``: not since; `tracking.lifecycle.start_pending`).
        back_from: (11,) object: the removal (``TrackStatus``) a respawned track came back
            from, None for a track that was never removed (`tracking.lifecycle.coast`).
        birth_xy_mm: (11, 2) where each track started (its first detection), table mm; NaN
            before any (`tracking.lifecycle.newborn_at_mouth`).
        placed_s: (11,) when each track was last put somewhere its ball was not followed to:
            started, jumped or re-identified, s.
        proven: (11,) the track has been seen rolling along on its own detections since it
            started or last jumped (`tracking.phantoms`).
        left_xy_mm: (11, 2) where a resting ball that no moving ball could reach was seen
            before one detection off that spot moved its track there at rest, table mm; NaN
            when its last sighting was no such hop (`tracking.reach.rest_hops`).
        plain_since_s: (11,) since when the search window at each unseen ball's place has
            shown plain cloth without a break, s; NaN while seen or not plain
            (`tracking.plain_end`).
    """

    mean: NDArray[np.float64] = field(default_factory=lambda: np.zeros((NUM_CLASSES, 4)))
    cov: NDArray[np.float64] = field(
        default_factory=lambda: np.tile(np.eye(4), (NUM_CLASSES, 1, 1))
    )
    alive: NDArray[np.bool_] = field(default_factory=lambda: np.zeros(NUM_CLASSES, bool))
    removed: NDArray[np.object_] = field(default_factory=lambda: np.full(NUM_CLASSES, None, object))
    removed_time_s: NDArray[np.float64] = field(
        default_factory=lambda: np.full(NUM_CLASSES, -np.inf)
    )
    seen_time_s: NDArray[np.float64] = field(default_factory=lambda: np.zeros(NUM_CLASSES))
    seen_xy_mm: NDArray[np.float64] = field(default_factory=lambda: np.zeros((NUM_CLASSES, 2)))
    seen_velocity: NDArray[np.float64] = field(default_factory=lambda: np.zeros((NUM_CLASSES, 2)))
    pending: NDArray[np.int64] = field(default_factory=lambda: np.zeros(NUM_CLASSES, np.int64))
    xy_px: NDArray[np.float64] = field(default_factory=lambda: np.full((NUM_CLASSES, 2), np.nan))
    measured_xy_mm: NDArray[np.float64] = field(
        default_factory=lambda: np.full((NUM_CLASSES, 2), np.nan)
    )
    evidence: NDArray[np.float64] = field(
        default_factory=lambda: np.zeros((NUM_CLASSES, NUM_CLASSES))
    )
    identity_count: NDArray[np.int64] = field(
        default_factory=lambda: np.zeros(NUM_CLASSES, np.int64)
    )
    lost_checked: NDArray[np.bool_] = field(default_factory=lambda: np.zeros(NUM_CLASSES, bool))
    mixed_s: NDArray[np.float64] = field(
        default_factory=lambda: np.full((NUM_CLASSES, NUM_CLASSES), -np.inf)
    )
    confirmed_s: NDArray[np.float64] = field(default_factory=lambda: np.full(NUM_CLASSES, -np.inf))
    pocket_lost_s: NDArray[np.float64] = field(
        default_factory=lambda: np.full(NUM_CLASSES, -np.inf)
    )
    back_from: NDArray[np.object_] = field(
        default_factory=lambda: np.full(NUM_CLASSES, None, object)
    )
    birth_xy_mm: NDArray[np.float64] = field(
        default_factory=lambda: np.full((NUM_CLASSES, 2), np.nan)
    )
    placed_s: NDArray[np.float64] = field(default_factory=lambda: np.zeros(NUM_CLASSES))
    proven: NDArray[np.bool_] = field(default_factory=lambda: np.zeros(NUM_CLASSES, bool))
    left_xy_mm: NDArray[np.float64] = field(
        default_factory=lambda: np.full((NUM_CLASSES, 2), np.nan)
    )
    plain_since_s: NDArray[np.float64] = field(default_factory=lambda: np.full(NUM_CLASSES, np.nan))

    def exchange(self, a: int, b: int) -> None:
        """Swap everything slots ``a`` and ``b`` hold (their tracks change numbers)."""
        for item in fields(self):
            array = getattr(self, item.name)
            array[[a, b]] = array[[b, a]]
        # A pair array is indexed by slot on both axes.
        self.mixed_s[:, [a, b]] = self.mixed_s[:, [b, a]]

    def mark_seen(
        self,
        balls: NDArray[np.int64],
        xy_mm: NDArray[np.float64],
        xy_px: NDArray[np.floating],
        time_s: float,
    ) -> None:
        """Record that ``balls`` (K,) took detections at ``xy_mm`` (K, 2) / ``xy_px`` (K, 2)
        at ``time_s``; their velocity is taken from ``mean`` (set it first)."""
        self.seen_time_s[balls] = time_s
        self.seen_xy_mm[balls] = xy_mm
        self.seen_velocity[balls] = self.mean[balls, 2:]
        self.pending[balls] = PENDING_NONE
        self.lost_checked[balls] = False
        self.xy_px[balls] = xy_px
        self.measured_xy_mm[balls] = xy_mm
        self.plain_since_s[balls] = np.nan


_SEEN_STATUS = np.array([TrackStatus.ON_TABLE, TrackStatus.OCCLUDED, None], dtype=object)[:2]
"""Row status by ``unseen`` (0: on the table, 1: occluded)."""


def track_set(
    state: TrackState,
    when: tuple[int, float],
    missing: NDArray[np.bool_],
    ended: tuple[NDArray[np.bool_], NDArray[np.bool_]],
) -> TrackSet:
    """The `TrackSet` of frame ``when`` = (index, time s): a row per ball in play (``missing``
    (11,): unseen this frame, occluded) but those gone unseen (``ended[1]`` (11,):
    `tracking.plain_end.gone_unseen`), plus one per ball removed on this frame
    (``ended[0]`` (11,)), at its last sighting."""
    frame, time_s = when
    removed_now, gone = ended
    rows = true_indices((state.alive & ~gone) | removed_now)
    unseen = missing[rows]
    status = _SEEN_STATUS[unseen.astype(np.int64)]
    mean = state.mean[rows]
    xy_mm, velocity = mean[:, :2], mean[:, 2:]
    # Most frames remove no ball and see every one: skip the masks that change nothing.
    if removed_now.any():
        gone = removed_now[rows]
        status[gone] = state.removed[rows][gone]
        xy_mm = np.where(gone[:, None], state.seen_xy_mm[rows], xy_mm)
        velocity = np.where(gone[:, None], 0.0, velocity)
    xy_px, measured = state.xy_px[rows], state.measured_xy_mm[rows]
    if unseen.any():
        xy_px = np.where(unseen[:, None], np.nan, xy_px)
        measured = np.where(unseen[:, None], np.nan, measured)
    return TrackSet(
        frame=frame,
        time_s=time_s,
        ball=rows.astype(np.int64),
        xy_mm=xy_mm,
        velocity_mm_s=velocity,
        xy_px=xy_px,
        status=status,
        measured_xy_mm=measured,
    )
