"""vision.centres: a ball of the cloth's hue, lit from one side, placed by its outline."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.candidates import SearchRegion
from vision.centres import outline_centres

RADIUS = 10.0
CENTRE = np.array([40.0, 40.0])


def _half_lit_ball(
    shadow_radii: float, halo: float = 0.0
) -> tuple[SearchRegion, NDArray[np.float32], NDArray[np.float32]]:
    """A ball at CENTRE lit from the left: its left two thirds foreground, its right third
    shade, and its cast shadow (a disc `shadow_radii` radii to the right) shade too; with a
    `halo` (share of the radius) the blob reaches that much past the ball all round, as blur
    and the threshold's halo make it."""
    size = 80
    v, u = np.mgrid[0:size, 0:size].astype(np.float64)
    reach = RADIUS * (1.0 + halo)
    disc = np.hypot(u - CENTRE[0], v - CENTRE[1]) <= reach
    lit = disc & (u < CENTRE[0] + 0.3 * RADIUS)
    shadow = np.hypot(u - CENTRE[0] - shadow_radii * RADIUS, v - CENTRE[1]) <= reach
    shade = ((disc | shadow) & ~lit).astype(np.uint8)
    threshold = 10.0
    distance = np.where(lit, 2.0 * threshold, 0.0).astype(np.float32)
    region = SearchRegion(
        image=np.zeros((size, size, 3), np.uint8),
        distance=distance,
        foreground=lit.astype(np.uint8),
        radius=np.full((size, size), RADIUS, np.float32),
        gradient=np.zeros((size, size, 2), np.float32),
        centre_valid=np.ones((size, size), np.uint8),
        threshold=threshold,
        shade=shade,
    )
    weight = np.clip((distance - 0.5 * threshold) / threshold, 0.0, 1.0)
    return region, weight.astype(np.float32), np.maximum(weight, shade).astype(np.float32)


def test_outline_fit_places_a_half_lit_ball_not_in_its_shadow() -> None:
    region, lit, ball = _half_lit_ball(0.6)
    radius = np.array([RADIUS])
    # From a start toward the light (the lit side's centroid) or half a radius into the
    # shadow (where a centroid of shade and shadow together may settle) alike.
    for start in (CENTRE + np.array([-0.3 * RADIUS, 1.0]), CENTRE + np.array([0.5 * RADIUS, -1.0])):
        fitted, held = outline_centres(region, np.array([start]), radius, lit, ball)
        assert held[0]
        assert np.linalg.norm(fitted[0] - CENTRE) < 0.1 * RADIUS


def test_outline_fit_moves_continuously_with_the_shadow_length() -> None:
    radius = np.array([RADIUS])
    placed = []
    for shadow_radii in (0.3, 0.45, 0.6, 0.75):
        region, lit, ball = _half_lit_ball(shadow_radii)
        fitted, held = outline_centres(
            region, np.array([CENTRE + np.array([-2.0, 0.0])]), radius, lit, ball
        )
        assert held[0]
        placed.append(fitted[0])
    spread = np.ptp(np.array(placed), axis=0)
    assert np.all(spread < 0.1 * RADIUS)


def test_outline_fit_holds_nothing_without_clean_cloth_around() -> None:
    region, lit, ball = _half_lit_ball(0.6)
    ball = np.ones_like(ball)
    start = np.array([CENTRE + 1.0])
    fitted, held = outline_centres(region, start, np.array([RADIUS]), lit, ball)
    assert not held[0]
    assert np.array_equal(fitted, start)


def test_outline_fit_is_not_pulled_by_a_halo_all_round() -> None:
    # The ends read a little past the ball everywhere (blur): fitted with the radius
    # alone, the centre moved 1.4-1.8 px (0.14-0.18 radii) toward the lit side, and with
    # the sensor's noise the fit held on one frame and not the next.
    radius = np.array([RADIUS])
    for halo in (0.12, 0.15):
        for shadow_radii in (0.3, 0.6):
            region, lit, ball = _half_lit_ball(shadow_radii, halo)
            for start in (CENTRE + np.array([-3.0, 0.5]), CENTRE + np.array([2.0, -1.0])):
                fitted, held = outline_centres(region, np.array([start]), radius, lit, ball)
                assert held[0]
                assert np.linalg.norm(fitted[0] - CENTRE) < 0.06 * RADIUS
