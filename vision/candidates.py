"""Finding ball centres in a searched image: candidates, sub-pixel centres, confidence.

Pure functions over a `SearchRegion` (the per-pixel maps of the searched pixels, a whole
table or a mosaic of windows). All per-ball work is batched over balls with NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

RING_SAMPLES = 32
_ANGLES = np.linspace(0.0, 2.0 * np.pi, RING_SAMPLES, endpoint=False)
DIRECTIONS = np.column_stack([np.cos(_ANGLES), np.sin(_ANGLES)])
"""(32, 2) unit vectors around a circle."""


@dataclass(frozen=True, slots=True, eq=False)
class SearchRegion:
    """Per-pixel maps of the searched pixels (all the same height and width).

    Attributes:
        image: (H, W, 3) uint8 BGR.
        distance: (H, W) float32 Lab distance from the cloth (0 off the surface).
        foreground: (H, W) uint8 1 where the distance passes the threshold.
        radius: (H, W) float32 expected ball radius, px (0 in mosaic gaps).
        gradient: (H, W, 2) float32 lightness gradient, Lab L per px.
        centre_valid: (H, W) uint8 1 where a ball centre may lie.
        threshold: the foreground distance in use.
        separation: (H, W) float32 shortest image distance between two touching balls' centres,
            in ball radii (`vision.cloth.TableView.separation`); None: 2 (seen from above).
        valid: (H, W) uint8 1 where a ball's pixels may lie (`vision.cloth.TableView.valid`;
            0 past the table's border only); None: everywhere.
    """

    image: NDArray[np.uint8]
    distance: NDArray[np.float32]
    foreground: NDArray[np.uint8]
    radius: NDArray[np.float32]
    gradient: NDArray[np.float32]
    centre_valid: NDArray[np.uint8]
    threshold: float
    separation: NDArray[np.float32] | None = None
    valid: NDArray[np.uint8] | None = None


def sample(image: NDArray[np.generic], points: NDArray[np.float64]) -> NDArray[np.float64]:
    """Nearest-pixel values of a (H, W[, C]) image at (..., 2) points (u, v); 0 outside."""
    return sample_uv(image, points[..., 0], points[..., 1])


def sample_uv(
    image: NDArray[np.generic], us: NDArray[np.float64], vs: NDArray[np.float64]
) -> NDArray[np.float64]:
    """`sample` with u and v given apart, broadcast against each other (a patch grid's
    (K, 1, S) columns and (K, S, 1) rows cost S, not S * S, roundings)."""
    height, width = image.shape[:2]
    u = np.round(us).astype(np.int64)
    v = np.round(vs).astype(np.int64)
    inside = (u >= 0) & (u < width) & (v >= 0) & (v < height)
    # np.minimum/np.maximum: np.clip's per-call overhead dominates on these small arrays.
    rows, cols = np.minimum(np.maximum(v, 0), height - 1), np.minimum(np.maximum(u, 0), width - 1)
    values = image[rows, cols].astype(np.float64)
    mask = inside if values.ndim == inside.ndim else inside[..., None]
    out: NDArray[np.float64] = values * mask
    return out


TOUCHING_SHARE = 0.85
"""Two candidates closer than this share of the centre distance of touching balls there are
one ball (0.85 * 2 = 1.7 radii seen from above)."""


def touching_gap(region: SearchRegion, xy: NDArray[np.float64]) -> NDArray[np.float64]:
    """(K,) image distance, px, between the centres of two touching balls at (K, 2) points:
    two radii seen from above, less where an angled camera foreshortens the table."""
    radius = _radius_at(region, xy)
    if region.separation is None:
        return 2.0 * radius
    gap: NDArray[np.float64] = radius * map_at(region.separation, xy)
    return gap


def suppress(xy: NDArray[np.float64], min_gap_px: NDArray[np.float64]) -> NDArray[np.int64]:
    """Indices of points kept by greedy suppression in the given (best-first) order: a point
    closer than its `min_gap_px` to one kept before it is dropped."""
    kept: list[int] = []
    for index in range(len(xy)):
        if kept:
            gap = np.hypot(*(xy[kept] - xy[index]).T)
            if np.any(gap < min_gap_px[index]):
                continue
        kept.append(index)
    return np.array(kept, np.int64)


def distance_peaks(region: SearchRegion, min_ratio: float, max_ratio: float) -> NDArray[np.float64]:
    """(K, 2) candidate centres: maxima of the foreground's distance transform measured in
    ball radii, between `min_ratio` and `max_ratio`, no two nearer than `TOUCHING_SHARE` of
    two radii."""
    distance = cv2.distanceTransform(region.foreground, cv2.DIST_L2, cv2.DIST_MASK_5)
    ratio = distance / np.maximum(region.radius, 1.0)
    size = max(3, int(np.median(region.radius[region.radius > 0]) * 0.5) | 1)
    local_max = ratio >= cv2.dilate(ratio, np.ones((size, size), np.uint8))
    ys, xs = np.nonzero(local_max & (ratio >= min_ratio))
    if len(xs) == 0:
        return np.zeros((0, 2))
    order = np.argsort(-ratio[ys, xs], kind="stable")
    xy = np.column_stack([xs, ys]).astype(np.float64)[order]
    values = ratio[ys, xs][order]
    # Within one blob the peaks are one ball's unless a ball's width apart: touching balls
    # that an angled view overlaps make one peak, and rings find the other.
    chosen = suppress(xy, TOUCHING_SHARE * 2.0 * _radius_at(region, xy))
    peaks: NDArray[np.float64] = xy[chosen[values[chosen] <= max_ratio]]
    return peaks


def outline_peaks(
    region: SearchRegion,
    edge_gradient: float,
    min_votes: float,
    votes: NDArray[np.float32] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Centres of round outlines of the expected radius (a circle Hough transform with the
    known radius at each pixel): (K, 2) centres best first and (K,) vote shares. `votes`:
    the region's `outline_votes` when already known."""
    share = outline_votes(region, edge_gradient) if votes is None else votes
    size = max(3, int(np.median(region.radius[region.radius > 0])) | 1)
    peak = (share >= cv2.dilate(share, np.ones((size, size), np.uint8))) & (share >= min_votes)
    pv, pu = np.nonzero(peak)
    order = np.argsort(-share[pv, pu], kind="stable")
    return np.column_stack([pu, pv]).astype(np.float64)[order], share[pv, pu][order].astype(
        np.float64
    )


