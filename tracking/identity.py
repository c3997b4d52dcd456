"""Identity from the class probabilities accumulated over a track, not from one frame.

Each ball number owns one track. The detections a track takes carry class probabilities;
their logarithms, averaged over the recent past (an exponential memory of ``memory_s``), say
which ball the track really follows. When that evidence says a track follows another number
better than its own (a track started on a misidentified ball, two tracks that crossed and
swapped), the tracks exchange numbers: the gain is the rise of the summed average
log-likelihood of both tracks' labels, and it must exceed ``margin`` so that a few bad
frames (motion blur, a ball half hidden) never swap anything.

Evidence is an (11, 11) array: row = track slot (ball number), column = class, value = the
average ``log p(class)`` of the detections that track took (clipped below at
``log(min_probability)`` so one frame cannot dominate).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from tracking.rack import RackConfig


@dataclass(frozen=True, slots=True)
class IdentityConfig:
    """Tunables of identity accumulation.

    Attributes:
        memory_s: time constant of the evidence's exponential memory, s. Raising it needs
            longer runs of contrary frames before a relabel, and keeps old evidence longer.
        margin: gain of average log-likelihood (nats, summed over the tracks involved)
            needed to exchange numbers. Raising it relabels only on clearer evidence.
        min_observations: a track must have taken this many detections since it started
            before its number can change. Raising it waits longer after a start.
        min_probability: class probabilities are clipped below at this before the log, so
            one frame moves the evidence by a bounded amount. Lowering it lets single
            confident frames count more.
        settle_memories: two tracks that could have exchanged balls (their gates met, or
            one was started or found again by identity) may exchange numbers until either
            clearly shows its own number (by ``margin``) this many ``memory_s`` after that
            moment (`tracking.mixing`); after that, never, until their gates meet again.
            Raising it keeps pairs open longer; negative: pairs are never closed (any two
            tracks may exchange on the evidence alone, however far apart they stayed).
        rack: how a standing rack weighs the identities of the balls in it
            (`tracking.rack`).
    """

    memory_s: float = 0.3
    margin: float = 1.5
    min_observations: int = 6
    min_probability: float = 0.01
    settle_memories: float = 2.0
    rack: RackConfig = RackConfig()  # noqa: RUF009 (frozen, so one default is shared safely)

    def __post_init__(self) -> None:
        if self.memory_s <= 0 or not 0.0 < self.min_probability < 1.0:
            raise ValueError(
                "IdentityConfig: memory_s must be positive and min_probability in (0, 1), "
                f"got {self.memory_s} and {self.min_probability}"
            )


def accumulate(
    evidence: NDArray[np.float64],
    count: NDArray[np.int64],
    tracks: NDArray[np.int64],
    log_prob: NDArray[np.float64],
    weight: float,
) -> None:
    """Blend the detections taken this frame into their tracks' evidence, in place.

    Args:
        evidence: (11, 11) average log class probabilities per track slot.
        count: (11,) detections taken per track slot since it started.
        tracks: (K,) slots that took a detection.
        log_prob: (K, 11) those detections' log class probabilities (`log_probabilities`).
        weight: share of the new frame in the average (``1 - exp(-dt / memory_s)``); a
            track's first detections count fully (the average starts from them).
    """
    if len(tracks) == 0:
        return
    share = np.maximum(weight, 1.0 / (count[tracks] + 1.0))[:, None]
    evidence[tracks] = (1.0 - share) * evidence[tracks] + share * log_prob
    count[tracks] += 1


def faded(
    evidence: NDArray[np.float64], unseen_s: NDArray[np.float64], config: IdentityConfig
) -> NDArray[np.float64]:
    """(11, 11) evidence with each slot's row faded by how long its track has been unseen.

    A track unseen for a while keeps the evidence of its last detections, which may be of
    another ball (a ghost started on a split detection, a track that lost its ball in a
    cluster). That stale evidence must not veto a seen track taking the number its own
    recent detections support: it fades like the exponential memory it is,
    ``exp(-unseen_s / memory_s)``, so a long-lost partner's side of an exchange counts
    for nothing.

    Args:
        evidence: (11, 11) average log class probabilities per track slot.
        unseen_s: (11,) time since each slot's track last took a detection, s (0 if seen).
        config: the tunables (``memory_s``).
    """
    fade = np.exp(-np.maximum(unseen_s, 0.0) / config.memory_s)
    result: NDArray[np.float64] = evidence * fade[:, None]
    return result


def log_probabilities(
    class_prob: NDArray[np.floating], config: IdentityConfig
) -> NDArray[np.float64]:
    """(K, 11) log class probabilities, clipped below at min_probability and renormalised."""
    p = np.maximum(class_prob.astype(np.float64), config.min_probability)
    result: NDArray[np.float64] = np.log(p / p.sum(axis=1, keepdims=True))
    return result


SLOT_FREE, SLOT_IN_PLAY, SLOT_REMOVED, SLOT_VACANT = 0, 1, 2, 3
"""Kinds of track slot for `relabels`: a never-seen number (free), a track's, a pocketed or
off-table number, and a never-seen number no standing rack can hide (vacant)."""


def relabels(
    evidence: NDArray[np.float64],
    count: NDArray[np.int64],
    seen: NDArray[np.bool_],
    slot_kind: NDArray[np.int64],
    config: IdentityConfig,
) -> list[tuple[int, int]]:
    """Exchanges of track slots that give the tracks the numbers their evidence supports.

    The numbers are reassigned as a whole (Hungarian on the evidence): a pair of tracks
    may swap, a track may take a free number, and three or more tracks may rotate their
    numbers (two balls' readings taken by their neighbours in a rack, a cluster split by a
    break), which no pairwise exchange can undo. Each number that changes hands costs
    ``margin / 2``: a swap needs a gain above ``margin`` as before, a rotation of three
    above 1.5 ``margin``. A rotation or swap must involve a track seen this frame.

    Args:
        evidence: (11, 11) average log class probabilities per track slot (``-inf`` where
            two tracks may not exchange: `tracking.mixing.masked`).
        count: (11,) detections taken per slot since it started.
        seen: (11,) slots that took a detection this frame (only those are judged).
        slot_kind: (11,) SLOT_FREE (a never-seen number a track may take over),
            SLOT_VACANT (the same once no untouched rack stands: taking it renames only
            the track, so it costs ``margin / 2``, where a free number costs ``margin`` as
            a swap does, for while a rack stands a never-seen ball is most likely hidden
            in it and the track leaning to its number is reading its pixels beside its
            own ball's), SLOT_IN_PLAY, or SLOT_REMOVED (pocketed or off the table: never
            taken, bringing it back is a respawn's decision).
        config: the tunables.

    Returns:
        ``(a, b)`` pairs to apply in order: each exchanges everything slots ``a`` and ``b``
        hold (``b`` may be free), so together they make the reassignment.
    """
    free = (slot_kind == SLOT_FREE) | (slot_kind == SLOT_VACANT)
    movable = (slot_kind == SLOT_IN_PLAY) & (count >= config.min_observations)
    ready = seen & movable
    own = np.diagonal(evidence)
    # Cheap bound first: a change gains at most its members' best one-sided gains, and each
    # member costs margin / 2.
    if not ready.any() or 2.0 * float(np.max(evidence.max(axis=1) - own)) <= config.margin:
        return []
    slots = np.flatnonzero(movable | free)
    value = _reassignment_value(evidence, slots, slot_kind[slots], config.margin)
    rows, cols = linear_sum_assignment(value, maximize=True)
    target = slots[cols[np.argsort(rows)]]
    pairs: list[tuple[int, int]] = []
    for cycle in _cycles(slots, target):
        members = np.array(cycle)
        moved_to = np.roll(members, -1)
        net = float(
            np.sum(value[np.searchsorted(slots, members), np.searchsorted(slots, moved_to)])
        )
        net -= float(np.sum(np.where(free[members], 0.0, own[members])))
        if net > 1e-9 and ready[members].any():
            pairs.extend((cycle[0], other) for other in cycle[1:])
    return pairs


_FORBIDDEN = -1.0e9


def _reassignment_value(
    evidence: NDArray[np.float64], slots: NDArray[np.int64], kind: NDArray[np.int64], margin: float
) -> NDArray[np.float64]:
    """(S, S) value of the track in each of ``slots`` (of (S,) slot kinds) taking each
    slot's number: its evidence, less ``margin / 2`` for a change; a free or vacant slot
    holds no track (value 0). A vacant slot's number goes to a track for nothing more
    (only the track is renamed): that track's ``margin / 2`` is the whole price."""
    free = (kind == SLOT_FREE) | (kind == SLOT_VACANT)
    value = np.where(free[:, None], 0.0, evidence[np.ix_(slots, slots)])
    value = np.where(np.isfinite(value), value, _FORBIDDEN)
    priced = ~(kind == SLOT_VACANT)[:, None] | free[None, :]
    value -= 0.5 * margin * (1.0 - np.eye(len(slots))) * priced
    result: NDArray[np.float64] = value
    return result


def _cycles(slots: NDArray[np.int64], target: NDArray[np.int64]) -> list[list[int]]:
    """The cycles (length 2 or more) of the permutation taking ``slots[i]`` to
    ``target[i]``, each from its lowest slot, in the order its track moves."""
    where = dict(zip(slots.tolist(), target.tolist(), strict=True))
    done: set[int] = set()
    cycles: list[list[int]] = []
    for start in sorted(where):
        if start in done or where[start] == start:
            continue
        cycle = [start]
        while where[cycle[-1]] != start:
            cycle.append(where[cycle[-1]])
        done.update(cycle)
        cycles.append(cycle)
    return cycles
