"""Finding ball centres in a searched image: candidates and sub-pixel centres (their
confidence is in `vision.confidence`, motion-blur streaks in `vision.streaks`).

Pure functions over a `SearchRegion` (the per-pixel maps of the searched pixels, a whole
table or a mosaic of windows). All per-ball work is batched over balls with NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import kernels, peak_kernels, point_kernels

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
        radius_median: the `radius` array and its `median_radius`, when already known (a
            searcher that sees the same windows again); used only while `radius` is that
            very array, so a region made from this one with other radii recomputes it.
        shade: (H, W) uint8 1 where a pixel is clearly darker than the cloth along its
            colour (a shadow, or a ball's shaded side); None: not known.
        hued: (H, W) uint8 1 where a pixel's colour lies near the line of the cloth's colour
            (any brightness of it: a ball of the cloth's hue, its shade); None: not known.
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
    radius_median: tuple[NDArray[np.float32], float] | None = None
    shade: NDArray[np.uint8] | None = None
    hued: NDArray[np.uint8] | None = None


def sample(image: NDArray[np.generic], points: NDArray[np.float64]) -> NDArray[np.float64]:
    """Nearest-pixel values of a (H, W[, C]) image at (..., 2) points (u, v); 0 outside."""
    return sample_uv(image, points[..., 0], points[..., 1])


def sample_uv(
    image: NDArray[np.generic], us: NDArray[np.float64], vs: NDArray[np.float64]
) -> NDArray[np.float64]:
    """`sample` with u and v given apart, broadcast against each other (a patch grid's
    (K, 1, S) columns and (K, S, 1) rows cost S, not S * S, roundings)."""
    return PixelIndex.of(image.shape, us, vs).values(image)


@dataclass(frozen=True, slots=True, eq=False)
class PixelIndex:
    """The nearest pixels of points, found once and read from several maps of one size
    (`sample`'s rounding and clamping done once for all of them).

    Attributes:
        rows: (...) int64 row of each point, clamped to the map.
        columns: (...) int64 column of each point, clamped to the map.
        inside: (...) bool whether the point's pixel is on the map (its values read 0
            when not).
    """

    rows: NDArray[np.int64]
    columns: NDArray[np.int64]
    inside: NDArray[np.bool_]

    @classmethod
    def of(
        cls, shape: tuple[int, ...], us: NDArray[np.float64], vs: NDArray[np.float64]
    ) -> PixelIndex:
        """The pixels of points (u, v) given apart (broadcast against each other) on a map
        of `shape` (H, W[, C])."""
        height, width = shape[:2]
        u = np.rint(us).astype(np.int64)
        v = np.rint(vs).astype(np.int64)
        # np.minimum/np.maximum: np.clip's per-call overhead dominates on these small arrays.
        rows = np.minimum(np.maximum(v, 0), height - 1)
        columns = np.minimum(np.maximum(u, 0), width - 1)
        # A point is inside exactly when clamping left it where it was.
        return cls(rows, columns, (columns == u) & (rows == v))

    def __getitem__(self, key: Any) -> PixelIndex:
        return PixelIndex(self.rows[key], self.columns[key], self.inside[key])

    def values(self, image: NDArray[np.generic]) -> NDArray[np.float64]:
        """(...) or (..., C) float64 values of an (H, W) or (H, W, C) map at the points."""
        values = image[self.rows, self.columns].astype(np.float64)
        inside = self.inside
        mask = inside if values.ndim == inside.ndim else inside[..., None]
        out: NDArray[np.float64] = values * mask
        return out


def nonzero_2d(mask: NDArray[np.bool_]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """`np.nonzero` of a (H, W) mask: (N,) rows and (N,) columns in row-major order, the
    same arrays; a third of its time on a searched region (it is slow on 2-D input)."""
    rows, columns = np.divmod(np.flatnonzero(mask), mask.shape[1])
    return rows, columns


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
    count = len(xy)
    if count > _PAIRWISE_LIMIT:
        return _suppress_one_by_one(xy, min_gap_px)
    # All pairs at once (a few NumPy calls), then the greedy pass in plain Python.
    gaps = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    close = (gaps < min_gap_px[:, None]).tolist()
    kept: list[int] = []
    for index in range(count):
        row = close[index]
        if not any(row[k] for k in kept):
            kept.append(index)
    return np.array(kept, np.int64)


_PAIRWISE_LIMIT = 1024
"""Above this many points, `suppress` checks them one by one (the pairwise table grows as
the square)."""


def _suppress_one_by_one(
    xy: NDArray[np.float64], min_gap_px: NDArray[np.float64]
) -> NDArray[np.int64]:
    kept: list[int] = []
    for index in range(len(xy)):
        if kept:
            gap = np.hypot(*(xy[kept] - xy[index]).T)
            if np.any(gap < min_gap_px[index]):
                continue
        kept.append(index)
    return np.array(kept, np.int64)


def median_radius(region: SearchRegion) -> float:
    """The median expected ball radius over the region's pixels (those with one), px; NaN
    when none has."""
    known = region.radius_median
    if known is not None and known[0] is region.radius:
        return known[1]
    return median_of_radii(region.radius)


def median_of_radii(radius: NDArray[np.float32]) -> float:
    """`np.median` of the positive values of a radius map, without its per-call checks; NaN
    when there are none."""
    radii = radius[radius > 0]
    count = len(radii)
    if count == 0:
        return float("nan")
    half = count // 2
    if count % 2:
        return float(np.partition(radii, half)[half])
    # As np.median: the mean of the two middle values, in the array's precision.
    return float(np.partition(radii, [half - 1, half])[half - 1 : half + 1].mean())


def distance_peaks(region: SearchRegion, min_ratio: float, max_ratio: float) -> NDArray[np.float64]:
    """(K, 2) candidate centres: maxima of the foreground's distance transform measured in
    ball radii, between `min_ratio` and `max_ratio`, no two nearer than `TOUCHING_SHARE` of
    two radii."""
    distance = cv2.distanceTransform(region.foreground, cv2.DIST_L2, cv2.DIST_MASK_5)
    size = max(3, int(median_radius(region) * 0.5) | 1)
    if kernels.compiled() and np.float32(min_ratio) > 0:
        # Only a ball's core can be a peak: tested there alone (the same pixels and values).
        ys, xs, at = peak_kernels.ratio_peaks(distance, region.radius, min_ratio, size)
    else:
        ratio = distance / np.maximum(region.radius, 1.0)
        local_max = ratio >= cv2.dilate(ratio, np.ones((size, size), np.uint8))
        ys, xs = nonzero_2d(local_max & (ratio >= min_ratio))
        at = ratio[ys, xs]
    if len(xs) == 0:
        return np.zeros((0, 2))
    order = np.argsort(-at, kind="stable")
    xy = np.column_stack([xs, ys]).astype(np.float64)[order]
    values = at[order]
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
    size = max(3, int(median_radius(region)) | 1)
    peak = (share >= cv2.dilate(share, np.ones((size, size), np.uint8))) & (share >= min_votes)
    pv, pu = nonzero_2d(peak)
    order = np.argsort(-share[pv, pu], kind="stable")
    return np.column_stack([pu, pv]).astype(np.float64)[order], share[pv, pu][order].astype(
        np.float64
    )


def outline_votes(region: SearchRegion, edge_gradient: float) -> NDArray[np.float32]:
    """(H, W) share of a round outline of the expected radius centred at each pixel that
    its edges vote for (a circle Hough transform with the known radius at each pixel): about
    1 for a sharp outline seen all round, 0 where no edge is one radius away."""
    gradient = region.gradient
    height, width = gradient.shape[:2]
    # The magnitude only where an edge may be: a bar a little lower on the squared
    # magnitude takes in every pixel over it (np.hypot over the whole region costs three
    # times the squares), then the exact test on those.
    bar = np.float32((0.99 * edge_gradient) ** 2)
    gx, gy = gradient[..., 0], gradient[..., 1]
    maybe = region.radius > 0
    if bar > 1e-30:
        maybe &= gx * gx + gy * gy > bar
    at = np.flatnonzero(maybe)
    along = gradient.reshape(-1, 2)[at]
    magnitude = np.hypot(along[:, 0], along[:, 1])
    edge = magnitude > edge_gradient
    at, along, magnitude = at[edge], along[edge], magnitude[edge]
    if len(at) == 0:
        return np.zeros((height, width), np.float32)
    ys, xs = np.divmod(at, width)
    unit = along / magnitude[:, None]
    reach = region.radius.reshape(-1)[at]
    cells = []
    for sign in (1.0, -1.0):
        cu = np.rint(xs + sign * reach * unit[:, 0]).astype(np.int64)
        cv = np.rint(ys + sign * reach * unit[:, 1]).astype(np.int64)
        inside = (cu >= 0) & (cu < width) & (cv >= 0) & (cv < height)
        cells.append(cv[inside] * width + cu[inside])
    # Both signs counted in one pass (whole counts: exact in float32 below 2**24).
    votes = np.bincount(np.concatenate(cells), minlength=height * width)
    accumulator = cv2.GaussianBlur(votes.reshape(height, width).astype(np.float32), (5, 5), 1.0)
    # A sharp outline gives about two edge pixels per unit of circumference; a Gaussian
    # of sigma 1 keeps about a sixth of a point's votes at its peak.
    circumference = (2.0 * np.pi * 2.0 / 6.0) * np.maximum(region.radius, np.float32(1.0))
    share: NDArray[np.float32] = (accumulator / circumference).astype(np.float32, copy=False)
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
    if len(both) == 0 or len(second) == 0:
        return both  # all of `first` is kept (the fast pass has no outline candidates)
    radius = _radius_at(region, both)
    min_gap = TOUCHING_SHARE * np.minimum(touching_gap(region, both), 2.0 * radius)
    if len(both) > _PAIRWISE_LIMIT:
        keep = _merge_one_by_one(region, both, len(first), radius, min_gap)
        return both[keep]
    # All pairs at once, then the greedy pass over plain Python lists.
    gaps = np.hypot(both[None, :, 0] - both[:, None, 0], both[None, :, 1] - both[:, None, 1])
    rows, radii, min_gaps = gaps.tolist(), radius.tolist(), min_gap.tolist()
    kept = list(range(len(first)))
    for index in range(len(first), len(both)):
        if not kept:
            kept.append(index)
            continue
        row = rows[index]
        nearest = min(kept, key=row.__getitem__)  # the first of equals, as np.argmin
        gap = row[nearest]
        if gap < min_gaps[index]:
            continue
        if gap < TOUCHING_SHARE * 2.0 * radii[index]:
            away = (both[index] - both[nearest]) / max(gap, 1e-9)
            if not _far_side_filled(region, both[index], away, radii[index]):
                continue
        kept.append(index)
    merged: NDArray[np.float64] = both[kept]
    return merged


def _merge_one_by_one(
    region: SearchRegion,
    both: NDArray[np.float64],
    first_count: int,
    radius: NDArray[np.float64],
    min_gap: NDArray[np.float64],
) -> NDArray[np.bool_]:
    """`merge_candidates`' greedy pass point by point (many points: no pairwise table)."""
    keep = np.ones(len(both), bool)
    for index in range(first_count, len(both)):
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
    return keep


