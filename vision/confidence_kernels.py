"""Compiled sampling of a ball's confidence (`vision.confidence.confidence`), where numba
is installed.

A ball's confidence samples four maps of its search region on eight circles of 32 points
(disc coverage, rim share, outline share, free ring share): one loop per ball here instead of
a dozen small NumPy calls, with exactly the values the NumPy form computes (held equal on
real search regions by tests/vision/test_candidates_compiled.py). Compiled on first use (only
where `vision.kernels.compiled()` says numba is in use) and cached beside this file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

_compiled: dict[str, Callable[..., Any]] = {}


def _pixel(shape: tuple[int, int], u_px: float, v_px: float) -> tuple[int, int, float]:
    """`vision.candidates.PixelIndex` of one point: its row and column clamped to a map of
    `shape` (H, W), and 1.0 when the point's nearest pixel is on the map, else 0.0."""
    u, v = int(np.rint(u_px)), int(np.rint(v_px))
    row = min(max(v, 0), shape[0] - 1)
    column = min(max(u, 0), shape[1] - 1)
    return row, column, 1.0 if (row == v and column == u) else 0.0


def _disc_and_rim(
    maps: tuple[NDArray[np.uint8], NDArray[np.uint8], NDArray[np.uint8]],
    points: tuple[float, float, float, NDArray[np.float64], NDArray[np.float64]],
    known: tuple[bool, bool],
) -> tuple[float, float]:
    """One ball's disc coverage (its three inner circles) and rim share (`_rim_share`, on
    its fourth circle). `maps`: foreground, shade and hued; `points`: centre (u, v), radius,
    the circles' shares and the (32, 2) directions; `known`: whether shade and hued are."""
    foreground, shade, hued = maps
    x, y, radius, shares, directions = points
    with_shade, with_hue = known
    shape = (foreground.shape[0], foreground.shape[1])
    disc, rim, either, rim_hued = 0.0, 0.0, 0.0, 0.0
    for k in range(len(directions)):
        for c in range(4):
            reach = radius * shares[c]
            row, column, inside = _pixel(
                shape, x + reach * directions[k, 0], y + reach * directions[k, 1]
            )
            covered = float(foreground[row, column]) * inside
            if c < 3:
                disc += covered
                continue
            rim += covered
            if with_shade:
                either += max(covered, float(shade[row, column]) * inside)
            if with_hue:
                rim_hued += float(hued[row, column]) * inside * covered
    samples = len(directions)
    share = rim / samples
    half_lit = with_shade and share >= 0.3 and (not with_hue or rim_hued >= 0.5 * rim)
    if half_lit:
        share = either / samples
    return disc / (3 * samples), share


def _outline(
    gradient: NDArray[np.float32],
    points: tuple[float, float, float, NDArray[np.float64], NDArray[np.float64]],
    edge: float,
) -> float:
    """One ball's outline share: of the 32 directions, those where the radial gradient on
    one of the outline circles (shares 4-6) passes `edge`."""
    x, y, radius, shares, directions = points
    shape = (gradient.shape[0], gradient.shape[1])
    passed = 0.0
    for k in range(len(directions)):
        dx, dy = directions[k, 0], directions[k, 1]
        strongest = -1.0
        for c in range(4, 7):
            reach = radius * shares[c]
            row, column, inside = _pixel(shape, x + reach * dx, y + reach * dy)
            along = (float(gradient[row, column, 0]) * inside) * dx + (
                float(gradient[row, column, 1]) * inside
            ) * dy
            strongest = max(strongest, abs(along))
        passed += 1.0 if strongest > edge else 0.0
    return passed / len(directions)


def _free_ring(
    distance: NDArray[np.float32],
    balls: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]],
    ball: int,
    circle: tuple[float, NDArray[np.float64]],
    occupied_above: float,
) -> float:
    """One ball's free ring share: of the 32 points of its ring (`circle`: the ring's share
    of the radius and the directions), those not clearly foreground or within 1.2 radii of
    a candidate that may explain them (`possible`)."""
    xy, radius, possible = balls
    share, directions = circle
    shape = (distance.shape[0], distance.shape[1])
    reach = radius[ball] * share
    free = 0.0
    for k in range(len(directions)):
        u = xy[ball, 0] + reach * directions[k, 0]
        v = xy[ball, 1] + reach * directions[k, 1]
        row, column, inside = _pixel(shape, u, v)
        mine = not (float(distance[row, column]) * inside > occupied_above)
        for other in range(len(xy)):
            if mine:
                break
            ou, ov = u - xy[other, 0], v - xy[other, 1]
            mine = bool(possible[ball, other]) and np.sqrt(ou * ou + ov * ov) < (
                1.2 * radius[other]
            )
        free += 1.0 if mine else 0.0
    return free / len(directions)


