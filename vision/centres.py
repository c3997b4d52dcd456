"""Centres of balls that show only part of themselves: a circle of the known radius fitted
to where the ball's lit side and shaded side together end on clean cloth.

A ball of the cloth's hue differs from the cloth on its lit side only; its side away from the
light is the cloth's colour darkened, and its cast shadow joins that side on the cloth. The
centroid of its lit side lies toward the light; the centroid of lit and shaded pixels together
is pulled into the cast shadow, by up to half a radius (a ball's shade and its shadow are one
blob). Neither is the ball. Its outline is: on the lit side the foreground ends on clean
cloth at the ball's edge, and across the light the shaded side ends on clean cloth at the
ball's edge too; only toward the shadow does the blob end further out. So each ray from the
centre finds where ball or shade ends on clean cloth, and a circle of the calibrated radius
is fitted to those ends with rays that end beyond it (the shadow) weighed down smoothly: the
centre moves continuously with the evidence, and never into the shadow.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.candidates import DIRECTIONS, SearchRegion, sample

RAY_RADII = np.linspace(0.4, 2.0, 33)
"""Distances along each ray from the centre, in ball radii, where the maps are sampled."""
CLEAN_RADII = 0.25
"""How far past an end, in ball radii, the ray must be clean cloth (neither ball nor shade)."""
MIN_RAYS = 10
"""Fewest rays (of 32) that must end on clean cloth near the fitted circle for a fit."""
MIN_SPREAD = 0.15
"""Smallest eigenvalue per kept ray of the kept rays' direction scatter: the ends must bound
the centre in every direction (a half circle gives 0.5, a quarter 0.18)."""
SCALE_RADII = 0.1
"""Residual, in ball radii, at which a ray's weight starts to fall (Cauchy scale); an end
beyond the circle (a shadow) falls three times faster than one inside it."""
SHADE_WEIGHT = 0.3
"""Weight of a ray whose end is shade's alone (the ball's shaded side, or its shadow's edge)
against one where the foreground ends (the ball's lit outline)."""
MAX_SHIFT = 0.6
"""Largest move, in ball radii, a fit may make from the centre it starts at."""
PASSES = 3
"""Times the rays are cast again around the latest centre."""
STEPS = 6
"""Reweighted least-squares steps per pass."""
BIAS_PRIOR = 0.1
"""Weight, as a share of the rays' total weight, that holds the fitted common bias of the
ends (`_fit`) near 0: small against 32 rays round the ball, enough to keep an arc of half a
circle solvable."""
MAX_BIAS = 0.3
"""Largest common bias of the ends, in ball radii, a fit may find: beyond it the blob is
not one ball of the calibrated radius (a cluster, or a ball and its shadow all round). It is
never below 0: blur and halo only carry the ends outward, and a fit that would take the
ends for a smaller circle has slid onto a part of a smeared blob."""


def outline_centres(
    region: SearchRegion,
    xy: NDArray[np.float64],
    radius: NDArray[np.float64],
    lit: NDArray[np.float32],
    ball: NDArray[np.float32],
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """(K, 2) centres of the balls at (K, 2) `xy` with (K,) radii fitted to where `ball`
    ((H, W) 0..1: the foreground and shade maps' maximum) ends on clean cloth, and (K,)
    whether each fit held (elsewhere `xy` unchanged). Ends where the `lit` map ((H, W)
    0..1, the foreground) ends are the ball's own outline; ends of shade alone may be its
    shadow's, and count for less."""
    centres = np.asarray(xy, np.float64).copy()
    held = np.ones(len(centres), bool)
    if len(centres) == 0:
        return centres, held
    for _ in range(PASSES):
        ends, valid, lit_end = _ray_ends(region, lit, ball, centres, radius)
        delta, ok = _fit(ends, valid, lit_end, radius)
        held &= ok
        centres = np.where(held[:, None], centres + delta, centres)
    held &= np.linalg.norm(centres - xy, axis=1) <= MAX_SHIFT * radius
    return np.where(held[:, None], centres, xy), held


def _ray_ends(
    region: SearchRegion,
    lit: NDArray[np.float32],
    ball: NDArray[np.float32],
    xy: NDArray[np.float64],
    radius: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_]]:
    """(K, 32) distance, px, from each centre at which each ray's ball-or-shade ends on clean
    cloth (the first such end), (K, 32) whether the ray has one, and (K, 32) whether that
    end is the foreground's (not shade's alone)."""
    steps = radius[:, None, None] * RAY_RADII[None, None, :]
    points = xy[:, None, None, :] + steps[..., None] * DIRECTIONS[None, :, None, :]
    inside = sample(ball, points)
    on_table = sample(region.radius, points) > 0
    if region.valid is not None:
        on_table &= sample(region.valid, points) > 0
    dirty = (inside >= 0.5) | ~on_table
    reach = max(1, round(CLEAN_RADII / (RAY_RADII[1] - RAY_RADII[0])))
    samples = len(RAY_RADII)
    count = np.zeros((*dirty.shape[:2], samples + 1), np.int16)
    np.cumsum(dirty, axis=2, out=count[..., 1:])
    end = np.zeros(dirty.shape, bool)
    # A sample that is ball, followed by `reach` samples of clean cloth.
    clean_after = count[..., reach + 1 :] == count[..., 1 : samples - reach + 1]
    end[..., : samples - reach] = (inside[..., : samples - reach] >= 0.5) & clean_after
    valid = end.any(axis=2)
    first = np.argmax(end, axis=2)
    # Sub-sample: where the ball's value falls through a half between the end and the next.
    here = np.take_along_axis(inside, first[..., None], axis=2)[..., 0]
    after = np.take_along_axis(inside, np.minimum(first + 1, samples - 1)[..., None], axis=2)[
        ..., 0
    ]
    fraction = np.clip((here - 0.5) / np.maximum(here - after, 1e-6), 0.0, 1.0)
    step = RAY_RADII[1] - RAY_RADII[0]
    ends = (RAY_RADII[first] + fraction * step) * radius[:, None]
    lit_at = np.take_along_axis(sample(lit, points), first[..., None], axis=2)[..., 0]
    lit_end: NDArray[np.bool_] = lit_at >= 0.5
    valid_any: NDArray[np.bool_] = np.asarray(valid, bool)
    return ends, valid_any, lit_end


def _fit(
    ends: NDArray[np.float64],
    valid: NDArray[np.bool_],
    lit_end: NDArray[np.bool_],
    radius: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """(K, 2) move of each centre that best puts the (K, 32) ray `ends` on a circle of its
    radius plus one common bias (ends of shade alone count SHADE_WEIGHT, and beyond the
    circle they are weighed down faster), and (K,) whether it held.

    Where a ray's end is read (the ball map falling through a half) lies beyond the ball's
    edge by the blur and the halo of shadow around it, about the same all round: a tenth of
    a radius on a small ball. Fitted with the radius alone, every end then misses the
    circle by about the Cauchy scale, and whether enough rays count as kept flips with the
    sensor noise from frame to frame (the fit holds on one frame and the centroid that
    reaches into the shadow is taken on the next). The bias is fitted with the centre
    (held near 0 by `BIAS_PRIOR`, so that an arc of half a circle still places the centre)
    and the residuals measure the outline's shape only."""
    target = np.where(valid, ends - radius[:, None], 0.0)
    delta = np.zeros((len(ends), 2))
    prior = valid * np.where(lit_end, 1.0, SHADE_WEIGHT)
    weight = prior
    scale = SCALE_RADII * radius[:, None]
    # Unknowns: the move (2) and the bias (1); each ray's row is (direction, 1).
    design = np.column_stack([DIRECTIONS, np.ones(len(DIRECTIONS))])
    for _ in range(STEPS):
        normal = np.einsum("kn,ni,nj->kij", weight, design, design)
        normal[:, 2, 2] += BIAS_PRIOR * weight.sum(axis=1)
        rhs = np.einsum("kn,kn,ni->ki", weight, target, design)
        solvable = np.abs(np.linalg.det(normal)) > 1e-6
        normal[~solvable] = np.eye(3)
        solved = np.linalg.solve(normal, rhs[..., None])[..., 0]
        # Blur and halo only carry the ends outward: where the best bias is inward, none
        # (the fit with the radius alone; the two agree as the bias reaches 0).
        inward = solved[:, 2] < 0.0
        if inward.any():
            alone = normal[inward][:, :2, :2]
            solved[inward, :2] = np.linalg.solve(alone, rhs[inward][:, :2, None])[..., 0]
            solved[inward, 2] = 0.0
        solved = np.where(solvable[:, None], solved, 0.0)
        delta, bias = solved[:, :2], solved[:, 2:]
        residual = target - delta @ DIRECTIONS.T - bias
        # Beyond the circle (positive): a shadow or a neighbour; inside: a highlight's gap.
        stretched = np.where((residual > 0) & ~lit_end, 3.0 * residual, residual) / scale
        weight = prior / (1.0 + stretched * stretched)
    kept = valid / (1.0 + stretched * stretched) > 0.5
    count = kept.sum(axis=1)
    scatter = np.einsum("kn,ni,nj->kij", kept.astype(np.float64), DIRECTIONS, DIRECTIONS)
    smallest = np.linalg.eigvalsh(scatter)[:, 0]
    ok = (count >= MIN_RAYS) & (smallest >= MIN_SPREAD * np.maximum(count, 1))
    ok &= np.all(np.isfinite(delta), axis=1)
    ok &= np.abs(bias[:, 0]) <= MAX_BIAS * radius
    return np.where(ok[:, None], delta, 0.0), ok
