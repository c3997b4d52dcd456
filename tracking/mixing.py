"""When two tracks can have exchanged their balls: the physical limit on relabelling.

A track follows one ball from frame to frame. It can come to follow another ball only when
that ball came within its reach (the two tracks' association gates met: balls that crossed,
a rack, a ball lost for long whose uncertainty covers the table), or when it was started or
found again by identity alone (a spawn, a re-identification). Each such moment *opens* the
pair. A pair closes again when, long enough after it opened for the identity evidence to
have turned over, either track clearly shows its own number: that track follows its own
ball, so the other cannot. Two tracks whose pair is closed never exchange numbers, whatever
the detector's colours say later (a small, far ball read as the cue ball for a second, the
cue ball read as the 10 in a shade): the evidence accumulated over a fraction of a second
cannot undo a continuity the tracker saw.

``mixed_s`` is an (11, 11) symmetric array of the last time each pair opened (``-inf``:
never); ``confirmed_s`` an (11,) array of the last time each track clearly showed its own
number.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True, slots=True, eq=False)
class Reaches:
    """Where the tracks in play are and how far from there each takes a detection.

    Attributes:
        idx: (T,) their slots (ball numbers).
        xy_mm: (T, 2) their predicted centres, mm.
        reach_mm: (T,) their kinematic gates, mm.
    """

    idx: NDArray[np.int64]
    xy_mm: NDArray[np.float64]
    reach_mm: NDArray[np.float64]

    def __post_init__(self) -> None:
        count = len(self.idx)
        if self.xy_mm.shape != (count, 2) or self.reach_mm.shape != (count,):
            raise ValueError(
                f"Reaches: idx ({count},) needs xy_mm ({count}, 2) and reach_mm ({count},), "
                f"got {self.xy_mm.shape} and {self.reach_mm.shape}"
            )


def open_near(
    mixed_s: NDArray[np.float64], tracks: Reaches, diameter_mm: float, time_s: float
) -> None:
    """Open, in place, the pairs of tracks whose reaches meet: a ball within one track's
    reach touches or overlaps a ball within the other's.

    Args:
        mixed_s: (11, 11) last opening time of each pair, s.
        tracks: the tracks in play.
        diameter_mm: ball diameter, mm.
        time_s: now, s.
    """
    idx, xy_mm, reach_mm = tracks.idx, tracks.xy_mm, tracks.reach_mm
    if len(idx) < 2:
        return
    dx = xy_mm[:, 0, None] - xy_mm[None, :, 0]
    dy = xy_mm[:, 1, None] - xy_mm[None, :, 1]
    limit = diameter_mm + reach_mm[:, None] + reach_mm[None, :]
    rows, cols = np.nonzero(dx * dx + dy * dy < limit * limit)
    mixed_s[idx[rows], idx[cols]] = time_s


def open_jumps(
    mixed_s: NDArray[np.float64],
    tracks: Reaches,
    jumps: tuple[NDArray[np.int64], NDArray[np.float64]],
    diameter_mm: float,
    time_s: float,
) -> None:
    """Open, in place, the pairs of each track that jumped (took a detection beyond its
    reach: a struck ball, or another ball) with every track whose reach meets that
    detection's ball.

    Args:
        mixed_s: (11, 11) last opening time of each pair, s.
        tracks: the tracks in play.
        jumps: (J,) rows of ``tracks`` that jumped and (J, 2) the detections they took, mm.
        diameter_mm: ball diameter, mm.
        time_s: now, s.
    """
    rows, z = jumps
    if len(rows) == 0:
        return
    idx, xy_mm, reach_mm = tracks.idx, tracks.xy_mm, tracks.reach_mm
    dx = z[:, 0, None] - xy_mm[None, :, 0]
    dy = z[:, 1, None] - xy_mm[None, :, 1]
    limit = diameter_mm + reach_mm[None, :] + reach_mm[rows, None]
    jumper, other = np.nonzero(dx * dx + dy * dy < limit * limit)
    mixed_s[idx[rows[jumper]], idx[other]] = time_s
    mixed_s[idx[other], idx[rows[jumper]]] = time_s


def open_all(mixed_s: NDArray[np.float64], balls: NDArray[np.int64], time_s: float) -> None:
    """Open, in place, every pair with one of ``balls`` (started or found by identity)."""
    mixed_s[balls, :] = time_s
    mixed_s[:, balls] = time_s


def confirm(
    confirmed_s: NDArray[np.float64],
    evidence: NDArray[np.float64],
    tracks: NDArray[np.int64],
    margin: float,
    time_s: float,
) -> None:
    """Record, in place, that the ``tracks`` whose evidence favours their own number over
    every other by at least ``margin`` (nats) clearly show it now.

    Args:
        confirmed_s: (11,) last time each track clearly showed its own number, s.
        evidence: (11, 11) average log class probabilities per slot.
        tracks: (K,) slots that took a detection this frame.
        margin: least lead of the own number's evidence, nats.
        time_s: now, s.
    """
    if len(tracks) == 0:
        return
    rows = evidence[tracks].copy()
    own = rows[np.arange(len(tracks)), tracks]
    rows[np.arange(len(tracks)), tracks] = -np.inf
    clear = own - rows.max(axis=1) >= margin
    confirmed_s[tracks[clear]] = time_s


def mixable(
    mixed_s: NDArray[np.float64], confirmed_s: NDArray[np.float64], settle_s: float
) -> NDArray[np.bool_]:
    """(11, 11) pairs that may exchange numbers: neither track clearly showed its own number
    ``settle_s`` or more after the pair last opened (a pair never opened never mixes)."""
    after = mixed_s + settle_s
    closed = (confirmed_s[:, None] >= after) | (confirmed_s[None, :] >= after)
    result: NDArray[np.bool_] = np.isfinite(mixed_s) & ~closed
    return result


def masked(evidence: NDArray[np.float64], allowed: NDArray[np.bool_]) -> NDArray[np.float64]:
    """(11, 11) evidence with every pair that may not exchange (``allowed`` False, off the
    diagonal) at ``-inf``: `tracking.identity.relabels` then never pairs them."""
    keep = allowed | np.eye(len(allowed), dtype=bool)
    result: NDArray[np.float64] = np.where(keep, evidence, -np.inf)
    return result
