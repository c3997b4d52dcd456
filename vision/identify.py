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

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.adapt import PaletteVote, palette_leaning
from vision.assignment import assign_identities as assign_identities
from vision.assignment import assignment_cost
from vision.assignment import exclusive_probabilities as exclusive_probabilities
from vision.balance import segment_quantile
from vision.balance import white_balance_gains as white_balance_gains
from vision.palette import STRIPED, Palette
from vision.smear import cloth_lab, mean_colour_lab, mixed_colour_cost, smeared_colour_cost
from vision.types import CUE, NUM_CLASSES

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
        smeared_area_ratio: pixel count over the disc area above which a ball is a
            motion-blur streak (a sharp ball's pixels fill at most 0.81 of the disc: they
            are taken within 0.9 radius); lowering it treats more round balls as smeared.
            Off (inf) by default: at 0.9 rendered blurred frames' identity rises (top
            0.65 -> 0.98..1.0, broadcast 0.65 -> 0.73, corner 0.65 -> 0.74..0.77), but in the
            live loop the streaks' flatter probabilities cost top_moving a call (3 -> 2 of
            3) and broadcast_scratch_red_tv detection recall 0.972 -> 0.918 (real detector).
        smeared_weight: how much a smeared ball's colour evidence counts against a sharp
            one's (its coverage and white share are fitted, so its colours say less);
            lowering it flattens smeared balls' probabilities.
        rim_mix_px: how far (px) a round ball's rim mixes with the cloth (optics, motion,
            compression): its colour may be the palette's mixed with the cloth by up to
            this over the radius (at most half), so a far, small ball's colour is not read
            as that of a ball nearer the cloth's. 0 (the default) turns it off: at 1.0
            fresh f1_corner's identity rose 95.7 -> 99.0 % (switches 13 -> 7) but
            broadcast_nudge lost all 3 calls and fresh s2_corner's switches rose 20 -> 36.
        palette_evidence: summed log-likelihood (nats, from sharp balls only) at which an
            automatic palette choice is made for the rest of the clip; a choice is undone
            only by as much evidence against it (hysteresis). Infinite (the default): every
            frame chooses on its own sharp balls. A finite value locked a corner camera's
            standard set to the TV palette: its far balls, small and mixed with the cloth,
            look brown and pink (fresh clip s2_corner, switches 20 -> 54).
        palette_frame_cap: most evidence one frame adds (one odd frame never decides).
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
    smeared_area_ratio: float = math.inf
    rim_mix_px: float = 0.0
    smeared_weight: float = 0.5
    palette_evidence: float = math.inf
    palette_frame_cap: float = 4.0


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
    use_chroma = np.bincount(segment, chromatic, minlength=count) >= np.maximum(3, 0.08 * n_others)
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


