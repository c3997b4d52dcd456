"""Ball centres from their lit arcs (vision.rim) on constructed search regions: a ball whose
shaded side matches the cloth's shade, a ball joined to its shadow, a rack, a cue tip."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.candidates import SearchRegion
from vision.rim import fit_lit_arcs

THRESHOLD = 16.0
HEIGHT, WIDTH = 140, 240


def _region(distance: np.ndarray, shade: np.ndarray, radius: float) -> SearchRegion:
    return SearchRegion(
        image=np.zeros((HEIGHT, WIDTH, 3), np.uint8),
        distance=distance.astype(np.float32),
        foreground=(distance > THRESHOLD).astype(np.uint8),
        radius=np.full((HEIGHT, WIDTH), radius, np.float32),
        gradient=np.zeros((HEIGHT, WIDTH, 2), np.float32),
        centre_valid=np.ones((HEIGHT, WIDTH), np.uint8),
        threshold=THRESHOLD,
        shade=shade.astype(np.uint8),
    )


def _disc(centre: tuple[float, float], radius: float) -> np.ndarray:
    """(H, W) share of each pixel inside the disc (4x4 supersampled: an anti-aliased rim)."""
    ys, xs = np.mgrid[:HEIGHT, :WIDTH].astype(np.float64)
    offsets = (np.arange(4) + 0.5) / 4 - 0.5
    share = np.zeros((HEIGHT, WIDTH))
    for dy in offsets:
        for dx in offsets:
            share += np.hypot(xs + dx - centre[0], ys + dy - centre[1]) <= radius
    return share / 16.0


def _lit_ball(
    centre: tuple[float, float], radius: float, shadow: bool, halo: bool
) -> tuple[np.ndarray, np.ndarray]:
    """A ball lit from above in the image: its upper half foreground, its lower half (and its
    shadow, further down) the cloth's shade; `halo`: blur carries a faint foreground a pixel
    and a half past its lit rim."""
    ys = np.mgrid[:HEIGHT, :WIDTH][0]
    disc = _disc(centre, radius)
    lit = np.where(ys <= centre[1], disc, 0.0)
    distance = 70.0 * lit
    if halo:
        distance = np.maximum(
            distance, np.where(_disc(centre, radius + 1.5) > 0, 18.0, 0.0) * (ys <= centre[1])
        )
    shade = (disc > 0.5) & (ys > centre[1])
    if shadow:
        shade |= _disc((centre[0] + 2.0, centre[1] + 0.8 * radius), radius) > 0.5
    return distance, shade


@pytest.mark.parametrize("shadow", [False, True], ids=["no-shadow", "shadow"])
@pytest.mark.parametrize("halo", [False, True], ids=["sharp", "halo"])
def test_a_half_lit_ball_is_placed_by_its_lit_arc(shadow: bool, halo: bool) -> None:
    radius, centre = 12.0, (120.3, 70.6)
    distance, shade = _lit_ball(centre, radius, shadow, halo)
    # The lit half's centroid lies 0.42 radii toward the light.
    start = np.array([[centre[0], centre[1] - 0.42 * radius]])
    xy, held = fit_lit_arcs(_region(distance, shade, radius), start, np.array([radius]))
    assert held[0]
    assert np.hypot(*(xy[0] - centre)) < 0.08 * radius


def test_a_ball_joined_to_its_shadow_is_taken_out_of_it() -> None:
    # A striped ball whose disc is foreground and whose shadow below is shade: a centroid
    # over both lies in the shadow; a fit from a third of a radius into it comes back.
    radius, centre = 11.0, (100.0, 60.0)
    distance = 60.0 * _disc(centre, radius)
    shade = (_disc((centre[0], centre[1] + 0.9 * radius), radius) > 0.5) & (distance < THRESHOLD)
    start = np.array([[centre[0] - 0.1 * radius, centre[1] + 0.3 * radius]])
    xy, held = fit_lit_arcs(_region(distance, shade, radius), start, np.array([radius]))
    assert held[0]
    assert np.hypot(*(xy[0] - centre)) < 0.08 * radius


def test_touching_balls_are_each_placed_by_their_free_arcs() -> None:
    radius = 10.0
    centres = [(90.0 + 2.0 * radius * k, 70.0) for k in range(3)] + [
        (100.0, 70.0 + 1.732 * 2 * radius)
    ]
    distance = 60.0 * np.clip(sum(_disc(c, radius) for c in centres), 0.0, 1.0)
    shade = np.zeros_like(distance, bool)
    truth = np.array(centres)
    start = truth + np.array([[1.5, -1.0], [-1.0, 1.5], [0.5, 2.0], [2.0, 0.0]])
    xy, held = fit_lit_arcs(_region(distance, shade, radius), start, np.full(4, radius))
    assert held.all()
    assert np.all(np.hypot(*(xy - truth).T) < 0.1 * radius)


def test_a_cue_tip_is_no_circle_of_a_ball_s_radius() -> None:
    radius = 12.0
    ys, xs = np.mgrid[:HEIGHT, :WIDTH]
    cue = ((np.abs(ys - 70) <= 0.5 * radius) & (xs <= 120)) | (
        np.hypot(xs - 120, ys - 70) <= 0.5 * radius
    )
    distance = np.where(cue, 80.0, 0.0)
    start = np.array([[117.0, 70.0]])
    xy, held = fit_lit_arcs(
        _region(distance, np.zeros_like(cue), radius), start, np.array([radius])
    )
    assert not held[0]
    assert np.array_equal(xy, start)


@settings(max_examples=40, deadline=None)
@given(
    u=st.floats(60.0, 180.0),
    v=st.floats(50.0, 90.0),
    radius=st.floats(6.0, 24.0),
    contrast=st.floats(30.0, 120.0),
    dx=st.floats(-0.25, 0.25),
    dy=st.floats(-0.25, 0.25),
)
def test_a_whole_ball_is_placed_within_a_tenth_of_its_radius(
    u: float, v: float, radius: float, contrast: float, dx: float, dy: float
) -> None:
    distance = contrast * _disc((u, v), radius)
    start = np.array([[u + dx * radius, v + dy * radius]])
    xy, held = fit_lit_arcs(
        _region(distance, np.zeros_like(distance, bool), radius), start, np.array([radius])
    )
    assert held[0]
    assert np.hypot(xy[0, 0] - u, xy[0, 1] - v) < max(0.1 * radius, 0.75)