def outline_votes(region: SearchRegion, edge_gradient: float) -> NDArray[np.float32]:
    """(H, W) share of a round outline of the expected radius centred at each pixel that
    its edges vote for (a circle Hough transform with the known radius at each pixel): about
    1 for a sharp outline seen all round, 0 where no edge is one radius away."""
    gradient = region.gradient
    magnitude = np.hypot(gradient[..., 0], gradient[..., 1])
    height, width = magnitude.shape
    ys, xs = np.nonzero((magnitude > edge_gradient) & (region.radius > 0))
    if len(xs) == 0:
        return np.zeros((height, width), np.float32)
    unit = gradient[ys, xs] / magnitude[ys, xs, None]
    reach = region.radius[ys, xs]
    votes = np.zeros(height * width, np.float64)
    for sign in (1.0, -1.0):
        cu = np.round(xs + sign * reach * unit[:, 0]).astype(np.int64)
        cv = np.round(ys + sign * reach * unit[:, 1]).astype(np.int64)
        inside = (cu >= 0) & (cu < width) & (cv >= 0) & (cv < height)
        votes += np.bincount(cv[inside] * width + cu[inside], minlength=height * width)
    accumulator = cv2.GaussianBlur(votes.reshape(height, width).astype(np.float32), (5, 5), 1.0)
    # A sharp outline gives about two edge pixels per unit of circumference; a Gaussian
    # of sigma 1 keeps about a sixth of a point's votes at its peak.
    circumference = (2.0 * np.pi * 2.0 / 6.0) * np.maximum(region.radius, np.float32(1.0))
    share: NDArray[np.float32] = (accumulator / circumference).astype(np.float32)
    return share


