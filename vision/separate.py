"""Separating touching balls, and telling them from arms and sleeves, in crowded blobs.

A foreground blob larger than a ball holds touching balls (a rack, a cluster, balls that an
angled view overlaps), or a ball and a hand, or an arm, a sleeve or a cue. The distance
transform finds single balls well but not these: inside a rack seen at an angle the balls
overlap into one solid blob whose distance peaks lie between balls, and along a sleeve one
ball wide it peaks at one ball's width every ball or two.

So a crowded blob is explained ball by ball instead: candidate centres are the peaks of the
round-outline votes (a circle Hough transform at the calibrated radius) and of the distance
transform; each must show a round outline (a ball's rim, or its edge against a neighbour,
runs one radius from its centre in most directions, and its gradient points at the centre;
an arm's or a sleeve's straight sides do so only across it), fill its disc, and add pixels
that no ball placed before it explains. The best is placed, its disc taken out, and so on
while such a candidate is left. Every threshold is a share of the disc or of the outline,
at the radius the calibration predicts at that point.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.candidates import (
    DIRECTIONS,
    SearchRegion,
    map_at,
    outline_votes,
    sample,
    touching_gap,
)
from vision.crowd_residue import SMEAR_DISCS as SMEAR_DISCS
from vision.crowd_residue import explained

CROWD_DISCS = 1.5
"""A blob larger than this many ball discs is explained ball by ball (two touching balls
that an angled view overlaps by a third of a diameter cover about 1.7 discs)."""

MIN_COVER = 0.9
"""Share of a candidate's disc (within 0.85 radii) that must be foreground. A ball in a crowd
fills its disc (a ball behind nearer ones fills the rest of it with theirs); a point half a
radius off a ball's centre, towards the cloth between it and a hand or a neighbour, covers
0.75-0.9 (rendered broadcast views), and was placed as a second ball beside the first."""

MIN_FAINT_COVER = 0.4
"""The same for a candidate whose outline is round by both tests of `crowd_centres`."""

MIN_NEW = 0.35
"""Share of a candidate's foreground (within 0.85 radii) that balls placed before it must
leave unexplained (a ball behind two nearer ones in an angled view still shows about half
its disc)."""

ROUND_SHARE = 0.45
"""Share of directions in which a ball shows its outline one radius out (measured 0.5-0.9
for rack balls in rendered broadcast and corner views, 0.06-0.31 along a sleeve)."""

ROUND_VOTES = 0.12
"""Outline vote share (`vision.candidates.outline_votes`) that is a round outline on its
own, however few directions show a sharp edge (measured at most 0.08 along a sleeve)."""

GAP_SHARE = 0.75
"""Share of the touching-ball centre distance below which two outline peaks are one ball
(outline peaks are a pixel or two off either way). The distance is taken in the direction
from one to the other (`Crowds.touching_px`) where the camera is known, else the shortest
(`vision.candidates.touching_gap`): in a broadcast view balls side by side touch about two
radii apart, one behind the other about 1.3, and a ball blurred by motion, or beside a
hand, split into two outline peaks 1.1-1.2 radii apart across the view was placed twice
by the shortest distance (rendered broadcast clips)."""

TouchingPx = Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.float64]]
"""(P,) image distance (px) from each of (P, 2) region points at which a ball touches one
there, towards each of (P, 2) other points."""


@dataclass(frozen=True, slots=True, eq=False)
class Crowds:
    """A region's crowded blobs and what explains them.

    Attributes:
        mask: (H, W) bool the crowded blobs (`crowded`).
        votes: (H, W) float32 outline vote shares (`vision.candidates.outline_votes`).
        touching_px: image distance of touching balls in a direction (None: uncalibrated;
            the shortest in any direction, `vision.candidates.touching_gap`, is used).
    """

    mask: NDArray[np.bool_]
    votes: NDArray[np.float32]
    touching_px: TouchingPx | None = None


MIN_SEPARATION = 1.1
"""Shortest image distance between touching balls' centres, in radii
(`vision.cloth.TableView.separation`), below which crowded blobs are left to the lone-ball
search: a ball straight behind another then shows under two thirds of its disc (at 1.0
radii 61 %, and a rack ball behind two nearer ones about half), too little to be named apart
from them (review with crowds split, real detector, corner views at 0.92-0.99 radii:
corner_lip_stay identity 88.8 % and 58 switches without this limit, a rack ball misnamed
from the start; 99.3 % and 18 with it, as with crowds left whole: 99.3 %, 14)."""

BORDER_RADII = 0.5
"""Length, in ball radii, along which a blob must touch the table's border to run
off the table (an arm or a sleeve is at least a ball wide; a ball frozen to a cushion stays
about 0.7 radii inside it, and blur reaches at most a pixel or two)."""

_INNER = np.array([0.2, 0.45, 0.7, 0.85])
_RIM = np.array([0.85, 0.95, 1.05, 1.15])


def crowded(
    region: SearchRegion, min_separation: float = MIN_SEPARATION
) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
    """(H, W) mask of the foreground blobs larger than `CROWD_DISCS` discs of the radius
    expected at their centroid that stay on the table (`leaves_table`) where touching balls
    lie at least `min_separation` radii apart in the image (`MIN_SEPARATION`), and (B, 4)
    their boxes (u0, v0, u1, v1), end exclusive."""
    count, labels, stats, centroids = cv2.connectedComponentsWithStatsWithAlgorithm(
        region.foreground, 8, cv2.CV_32S, cv2.CCL_BBDT
    )
    radius = np.maximum(map_at(region.radius, np.asarray(centroids, np.float64)), 1.0)
    big = stats[:, cv2.CC_STAT_AREA] >= CROWD_DISCS * np.pi * radius * radius
    big[0] = False
    if big.any() and region.separation is not None:
        # Where touching balls' centres lie closer than this in the image, a ball behind
        # another shows too little of itself to be placed and named apart from it.
        big &= map_at(region.separation, np.asarray(centroids, np.float64)) >= min_separation
    if big.any() and region.valid is not None:
        leaving = leaves_table(region.valid, region.foreground, np.asarray(labels), count, radius)
        big &= ~leaving
    if not big.any():
        return np.zeros(region.foreground.shape, bool), np.zeros((0, 4), np.int64)
    mask: NDArray[np.bool_] = big[labels]
    corner = stats[big][:, :2].astype(np.int64)
    boxes = np.column_stack([corner, corner + stats[big][:, 2:4]]).astype(np.int64)
    return mask, boxes


def leaves_table(
    valid: NDArray[np.uint8],
    foreground: NDArray[np.uint8],
    labels: NDArray[np.integer],
    count: int,
    radius: NDArray[np.float64],
) -> NDArray[np.bool_]:
    """(count,) which labelled blobs run past the table's border (where `valid` is 0: an arm,
    a sleeve or a cue reaching in over the rail) along at least `BORDER_RADII` of the
    (count,) radii.

    A ball's pixels stay inside `valid` (the surface grown past the cushion noses), so a
    blob touching its border along more than a short arc is not only balls: splitting it
    from round outlines put balls on hands. Such blobs keep the distance-transform peaks.
    """
    inner = np.asarray(cv2.erode(valid, np.ones((3, 3), np.uint8), borderValue=1))
    rim = (foreground > 0) & (inner == 0)
    contact = np.bincount(labels[rim], minlength=count)[:count]
    leaving: NDArray[np.bool_] = contact >= BORDER_RADII * radius
    return leaving


def crowd_votes(region: SearchRegion, boxes: NDArray[np.int64], edge: float) -> NDArray[np.float32]:
    """(H, W) `vision.candidates.outline_votes` within the crowded blobs' (B, 4) boxes grown
    by the reach of an outline (zero elsewhere): a hinted window's blobs are small parts of
    the searched pixels."""
    votes = np.zeros_like(region.radius)
    height, width = region.radius.shape
    reach = int(np.ceil(float(region.radius.max()))) + 3
    for u0, v0, u1, v1 in boxes.tolist():
        rows = slice(max(v0 - reach, 0), min(v1 + reach, height))
        cols = slice(max(u0 - reach, 0), min(u1 + reach, width))
        part = replace(
            region,
            image=region.image[rows, cols],
            distance=region.distance[rows, cols],
            foreground=region.foreground[rows, cols],
            radius=region.radius[rows, cols],
            gradient=region.gradient[rows, cols],
            centre_valid=region.centre_valid[rows, cols],
            separation=None if region.separation is None else region.separation[rows, cols],
            valid=None if region.valid is None else region.valid[rows, cols],
        )
        votes[rows, cols] = np.maximum(votes[rows, cols], outline_votes(part, edge))
    return votes


def round_share(
    region: SearchRegion, xy: NDArray[np.float64], radius: NDArray[np.float64], edge: float
) -> NDArray[np.float64]:
    """(K,) share of 32 directions in which an edge of at least `edge` (Lab L per px) lies
    0.85-1.15 radii out with its gradient pointing at the centre (within 25 degrees)."""
    if len(xy) == 0:
        return np.zeros(0)
    points = (
        xy[:, None, None, :]
        + (radius[:, None, None, None] * _RIM[None, :, None, None]) * DIRECTIONS[None, None]
    )
    gradient = sample(region.gradient, points)
    radial = np.abs(np.sum(gradient * DIRECTIONS[None, None], axis=3))
    magnitude = np.hypot(gradient[..., 0], gradient[..., 1])
    edge_seen = (radial > edge) & (radial > 0.9 * magnitude)
    share: NDArray[np.float64] = edge_seen.any(axis=1).mean(axis=1)
    return share


def disc_share(
    mask: NDArray[np.uint8], xy: NDArray[np.float64], radius: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(K,) share of sample points within 0.85 radii of each centre where `mask` is set."""
    points = (
        xy[:, None, None, :]
        + (radius[:, None, None, None] * _INNER[None, :, None, None]) * DIRECTIONS[None, None]
    )
    share: NDArray[np.float64] = sample(mask, points).mean(axis=(1, 2))
    return share