def _far_side_filled(
    region: SearchRegion, xy: NDArray[np.float64], away: NDArray[np.float64], radius: float
) -> bool:
    """Whether the half of a ball's disc facing `away` (a unit vector) is foreground."""
    angles = np.linspace(-0.25 * np.pi, 0.25 * np.pi, 5)
    cos, sin = np.cos(angles), np.sin(angles)
    turned = np.column_stack([away[0] * cos - away[1] * sin, away[0] * sin + away[1] * cos])
    points = xy[None, None, :] + radius * np.array([0.35, 0.65])[:, None, None] * turned[None]
    return bool(np.mean(sample(region.foreground, points)) >= 0.75)


def _radius_at(region: SearchRegion, xy: NDArray[np.float64]) -> NDArray[np.float64]:
    return map_at(region.radius, xy)


def map_at(
    image: NDArray[np.float32] | NDArray[np.uint8], xy: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Values of a (H, W) map at (K, 2) points, nearest pixel, clamped to the map: (K,), or
    (K, C) for an (H, W, C) map."""
    if kernels.compiled() and point_kernels.reads(image):
        return point_kernels.map_at(image, xy)
    height, width = image.shape[:2]
    # One rounding and one clamp for both columns: this runs many times a frame on few points.
    uv = np.rint(xy).astype(np.int64)
    np.maximum(uv, 0, out=uv)
    np.minimum(uv, (width - 1, height - 1), out=uv)
    values: NDArray[np.float64] = image[uv[:, 1], uv[:, 0]].astype(np.float64)
    return values