def class_scores(
    features: NDArray[np.float32],
    palette: Palette,
    config: IdentifierConfig,
    rim_cost: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """(N, 11) log-likelihood of each class for (N, F) features (higher is likelier);
    `rim_cost` (N, 11): `rim_mixed_cost` of the palette when already known."""
    white = features[:, 0:1].astype(np.float64)
    colour = features[:, 1:4].astype(np.float64)
    difference = colour[:, None, :] - palette.lab[None, :, :].astype(np.float64)
    difference[..., 0] *= config.lightness_weight
    colour_cost = np.sum(difference**2, axis=2) / config.colour_sigma**2
    if features.shape[1] == len(FEATURES) and config.rim_mix_px > 0:
        if rim_cost is None:
            rim_cost = rim_mixed_cost(features, palette.lab, config)
        colour_cost = np.minimum(colour_cost, rim_cost)
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
    smeared = smeared_rows(features, config)
    if smeared.any():
        # A streak's white is mixed with the cloth: its colour, unmixed by the fitted
        # coverage and white share, is all the evidence, and weaker than a sharp ball's.
        cost = smeared_colour_cost(
            features[smeared, 1:4],
            features[smeared, 6:9],
            features[smeared, 5],
            palette.lab,
            (config.lightness_weight, config.colour_sigma),
        )
        scores[smeared] = -0.5 * config.smeared_weight * cost
    return scores


def rim_mixed_cost(
    features: NDArray[np.float32], colours_lab: NDArray[np.float32], config: IdentifierConfig
) -> NDArray[np.float64]:
    """(N, K) colour cost of (K, 3) Lab colours allowing each ball's colour to be mixed
    with the cloth by up to `rim_mix_px` / radius (a small ball's coloured pixels include
    its blurred rim); inf where the radius or the cloth is unknown."""
    radius = features[:, 9].astype(np.float64)
    known = (radius > 0) & (features[:, 6] > 0)
    cost = np.full((len(features), len(colours_lab)), np.inf)
    if not known.any():
        return cost
    least = np.clip(1.0 - config.rim_mix_px / np.maximum(radius[known], 1e-9), 0.5, 1.0)
    cost[known] = mixed_colour_cost(
        features[known, 1:4],
        features[known, 6:9],
        least,
        colours_lab,
        (config.lightness_weight, config.colour_sigma),
    )
    return cost


def smeared_rows(features: NDArray[np.float32], config: IdentifierConfig) -> NDArray[np.bool_]:
    """(N,) which balls of (N, F) features are motion-blur streaks (see FEATURES)."""
    if features.shape[1] <= SHARP_COLUMNS:
        return np.zeros(len(features), bool)
    found: NDArray[np.bool_] = features[:, 5] > config.smeared_area_ratio
    return found


def softmax(scores: NDArray[np.float64]) -> NDArray[np.float32]:
    """Row-wise softmax of (N, C) scores."""
    if len(scores) == 0:
        return np.zeros(scores.shape, np.float32)
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    return np.asarray(shifted / shifted.sum(axis=1, keepdims=True), dtype=np.float32)


class Identifier:
    """Turns balls' pixels into class probabilities.

    Args:
        config: thresholds and the palette choice.
    """

    def __init__(self, config: IdentifierConfig | None = None) -> None:
        self.config = config or IdentifierConfig()
        names = ["standard", "tv"] if self.config.palette == "auto" else [self.config.palette]
        self.palettes = [Palette.named(name) for name in names]
        self.vote = PaletteVote()
        self._union: tuple[NDArray[np.float32], NDArray[np.int64]] | None = None

    def features(
        self,
        pixels: list[NDArray[np.uint8]],
        gains: NDArray[np.float32] | None = None,
        radius_px: NDArray[np.float64] | None = None,
        cloth_bgr: NDArray[np.float32] | None = None,
    ) -> NDArray[np.float32]:
        """(N, 9) features of N balls from their (K_i, 3) uint8 BGR pixels, white-balanced
        together (or with the (3,) per-channel `gains` of `white_balance_gains`, e.g. those
        of the last frame that showed every ball). With each ball's (N,) radius (px) and the
        (N, 3) sRGB BGR cloth colour under it, motion-blur streaks are told from round balls
        and named as mixtures with the cloth (`vision.smear`)."""
        if not pixels:
            return np.zeros((0, len(FEATURES)), np.float32)
        if gains is None:
            gains = white_balance_gains(np.concatenate(pixels, axis=0))
        return frame_features(pixels, gains, self.config, radius_px, cloth_bgr)

    def probabilities(self, features: NDArray[np.float32]) -> NDArray[np.float32]:
        """(N, 11) class probabilities of N balls from their (N, F) features (consistent
        across the frame when the config says `exclusive`)."""
        prob = self.independent(features)
        return exclusive_probabilities(prob) if self.config.exclusive else prob

    def independent(self, features: NDArray[np.float32]) -> NDArray[np.float32]:
        """(N, 11) per-ball probabilities, ignoring the other balls; with several palettes,
        the one chosen on the sharp balls (`vision.adapt.PaletteVote`): once the clip's
        evidence (each ball's capped leaning) is enough it is kept; before that, the palette
        whose best one-per-class labelling of the frame's sharp balls is likelier."""
        sharp = ~smeared_rows(features, self.config)
        scores = self._scores(features)
        if len(scores) > 1:
            config = self.config
            leaning = palette_leaning(scores[0][sharp], scores[1][sharp])
            self.vote = self.vote.updated(
                leaning, config.palette_evidence, config.palette_frame_cap
            )
            probs = [softmax(score) for score in scores]
            frame_costs = np.array([assignment_cost(prob[sharp]) for prob in probs])
            return probs[self.vote.choice(frame_costs)]
        return softmax(scores[0])

    def _scores(self, features: NDArray[np.float32]) -> list[NDArray[np.float64]]:
        """(N, 11) class scores under each palette; the rim-mixed colour costs are worked
        out once for the colours of all palettes (sets share most of them)."""
        if len(self.palettes) == 1 or features.shape[1] != len(FEATURES):
            return [class_scores(features, p, self.config) for p in self.palettes]
        if self._union is None:
            colours, index = np.unique(
                np.vstack([p.lab for p in self.palettes]), axis=0, return_inverse=True
            )
            self._union = (colours, np.asarray(index).reshape(len(self.palettes), -1))
        colours, parts = self._union
        rim = rim_mixed_cost(features, colours, self.config)
        return [
            class_scores(features, p, self.config, rim[:, part])
            for p, part in zip(self.palettes, parts, strict=True)
        ]

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
        self._union = None