def crowd_centres(
    region: SearchRegion,
    crowds: Crowds,
    seeds: NDArray[np.float64],
    edge: float,
    smear_peaks: bool = True,
) -> NDArray[np.float64]:
    """(K, 2) ball centres in the crowded blobs, placed best first.

    Args:
        region: the searched pixels.
        crowds: the crowded blobs and their outline votes.
        seeds: (S, 2) more candidate centres (distance-transform peaks).
        edge: lightness gradient (Lab L per px) that counts as an outline.
        smear_peaks: keep the seeds of an unexplained piece small enough to be a ball's
            motion smear (`SMEAR_DISCS`) for the lone-ball search.
    """
    crowd, votes = crowds.mask, crowds.votes
    candidates = np.vstack([_vote_peaks(region, crowd, votes), seeds])
    if len(candidates) == 0:
        return seeds
    inside = map_at(crowd.astype(np.uint8), candidates) > 0
    inside &= map_at(region.centre_valid, candidates) > 0
    candidates = candidates[inside]
    radius = map_at(region.radius, candidates)
    best_votes = map_at(
        np.asarray(cv2.dilate(votes, np.ones((3, 3), np.uint8)), np.float32), candidates
    )
    shares = round_share(region, candidates, radius, edge)
    evidence = np.maximum(best_votes / ROUND_VOTES, shares / ROUND_SHARE)
    cover = disc_share(region.foreground, candidates, radius)
    # A ball near the cloth's colour (a red ball on red cloth) fills its disc only in part;
    # then its outline must be round both ways.
    usable = (evidence >= 1.0) & (cover >= MIN_COVER)
    usable |= (np.minimum(best_votes / ROUND_VOTES, shares / ROUND_SHARE) >= 1.0) & (
        cover >= MIN_FAINT_COVER
    )
    # Best placed first by both: a point between two balls may see both their rims one
    # radius out (a high `round_share`), but only a ball's own centre gathers its outline's
    # votes; a point a little off a ball's centre gathers votes from part of it (and from
    # neighbours and shadows) but sees fewer edges pointing at it.
    # Candidates that fill more of their disc come first: a point off a ball's centre, towards
    # the cloth beside it, fills less of it (faint candidates, allowed for balls near the
    # cloth's colour, least); among those that fill it alike, the outline decides.
    filled = np.clip((cover - MIN_FAINT_COVER) / (1.0 - MIN_FAINT_COVER), 0.0, 1.0)
    rank = best_votes * shares + filled
    order = np.flatnonzero(usable)[np.argsort(-rank[usable], kind="stable")]
    placed, residual = _place(region, crowds, candidates[order], radius[order], cover[order])
    return explained(region, crowd, residual, placed, (seeds, smear_peaks, GAP_SHARE))