def _confidence_parts(
    maps: tuple[
        NDArray[np.uint8],
        NDArray[np.float32],
        NDArray[np.float32],
        NDArray[np.uint8],
        NDArray[np.uint8],
    ],
    balls: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]],
    circles: tuple[NDArray[np.float64], NDArray[np.float64]],
    limits: tuple[float, float, bool, bool],
) -> NDArray[np.float64]:
    """The sampled parts of `vision.confidence.confidence`, (K, 4): each ball's disc
    coverage, rim share (`_rim_share`), outline share and free ring share.

    Args:
        maps: foreground, gradient (H, W, 2), distance, shade and hued of the region (shade
            and hued ignored unless `limits` says they are known).
        balls: (K, 2) centres, (K,) radii and (K, K) which candidates may explain another's
            ring (`possible`).
        circles: (8,) the circles' shares of the radius (disc 0-3, outline 4-6, ring 7) and
            (32, 2) their directions.
        limits: the ring's occupied distance, the outline's edge gradient, whether shade
            and hued are known.
    """
    foreground, gradient, distance, shade, hued = maps
    xy, radius, _ = balls
    shares, directions = circles
    occupied_above, edge, with_shade, with_hue = limits
    out = np.zeros((len(xy), 4))
    for ball in range(len(xy)):
        points = (xy[ball, 0], xy[ball, 1], radius[ball], shares, directions)
        out[ball, 0], out[ball, 1] = _disc_and_rim(
            (foreground, shade, hued), points, (with_shade, with_hue)
        )
        out[ball, 2] = _outline(gradient, points, edge)
        out[ball, 3] = _free_ring(distance, balls, ball, (shares[7], directions), occupied_above)
    return out


def confidence_parts(
    region: Any,
    balls: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]],
    circles: tuple[NDArray[np.float64], NDArray[np.float64]],
    occupied_above: float,
    edge_gradient: float,
) -> NDArray[np.float64]:
    """(K, 4) disc coverage, rim share, outline share and free ring share of each ball in a
    `vision.candidates.SearchRegion`: `vision.confidence.confidence`'s sampling compiled
    (call only when `vision.kernels.compiled()`)."""
    unknown = np.zeros((1, 1), np.uint8)
    maps = (
        np.ascontiguousarray(region.foreground),
        np.ascontiguousarray(region.gradient, np.float32),
        np.ascontiguousarray(region.distance, np.float32),
        unknown if region.shade is None else np.ascontiguousarray(region.shade),
        unknown if region.hued is None else np.ascontiguousarray(region.hued),
    )
    xy, radius, possible = balls
    if not _compiled:
        _load()
    parts: NDArray[np.float64] = _compiled["_confidence_parts"](
        maps,
        (
            np.ascontiguousarray(xy, np.float64),
            np.ascontiguousarray(radius, np.float64),
            np.ascontiguousarray(possible),
        ),
        (np.ascontiguousarray(circles[0], np.float64), np.ascontiguousarray(circles[1])),
        (
            float(occupied_above),
            float(edge_gradient),
            region.shade is not None,
            region.shade is not None and region.hued is not None,
        ),
    )
    return parts


def _rim_shares(
    maps: tuple[NDArray[np.uint8], NDArray[np.uint8], NDArray[np.uint8]],
    balls: tuple[NDArray[np.float64], NDArray[np.float64], float],
    directions: NDArray[np.float64],
    known: tuple[bool, bool],
) -> NDArray[np.float64]:
    """(K, 2) each ball's lit rim share and its rim share with its shading
    (`vision.confidence.rim_shares` before the subtraction). `maps`: foreground, shade and
    hued; `balls`: (K, 2) centres, (K,) radii and the rim's share of the radius."""
    foreground, shade, hued = maps
    xy, radius, rim_radii = balls
    with_shade, with_hue = known
    shape = (foreground.shape[0], foreground.shape[1])
    out = np.zeros((len(xy), 2))
    samples = len(directions)
    for ball in range(len(xy)):
        reach = radius[ball] * rim_radii
        rim, either, rim_hued = 0.0, 0.0, 0.0
        for k in range(samples):
            row, column, inside = _pixel(
                shape,
                xy[ball, 0] + reach * directions[k, 0],
                xy[ball, 1] + reach * directions[k, 1],
            )
            covered = float(foreground[row, column]) * inside
            rim += covered
            if with_shade:
                either += max(covered, float(shade[row, column]) * inside)
            if with_hue:
                rim_hued += float(hued[row, column]) * inside * covered
        lit = rim / samples
        out[ball, 0] = lit
        half_lit = with_shade and lit >= 0.3 and (not with_hue or rim_hued >= 0.5 * rim)
        out[ball, 1] = either / samples if half_lit else lit
    return out


def rim_shares(
    region: Any,
    xy: NDArray[np.float64],
    radius: NDArray[np.float64],
    circle: tuple[float, NDArray[np.float64]],
) -> NDArray[np.float64]:
    """(K, 2) each ball's lit rim share and its rim share counting its shading on a ball
    lit on one side (`vision.confidence._rim_share`), sampled on the rim `circle` (its
    share of the radius and the (32, 2) directions): `vision.confidence.rim_shares`'
    sampling compiled (call only when `vision.kernels.compiled()`, with shade known). Each
    share is a count of 0/1 samples over 32, exact in any order of summing, so it equals
    the NumPy form's mean."""
    if not _compiled:
        _load()
    unknown = np.zeros((1, 1), np.uint8)
    maps = (
        np.ascontiguousarray(region.foreground),
        np.ascontiguousarray(region.shade),
        unknown if region.hued is None else np.ascontiguousarray(region.hued),
    )
    balls = (
        np.ascontiguousarray(xy, np.float64).reshape(-1, 2),
        np.ascontiguousarray(radius, np.float64),
        float(circle[0]),
    )
    shares: NDArray[np.float64] = _compiled["_rim_shares"](
        maps, balls, np.ascontiguousarray(circle[1]), (True, region.hued is not None)
    )
    return shares


_KERNELS = (
    "_pixel",
    "_disc_and_rim",
    "_outline",
    "_free_ring",
    "_confidence_parts",
    "_rim_shares",
)
"""The functions compiled, helpers before their callers."""


def _load() -> None:
    """Import numba and compile this module's kernels (`vision.kernels.compile_into`)."""
    from vision.kernels import compile_into

    compile_into(globals(), _KERNELS, _compiled)
