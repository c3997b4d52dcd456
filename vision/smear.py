"""Naming a ball smeared by motion blur: its pixels mix the ball with the cloth behind it.

During the exposure a moving ball covers each pixel of its streak only part of the time, so
the streak's colour is the ball's mixed with the cloth's (in linear light), by a coverage
that falls with the travel. A white cue ball on green cloth shows pale green, a yellow 9 on
blue shows grey-green: compared with the palette directly, such colours name the wrong
ball (and push an automatic palette choice toward the wrong set). Here each class is asked
instead whether some coverage and some share of white on the ball (a solid shows only its
number circle, a stripe its caps, the cue ball all of it) mixed with the known cloth colour
gives the streak's colour: the class's cost is the Lab distance of the nearest such mixture.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.palette import STRIPED
from vision.types import CUE, NUM_CLASSES

COVERAGE = np.linspace(0.1, 1.0, 16, dtype=np.float32)
"""Coverages tried: the share of the exposure a streak's core pixel shows the ball."""

WHITE_SHARE = np.linspace(0.0, 1.0, 11, dtype=np.float32)
"""Shares of white on the ball's visible side tried."""


def white_share_range(ball: int) -> tuple[float, float]:
    """(low, high) share of white a ball of this class shows over an exposure (a rolling
    ball averages over its turns): the cue ball nearly all, a stripe its caps, a solid at
    most its number circle."""
    if ball == CUE:
        return 0.8, 1.0
    if ball in STRIPED:
        return 0.1, 0.9
    return 0.0, 0.25


_ALLOWED = np.array(
    [
        [low - 1e-6 <= share <= high + 1e-6 for share in WHITE_SHARE]
        for low, high in map(white_share_range, range(NUM_CLASSES))
    ]
)
"""(11, S) white shares allowed per class."""


def lab_to_linear(lab: NDArray[np.floating]) -> NDArray[np.float32]:
    """(..., 3) Lab to linear-light BGR (0..1)."""
    flat = np.asarray(lab, np.float32).reshape(1, -1, 3)
    out = cv2.cvtColor(flat, cv2.COLOR_Lab2LBGR).reshape(np.shape(lab))
    return np.asarray(np.clip(out, 0.0, 1.0), np.float32)


def linear_to_lab(bgr: NDArray[np.floating]) -> NDArray[np.float32]:
    """(..., 3) linear-light BGR (0..1) to Lab."""
    flat = np.asarray(bgr, np.float32).reshape(1, -1, 3)
    return np.asarray(cv2.cvtColor(flat, cv2.COLOR_LBGR2Lab).reshape(np.shape(bgr)), np.float32)


def mean_colour_lab(
    pixels_bgr: NDArray[np.uint8], gains: NDArray[np.float32]
) -> NDArray[np.float32]:
    """(3,) Lab of the mean linear-light colour of (K, 3) uint8 sRGB BGR pixels after
    white balance (mixing happens in linear light, so the mean is taken there)."""
    if len(pixels_bgr) == 0:
        return np.array([50.0, 0.0, 0.0], np.float32)
    srgb = np.clip(pixels_bgr.astype(np.float32) * gains / 255.0, 0.0, 1.0)
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    return linear_to_lab(linear.mean(axis=0))


def cloth_lab(cloth_bgr: NDArray[np.floating], gains: NDArray[np.float32]) -> NDArray[np.float32]:
    """(N, 3) Lab of (N, 3) sRGB BGR (0..255) cloth colours after white balance."""
    balanced = np.clip(np.asarray(cloth_bgr, np.float32) * gains / 255.0, 0.0, 1.0)
    lab = cv2.cvtColor(balanced.reshape(1, -1, 3), cv2.COLOR_BGR2Lab)
    return np.asarray(lab.reshape(-1, 3), np.float32)


def coverage_bounds(area_ratio: NDArray[np.floating]) -> NDArray[np.float64]:
    """(N, 2) least and most coverage of a streak's core from its (N,) pixel count over the
    ball's disc area.

    A ball of radius r travelling d px in the exposure leaves a stadium of area
    pi r^2 + 2 r d, and its core is covered for 2r / (2r + d) of the time. The pixels
    given may be the whole streak or its stronger half, so the area lies between one and
    two times the count; a quarter of slack either way absorbs the threshold's soft edges.
    """
    ratio = np.asarray(area_ratio, np.float64)
    most = 4.0 / (4.0 + np.maximum(ratio - 1.0, 0.0) * np.pi)
    least = 4.0 / (4.0 + np.maximum(2.0 * ratio - 1.0, 0.0) * np.pi)
    return np.column_stack([0.8 * least, np.minimum(1.25 * most, 1.0)])


