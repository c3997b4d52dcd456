"""Which ball is which: a probability for each class (cue, 1..10) from a ball's pixels.

Features per ball, after white balance: the fraction of white pixels (the cue ball is nearly
all white, the stripes 9 and 10 show a lot of white beside their band, the solids only their
number circle) and the median Lab colour of the other pixels (the ball's colour). Each class
scores how far the features are from what it should show; a softmax turns scores into
probabilities. Ten-ball has one ball of each number, so `exclusive_probabilities` makes a
frame's probabilities consistent (Sinkhorn balancing, then the Hungarian assignment on
-log p decides each ball's label).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from vision.palette import STRIPED, Palette
from vision.types import CUE, NUM_CLASSES

FEATURES = ("white_fraction", "L", "a", "b", "coloured_fraction")
"""Columns of the feature matrix."""

_SOLIDS = np.array([b not in STRIPED and b != CUE for b in range(NUM_CLASSES)])
_STRIPES = np.array([b in STRIPED for b in range(NUM_CLASSES)])


@dataclass(frozen=True, slots=True)
class IdentifierConfig:
    """How balls are told apart.

    Attributes:
        palette: "standard", "tv", or "auto" (per frame, the set that explains the balls best).
        colour_sigma: colour distance (Lab units) that costs one unit of log-likelihood;
            raising it flattens the probabilities.
        lightness_weight: weight of lightness against hue and chroma; shading changes
            lightness, so keep it below 1.
        white_chroma: largest chroma (Lab) of a pixel counted as white after white balance.
        white_lightness: smallest lightness (0..100) of a white pixel.
        white_relative: smallest lightness of a white pixel as a share of the ball's own
            brightest (95th percentile); shading darkens the far side of white balls.
        solid_white_max: most white a solid shows (its number circle facing the camera).
        stripe_white_min: least white a stripe shows when its caps face the camera.
        stripe_band_cost: what showing no white at all costs a stripe (squared sigmas): a
            stripe whose band faces the camera shows no white and looks like the solid of
            its colour, so missing white only makes the stripe less likely than that solid,
            never less likely than a ball of another colour.
        cue_white_min: least white the cue ball shows (its shaded rim is not white).
        exclusive: make each frame's probabilities consistent with one ball per class.
    """

    palette: str = "auto"
    colour_sigma: float = 12.0
    lightness_weight: float = 0.4
    white_chroma: float = 18.0
    white_lightness: float = 40.0
    white_relative: float = 0.6
    solid_white_max: float = 0.16
    stripe_white_min: float = 0.3
    stripe_band_cost: float = 4.0
    cue_white_min: float = 0.7
    exclusive: bool = True


def white_balance_gains(pixels_bgr: NDArray[np.uint8]) -> NDArray[np.float32]:
    """(3,) per-channel gains that make the brightest near-neutral ball pixels white.

    The white of the cue ball, the stripes' caps and the number circles is the brightest
    thing on the balls in every channel; its colour is the light's colour. When that is not
    plausibly a tinted white (a strong colour), the gains are 1.

    Args:
        pixels_bgr: (K, 3) uint8 pixels of all balls in a frame.
    """
    ones = np.ones(3, np.float32)
    if len(pixels_bgr) < 20:
        return ones
    # Each pixel's darkest channel (three-way minimum: a reduction over a length-3 axis
    # costs far more).
    low = np.minimum(np.minimum(pixels_bgr[:, 0], pixels_bgr[:, 1]), pixels_bgr[:, 2]).astype(
        np.float32
    )
    bright = pixels_bgr[low >= np.percentile(low, 97)].astype(np.float32)
    white = np.median(bright, axis=0)
    lab = cv2.cvtColor((white / 255.0).reshape(1, 1, 3).astype(np.float32), cv2.COLOR_BGR2Lab)
    chroma = float(np.hypot(lab[0, 0, 1], lab[0, 0, 2]))
    if chroma > 28.0 or lab[0, 0, 0] < 45.0:
        return ones
    gains = np.clip(np.float32(235.0) / np.maximum(white, 1.0), 0.6, 2.5)
    return np.asarray(gains / max(1.0, float(gains.min())), dtype=np.float32)


def ball_features(
    pixels_bgr: NDArray[np.uint8], gains: NDArray[np.float32], config: IdentifierConfig
) -> NDArray[np.float32]:
    """(5,) features of one ball (see FEATURES) from its (K, 3) uint8 BGR pixels."""
    features: NDArray[np.float32] = frame_features([pixels_bgr], gains, config)[0]
    return features


def _segment_quantile(
    values: NDArray[np.float32],
    segment: NDArray[np.int64],
    keep: NDArray[np.bool_],
    count: int,
    q: float,
) -> NDArray[np.float64]:
    """(count,) q-quantile (lower) of the kept values of each segment; NaN where none.

    Values must lie in [0, 1000) (Lab lightness and chroma do): each segment is shifted by
    its own multiple of 1024 and the dropped values pushed past the kept ones, so one plain
    sort orders segment, then kept before dropped, then value (float64 keeps them to 1e-10).
    """
    shift = segment.astype(np.float64) * 1024.0
    ordered = np.sort(np.where(keep, values.astype(np.float64), 1000.0) + shift)
    kept = np.bincount(segment[keep], minlength=count)
    starts = np.concatenate([[0], np.cumsum(np.bincount(segment, minlength=count))[:-1]])
    index = np.minimum(
        starts + np.floor(q * np.maximum(kept - 1, 0)).astype(np.int64), len(values) - 1
    )
    out: NDArray[np.float64] = ordered[index] - np.arange(count) * 1024.0
    out[kept == 0] = np.nan
    return out


def frame_features(
    pixels: list[NDArray[np.uint8]], gains: NDArray[np.float32], config: IdentifierConfig
) -> NDArray[np.float32]:
    """(N, 5) features (see FEATURES) of N balls from their (K_i, 3) uint8 BGR pixels, all
    balls at once.

    White is near-neutral and near the ball's own brightest (shading greys the far side of
    a white ball, so a fixed lightness would call half the cue ball grey). The colour is the
    median of the more saturated coloured pixels: shading greys a ball's rim and the edge
    mixes in the cloth; a ball with hardly any coloured pixel (cue, 8) takes the median of
    its non-white pixels.
    """
    count = len(pixels)
    sizes = np.array([len(p) for p in pixels], np.int64)
    out = np.tile(np.array([0.0, 50.0, 0.0, 0.0, 0.0], np.float32), (count, 1))
    if sizes.sum() == 0:
        return out
    segment = np.repeat(np.arange(count), sizes)
    stacked = np.concatenate(pixels, axis=0).astype(np.float32)
    balanced = np.clip(stacked * gains / 255.0, 0.0, 1.0)
    lab = np.asarray(
        cv2.cvtColor(balanced.reshape(1, -1, 3), cv2.COLOR_BGR2Lab).reshape(-1, 3), np.float32
    )
    chroma = np.hypot(lab[:, 1], lab[:, 2]).astype(np.float32)
    everything = np.ones(len(lab), bool)
    bright = _segment_quantile(lab[:, 0], segment, everything, count, 0.95)
    floor = np.maximum(config.white_lightness, config.white_relative * np.nan_to_num(bright))
    white = (chroma <= config.white_chroma) & (lab[:, 0] >= floor[segment])
    white_fraction = np.bincount(segment, white, minlength=count) / np.maximum(sizes, 1)
    others = ~white
    chromatic = others & (chroma >= 15.0)
    n_others = np.bincount(segment, others, minlength=count)
    use_chroma = np.bincount(segment, chromatic, minlength=count) >= np.maximum(3, 0.08 * n_others)
    median_chroma = _segment_quantile(chroma, segment, chromatic, count, 0.5)
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


def class_scores(
    features: NDArray[np.float32], palette: Palette, config: IdentifierConfig
) -> NDArray[np.float64]:
    """(N, 11) log-likelihood of each class for (N, 5) features (higher is likelier)."""
    white = features[:, 0:1].astype(np.float64)
    colour = features[:, 1:4].astype(np.float64)
    difference = colour[:, None, :] - palette.lab[None, :, :].astype(np.float64)
    difference[..., 0] *= config.lightness_weight
    colour_cost = np.sum(difference**2, axis=2) / config.colour_sigma**2
    # The cue ball has no colour to compare: its non-white pixels are its shaded rim.
    colour_cost[:, CUE] = np.minimum(colour_cost[:, CUE], 4.0)
    solid_cost = (np.maximum(white - config.solid_white_max, 0.0) / 0.06) ** 2
    # Quadratic near the threshold, then linear up to `stripe_band_cost` at no white at all:
    # still ordered (the whiter of two yellow balls is the 9), never prohibitive.
    missing = np.maximum(config.stripe_white_min - white, 0.0)
    stripe_cost = np.minimum(
        (missing / 0.07) ** 2, config.stripe_band_cost * missing / config.stripe_white_min
    )
    stripe_cost += (np.maximum(white - 0.85, 0.0) / 0.05) ** 2
    cue_cost = (np.maximum(config.cue_white_min - white, 0.0) / 0.08) ** 2
    white_cost = np.where(_SOLIDS[None, :], solid_cost, 0.0)
    white_cost = np.where(_STRIPES[None, :], stripe_cost, white_cost)
    white_cost[:, CUE] = cue_cost[:, 0]
    scores: NDArray[np.float64] = -0.5 * (colour_cost + white_cost)
    return scores


def softmax(scores: NDArray[np.float64]) -> NDArray[np.float32]:
    """Row-wise softmax of (N, C) scores."""
    if len(scores) == 0:
        return np.zeros(scores.shape, np.float32)
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    return np.asarray(shifted / shifted.sum(axis=1, keepdims=True), dtype=np.float32)


def _padded(prob: NDArray[np.float64]) -> NDArray[np.float64]:
    """Square matrix: dummy rows for missing balls, dummy columns for extra detections."""
    count = len(prob)
    size = max(count, NUM_CLASSES)
    square = np.full((size, size), 1.0 / size)
    square[:count, :NUM_CLASSES] = prob
    if count > NUM_CLASSES:
        square[:count, NUM_CLASSES:] = 1e-3
    return square


def assign_identities(class_prob: NDArray[np.floating]) -> NDArray[np.int64]:
    """(N,) one class per detection, each class at most once (Hungarian on -log p).

    With more than eleven detections the least likely extras get -1.
    """
    count = len(class_prob)
    if count == 0:
        return np.zeros(0, np.int64)
    cost = -np.log(_padded(np.asarray(class_prob, np.float64) + 1e-9))
    rows, cols = linear_sum_assignment(cost)
    labels = np.full(count, -1, np.int64)
    inside = rows < count
    labels[rows[inside]] = np.where(cols[inside] < NUM_CLASSES, cols[inside], -1)
    return labels


def exclusive_probabilities(
    class_prob: NDArray[np.floating], iterations: int = 12
) -> NDArray[np.float32]:
    """(N, 11) probabilities consistent with one ball per class.

    Sinkhorn balancing makes every class's column sum to at most one ball; then, where the
    frame's best one-to-one assignment disagrees with a row's most probable class, that row's
    two values are swapped so its top class is the assigned one. Rows sum to 1.
    """
    prob = np.asarray(class_prob, np.float64) + 1e-6
    count = len(prob)
    if count == 0:
        return np.zeros((0, NUM_CLASSES), np.float32)
    square = _padded(prob / prob.sum(axis=1, keepdims=True))
    for _ in range(iterations):
        square /= square.sum(axis=1, keepdims=True)
        square /= square.sum(axis=0, keepdims=True)
    balanced = square[:count, :NUM_CLASSES]
    balanced = balanced / balanced.sum(axis=1, keepdims=True)
    labels = assign_identities(balanced)
    for row, label in enumerate(labels):
        top = int(np.argmax(balanced[row]))
        if label >= 0 and label != top:
            balanced[row, [top, label]] = balanced[row, [label, top]]
        if label >= 0:
            # Break ties so the assigned class is the row's strict maximum.
            balanced[row, label] += 1e-3
    balanced /= balanced.sum(axis=1, keepdims=True)
    return np.asarray(balanced, dtype=np.float32)


class Identifier:
    """Turns balls' pixels into class probabilities.

    Args:
        config: thresholds and the palette choice.
    """

    def __init__(self, config: IdentifierConfig | None = None) -> None:
        self.config = config or IdentifierConfig()
        names = ["standard", "tv"] if self.config.palette == "auto" else [self.config.palette]
        self.palettes = [Palette.named(name) for name in names]

    def features(
        self, pixels: list[NDArray[np.uint8]], gains: NDArray[np.float32] | None = None
    ) -> NDArray[np.float32]:
        """(N, 5) features of N balls from their (K_i, 3) uint8 BGR pixels, white-balanced
        together (or with the (3,) per-channel `gains` of `white_balance_gains`, e.g. those
        of the last frame that showed every ball)."""
        if not pixels:
            return np.zeros((0, len(FEATURES)), np.float32)
        if gains is None:
            gains = white_balance_gains(np.concatenate(pixels, axis=0))
        return frame_features(pixels, gains, self.config)

    def probabilities(self, features: NDArray[np.float32]) -> NDArray[np.float32]:
        """(N, 11) class probabilities of N balls from their (N, 5) features (consistent
        across the frame when the config says `exclusive`)."""
        prob = self.independent(features)
        return exclusive_probabilities(prob) if self.config.exclusive else prob

    def independent(self, features: NDArray[np.float32]) -> NDArray[np.float32]:
        """(N, 11) per-ball probabilities, ignoring the other balls; with several palettes,
        the palette that explains the frame best."""
        best: NDArray[np.float32] | None = None
        best_cost = np.inf
        for palette in self.palettes:
            prob = softmax(class_scores(features, palette, self.config))
            labels = assign_identities(prob)
            kept = labels >= 0
            cost = -float(np.sum(np.log(prob[np.flatnonzero(kept), labels[kept]] + 1e-9)))
            if cost < best_cost:
                best, best_cost = prob, cost
        assert best is not None
        return best

    def identify(self, pixels: list[NDArray[np.uint8]]) -> NDArray[np.float32]:
        """(N, 11) class probabilities of N balls (consistent across the frame when the
        config says `exclusive`)."""
        return self.probabilities(self.features(pixels))

    def learn_from_rack(self, rack_features: dict[int, NDArray[np.float32]]) -> None:
        """Adopt the colours seen on balls whose identity is known (e.g. in a rack the 1 at
        the apex and the 10 in the middle), so the palette follows the table's light.

        Args:
            rack_features: ball class -> (5,) features of that ball.
        """
        updated = []
        for palette in self.palettes:
            for ball, feature in rack_features.items():
                palette = palette.with_colour(ball, feature[1:4])
            updated.append(palette)
        self.palettes = updated
