"""A ball's identification features from its pixels: its white share and its colour.

After white balance, the fraction of white pixels (the cue ball is nearly all white, the
stripes 9 and 10 show a lot of white beside their band, the solids only their number
circle) and the mean Lab colour of the more saturated other pixels (the ball's colour). With
each ball's radius and the cloth under it, motion-blur streaks are recognised and described
by their mean colour and the cloth's (`vision.smear`).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.balance import segment_quantile
from vision.identify_config import IdentifierConfig
from vision.smear import cloth_lab, mean_colour_lab

FEATURES = (
    "white_fraction",
    "L",
    "a",
    "b",
    "coloured_fraction",
    "area_ratio",
    "cloth_L",
    "cloth_a",
    "cloth_b",
    "radius_px",
)
"""Columns of the feature matrix. `area_ratio` is the ball's pixel count over a disc of its
radius (0 when the radius is unknown): above `IdentifierConfig.smeared_area_ratio` the ball
is a motion-blur streak, its L, a, b the mean colour of the streak (linear light) and the
cloth_* columns the cloth's colour under it (`vision.smear`). With the radius known, a
small round ball's colour is compared allowing its rim's mix with the cloth."""

SHARP_COLUMNS = 5
"""The columns every ball has (features of a sharp ball; older 5-column matrices work)."""


def ball_features(
    pixels_bgr: NDArray[np.uint8], gains: NDArray[np.float32], config: IdentifierConfig
) -> NDArray[np.float32]:
    """(5,) features of one ball (see FEATURES) from its (K, 3) uint8 BGR pixels."""
    features: NDArray[np.float32] = frame_features([pixels_bgr], gains, config)[0]
    return features


def frame_features(
    pixels: list[NDArray[np.uint8]],
    gains: NDArray[np.float32],
    config: IdentifierConfig,
    radius_px: NDArray[np.float64] | None = None,
    cloth_bgr: NDArray[np.float32] | None = None,
) -> NDArray[np.float32]:
    """(N, 9) features (see FEATURES) of N balls from their (K_i, 3) uint8 BGR pixels, all
    balls at once; with (N,) radii (px) and (N, 3) sRGB BGR cloth colours under each ball,
    motion-blur streaks are recognised and described by their mean colour and the cloth's.

    White is near-neutral and near the ball's own brightest (shading greys the far side of
    a white ball, so a fixed lightness would call half the cue ball grey). The colour is the
    median of the more saturated coloured pixels: shading greys a ball's rim and the edge
    mixes in the cloth; a ball with hardly any coloured pixel (cue, 8) takes the median of
    its non-white pixels.
    """
    count = len(pixels)
    sizes = np.array([len(p) for p in pixels], np.int64)
    out = np.zeros((count, len(FEATURES)), np.float32)
    out[:, 1] = 50.0
    if sizes.sum() == 0:
        return out
    out[:, :SHARP_COLUMNS] = _sharp_features(pixels, sizes, gains, config)
    if radius_px is not None and cloth_bgr is not None and count:
        _describe_smeared(out, pixels, gains, config, (radius_px, cloth_bgr))
    return out


def _describe_smeared(
    out: NDArray[np.float32],
    pixels: list[NDArray[np.uint8]],
    gains: NDArray[np.float32],
    config: IdentifierConfig,
    places: tuple[NDArray[np.float64], NDArray[np.float32]],
) -> None:
    """Fill the area ratio of every ball and, for streaks, their mean colour and the cloth's
    (in place; `places` holds (N,) radii in px and (N, 3) sRGB BGR cloth colours)."""
    radius_px, cloth_bgr = places
    sizes = np.array([len(p) for p in pixels], np.float64)
    area = np.pi * np.square(np.asarray(radius_px, np.float64))
    out[:, 5] = np.where(area > 0, sizes / np.maximum(area, 1e-9), 0.0)
    out[:, 9] = np.asarray(radius_px, np.float32)
    out[:, 6:9] = cloth_lab(np.asarray(cloth_bgr, np.float32), gains)
    smeared = np.flatnonzero(out[:, 5] > config.smeared_area_ratio)
    for row in smeared.tolist():
        # The quarter of the streak farthest from the cloth: its core, where the ball
        # covered the pixels longest (the fringe is nearly cloth and says little).
        ball = pixels[row].astype(np.float32)
        away = np.abs(ball - np.asarray(cloth_bgr[row], np.float32)).sum(axis=1)
        core = pixels[row][away >= np.percentile(away, 75)]
        out[row, 1:4] = mean_colour_lab(core, gains)


def _sharp_features(
    pixels: list[NDArray[np.uint8]],
    sizes: NDArray[np.int64],
    gains: NDArray[np.float32],
    config: IdentifierConfig,
) -> NDArray[np.float32]:
    """(N, 5) white fraction, colour (Lab) and coloured fraction of N balls."""
    count = len(pixels)
    out = np.tile(np.array([0.0, 50.0, 0.0, 0.0, 0.0], np.float32), (count, 1))
    segment = np.repeat(np.arange(count), sizes)
    stacked = np.concatenate(pixels, axis=0).astype(np.float32)
    balanced = np.clip(stacked * gains / 255.0, 0.0, 1.0)
    lab = np.asarray(
        cv2.cvtColor(balanced.reshape(1, -1, 3), cv2.COLOR_BGR2Lab).reshape(-1, 3), np.float32
    )
    chroma = np.hypot(lab[:, 1], lab[:, 2]).astype(np.float32)
    everything = np.ones(len(lab), bool)
    bright = segment_quantile(lab[:, 0], segment, everything, count, 0.95)
    floor = np.maximum(config.white_lightness, config.white_relative * np.nan_to_num(bright))
    white = (chroma <= config.white_chroma) & (lab[:, 0] >= floor[segment])
    white_fraction = np.bincount(segment, white, minlength=count) / np.maximum(sizes, 1)
    others = ~white
    chromatic = others & (chroma >= 15.0)
    n_others = np.bincount(segment, others, minlength=count)
    use_chroma = np.bincount(segment, chromatic, minlength=count) >= np.maximum(
        3, config.chromatic_share * n_others
    )
    median_chroma = segment_quantile(chroma, segment, chromatic, count, 0.5)
    saturated = chromatic & (chroma >= np.nan_to_num(median_chroma, nan=np.inf)[segment])
    chosen = np.where(use_chroma[segment], saturated, others)
    # The mean of the chosen pixels (the saturated half already drops the shaded rim).
    chosen_count = np.bincount(segment, chosen, minlength=count)
    colour = (
        np.column_stack(
            [np.bincount(segment, lab[:, c] * chosen, minlength=count) for c in range(3)]
        )
        / np.where(chosen_count > 0, chosen_count, np.nan)[:, None]
    )
    has_colour = (n_others >= np.maximum(3, 0.03 * sizes)) & np.all(np.isfinite(colour), axis=1)
    out[:, 0] = white_fraction
    out[has_colour, 1:4] = colour[has_colour]
    out[has_colour, 4] = 1.0 - white_fraction[has_colour]
    out[sizes == 0, 0] = 0.0
    return out
