"""vision.confidence.shading_weight: how far a half-lit ball of the cloth's hue moves toward
where its lit and shaded sides place it passes smoothly through the limits that used to
switch it (a resting ball's rim shares cross them with the sensor's noise)."""

from __future__ import annotations

import numpy as np

from vision.candidates import DIRECTIONS, SearchRegion
from vision.confidence import LIT_RIM, SOFT_SHARE, rim_shares, shading_weight

RADIUS = 10.0
THRESHOLD = 16.0
SIZE = 60
CENTRE = np.array([[30.0, 30.0]])
LIMITS = (0.2, 0.7)
"""`vision.find.HALF_LIT_RIM` and `vision.find.LIT_WHOLE`."""


def _ball(lit_samples: int) -> SearchRegion:
    """A ball whose rim (the 32 samples `vision.confidence` reads at 0.85 radii) is
    foreground on its first `lit_samples` directions and shade on the rest: a ball of the
    cloth's hue, lit on one side."""
    ys, xs = np.mgrid[:SIZE, :SIZE]
    angle = np.mod(np.arctan2(ys - 30.0, xs - 30.0), 2 * np.pi)
    disc = np.hypot(xs - 30.0, ys - 30.0) <= RADIUS
    step = 2 * np.pi / len(DIRECTIONS)
    first = np.arctan2(DIRECTIONS[0, 1], DIRECTIONS[0, 0])
    index = np.mod(np.rint((angle - first) / step), len(DIRECTIONS))
    lit = disc & (index < lit_samples)
    return SearchRegion(
        image=np.zeros((SIZE, SIZE, 3), np.uint8),
        distance=np.where(lit, 60.0, 0.0).astype(np.float32),
        foreground=lit.astype(np.uint8),
        radius=np.full((SIZE, SIZE), RADIUS, np.float32),
        gradient=np.zeros((SIZE, SIZE, 2), np.float32),
        centre_valid=np.ones((SIZE, SIZE), np.uint8),
        threshold=THRESHOLD,
        shade=(disc & ~lit).astype(np.uint8),
    )


def test_the_weight_passes_the_lit_rim_limit_in_small_steps() -> None:
    radius = np.array([RADIUS])
    lit_shares, weights = [], []
    for samples in range(4, 17):
        region = _ball(samples)
        lit_shares.append(rim_shares(region, CENTRE, radius)[0][0])
        weights.append(shading_weight(region, CENTRE, radius, LIMITS)[0])
    lit_arr, weight_arr = np.array(lit_shares), np.array(weights)
    # The rim reads what was drawn (one sample in 32 per direction lit).
    assert np.all(np.diff(lit_arr) > 0)
    # The old switch's values far from the limit: off well under it, on well over it.
    assert weight_arr[lit_arr < LIT_RIM - 0.5 * SOFT_SHARE].max() == 0.0
    assert weight_arr[(lit_arr > LIT_RIM + 0.5 * SOFT_SHARE) & (lit_arr < 0.5)].min() == 1.0
    # Across it, no step bigger than one sample's share of the band (the switch went 0 -> 1
    # between 9 and 10 samples of 32).
    assert np.all(np.diff(weight_arr) >= 0.0)
    assert np.max(np.diff(weight_arr)) <= (1.0 / 32) / SOFT_SHARE + 1e-9
    assert 0.0 < weight_arr[np.argmin(np.abs(lit_arr - LIT_RIM))] < 1.0


def test_a_ball_lit_all_round_keeps_its_centre() -> None:
    region = _ball(32)
    assert shading_weight(region, CENTRE, np.array([RADIUS]), LIMITS)[0] == 0.0
