"""What a crowded blob's placed balls leave unexplained (`vision.separate`).

Once touching balls are placed in a crowded blob, their discs explain it but for slivers
between them; a larger piece left over is something else (a hand, a sleeve, an arm over a
rack), or a ball the round tests missed. This decides which placed balls such a piece makes
doubtful and which distance peaks left alone in a piece go to the lone-ball search.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.candidates import DIRECTIONS, SearchRegion, map_at, sample, touching_gap

UNEXPLAINED_DISCS = 1.0
"""Area, in ball discs, of a piece of a crowded blob (opened by half a radius, so slivers
between touching balls go) that no placed ball explains and that makes the blob more than
balls (measured: a rendered breaker's hand with its cue about 2 discs)."""

SMEAR_DISCS = 3.0
"""Area, in ball discs, below which a large unexplained piece may be a ball's motion smear
rather than an arm: its distance-transform peaks are still left to the lone-ball search
(the black ball leaving a rendered broadcast break at 30 fps smeared over 2.2 discs, 2.5
diameters long, and was lost; a sleeve one ball wide across the table is many times that).
A hand with its cue (about 2 discs) then has its peaks judged by the lone-ball search too, as
when crowds are left whole; balls placed beside such a piece are still dropped."""

UNEXPLAINED_REACH = 1.4
"""Radii from a ball's centre within which a large unexplained piece makes it doubtful
(past the shadow and blur at its rim)."""


def explained(
    region: SearchRegion,
    crowd: NDArray[np.bool_],
    residual: NDArray[np.uint8],
    placed: NDArray[np.float64],
    peaks: tuple[NDArray[np.float64], bool, float],
) -> NDArray[np.float64]:
    """(K, 2) the placed balls, less those beside a large unexplained piece of their blob,
    and the (S, 2) seeds left alone in a smaller one or in one small enough to be a ball's
    motion smear (`SMEAR_DISCS`; `_lone_seeds`).

    A blob of touching balls is explained by their discs but for slivers between them (and
    a ball hidden behind nearer ones); a piece of at least `UNEXPLAINED_DISCS` discs that
    no ball explains is something else (a hand, a sleeve, an arm over a rack). A ball
    placed beside such a piece may be a round part of it (a breaker's hand at the end of a
    sleeve was taken for a ball), so it is dropped; the blob's other balls stay.
    `peaks`: the (S, 2) seeds, whether smear-sized pieces keep theirs, and the share of a
    touching distance within which a seed is a placed ball's (`vision.separate.GAP_SHARE`).
    """
    size = max(3, int(0.5 * float(np.median(region.radius[crowd]))) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    pieces = np.asarray(cv2.morphologyEx(residual, cv2.MORPH_OPEN, kernel))
    _, piece, stats, centroids = cv2.connectedComponentsWithStats(pieces, connectivity=8)
    radius = np.maximum(map_at(region.radius, np.asarray(centroids, np.float64)), 1.0)
    large = stats[:, cv2.CC_STAT_AREA] >= UNEXPLAINED_DISCS * np.pi * radius * radius
    large[0] = False
    seeds, smear_peaks, gap_share = peaks
    smear = large & (stats[:, cv2.CC_STAT_AREA] < SMEAR_DISCS * np.pi * radius * radius)
    smear &= smear_peaks
    kept = placed
    if large.any():
        unexplained = large[piece].astype(np.uint8)
        reach = UNEXPLAINED_REACH * map_at(region.radius, placed)
        ring = placed[:, None, :] + reach[:, None, None] * DIRECTIONS[None]
        beside = sample(unexplained, ring).max(axis=1, initial=0.0) > 0
        beside |= map_at(unexplained, placed) > 0
        kept = placed[~beside]
    lone = _lone_seeds(
        region, np.asarray(piece, np.int32), large & ~smear, kept, (seeds, gap_share)
    )
    return np.vstack([kept, lone])


def _lone_seeds(
    region: SearchRegion,
    piece: NDArray[np.int32],
    large: NDArray[np.bool_],
    kept: NDArray[np.float64],
    peaks: tuple[NDArray[np.float64], float],
) -> NDArray[np.float64]:
    """(S', 2) of the (S, 2) seeds (distance-transform peaks) that lie in an unexplained
    piece smaller than `UNEXPLAINED_DISCS` (labels `piece`, `large` per label), farther
    from the (K, 2) kept balls than `gap_share` of a touching distance: a ball whose
    outline the round tests miss (near the cloth's colour, blurred by motion) beside one
    they place; the lone-ball search judges it (a dark ball touching another on a red cloth
    was lost, or placed between the two)."""
    seeds, gap_share = peaks
    if len(seeds) == 0:
        return seeds
    label = map_at(piece.astype(np.float32), seeds).astype(np.int64)
    alone = (label > 0) & ~large[label]
    if len(kept) and alone.any():
        gaps = np.linalg.norm(seeds[:, None, :] - kept[None, :, :], axis=2)
        alone &= np.all(gaps >= gap_share * touching_gap(region, seeds)[:, None], axis=1)
    lone: NDArray[np.float64] = seeds[alone]
    return lone