def smeared_colour_cost(
    colour_lab: NDArray[np.float32],
    cloth: NDArray[np.float32],
    area_ratio: NDArray[np.float32],
    palette_lab: NDArray[np.float32],
    weights: tuple[float, float],
) -> NDArray[np.float64]:
    """(N, 11) cost (squared sigmas) of each class for N smeared balls.

    Args:
        colour_lab: (N, 3) Lab of each streak core's mean colour (linear-light mean).
        cloth: (N, 3) Lab of the cloth under each streak.
        area_ratio: (N,) each streak's pixel count over its ball's disc area (bounds the
            coverage, `coverage_bounds`).
        palette_lab: (11, 3) Lab of each class's colour (the cue ball's is the white).
        weights: the weight of lightness against hue and chroma (shading moves lightness
            most), and the Lab distance that costs one unit of log-likelihood.
    """
    lightness_weight, colour_sigma = weights
    count = len(colour_lab)
    if count == 0:
        return np.zeros((0, NUM_CLASSES))
    colour = lab_to_linear(palette_lab)  # (11, 3)
    white = colour[CUE]
    # Ball appearance per class and white share: (11, S, 3).
    ball = WHITE_SHARE[None, :, None] * white + (1.0 - WHITE_SHARE[None, :, None]) * colour[:, None]
    behind = lab_to_linear(cloth)  # (N, 3)
    mixed = (
        COVERAGE[None, None, None, :, None] * ball[None, :, :, None, :]
        + (1.0 - COVERAGE[None, None, None, :, None]) * behind[:, None, None, None, :]
    )  # (N, 11, S, C, 3)
    lab = linear_to_lab(mixed)
    difference = lab - colour_lab[:, None, None, None, :]
    difference[..., 0] *= lightness_weight
    cost = np.sum(difference.astype(np.float64) ** 2, axis=-1) / colour_sigma**2
    bounds = coverage_bounds(area_ratio)
    possible = (COVERAGE[None, :] >= bounds[:, :1] - 1e-6) & (COVERAGE[None, :] <= bounds[:, 1:])
    # The grid coverage nearest the bounds stays possible when none falls inside them.
    nearest = np.argmin(np.abs(COVERAGE[None, :] - bounds.mean(axis=1, keepdims=True)), axis=1)
    possible[np.arange(count), nearest] = True
    allowed = _ALLOWED[None, :, :, None] & possible[:, None, None, :]
    cost = np.where(allowed, cost, np.inf)
    best: NDArray[np.float64] = cost.min(axis=(2, 3))
    return best


def mixed_colour_cost(
    colour_lab: NDArray[np.float32],
    cloth: NDArray[np.float32],
    least_coverage: NDArray[np.float64],
    palette_lab: NDArray[np.float32],
    weights: tuple[float, float],
) -> NDArray[np.float64]:
    """(N, 11) cost (squared sigmas) of each class for N round balls whose colour may be
    the class's mixed with the cloth (in linear light) down to `least_coverage` (N,).

    Args:
        colour_lab: (N, 3) Lab of each ball's colour.
        cloth: (N, 3) Lab of the cloth around each ball.
        least_coverage: (N,) least share of the ball in its colour (1: no mixing).
        palette_lab: (11, 3) Lab of each class's colour.
        weights: the weight of lightness against hue and chroma, and the Lab distance that
            costs one unit of log-likelihood.
    """
    lightness_weight, colour_sigma = weights
    if len(colour_lab) == 0:
        return np.zeros((0, NUM_CLASSES))
    # Unmixed (coverage 1) is the caller's plain distance; three mixed steps down to the
    # least coverage.
    steps = np.array([1.0, 2.0, 3.0], np.float32) / 3.0
    coverage = 1.0 - steps[None, :] * (1.0 - least_coverage[:, None].astype(np.float32))
    colour = lab_to_linear(palette_lab)  # (11, 3)
    behind = lab_to_linear(cloth)  # (N, 3)
    # c * colour + (1 - c) * cloth = cloth + c * (colour - cloth): (N, 11, C, 3).
    mixed = behind[:, None, None, :] + coverage[:, None, :, None] * (
        colour[None, :, None, :] - behind[:, None, None, :]
    )
    difference = linear_to_lab(mixed) - colour_lab[:, None, None, :]
    difference[..., 0] *= lightness_weight
    cost = np.einsum("ncks,ncks->nck", difference, difference)
    best: NDArray[np.float64] = cost.min(axis=2).astype(np.float64) / colour_sigma**2
    return best
