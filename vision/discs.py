"""A ball's own pixels in a searched image: its disc, cut where it touches another ball, its
sub-pixel centre on a weight map and its colours (`vision.candidates` finds the balls'
candidate centres first).

All per-ball work is batched over balls with NumPy, or compiled where numba is installed
(`vision.kernels`, the same results).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import kernels
from vision.candidates import sample_uv


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
    us, vs, mask = _own_disc(xy, radius, scale, hide_behind)
    return np.broadcast_to(us, mask.shape), np.broadcast_to(vs, mask.shape), mask


def _own_disc(
    xy: NDArray[np.float64], radius: NDArray[np.float64], scale: float, hide_behind: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """`own_disc` with u as (K, 1, S) columns and v as (K, S, 1) rows (broadcast them
    against the (K, S, S) mask): the hot callers never need the full grids."""
    reach = int(np.ceil(float(radius.max()) * scale)) + 1
    us, vs = _patch_grid(xy, reach)
    # (K, 1, S) and (K, S, 1): only the sums below are (K, S, S).
    du = us - xy[:, 0, None, None]
    dv = vs - xy[:, 1, None, None]
    mask = du * du + dv * dv <= ((radius * scale) ** 2)[:, None, None]
    count = len(xy)
    if count > 1:
        # A pixel is this ball's when it is on this ball's side of the bisector with each of
        # the few nearest balls (the only ones whose cells can reach into this disc).
        offsets = xy[None, :, :] - xy[:, None, :]
        pairwise = np.hypot(offsets[..., 0], offsets[..., 1])
        pairwise.flat[:: count + 1] = np.inf
        nearest = np.argsort(pairwise, axis=1)[:, : min(6, count - 1)]
        rows = np.arange(count)[:, None]
        toward, gap = offsets[rows, nearest], pairwise[rows, nearest]
        near = gap < 2.0 * radius[:, None] * scale + 2.0
        # Neighbours are sorted nearest first, so past the last near one nothing can cut.
        cuts = int(near.sum(axis=1).max())
        if cuts:
            neighbours = (toward[:, :cuts], gap[:, :cuts], near[:, :cuts])
            radii = (radius, radius[nearest[:, :cuts]])
            _cut_at_bisectors(mask, (du, dv), neighbours, radii, hide_behind)
    return us, vs, mask


def _cut_at_bisectors(
    mask: NDArray[np.bool_],
    grid: tuple[NDArray[np.float64], NDArray[np.float64]],
    neighbours: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]],
    radii: tuple[NDArray[np.float64], NDArray[np.float64]],
    hide_behind: bool,
) -> None:
    """Clears, in place, the pixels of the (K, S, S) `mask` (over the (K, 1, S) and
    (K, S, 1) offsets `grid` from each ball's centre) past its bisector with each of its C
    nearest balls that is near: `neighbours` are their (K, C, 2) offsets, (K, C) distances
    and (K, C) nearness; `radii` the (K,) balls' and (K, C) neighbours' radii. With
    `hide_behind`, a larger overlapping neighbour hides its whole disc instead."""
    du, dv = grid
    toward, gap, near = neighbours
    radius, other = radii
    # Discs that overlap in the image are one ball in front of the other (balls do not
    # overlap on the table): the larger one is nearer the camera.
    overlap = near & (gap < 0.95 * (radius[:, None] + other)) if hide_behind else None
    half = 0.5 * np.sum(toward * toward, axis=2)
    cutting = near if overlap is None else near & ~overlap
    if mask.size * toward.shape[1] <= _BATCHED_CUT_LIMIT:
        # (K, C, S, S): each pixel's side of every bisector in one pass.
        side = du[:, None] * toward[:, :, 0, None, None] + dv[:, None] * toward[:, :, 1, None, None]
        mine = (side <= half[:, :, None, None]) | ~cutting[:, :, None, None]
        mask &= np.logical_and.reduce(mine, axis=1)
    else:
        for k in range(toward.shape[1]):
            side = du * toward[:, k, 0, None, None] + dv * toward[:, k, 1, None, None]
            mask &= (side <= half[:, k, None, None]) | ~cutting[:, k, None, None]
    if overlap is None:
        return
    front = overlap & (other > radius[:, None])
    for k in np.flatnonzero(front.any(axis=0)):
        ex, ey = du - toward[:, k, 0, None, None], dv - toward[:, k, 1, None, None]
        hidden = ex * ex + ey * ey <= (other[:, k] ** 2)[:, None, None]
        mask &= ~(hidden & front[:, k, None, None])


_BATCHED_CUT_LIMIT = 1 << 21
"""Most (K, C, S, S) pixel-bisector pairs `_cut_at_bisectors` takes in one pass (16 MB of
float64); more (hundreds of candidates in a whole-table search) go one neighbour at a time."""


def refine_centres(
    weight: NDArray[np.float32],
    xy: NDArray[np.float64],
    radius: NDArray[np.float64],
    iterations: int,
) -> NDArray[np.float64]:
    """Sub-pixel centres: soft-foreground centroids over each ball's own disc, iterated
    (compiled where numba is installed: `vision.kernels`, the same centres)."""
    if kernels.compiled():
        return kernels.refine_centres(weight, xy, radius, iterations)
    centres = xy.copy()
    if len(centres) == 0:
        return centres
    # Each ball's patch is a square of the weight map: taken as views of it, padded with
    # zeros (a pixel off the map weighs nothing), not pixel by pixel.
    reach = int(np.ceil(float(radius.max()))) + 1
    height, width = weight.shape
    padded = cv2.copyMakeBorder(weight, reach, reach, reach, reach, cv2.BORDER_CONSTANT, value=0)
    patches = np.lib.stride_tricks.sliding_window_view(padded, (2 * reach + 1, 2 * reach + 1))
    for _ in range(iterations):
        us, vs, mask = _own_disc(centres, radius, 1.0, False)
        # The patch's corner pixel, in the padded map (`_patch_grid`'s rounding).
        corner_u, corner_v = (
            us[:, 0, 0].astype(np.int64) + reach,
            vs[:, 0, 0].astype(np.int64) + reach,
        )
        if np.all((corner_u >= 0) & (corner_u < width) & (corner_v >= 0) & (corner_v < height)):
            sampled = patches[corner_v, corner_u].astype(np.float64)
        else:
            sampled = sample_uv(weight, us, vs)
        w = sampled * mask
        total = w.sum(axis=(1, 2))
        found = total > 1e-3
        moved = np.column_stack([(w * us).sum(axis=(1, 2)), (w * vs).sum(axis=(1, 2))])
        centres[found] = moved[found] / total[found, None]
    return centres


def ball_pixels(
    image: NDArray[np.uint8], xy: NDArray[np.float64], radius: NDArray[np.float64]
) -> list[NDArray[np.uint8]]:
    """Each ball's (K_i, 3) BGR pixels within 0.9 radius and nearer to it than to others
    (a stripe's band can lie near the rim)."""
    if len(xy) == 0:
        return []
    if kernels.compiled():
        return kernels.ball_pixels(image, xy, radius)
    us, vs, mask = _own_disc(xy, radius, 0.9, True)
    height, width = image.shape[:2]
    inside = mask & (us >= 0) & (us < width) & (vs >= 0) & (vs < height)
    ball, cell = np.divmod(np.flatnonzero(inside), inside.shape[1] * inside.shape[2])
    row, column = np.divmod(cell, inside.shape[2])
    # Row-major order, ball by ball: the same pixels in the same order as a loop would take.
    pixels = image[vs[ball, row, 0].astype(np.int64), us[ball, 0, column].astype(np.int64)]
    ends = np.cumsum(np.bincount(ball, minlength=len(xy))).tolist()
    # Slices, as np.split takes them (without its per-call overhead).
    return [pixels[start:end] for start, end in zip([0, *ends[:-1]], ends, strict=True)]
