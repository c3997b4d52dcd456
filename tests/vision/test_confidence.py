"""Confidence of round candidates (vision.confidence) on constructed search regions: a chain
of candidates along a sleeve is no row of balls, and a ball of the cloth's hue shows its
shaded side as shade, not as foreground."""

from __future__ import annotations

import numpy as np
import pytest

from vision.candidates import SearchRegion
from vision.confidence import confidence, pinched, shaded_rim

RADIUS = 10.0
THRESHOLD = 16.0
EDGE = 2.5
FREE_RING = 0.55
HEIGHT, WIDTH = 120, 240


def _region(
    distance: np.ndarray, shade: np.ndarray | None = None, hued: np.ndarray | None = None
) -> SearchRegion:
    return SearchRegion(
        image=np.zeros((HEIGHT, WIDTH, 3), np.uint8),
        distance=distance.astype(np.float32),
        foreground=(distance > THRESHOLD).astype(np.uint8),
        radius=np.full((HEIGHT, WIDTH), RADIUS, np.float32),
        gradient=np.zeros((HEIGHT, WIDTH, 2), np.float32),
        centre_valid=np.ones((HEIGHT, WIDTH), np.uint8),
        threshold=THRESHOLD,
        shade=shade,
        hued=hued,
    )


def _discs(centres: np.ndarray, contrast: float = 60.0) -> np.ndarray:
    ys, xs = np.mgrid[:HEIGHT, :WIDTH]
    distance = np.zeros((HEIGHT, WIDTH), np.float32)
    for u, v in centres:
        distance[np.hypot(xs - u, ys - v) <= RADIUS] = contrast
    return distance


def _row(count: int) -> np.ndarray:
    """(count, 2) centres of touching balls in a row across the middle of the region."""
    return np.column_stack([60.0 + 2.0 * RADIUS * np.arange(count), np.full(count, 60.0)])


@pytest.mark.parametrize("width_radii", [2.0, 2.4], ids=["sleeve-2r", "sleeve-2.4r"])
def test_a_chain_of_candidates_along_a_sleeve_is_no_row_of_balls(width_radii: float) -> None:
    distance = np.zeros((HEIGHT, WIDTH), np.float32)
    half = 0.5 * width_radii * RADIUS
    distance[int(60 - half) : int(np.ceil(60 + half)) + 1, :] = 80.0  # a dark sleeve
    xy = _row(5)
    region = _region(distance)
    apart = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
    assert not pinched(region, xy, np.full(5, RADIUS), apart)[1, 2]
    score, _ = confidence(region, xy, np.full(5, RADIUS), EDGE, FREE_RING)
    assert np.all(score < 0.5), score


@pytest.mark.parametrize("count", [2, 5], ids=["pair", "row-of-5"])
def test_touching_balls_in_a_row_explain_each_others_rings(count: int) -> None:
    xy = _row(count)
    region = _region(_discs(xy))
    apart = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
    assert pinched(region, xy, np.full(count, RADIUS), apart).all()
    score, _ = confidence(region, xy, np.full(count, RADIUS), EDGE, FREE_RING)
    assert np.all(score > 0.9), score


def test_a_rack_triangle_keeps_its_inner_pairs_explained() -> None:
    # Three balls touching in a triangle: each pair's waist on one side is the third ball.
    xy = np.array([[100.0, 60.0], [120.0, 60.0], [110.0, 60.0 - np.sqrt(3.0) * RADIUS]])
    region = _region(_discs(xy))
    score, _ = confidence(region, xy, np.full(3, RADIUS), EDGE, FREE_RING)
    assert np.all(score > 0.9), score


def _half_lit_ball(shadow: bool) -> tuple[np.ndarray, np.ndarray]:
    """Distance and shade maps of a ball of the cloth's hue lit from above: its upper 60 %
    is unlike the cloth, its lower part only darker; `shadow` adds a contact shadow below."""
    ys, xs = np.mgrid[:HEIGHT, :WIDTH]
    disc = np.hypot(xs - 120, ys - 60) <= RADIUS
    distance = np.where(disc & (ys <= 62), 60.0, 0.0).astype(np.float32)
    shade = (disc & (ys > 62)).astype(np.uint8)
    if shadow:
        shade |= (np.hypot(xs - 120, ys - 66) <= RADIUS) & ~disc
    return distance, shade


@pytest.mark.parametrize("shadow", [False, True], ids=["no-shadow", "contact-shadow"])
def test_a_ball_of_the_cloths_hue_is_whole_with_its_shaded_side(shadow: bool) -> None:
    distance, shade = _half_lit_ball(shadow)
    xy, radius = np.array([[120.0, 60.0]]), np.array([RADIUS])
    without, _ = confidence(_region(distance), xy, radius, EDGE, FREE_RING)
    with_shade, _ = confidence(_region(distance, shade), xy, radius, EDGE, FREE_RING)
    assert without[0] < 0.5
    assert with_shade[0] > 0.7
    assert 0.2 <= shaded_rim(_region(distance, shade), xy, radius)[0] <= 0.6


def test_a_cue_tip_on_cloth_stays_no_ball_however_shade_is_counted() -> None:
    # The rounded end of a cue one radius wide: its disc's far side is cloth of full
    # brightness, not shade.
    ys, xs = np.mgrid[:HEIGHT, :WIDTH]
    cue = ((np.abs(ys - 60) <= 0.5 * RADIUS) & (xs <= 120)) | (np.hypot(xs - 120, ys - 60) <= 5)
    distance = np.where(cue, 80.0, 0.0).astype(np.float32)
    shade = np.zeros((HEIGHT, WIDTH), np.uint8)
    xy, radius = np.array([[118.0, 60.0]]), np.array([RADIUS])
    score, _ = confidence(_region(distance, shade), xy, radius, EDGE, FREE_RING)
    assert score[0] < 0.5
    assert shaded_rim(_region(distance, shade), xy, radius)[0] == 0.0


@pytest.mark.parametrize("cloth_hue", [True, False], ids=["cloth-hued", "other-hue"])
def test_only_a_ball_of_the_cloths_hue_counts_its_shade(cloth_hue: bool) -> None:
    # A streak of a white ball, or a ball of another colour, fills its disc; shade beside a
    # part of it is its shadow, not its other half.
    distance, shade = _half_lit_ball(shadow=False)
    hued = np.full((HEIGHT, WIDTH), 1 if cloth_hue else 0, np.uint8)
    xy, radius = np.array([[120.0, 60.0]]), np.array([RADIUS])
    score, _ = confidence(_region(distance, shade, hued), xy, radius, EDGE, FREE_RING)
    assert (score[0] > 0.7) == cloth_hue
