"""Naming motion-blurred balls as mixtures of the ball and the cloth behind it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.identify import Identifier, IdentifierConfig
from vision.palette import Palette
from vision.smear import (
    coverage_bounds,
    lab_to_linear,
    linear_to_lab,
    mixed_colour_cost,
    smeared_colour_cost,
    white_share_range,
)

CLOTHS_BGR = {"green": (60, 120, 30), "blue": (150, 80, 20), "red": (40, 40, 150)}
PARTNER = {1: 9, 9: 1, 2: 10, 10: 2}


def smeared_lab(ball: int, cloth_lab: np.ndarray, coverage: float) -> np.ndarray:
    """(3,) Lab of a ball of the standard set (the middle of its white share) mixed with
    the cloth in linear light."""
    palette = lab_to_linear(Palette.named("standard").lab)
    share = float(np.mean(white_share_range(ball)))
    ball_colour = share * palette[0] + (1.0 - share) * palette[ball]
    mixed = coverage * ball_colour + (1.0 - coverage) * lab_to_linear(cloth_lab)
    return linear_to_lab(mixed)


def cloth_lab_of(name: str) -> np.ndarray:
    bgr = np.array([[CLOTHS_BGR[name]]], np.float32) / 255.0
    return np.asarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab).reshape(3), np.float32)


@pytest.mark.parametrize("cloth", list(CLOTHS_BGR), ids=list(CLOTHS_BGR))
@pytest.mark.parametrize("ball", range(11), ids=lambda b: f"ball{b}")
def test_a_streak_is_named_by_unmixing_the_cloth(ball: int, cloth: str) -> None:
    """A ball smeared to half coverage over each cloth is named its own class (or the ball
    of the same colour, which only white tells apart), not the class its mixed colour is
    nearest."""
    cloth_lab = cloth_lab_of(cloth)
    observed = smeared_lab(ball, cloth_lab, 0.5)
    cost = smeared_colour_cost(
        observed[None],
        cloth_lab[None],
        np.array([2.0], np.float32),
        Palette.named("standard").lab,
        (0.4, 12.0),
    )[0]
    own = min(cost[ball], cost[PARTNER.get(ball, ball)])
    # A ball over a cloth of its own colour can tie with another (a white cue ball over
    # blue mixes like a mostly white 10): the truth is among the best, never behind.
    assert own <= cost.min() + 0.05, f"costs {np.round(cost, 2)}"
    assert np.sum(cost <= own + 0.05) <= 4


@settings(max_examples=50, deadline=None)
@given(st.floats(0.0, 10.0), st.floats(0.0, 10.0))
def test_coverage_falls_as_the_streak_grows(small: float, large: float) -> None:
    small, large = min(small, large), max(small, large)
    bounds = coverage_bounds(np.array([small, large]))
    assert np.all(bounds[:, 0] <= bounds[:, 1])
    assert np.all((bounds > 0.0) & (bounds <= 1.0))
    assert bounds[1, 0] <= bounds[0, 0] and bounds[1, 1] <= bounds[0, 1]


def test_a_smeared_cue_ball_over_green_is_not_a_coloured_ball() -> None:
    """Pixels of a white ball smeared over green cloth (pale green) with its radius and the
    cloth known: the identifier takes it as a streak and names it the cue ball."""
    rng = np.random.default_rng(0)
    cloth = np.array(CLOTHS_BGR["green"], np.float64)
    coverage = rng.uniform(0.35, 0.6, 900)[:, None]
    white = np.array([235.0, 238.0, 240.0])
    mixed = (coverage * (white / 255) ** 2.2 + (1 - coverage) * (cloth / 255) ** 2.2) ** (
        1 / 2.2
    ) * 255
    pixels = np.clip(mixed + rng.normal(0, 2, mixed.shape), 0, 255).astype(np.uint8)
    config = IdentifierConfig(palette="standard", exclusive=False, smeared_area_ratio=0.9)
    identifier = Identifier(config)
    gains = np.ones(3, np.float32)
    streak = identifier.features([pixels], gains, np.array([10.0]), cloth[None].astype(np.float32))
    assert streak[0, 5] > identifier.config.smeared_area_ratio
    assert int(np.argmax(identifier.probabilities(streak)[0])) == 0


@pytest.mark.parametrize("cloth", list(CLOTHS_BGR), ids=list(CLOTHS_BGR))
@pytest.mark.parametrize("ball", [1, 2, 3, 4, 5, 7, 8], ids=lambda b: f"ball{b}")
def test_a_small_ball_rim_mixed_with_the_cloth_keeps_its_colour(ball: int, cloth: str) -> None:
    """A far ball a few pixels wide whose colour is a fifth cloth: allowing the rim's mix
    (least coverage 0.75) names its colour, and costs it less than the plain distance."""
    palette = Palette.named("standard").lab
    cloth_lab = cloth_lab_of(cloth)
    observed = linear_to_lab(0.8 * lab_to_linear(palette[ball]) + 0.2 * lab_to_linear(cloth_lab))
    cost = mixed_colour_cost(
        observed[None], cloth_lab[None], np.array([0.75]), palette, (0.4, 12.0)
    )[0]
    own = min(cost[ball], cost[PARTNER.get(ball, ball)])
    assert own <= cost.min() + 1e-9, f"costs {np.round(cost, 2)}"
    plain = np.sum(((observed - palette[ball]) * [0.4, 1.0, 1.0]) ** 2) / 144.0
    assert cost[ball] < plain
