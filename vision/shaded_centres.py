"""Centres of half-lit balls of the cloth's hue, refined over their lit and shaded sides.

Part of the round search (`vision.find`): such a ball's foreground is its lit side only, so
its foreground centroid lies toward the light; its shaded side, counted in, brings the
centre back (`shaded_centres`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.candidates import SearchRegion
from vision.centre_kernels import outline_centres
from vision.confidence import confidence, rim_shares, shading_weight
from vision.detector_config import DetectorConfig
from vision.discs import refine_centres

HALF_LIT_RIM = 0.2
"""Share of a ball's rim that only its shading shows (`vision.confidence.shaded_rim`) from
which its centre is refined with its shaded side counted in (`shaded_centres`)."""


LIT_WHOLE = 0.7
"""Share of a ball's rim, foreground, from which its lit side alone makes it whole (its rim
score is then a half, `vision.confidence`): its centre is not refined over its shading."""


def shaded_centres(
    region: SearchRegion,
    balls: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]],
    weight: NDArray[np.float32],
    config: DetectorConfig,
    placed: NDArray[np.bool_],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(K, 2) centres, (K,) radii and (K,) confidences of `balls` with the centres of balls
    of the cloth's hue refined over their lit and shaded sides (not those (K,) `placed` by
    their lit arcs already: counting shade there pulls a ball into its shadow).

    Such a ball's foreground is its lit side only, so the foreground's centroid (or its
    outline's, which shows on that side only) lies toward the light, a quarter of a radius
    off; counting the shaded cloth colour within its disc as the ball's too brings the
    centroid back toward the disc's middle. Balls whose rim is foreground all round keep
    their centres (their shadows would pull them).
    """
    xy, radius, score = balls
    if region.shade is None or len(xy) == 0:
        return balls
    lit, shaded = rim_shares(region, xy, radius)
    # Only balls that need their shading to be whole (their lit rim alone scores under a
    # half): a ball whose rim is mostly foreground keeps its centre (a ball at a pocket's
    # dark mouth, beside a shadow).
    share = ((shaded >= HALF_LIT_RIM) & (lit < LIT_WHOLE)).astype(np.float64)
    if config.smooth_shading:
        share = shading_weight(region, xy, radius, (HALF_LIT_RIM, LIT_WHOLE))
    half_lit = (score >= config.min_confidence) & (share > 0.0)
    half_lit &= ~placed
    if not half_lit.any():
        return balls
    both = np.maximum(weight, region.shade.astype(np.float32))
    xy, score = xy.copy(), score.copy()
    # Placed by where lit and shaded sides end on clean cloth (`vision.centres`): their
    # centroid reaches into the ball's cast shadow. The centroid where no outline shows.
    fitted, held = outline_centres(region, xy[half_lit], radius[half_lit], weight, both)
    pulled = refine_centres(both, xy[half_lit], radius[half_lit], config.refine_iterations)
    placed_at = np.where(held[:, None], fitted, pulled)
    if config.smooth_shading:
        placed_at = xy[half_lit] + share[half_lit, None] * (placed_at - xy[half_lit])
    xy[half_lit] = placed_at
    # Scored with every ball (neighbours explain each other's rings).
    fresh = confidence(region, xy, radius, config.edge_gradient, config.min_free_ring)[0]
    # A ball the refinement took below min_confidence (its shade counted a rack's dark gaps)
    # keeps its earlier centre: the refinement must never lose a ball it was given.
    lost = half_lit & (fresh < config.min_confidence)
    if lost.any():
        xy[lost] = balls[0][lost]
        fresh = confidence(region, xy, radius, config.edge_gradient, config.min_free_ring)[0]
    score[half_lit] = fresh[half_lit]
    return xy, radius, score
