"""Which ball is which: a probability for each class (cue, 1..10) from a ball's pixels.

Features per ball (`vision.ball_features`): the fraction of white pixels and the ball's
colour after white balance. Each class scores how far the features are from what it should
show; a softmax turns scores into probabilities. Ten-ball has one ball of each number, so
`exclusive_probabilities` makes a frame's probabilities consistent (Sinkhorn balancing,
then the Hungarian assignment on -log p decides each ball's label).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from vision.adapt import MIN_SHARP_BALLS, LightFit, PaletteVote, frame_leaning, sure_balls
from vision.assignment import assign_identities as assign_identities
from vision.assignment import assignment_cost, frame_fit_cost, ruled_out
from vision.assignment import exclusive_probabilities as exclusive_probabilities
from vision.balance import white_balance_gains as white_balance_gains
from vision.ball_features import FEATURES as FEATURES
from vision.ball_features import SHARP_COLUMNS as SHARP_COLUMNS
from vision.ball_features import ball_features as ball_features
from vision.ball_features import frame_features
from vision.identify_config import IdentifierConfig as IdentifierConfig
from vision.palette import STRIPED, Palette
from vision.smear import mixed_colour_cost, smeared_colour_cost
from vision.types import CUE, NUM_CLASSES

_SOLIDS = np.array([b not in STRIPED and b != CUE for b in range(NUM_CLASSES)])
_STRIPES = np.array([b in STRIPED for b in range(NUM_CLASSES)])


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
    total = colour_cost + white_cost
    if features.shape[1] == len(FEATURES) and np.isfinite(config.blurred_cue_nats):
        total[:, CUE] = np.minimum(total[:, CUE], blurred_cue_cost(features, palette, config))
    scores: NDArray[np.float64] = -0.5 * total
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


def blurred_cue_cost(
    features: NDArray[np.float32], palette: Palette, config: IdentifierConfig
) -> NDArray[np.float64]:
    """(N,) cost (squared sigmas) of each ball being the cue ball smeared over the cloth.

    A struck cue ball moves a diameter or more per exposure: its white is spread over a
    streak mixed with the cloth, so it shows few white pixels and a pale cloth colour, and
    the sharp cue ball's white share rules it out (a blurred cue ball on green cloth is read
    as the green 6). Here its colour may instead be the cue ball's white mixed with the
    cloth under it (linear light, coverage down to ``BLUR_LEAST_COVERAGE``), whatever its
    white share, at a price of ``blurred_cue_nats`` (how rare such a frame is): a pale
    streak is then the cue ball as likely as a ball of the cloth's hue, and the tracker's
    motion decides. A ball darker or more saturated than the cloth, or of another hue,
    fits no such mixture. Infinite where the cloth is unknown.
    """
    known = features[:, 6] > 0
    cost = np.full(len(features), np.inf)
    if not known.any():
        return cost
    least = np.full(int(np.count_nonzero(known)), BLUR_LEAST_COVERAGE)
    # Lightness weighs fully (a white mixture is lighter than the cloth, a ball of the
    # cloth's hue darker) and the sigma is halved: only a colour on the line from the
    # cloth to white fits, not any pale colour (a hand, a shaded ball on a grey cloth).
    mixed = mixed_colour_cost(
        features[known, 1:4],
        features[known, 6:9],
        least,
        palette.lab[CUE : CUE + 1],
        (1.0, 0.5 * config.colour_sigma),
    )
    cost[known] = mixed[:, 0] + 2.0 * config.blurred_cue_nats
    return cost


BLUR_LEAST_COVERAGE = 0.1
"""Least share of the exposure a blurred cue ball's white covers its streak's core with."""


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
        lights = self.config.palette_lights
        self.palettes = [Palette.named(name, light) for light in lights for name in names]
        self.vote = PaletteVote()
        self.light = LightFit.empty()
        self._seen: tuple[int, list[Palette]] = (0, self.palettes)
        self._learned_from = b""
        self._union: tuple[NDArray[np.float32], NDArray[np.int64]] | None = None
        self._scoring = self.config

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
        prob, scores = self._chosen(features)
        if not self.config.exclusive:
            return prob
        left_out = ruled_out(scores, self.config.unassigned_nats)
        return exclusive_probabilities(prob, left_out=left_out)

    def independent(self, features: NDArray[np.float32]) -> NDArray[np.float32]:
        """(N, 11) per-ball probabilities, ignoring the other balls; with several palettes,
        as chosen on the sharp balls (`vision.adapt.PaletteVote`): once the clip's evidence
        (each ball's capped leaning) is enough, that palette; before that, the one under
        which the best one-per-class labelling of the frame's sharp balls is likelier
        (`IdentifierConfig.palette_comparison`)."""
        return self._chosen(features)[0]

    def _chosen(
        self, features: NDArray[np.float32]
    ) -> tuple[NDArray[np.float32], NDArray[np.float64]]:
        """`independent`'s (N, 11) probabilities and the (N, 11) class scores they are of."""
        sharp = ~smeared_rows(features, self.config)
        scores = self._scores(features)
        if len(scores) == 1:
            self._learn_light(features, scores[0], self.palettes[0], sharp)
            return softmax(scores[0]), scores[0]
        config = self.config
        outlier = config.palette_outlier_nats
        if np.isfinite(config.palette_evidence) and len(scores) == 2:
            leaning = frame_leaning(scores[0][sharp], scores[1][sharp], outlier)
            self.vote = self.vote.updated(
                leaning, config.palette_evidence, config.palette_frame_cap
            )
        probs = [softmax(score) for score in scores]
        if config.palette_comparison == "likelihood":
            frame_costs = np.array([frame_fit_cost(s[sharp], outlier) for s in scores])
        else:
            frame_costs = np.array([assignment_cost(prob[sharp]) for prob in probs])
        choice = self.vote.choice(frame_costs)
        self._learn_light(features, scores[choice], self.palettes[choice], sharp)
        return probs[choice], scores[choice]

    def _learn_light(
        self,
        features: NDArray[np.float32],
        scores: NDArray[np.float64],
        palette: Palette,
        sharp: NDArray[np.bool_],
    ) -> None:
        """Add the frame's surely named sharp balls, named with the frame's palette, to
        the table's light map (`vision.adapt.LightFit`; one light for every set: it is
        the table's). A frame with few sharp balls says nothing (its one ball per class
        proves little)."""
        config = self.config
        if not np.isfinite(config.light_prior_balls) or self.light.balls >= config.light_max_balls:
            return
        usable = sharp & (features[:, 4] > 0)
        key = features.tobytes()
        if np.count_nonzero(usable) < MIN_SHARP_BALLS or key == self._learned_from:
            return  # (the detector hands still balls' features on unchanged: once is enough)
        self._learned_from = key
        rows, classes = sure_balls(
            scores, usable, self.config.light_sure_nats, self.config.unassigned_nats
        )
        self.light = self.light.updated(palette.lab[classes], features[rows, 1:4])

    def seen_palettes(self) -> list[Palette]:
        """The palettes as this clip's light shows them (`IdentifierConfig.light_prior_balls`;
        as they are while it is off)."""
        prior = self.config.light_prior_balls
        if not np.isfinite(prior) or self.light.balls == 0:
            return self.palettes
        if self._seen[0] != self.light.balls:
            seen = [Palette(p.name, self.light.mapped(p.lab, prior)) for p in self.palettes]
            self._seen, self._union = (self.light.balls, seen), None
            self._scoring = self._scoring_config()
        return self._seen[1]

    def _scoring_config(self) -> IdentifierConfig:
        """The config balls are scored with: with the light learned, colour distances count
        as much as the palette's own would (`IdentifierConfig.light_scales_sigma`)."""
        config = self.config
        if not config.light_scales_sigma or self.light.balls == 0:
            return config
        chroma_gain = self.light.parameters(self.palettes[0].lab, config.light_prior_balls)[2]
        sigma = config.colour_sigma * float(np.clip(chroma_gain, 0.5, 1.0))
        return replace(config, colour_sigma=sigma)

    def _scores(self, features: NDArray[np.float32]) -> list[NDArray[np.float64]]:
        """(N, 11) class scores under each palette; the rim-mixed colour costs are worked
        out once for the colours of all palettes (sets share most of them)."""
        palettes = self.seen_palettes()
        config = self._scoring
        if len(palettes) == 1 or features.shape[1] != len(FEATURES) or config.rim_mix_px <= 0:
            return [class_scores(features, p, config) for p in palettes]
        if self._union is None:
            colours, index = np.unique(
                np.vstack([p.lab for p in palettes]), axis=0, return_inverse=True
            )
            self._union = (colours, np.asarray(index).reshape(len(palettes), -1))
        colours, parts = self._union
        rim = rim_mixed_cost(features, colours, config)
        return [
            class_scores(features, p, config, rim[:, part])
            for p, part in zip(palettes, parts, strict=True)
        ]

    def identify(self, pixels: list[NDArray[np.uint8]]) -> NDArray[np.float32]:
        """(N, 11) class probabilities of N balls (consistent across the frame when the
        config says `exclusive`)."""
        return self.probabilities(self.features(pixels))
