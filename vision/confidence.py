"""How sure the round search is of each ball: outline fits and confidence.

Pure functions over a `vision.candidates.SearchRegion`, batched over balls with NumPy.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision import confidence_kernels, kernels
from vision.candidates import DIRECTIONS, PixelIndex, SearchRegion, sample, touching_gap


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
    # Only a neighbour that could be a real ball (as far as touching balls' centres are
    # there, less a little: balls do not overlap) explains foreground in the ring; a chain
    # of candidates along a cushion face or an arm does not explain itself.
    apart = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
    possible = apart >= 0.9 * touching_gap(region, xy)[:, None]
    possible &= pinched(region, xy, radius, apart)
    if kernels.compiled():
        parts = confidence_kernels.confidence_parts(
            region,
            (xy, radius, possible),
            (_ALL_RADII, DIRECTIONS),
            1.5 * region.threshold,
            edge_gradient,
        )
        coverage, rim_share, outline_share, free = parts.T
    else:
        coverage, rim_share, outline_share, free = _sampled(
            region, xy, radius, possible, edge_gradient
        )
    # A ball fills its disc out to the rim in every direction; the end of a cue, a finger or
    # a chalk's edge fills only a sector of it.
    rim = _unit_clip((rim_share - 0.5) / 0.4)
    # Only a disc that is mostly cloth-coloured inside may be a ball by its outline alone
    # (a green ball on green cloth); a foreground blob must fill its disc to the rim.
    by_outline = _unit_clip(outline_share * 1.25) * 0.9
    # A blob that does not reach its rim (a white ball whose shaded side is the grey of the
    # cloth) may still be a ball if its outline is round nearly all the way (a cue's two
    # straight edges give well under this share).
    round_outline = np.where(outline_share >= 0.6, by_outline, 0.0)
    evidence = np.where(
        coverage < 0.5,
        np.maximum(by_outline, coverage),
        np.maximum(np.minimum(coverage, rim), round_outline),
    )
    ring_score = _unit_clip((free - min_free_ring) / (1.0 - min_free_ring) * 2.0)
    # A ball mostly hidden behind nearer ones shows too little to be named or placed well.
    seen = _unit_clip((visible_share(xy, radius) - 0.5) / 0.2)
    return evidence * ring_score * seen, coverage


def _sampled(
    region: SearchRegion,
    xy: NDArray[np.float64],
    radius: NDArray[np.float64],
    possible: NDArray[np.bool_],
    edge_gradient: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """`confidence`'s sampled parts, (K,) each: disc coverage, rim share (`_rim_share`),
    outline share and the share of the ring that is free (not clearly foreground, or
    explained by a `possible` (K, K) neighbour). `vision.confidence_kernels.confidence_parts`
    is the same, compiled."""
    # The disc's circles, the outline's and the ring's, their pixels found once for all.
    circles = _inner_circles(xy, radius, _ALL_RADII)
    pixels = PixelIndex.of(region.foreground.shape, circles[..., 0], circles[..., 1])
    covered = pixels[:, :4].values(region.foreground)
    coverage = covered[:, :3].mean(axis=(1, 2))
    rim_share = _rim_share(region, pixels[:, 3], covered[:, 3])
    along = pixels[:, 4:7].values(region.gradient) * DIRECTIONS[None, None, :, :]
    radial = np.abs(np.sum(along, axis=3))
    outline_share = np.mean(radial.max(axis=1) > edge_gradient, axis=1)
    ring = circles[:, 7]
    # Only clearly foreground counts against a ball: real balls sit in a soft halo of shadow
    # and blur that is just over the threshold; a hand or an arm is far over it.
    occupied = pixels[:, 7].values(region.distance) > 1.5 * region.threshold
    # np.linalg.norm's sum of squares and root, without its per-call checks.
    offsets = ring[:, :, None, :] - xy[None, None, :, :]
    gaps = np.sqrt(np.add.reduce(offsets * offsets, axis=3))
    explained = np.any((gaps < 1.2 * radius[None, None, :]) & possible[:, None, :], axis=2)
    free = np.mean(~occupied | explained, axis=1)
    return coverage, rim_share, outline_share, free


def disc_coverage(
    region: SearchRegion, xy: NDArray[np.float64], radius: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(K,) share of each ball's disc that is foreground: `confidence`'s coverage (the same
    points and values) without the rest of it."""
    covered = sample(region.foreground, _inner_circles(xy, radius, _INNER_RADII[:3]))
    coverage: NDArray[np.float64] = covered.mean(axis=(1, 2))
    return coverage