def _vote_peaks(
    region: SearchRegion, crowd: NDArray[np.bool_], votes: NDArray[np.float32]
) -> NDArray[np.float64]:
    """(K, 2) local maxima of the outline votes in the crowded blobs, over a window of half
    a radius (touching balls that an angled view overlaps lie little more than that apart)."""
    size = max(3, int(0.5 * float(np.median(region.radius[crowd]))) | 1)
    peak = (votes >= cv2.dilate(votes, np.ones((size, size), np.uint8))) & crowd
    peak &= votes >= 0.25 * ROUND_VOTES
    vs, us = np.nonzero(peak)
    return np.column_stack([us, vs]).astype(np.float64)


def _place(
    region: SearchRegion,
    crowds: Crowds,
    candidates: NDArray[np.float64],
    radius: NDArray[np.float64],
    cover: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.uint8]]:
    """Greedy explanation: each candidate in order becomes a ball if it is not nearer to a
    placed one than touching balls can be and its disc still holds unexplained foreground
    (against `cover`, its `disc_share` of all foreground); a placed ball's disc is then
    explained. Returns the (K, 2) placed centres and the (H, W) crowd foreground they leave
    unexplained."""
    residual = (crowds.mask & (region.foreground > 0)).astype(np.uint8)
    min_gap = GAP_SHARE * touching_gap(region, candidates)
    placed: list[int] = []
    for index in range(len(candidates)):
        if placed and _too_near(
            candidates[index], candidates[placed], radius[index], min_gap[index], crowds
        ):
            continue
        xy, r = candidates[index : index + 1], radius[index : index + 1]
        if disc_share(residual, xy, r)[0] < MIN_NEW * cover[index]:
            continue
        placed.append(index)
        centre = (round(float(xy[0, 0])), round(float(xy[0, 1])))
        cv2.circle(residual, centre, round(float(r[0])), 0, -1)
    centres: NDArray[np.float64] = candidates[placed]
    return centres, residual


def _too_near(
    xy: NDArray[np.float64],
    placed: NDArray[np.float64],
    radius: float,
    min_gap: float,
    crowds: Crowds,
) -> bool:
    """Whether a (2,) candidate of `radius` px lies nearer to one of the (P, 2) placed balls
    than touching balls can (`GAP_SHARE`; `min_gap` px, the shortest direction's, when
    uncalibrated)."""
    gaps = np.hypot(*(placed - xy).T)
    if crowds.touching_px is None:
        return bool(np.any(gaps < min_gap))
    # Touching balls lie at most about two radii apart in any direction (seen from above).
    near = gaps < GAP_SHARE * 2.5 * radius
    if not near.any():
        return False
    touching = crowds.touching_px(np.repeat(xy[None], int(near.sum()), axis=0), placed[near])
    return bool(np.any(gaps[near] < GAP_SHARE * touching))