def merge_candidates(
    region: SearchRegion, first: NDArray[np.float64], second: NDArray[np.float64]
) -> NDArray[np.float64]:
    """`first` plus the points of `second` that can be other balls than everything kept.

    A point nearer than two radii to a kept one is a ball partly hidden behind it only where
    an angled view brings touching balls that close (`touching_gap`) and its far side, away
    from the kept ball, is foreground (a ring on a ball's own highlight or shadow has cloth
    there).
    """
    both = np.vstack([first, second])
    if len(both) == 0:
        return both
    radius = _radius_at(region, both)
    min_gap = TOUCHING_SHARE * np.minimum(touching_gap(region, both), 2.0 * radius)
    keep = np.ones(len(both), bool)
    for index in range(len(first), len(both)):
        others = both[:index][keep[:index]]
        if len(others) == 0:
            continue
        gaps = np.hypot(*(others - both[index]).T)
        nearest = int(np.argmin(gaps))
        if gaps[nearest] < min_gap[index]:
            keep[index] = False
        elif gaps[nearest] < TOUCHING_SHARE * 2.0 * radius[index]:
            away = (both[index] - others[nearest]) / max(float(gaps[nearest]), 1e-9)
            keep[index] = _far_side_filled(region, both[index], away, float(radius[index]))
    merged: NDArray[np.float64] = both[keep]
    return merged


def _far_side_filled(
    region: SearchRegion, xy: NDArray[np.float64], away: NDArray[np.float64], radius: float
) -> bool:
    """Whether the half of a ball's disc facing `away` (a unit vector) is foreground."""
    angles = np.linspace(-0.25 * np.pi, 0.25 * np.pi, 5)
    cos, sin = np.cos(angles), np.sin(angles)
    turned = np.column_stack([away[0] * cos - away[1] * sin, away[0] * sin + away[1] * cos])
    points = xy[None, None, :] + radius * np.array([0.35, 0.65])[:, None, None] * turned[None]
    return bool(np.mean(sample(region.foreground, points)) >= 0.75)


