"""The faster forms in vision.candidates and vision.streaks give exactly what the plain forms
they replaced give (a review's outputs stay byte for byte the same): each is held here to
that plain form, written out, on random inputs and on the edge cases (the map's border,
overlapping discs, ties at a threshold)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.candidates import SearchRegion, nonzero_2d, outline_votes, sample_uv
from vision.discs import _own_disc, refine_centres
from vision.streaks import tenth_highest_below


def _plain_own_disc(
    xy: np.ndarray, radius: np.ndarray, scale: float, hide_behind: bool
) -> np.ndarray:
    """The mask `_own_disc` gave before its bisectors were cut all at once."""
    reach = int(np.ceil(float(radius.max()) * scale)) + 1
    offsets_1d = np.arange(-reach, reach + 1, dtype=np.float64)
    base = np.round(xy)
    us = base[:, 0, None, None] + offsets_1d[None, None, :]
    vs = base[:, 1, None, None] + offsets_1d[None, :, None]
    du, dv = us - xy[:, 0, None, None], vs - xy[:, 1, None, None]
    mask = du * du + dv * dv <= ((radius * scale) ** 2)[:, None, None]
    if len(xy) > 1:
        offsets = xy[None, :, :] - xy[:, None, :]
        pairwise = np.hypot(offsets[..., 0], offsets[..., 1])
        np.fill_diagonal(pairwise, np.inf)
        nearest = np.argsort(pairwise, axis=1)[:, : min(6, len(xy) - 1)]
        toward = np.take_along_axis(offsets, nearest[..., None], axis=1)
        gap = np.take_along_axis(pairwise, nearest, axis=1)
        near = gap < 2.0 * radius[:, None] * scale + 2.0
        other = radius[nearest]
        overlap = near & (gap < 0.95 * (radius[:, None] + other)) & hide_behind
        front = overlap & (other > radius[:, None])
        half = 0.5 * np.sum(toward * toward, axis=2)
        cutting = near & ~overlap
        for k in range(int(np.max(np.sum(near, axis=1)))):
            side = du * toward[:, k, 0, None, None] + dv * toward[:, k, 1, None, None]
            mask &= (side <= half[:, k, None, None]) | ~cutting[:, k, None, None]
            if front[:, k].any():
                ex, ey = du - toward[:, k, 0, None, None], dv - toward[:, k, 1, None, None]
                hidden = ex * ex + ey * ey <= (other[:, k] ** 2)[:, None, None]
                mask &= ~(hidden & front[:, k, None, None])
    plain: np.ndarray = mask
    return plain


def _balls(seed: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Balls crowded into a small area (touching, overlapping, some off a 60 x 40 map)."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-4.0, 64.0, (count, 2)), rng.uniform(5.0, 9.0, count)


@pytest.mark.parametrize("hide_behind", [False, True], ids=["split", "hide"])
@pytest.mark.parametrize("seed", range(6))
def test_own_disc_cuts_as_one_bisector_at_a_time(seed: int, hide_behind: bool) -> None:
    xy, radius = _balls(seed, 1 + seed * 3)
    got = _own_disc(xy, radius, 0.9 if hide_behind else 1.0, hide_behind)[2]
    assert np.array_equal(
        got, _plain_own_disc(xy, radius, 0.9 if hide_behind else 1.0, hide_behind)
    )


@pytest.mark.parametrize("hide_behind", [False, True], ids=["split", "hide"])
def test_own_disc_of_many_balls_cuts_one_neighbour_at_a_time(hide_behind: bool) -> None:
    # Enough balls that the batched cut would be too large: the same mask, in a loop.
    xy, radius = _balls(7, 1200)
    got = _own_disc(xy, radius, 1.0, hide_behind)[2]
    assert np.array_equal(got, _plain_own_disc(xy, radius, 1.0, hide_behind))


def test_own_disc_hides_behind_a_larger_overlapping_ball() -> None:
    xy = np.array([[20.0, 20.0], [28.0, 20.0]])
    radius = np.array([6.0, 8.0])
    behind = _own_disc(xy, radius, 1.0, True)[2][0]
    split = _own_disc(xy, radius, 1.0, False)[2][0]
    # The smaller ball keeps less of its disc when the larger one is in front of it.
    assert behind.sum() < split.sum()
    assert np.array_equal(behind, _plain_own_disc(xy, radius, 1.0, True)[0])


@pytest.mark.parametrize("seed", range(6))
def test_refine_centres_takes_patches_as_pixel_by_pixel(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    weight = rng.random((40, 60)).astype(np.float32) * (rng.random((40, 60)) > 0.3)
    # Balls inside, at the border (patches cut by it) and off the map (the per-pixel path).
    xy, radius = _balls(seed, 1 + seed * 2)
    # Centres rounding to the first and last column or row, and to one past them.
    border = np.array([[0.2, 20.0], [-0.6, 10.0], [59.4, 30.0], [59.6, 5.0], [30.0, 39.6]])
    xy = np.vstack([xy, border[seed % len(border)]])
    radius = np.append(radius, 6.0)
    expected = xy.copy()
    for _ in range(3):
        us, vs, mask = _own_disc(expected, radius, 1.0, False)
        w = sample_uv(weight, us, vs) * mask
        total = w.sum(axis=(1, 2))
        found = total > 1e-3
        moved = np.column_stack([(w * us).sum(axis=(1, 2)), (w * vs).sum(axis=(1, 2))])
        expected[found] = moved[found] / total[found, None]
    assert np.array_equal(refine_centres(weight, xy, radius, 3), expected)


def test_refine_centres_moves_a_ball_onto_its_blob() -> None:
    weight = np.zeros((40, 60), np.float32)
    yy, xx = np.mgrid[:40, :60]
    weight[(xx - 30.0) ** 2 + (yy - 18.0) ** 2 <= 49.0] = 1.0
    got = refine_centres(weight, np.array([[27.4, 20.2]]), np.array([7.0]), 3)
    assert np.allclose(got, [[30.0, 18.0]], atol=0.5)
    assert refine_centres(weight, np.zeros((0, 2)), np.zeros(0), 3).shape == (0, 2)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 30),
    st.integers(1, 30),
    st.floats(0.0, 1.0),
    st.integers(0, 2**31 - 1),
)
def test_nonzero_2d_is_nonzero(height: int, width: int, share: float, seed: int) -> None:
    mask = np.random.default_rng(seed).random((height, width)) < share
    rows, columns = nonzero_2d(mask)
    expected_rows, expected_columns = np.nonzero(mask)
    assert np.array_equal(rows, expected_rows) and np.array_equal(columns, expected_columns)
    assert rows.dtype == expected_rows.dtype


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(0, 12), min_size=1, max_size=60),
    st.integers(0, 13),
    st.booleans(),
)
def test_tenth_highest_below_is_the_percentile_test(
    levels: list[int], threshold_level: int, single: bool
) -> None:
    # Few distinct levels: many ties, and thresholds exactly at values.
    values = np.asarray(levels, np.float64) * 1.5
    if single:
        values = values.astype(np.float32)
    threshold = threshold_level * 1.5 - (0.25 if threshold_level % 3 == 0 else 0.0)
    assert tenth_highest_below(values, threshold) == bool(np.percentile(values, 90) < threshold)


def _plain_votes_edges(region: SearchRegion, edge_gradient: float) -> tuple[np.ndarray, ...]:
    magnitude = np.hypot(region.gradient[..., 0], region.gradient[..., 1])
    return np.nonzero((magnitude > edge_gradient) & (region.radius > 0))


@pytest.mark.parametrize("seed", range(4))
def test_outline_votes_take_the_same_edges(seed: int) -> None:
    rng = np.random.default_rng(200 + seed)
    height, width = 50, 70
    gradient = rng.normal(0.0, 3.0, (height, width, 2)).astype(np.float32)
    edge = 4.0
    # Gradients exactly at the bar, and just either side of it.
    gradient[0, :3] = [[edge, 0.0], [0.0, np.nextafter(np.float32(edge), 0)], [3.0, 4.0 * 0.6]]
    radius = np.full((height, width), 6.0, np.float32)
    radius[:, :5] = 0.0
    zeros = np.zeros((height, width), np.float32)
    region = SearchRegion(
        np.zeros((height, width, 3), np.uint8),
        zeros,
        zeros.astype(np.uint8),
        radius,
        gradient,
        np.ones((height, width), np.uint8),
        10.0,
    )
    ys, xs = _plain_votes_edges(region, edge)
    magnitude = np.hypot(gradient[ys, xs, 0], gradient[ys, xs, 1])
    unit = gradient[ys, xs] / magnitude[:, None]
    reach = radius[ys, xs]
    cells = []
    for sign in (1.0, -1.0):
        cu = np.rint(xs + sign * reach * unit[:, 0]).astype(np.int64)
        cv = np.rint(ys + sign * reach * unit[:, 1]).astype(np.int64)
        inside = (cu >= 0) & (cu < width) & (cv >= 0) & (cv < height)
        cells.append(cv[inside] * width + cu[inside])
    votes = np.bincount(np.concatenate(cells), minlength=height * width)
    got = outline_votes(region, edge)
    assert got.shape == (height, width) and got.dtype == np.float32
    # The same edges vote: the same whole counts before the blur and the scaling.
    blurred = cv2.GaussianBlur(votes.reshape(height, width).astype(np.float32), (5, 5), 1.0)
    circumference = (2.0 * np.pi * 2.0 / 6.0) * np.maximum(radius, np.float32(1.0))
    assert np.array_equal(got, (blurred / circumference).astype(np.float32))