def _inner_circles(
    xy: NDArray[np.float64], radius: NDArray[np.float64], shares: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(K, C, 32, 2) points on circles of `shares` (C,) of each ball's radius."""
    inner: NDArray[np.float64] = (
        xy[:, None, None, :]
        + (radius[:, None, None, None] * shares[None, :, None, None]) * DIRECTIONS[None, None, :, :]
    )
    return inner


WAIST_RADII = 0.8
"""How far either side of the midpoint of two touching balls, in ball radii, their outlines
leave a waist: both discs end there (about 1.1 radii from each centre even where an angled
view brings touching balls 1.6 radii together), so it is cloth, a shadow or a third ball."""


BEYOND_RADII = 1.6
"""How far either side of that midpoint, in ball radii, a band a chain of candidates could
lie along has ended (a band wider than about three radii peaks above the distance
transform's `max_peak_ratio` and gives no candidates)."""


def pinched(
    region: SearchRegion,
    xy: NDArray[np.float64],
    radius: NDArray[np.float64],
    apart: NDArray[np.float64],
) -> NDArray[np.bool_]:
    """(K, K) whether each pair of near candidates shows the waist of two round things side by
    side: at one of the two points `WAIST_RADII` either side of their midpoint, the picture
    is not clearly foreground, or a third candidate is there, or the foreground goes on past
    `BEYOND_RADII` on some side (a rack, whose inner balls may not all be candidates). A
    band of even width about a ball's diameter (a sleeve, a cushion face, a cue's butt) has
    no waist and ends on both sides: a chain of candidates along it does not explain itself.
    Pairs too far apart to explain each other's ring are True.

    Args:
        region: the searched maps.
        xy: (K, 2) candidate centres, region px.
        radius: (K,) ball radius at each, px.
        apart: (K, K) distance between the candidates, px.
    """
    count = len(xy)
    out = np.ones((count, count), bool)
    if count < 2:
        return out
    # The pairs above the diagonal (np.triu's, without its per-call cost).
    index = np.arange(count)
    first, second = np.nonzero((apart < 2.6 * radius[:, None]) & (index[:, None] < index))
    if len(first) == 0:
        return out
    offset = xy[second] - xy[first]
    across = (
        np.column_stack([-offset[:, 1], offset[:, 0]])
        / np.maximum(apart[first, second], 1e-9)[:, None]
    )
    reach = 0.5 * (radius[first] + radius[second])
    middle = 0.5 * (xy[first] + xy[second])
    # (P, 4, 2) the waist's two points, then the two points past them.
    sides = np.array([WAIST_RADII, -WAIST_RADII, BEYOND_RADII, -BEYOND_RADII])
    points = middle[:, None, :] + sides[None, :, None] * (reach[:, None, None] * across[:, None, :])
    filled = sample(region.distance, points) > 1.5 * region.threshold
    # A band ends within `BEYOND_RADII` on both sides; a rack goes on (the third balls
    # whose rims fill an inner pair's waist may not be candidates).
    ends = ~filled[:, 2:].any(axis=1)
    waist, filled = points[:, :2], filled[:, :2]
    gaps = np.hypot(
        waist[:, :, None, 0] - xy[None, None, :, 0], waist[:, :, None, 1] - xy[None, None, :, 1]
    )
    third = gaps < 1.2 * radius[None, None, :]
    third[np.arange(len(first)), :, first] = False
    third[np.arange(len(first)), :, second] = False
    waisted = np.any(~filled | np.any(third, axis=2), axis=1) | ~ends
    out[first, second] = waisted
    out[second, first] = waisted
    return out


LIT_RIM = 0.3
"""Share of a ball's rim that must be foreground before its shaded pixels count as the
ball's too (`_rim_share`)."""


def shaded_rim(
    region: SearchRegion, xy: NDArray[np.float64], radius: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(K,) share of each ball's rim that only its shading makes the ball's (`rim_shares`)."""
    return rim_shares(region, xy, radius)[1]


def rim_shares(
    region: SearchRegion, xy: NDArray[np.float64], radius: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(K,) share of each ball's rim that is foreground, and (K,) share that only its shading
    makes the ball's (shaded cloth colour where the foreground stops; `_rim_share`): about
    half on a ball of the cloth's hue lit from one side, near 0 on a ball that differs from
    the cloth all round."""
    if kernels.compiled() and region.shade is not None:
        shares = confidence_kernels.rim_shares(region, xy, radius, (_INNER_RADII[-1], DIRECTIONS))
        return shares[:, 0], shares[:, 1] - shares[:, 0]
    rim = xy[:, None, :] + (radius[:, None, None] * _INNER_RADII[-1]) * DIRECTIONS[None, :, :]
    pixels = PixelIndex.of(region.foreground.shape, rim[..., 0], rim[..., 1])
    covered = pixels.values(region.foreground)
    lit: NDArray[np.float64] = covered.mean(axis=1)
    if region.shade is None:
        return lit, np.zeros(len(xy))
    return lit, _rim_share(region, pixels, covered) - lit


def _rim_share(
    region: SearchRegion, rim: PixelIndex, covered: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(K,) share of each ball's rim (the (K, 32) pixels `rim`, `covered` their foreground)
    that is the ball's: foreground, or, on a ball whose lit side is foreground (`LIT_RIM` of
    the rim at least), shaded cloth colour.

    A ball of the cloth's hue (a red 3 on red cloth) differs from the cloth on its lit side
    only; its side away from the light is the cloth's colour darkened, like a shadow. The
    end of a cue or a finger fills a sector and leaves cloth of full brightness around it.
    """
    lit: NDArray[np.float64] = covered.mean(axis=1)
    if region.shade is None:
        return lit
    either = np.maximum(covered, rim.values(region.shade)).mean(axis=1)
    half_lit = lit >= LIT_RIM
    if region.hued is not None:
        # Only a ball of the cloth's hue: a streak of a white or dark ball, or a ball of
        # another colour, shows its whole disc, and the shade beside it is its shadow.
        hued = (rim.values(region.hued) * covered).sum(axis=1)
        half_lit &= hued >= 0.5 * covered.sum(axis=1)
    share: NDArray[np.float64] = np.where(half_lit, either, lit)
    return share


SOFT_SHARE = 0.2
"""Width, as a share of the rim, over which `shading_weight` passes from 0 to 1 at each of its
limits: the sensor's noise moves a ball's rim shares by two or three of the 32 samples from
frame to frame."""


def shading_weight(
    region: SearchRegion,
    xy: NDArray[np.float64],
    radius: NDArray[np.float64],
    limits: tuple[float, float],
) -> NDArray[np.float64]:
    """(K,) how far, 0..1, each ball's centre is to move to where its lit and shaded sides
    together place it (a ball of the cloth's hue lit from one side), from where its lit side
    alone does.

    Each limit that decides it (the lit rim from `LIT_RIM`, the shaded rim from
    `limits[0]`, the lit rim under `limits[1]`, and, where the region knows hues, half the
    lit rim of the cloth's hue) is crossed over `SOFT_SHARE` rather than at a point: a
    resting green ball on green cloth whose lit rim reads 0.28 on one frame and 0.34 on the
    next had the refinement off, then on, and its centre jumped half a radius toward its
    shadow, read as a contact. Here its centre moves a little with the shares. At the
    limits' far sides the weight is the old switch's 0 or 1.

    Args:
        region: the searched maps (shade needed; without it every weight is 0).
        xy: (K, 2) centres, region px.
        radius: (K,) radii, px.
        limits: the least shaded rim share (`vision.find.HALF_LIT_RIM`) and the lit rim
            share from which a ball is whole by its lit side (`vision.find.LIT_WHOLE`).
    """
    if region.shade is None or len(xy) == 0:
        return np.zeros(len(xy))
    least_shaded, lit_whole = limits
    rim = xy[:, None, :] + (radius[:, None, None] * _INNER_RADII[-1]) * DIRECTIONS[None, :, :]
    pixels = PixelIndex.of(region.foreground.shape, rim[..., 0], rim[..., 1])
    covered = pixels.values(region.foreground)
    lit = covered.mean(axis=1)
    shaded = np.maximum(covered, pixels.values(region.shade)).mean(axis=1) - lit
    weight = _soft_above(lit, LIT_RIM) * (1.0 - _soft_above(lit, lit_whole))
    weight *= _soft_above(shaded, least_shaded)
    if region.hued is not None:
        hued = (pixels.values(region.hued) * covered).sum(axis=1)
        weight *= _soft_above(hued / np.maximum(covered.sum(axis=1), 1.0), 0.5)
    return weight


def _soft_above(values: NDArray[np.float64], limit: float) -> NDArray[np.float64]:
    """(K,) 0 below `limit` less half `SOFT_SHARE`, 1 above it plus half, linear between."""
    return _unit_clip((values - limit) / SOFT_SHARE + 0.5)


_INNER_RADII = np.array([0.2, 0.45, 0.7, 0.85])
"""Radii, as shares of the ball's, of the circles sampled for the disc's coverage (the last
one is the rim)."""
_OUTLINE_SCALES = np.array([0.85, 0.95, 1.05])
"""Radii, as shares of the ball's, sampled for the outline's edge."""
_RING_RADII = 1.4
"""Radius, as a share of the ball's, of the ring that must be free (not foreground)."""
_ALL_RADII = np.concatenate([_INNER_RADII, _OUTLINE_SCALES, [_RING_RADII]])
"""The circles `confidence` samples, in one array: disc, outline, ring."""


def _unit_clip(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """`np.clip(values, 0, 1)` (same values, NaN stays NaN) without its per-call overhead."""
    clipped: NDArray[np.float64] = np.minimum(np.maximum(values, 0.0), 1.0)
    return clipped


def visible_share(xy: NDArray[np.float64], radius: NDArray[np.float64]) -> NDArray[np.float64]:
    """(K,) share of each ball's image disc not covered by the discs of nearer balls (the
    larger ones in the image, which an angled view shows overlapping it); 1 from above."""
    if len(xy) < 2:
        # No other disc: the share below with nothing hidden.
        return _unit_clip(1.0 - np.zeros(len(xy)) / (np.pi * radius * radius))
    offsets = xy[:, None, :] - xy[None, :, :]
    apart = np.maximum(np.hypot(offsets[..., 0], offsets[..., 1]), 1e-9)
    mine, theirs = radius[:, None], radius[None, :]
    front = (theirs > mine) & (apart < 0.95 * (mine + theirs))
    np.fill_diagonal(front, False)
    if not front.any():
        # Nothing in front of anything (seen from above, or balls apart): no lens to add up.
        return _unit_clip(1.0 - np.zeros(len(xy)) / (np.pi * radius * radius))
    # The lens where two circles of radii a and b at distance d overlap.
    d = np.maximum(apart, np.abs(theirs - mine) + 1e-9)
    cos_a = np.minimum(
        np.maximum((d * d + mine * mine - theirs * theirs) / (2.0 * d * mine), -1.0), 1.0
    )
    cos_b = np.minimum(
        np.maximum((d * d + theirs * theirs - mine * mine) / (2.0 * d * theirs), -1.0), 1.0
    )
    kite = (-d + mine + theirs) * (d + mine - theirs) * (d - mine + theirs) * (d + mine + theirs)
    lens = (
        mine * mine * np.arccos(cos_a)
        + theirs * theirs * np.arccos(cos_b)
        - 0.5 * np.sqrt(np.maximum(kite, 0.0))
    )
    hidden = np.sum(np.where(front, lens, 0.0), axis=1) / (np.pi * radius * radius)
    share = _unit_clip(1.0 - hidden)
    return share