def _patch_grid(
    xy: NDArray[np.float64], reach: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(K, 1, S) integer pixel coordinates u and (K, S, 1) v of a square patch around each
    point (broadcast them for the (K, S, S) grid)."""
    offsets = np.arange(-reach, reach + 1, dtype=np.float64)
    base = np.round(xy)
    us = base[:, 0, None, None] + offsets[None, None, :]
    vs = base[:, 1, None, None] + offsets[None, :, None]
    return us, vs


def own_disc(
    xy: NDArray[np.float64], radius: NDArray[np.float64], scale: float, hide_behind: bool = False
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """Patches around each ball and, per patch pixel, whether it lies within `scale` radii of
    that ball and is not another ball's: touching balls split their pixels at the bisector.
    Where an angled view makes two balls' discs overlap, with `hide_behind` the nearer one
    (the larger in the image) hides its whole disc from the one behind it (the colours a
    ball shows); without it they split at the bisector too (a centroid stays unbiased).

    Returns:
        (K, S, S) u, (K, S, S) v and (K, S, S) bool mask.
    """
    reach = int(np.ceil(float(radius.max()) * scale)) + 1
    us, vs = _patch_grid(xy, reach)
    # (K, 1, S) and (K, S, 1): only the sums below are (K, S, S).
    du = us - xy[:, 0, None, None]
    dv = vs - xy[:, 1, None, None]
    mask = du * du + dv * dv <= ((radius * scale) ** 2)[:, None, None]
    if len(xy) > 1:
        # A pixel is this ball's when it is on this ball's side of the bisector with each of
        # the few nearest balls (the only ones whose cells can reach into this disc).
        offsets = xy[None, :, :] - xy[:, None, :]
        pairwise = np.hypot(offsets[..., 0], offsets[..., 1])
        np.fill_diagonal(pairwise, np.inf)
        count = min(6, len(xy) - 1)
        nearest = np.argsort(pairwise, axis=1)[:, :count]
        toward = np.take_along_axis(offsets, nearest[..., None], axis=1)
        gap = np.take_along_axis(pairwise, nearest, axis=1)
        near = gap < 2.0 * radius[:, None] * scale + 2.0
        other = radius[nearest]
        # Discs that overlap in the image are one ball in front of the other (balls do not
        # overlap on the table): the larger one is nearer the camera.
        overlap = near & (gap < 0.95 * (radius[:, None] + other)) & hide_behind
        front = overlap & (other > radius[:, None])
        half = 0.5 * np.sum(toward * toward, axis=2)
        # Neighbours are sorted nearest first, so past the last near one nothing can cut.
        count = int(np.max(np.sum(near, axis=1)))
        for k in range(count):
            side = du * toward[:, k, 0, None, None] + dv * toward[:, k, 1, None, None]
            bisected = (side <= half[:, k, None, None]) | ~(near & ~overlap)[:, k, None, None]
            mask &= bisected
            if front[:, k].any():
                ex, ey = du - toward[:, k, 0, None, None], dv - toward[:, k, 1, None, None]
                hidden = ex * ex + ey * ey <= (other[:, k] ** 2)[:, None, None]
                mask &= ~(hidden & front[:, k, None, None])
    return np.broadcast_to(us, mask.shape), np.broadcast_to(vs, mask.shape), mask


def refine_centres(
    weight: NDArray[np.float32],
    xy: NDArray[np.float64],
    radius: NDArray[np.float64],
    iterations: int,
) -> NDArray[np.float64]:
    """Sub-pixel centres: soft-foreground centroids over each ball's own disc, iterated."""
    centres = xy.copy()
    for _ in range(iterations):
        us, vs, mask = own_disc(centres, radius, 1.0)
        w = sample_uv(weight, us[:, :1, :], vs[:, :, :1]) * mask
        total = w.sum(axis=(1, 2))
        found = total > 1e-3
        moved = np.column_stack([(w * us).sum(axis=(1, 2)), (w * vs).sum(axis=(1, 2))])
        centres[found] = moved[found] / total[found, None]
    return centres


def fit_outlines(
    region: SearchRegion, xy: NDArray[np.float64], radius: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Centres from the outline: along 32 directions, the point between 0.7 and 1.3 radii
    where the lightness changes most radially, then a least-squares circle of the known
    radius through those points (for balls of the cloth's own colour)."""
    scales = np.linspace(0.75, 1.25, 11)
    points = (
        xy[:, None, None, :]
        + radius[:, None, None, None] * scales[None, None, :, None] * DIRECTIONS[None, :, None, :]
    )
    gradient = sample(region.gradient, points)
    radial = np.abs(np.sum(gradient * DIRECTIONS[None, :, None, :], axis=3))
    best = np.argmax(radial, axis=2)
    strength = np.take_along_axis(radial, best[..., None], axis=2)[..., 0]
    edge = np.take_along_axis(points, best[..., None, None], axis=2)[:, :, 0, :]
    # Each edge point says the centre lies one radius inward from it; shadows and touching
    # balls make some of them wrong, so take a strength-weighted median of what they say.
    implied = edge - radius[:, None, None] * DIRECTIONS[None, :, :]
    fitted = np.column_stack(
        [_weighted_median(implied[..., 0], strength), _weighted_median(implied[..., 1], strength)]
    )
    return fitted


def _weighted_median(
    values: NDArray[np.float64], weights: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(K,) row-wise weighted median of (K, M) values."""
    order = np.argsort(values, axis=1)
    sorted_values = np.take_along_axis(values, order, axis=1)
    cumulative = np.cumsum(np.take_along_axis(weights, order, axis=1), axis=1)
    half = cumulative[:, -1:] / 2.0
    index = np.minimum(np.sum(cumulative < half, axis=1), values.shape[1] - 1)
    median: NDArray[np.float64] = sorted_values[np.arange(len(values)), index]
    return median


def confidence(
    region: SearchRegion,
    xy: NDArray[np.float64],
    radius: NDArray[np.float64],
    edge_gradient: float,
    min_free_ring: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(K,) confidence and (K,) foreground coverage of each ball.

    Confidence is the evidence of a ball (its disc is foreground, or failing that, a round
    outline) times how free the ring just outside it is (cloth, or other balls): inside a
    hand or an arm, the ring is foreground all round.
    """
    inner_radii = np.array([0.2, 0.45, 0.7, 0.85])
    inner = (
        xy[:, None, None, :]
        + (radius[:, None, None, None] * inner_radii[None, :, None, None])
        * DIRECTIONS[None, None, :, :]
    )
    covered = sample(region.foreground, inner)
    coverage = covered[:, :3].mean(axis=(1, 2))
    # A ball fills its disc out to the rim in every direction; the end of a cue, a finger or
    # a chalk's edge fills only a sector of it.
    rim = np.clip((covered[:, 3].mean(axis=1) - 0.5) / 0.4, 0.0, 1.0)

    scales = np.array([0.85, 0.95, 1.05])
    outline = (
        xy[:, None, None, :]
        + (radius[:, None, None, None] * scales[None, :, None, None]) * DIRECTIONS[None, None, :, :]
    )
    radial = np.abs(np.sum(sample(region.gradient, outline) * DIRECTIONS[None, None, :, :], axis=3))
    outline_share = np.mean(radial.max(axis=1) > edge_gradient, axis=1)
    # Only a disc that is mostly cloth-coloured inside may be a ball by its outline alone
    # (a green ball on green cloth); a foreground blob must fill its disc to the rim.
    by_outline = np.clip(outline_share * 1.25, 0.0, 1.0) * 0.9
    # A blob that does not reach its rim (a white ball whose shaded side is the grey of the
    # cloth) may still be a ball if its outline is round nearly all the way (a cue's two
    # straight edges give well under this share).
    round_outline = np.where(outline_share >= 0.6, by_outline, 0.0)
    evidence = np.where(
        coverage < 0.5,
        np.maximum(by_outline, coverage),
        np.maximum(np.minimum(coverage, rim), round_outline),
    )
    ring = xy[:, None, :] + 1.4 * radius[:, None, None] * DIRECTIONS[None, :, :]
    # Only clearly foreground counts against a ball: real balls sit in a soft halo of shadow
    # and blur that is just over the threshold; a hand or an arm is far over it.
    occupied = sample(region.distance, ring) > 1.5 * region.threshold
    gaps = np.linalg.norm(ring[:, :, None, :] - xy[None, None, :, :], axis=3)
    # Only a neighbour that could be a real ball (as far as touching balls' centres are
    # there, less a little: balls do not overlap) explains foreground in the ring; a chain
    # of candidates along a cushion face or an arm does not explain itself.
    apart = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
    possible = apart >= 0.9 * touching_gap(region, xy)[:, None]
    explained = np.any((gaps < 1.2 * radius[None, None, :]) & possible[:, None, :], axis=2)
    free = np.mean(~occupied | explained, axis=1)
    ring_score = np.clip((free - min_free_ring) / (1.0 - min_free_ring) * 2.0, 0.0, 1.0)
    # A ball mostly hidden behind nearer ones shows too little to be named or placed well.
    seen = np.clip((visible_share(xy, radius) - 0.5) / 0.2, 0.0, 1.0)
    return evidence * ring_score * seen, coverage


def visible_share(xy: NDArray[np.float64], radius: NDArray[np.float64]) -> NDArray[np.float64]:
    """(K,) share of each ball's image disc not covered by the discs of nearer balls (the
    larger ones in the image, which an angled view shows overlapping it); 1 from above."""
    offsets = xy[:, None, :] - xy[None, :, :]
    apart = np.maximum(np.hypot(offsets[..., 0], offsets[..., 1]), 1e-9)
    mine, theirs = radius[:, None], radius[None, :]
    front = (theirs > mine) & (apart < 0.95 * (mine + theirs))
    np.fill_diagonal(front, False)
    # The lens where two circles of radii a and b at distance d overlap.
    d = np.maximum(apart, np.abs(theirs - mine) + 1e-9)
    cos_a = np.clip((d * d + mine * mine - theirs * theirs) / (2.0 * d * mine), -1.0, 1.0)
    cos_b = np.clip((d * d + theirs * theirs - mine * mine) / (2.0 * d * theirs), -1.0, 1.0)
    kite = (-d + mine + theirs) * (d + mine - theirs) * (d - mine + theirs) * (d + mine + theirs)
    lens = (
        mine * mine * np.arccos(cos_a)
        + theirs * theirs * np.arccos(cos_b)
        - 0.5 * np.sqrt(np.maximum(kite, 0.0))
    )
    hidden = np.sum(np.where(front, lens, 0.0), axis=1) / (np.pi * radius * radius)
    share: NDArray[np.float64] = np.clip(1.0 - hidden, 0.0, 1.0)
    return share


def ball_pixels(
    image: NDArray[np.uint8], xy: NDArray[np.float64], radius: NDArray[np.float64]
) -> list[NDArray[np.uint8]]:
    """Each ball's (K_i, 3) BGR pixels within 0.9 radius and nearer to it than to others
    (a stripe's band can lie near the rim)."""
    if len(xy) == 0:
        return []
    us, vs, mask = own_disc(xy, radius, 0.9, hide_behind=True)
    height, width = image.shape[:2]
    inside = mask & (us >= 0) & (us < width) & (vs >= 0) & (vs < height)
    u = np.minimum(np.maximum(us, 0), width - 1).astype(np.int64)
    v = np.minimum(np.maximum(vs, 0), height - 1).astype(np.int64)
    patches = image[v, u]
    return [np.ascontiguousarray(patches[k][inside[k]]) for k in range(len(xy))]


def streaks(
    region: SearchRegion, found_xy: NDArray[np.float64], low_threshold: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], list[NDArray[np.uint8]]]:
    """Balls smeared by motion blur (the break): foreground streaks one ball wide and two
    to eight radii long, away from the balls already found.

    A blurred ball mixes its colour with the cloth, so a lower threshold is used. The centre
    is the streak's centroid (the ball's position at mid-exposure).

    Returns:
        (K, 2) centres, (K,) confidences and each streak's (K_i, 3) BGR pixels.
    """
    mask = (region.distance > low_threshold).astype(np.uint8)
    for (u, v), r in zip(found_xy, _radius_at(region, found_xy), strict=True):
        cv2.circle(mask, (round(u), round(v)), round(1.3 * r) + 1, 0, -1)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    centres: list[NDArray[np.float64]] = []
    scores: list[float] = []
    pixels: list[NDArray[np.uint8]] = []
    for label in range(1, count):
        area = int(stats[label, cv2.CC_STAT_AREA])
        if area < 20:
            continue
        x0, y0, w, h = (int(stats[label, k]) for k in range(4))
        ys, xs = np.nonzero(labels[y0 : y0 + h, x0 : x0 + w] == label)
        points = np.column_stack([xs + x0, ys + y0]).astype(np.float64)
        # A ball at most eight radii long per exposure covers each pixel of its streak's
        # core for at least a fifth of it: the core stands out as a ball does, while a
        # band where the cloth model is a little off (along a cushion) is faint all over.
        if np.percentile(region.distance[ys + y0, xs + x0], 90) < region.threshold:
            continue
        score = _streak_score(points, region)
        if score > 0.0:
            centres.append(points.mean(axis=0))
            scores.append(score)
            pixels.append(region.image[ys + y0, xs + x0])
    if not centres:
        return np.zeros((0, 2)), np.zeros(0), []
    return np.array(centres), np.array(scores), pixels


def _radius_at(region: SearchRegion, xy: NDArray[np.float64]) -> NDArray[np.float64]:
    return map_at(region.radius, xy)


def map_at(
    image: NDArray[np.float32] | NDArray[np.uint8], xy: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Values of a (H, W) map at (K, 2) points, nearest pixel, clamped to the map: (K,), or
    (K, C) for an (H, W, C) map."""
    height, width = image.shape[:2]
    u = np.minimum(np.maximum(np.round(xy[:, 0]).astype(np.int64), 0), width - 1)
    v = np.minimum(np.maximum(np.round(xy[:, 1]).astype(np.int64), 0), height - 1)
    values: NDArray[np.float64] = image[v, u].astype(np.float64)
    return values


def _streak_score(points: NDArray[np.float64], region: SearchRegion) -> float:
    """How much a blob of (N, 2) pixels looks like one ball smeared along a line: its width
    (from the second moments across it) is a ball's, its length (its extent along the line)
    two and a half to nine radii, and its area that of a stadium of that width and length.
    0 when it does not."""
    centre = points.mean(axis=0)
    radius = float(_radius_at(region, centre[None])[0])
    if radius <= 0 or not region.centre_valid[round(centre[1]), round(centre[0])]:
        return 0.0
    spreads, axes = np.linalg.eigh(np.cov(points.T))
    # A uniform band of width w has standard deviation w / sqrt(12) across it.
    width = float(np.sqrt(max(spreads[0], 0.0)) * np.sqrt(12.0))
    along = (points - centre) @ axes[:, 1]
    length = float(along.max() - along.min()) + 1.0
    if not 2.5 * radius <= length <= 9.0 * radius:
        return 0.0
    # The threshold cuts a smeared ball's soft sides, so it looks a little narrower.
    width_ok = 1.0 - abs(width / (2.0 * radius) - 0.9) / 0.4
    stadium = width * max(length - width, 0.0) + 0.25 * np.pi * width**2
    area_ok = 1.0 - abs(len(points) / max(stadium, 1.0) - 1.0) / 0.4
    return float(np.clip(min(width_ok, area_ok), 0.0, 1.0))
