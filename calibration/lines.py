"""Cushion lines: edge points across a band along each side, robust line fits through them.

Each side of the cloth quadrilateral is crossed by short profiles. Along a profile the Lab
gradient peaks at every edge (rail to cushion, cushion top to bed, cushion face to bed), located
to a fraction of a pixel by a parabola through the peak. A RANSAC search finds the lines those
peaks line up on, nearly parallel to the side; the innermost well-supported one is the cushion
nose, where the playing surface ends.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray
from calibration.cloth import line_through

PROFILE_STEP_PX = 0.5
PROFILES_PER_SIDE = 90
OUTSIDE_MARGIN_PX = 4.0
OUTSIDE_SHARE = 0.35
"""How far outside the cloth boundary the profiles start (at least the margin, else this share
of the inward depth), so that an edge on the boundary itself is seen, and a cushion whose face
or shadow split it from the cloth region."""

SLANTED_OUTSIDE_SHARE = 1.0
"""`OUTSIDE_SHARE` for a slanted view (`FindOptions.slanted_noses`): as far out as in. A far
cushion seen from the other end shows its shaded face, which the cloth region leaves out, so
the region ends at the face's foot and the nose lies a face's height outside it
(broadcast-8ball game2: 12 px, past the 0.35 share's reach, so a shade line down the face was
taken for the nose, 5-7 px off). Shares of 0.45 and 0.5 found game2's right cushion worse (a
corner 11-29 px off), 0.6-1.0 within 2.3 px."""

MIN_EDGE_STRENGTH = 1.0
"""Smallest Lab gradient (units per pixel) that counts as an edge; raising it ignores fainter
cushion edges (and more noise)."""

RELATIVE_EDGE_STRENGTH = 0.06
"""An edge must reach this share of the strongest edge on its profile."""

INLIER_PX = 1.0
"""Distance from a line within which an edge point supports it."""

MIN_SUPPORT = 0.3
"""Share of a side's profiles that must have a point on a line for the line to count; raising
it demands longer unbroken cushion edges."""

MAX_LINES = 4
"""Most straight edges taken per side, most supported first."""

SLANTED_MAX_LINES = 6
"""`MAX_LINES` with `SLANTED_OUTSIDE_SHARE`: profiles that start far outside the cloth cross
the rail's edges too (grooves, its outer edge): broadcast-8ball game2's near side has four
such above its faint nose (the cushion top meeting the bed, seen from behind)."""

MAX_SLOPE = 0.07
"""Largest slope (across / along) of a cushion line relative to its cloth side (about 4°)."""


@dataclass(frozen=True, slots=True, eq=False)
class EdgeLine:
    """A straight edge found along one side.

    Attributes:
        line: (3,) float64 homogeneous image line (a, b, c), a u + b v + c = 0, a² + b² = 1.
        support: share of the side's profiles with an edge point on the line, 0..1.
        inset_px: distance of the line from the cloth boundary at the side's middle, px,
            positive inward.
        points_px: (N, 2) float64 the supporting edge points, px.
        lightness_step: median Lab lightness gradient across the line going inward, units
            per px; negative where the cloth darkens inward (lit cushion top to its shadow).
        chroma_step: median size of the Lab (a, b) gradient across the line, units per px:
            large where the colour changes (rail to cloth), small where only the light does.
    """

    line: FloatArray
    support: float
    inset_px: float
    points_px: FloatArray
    lightness_step: float
    chroma_step: float


@dataclass(frozen=True, slots=True)
class _Frame:
    """A side's local frame: origin at its start, `along` the side, `inward` the normal."""

    origin: FloatArray
    along: FloatArray
    inward: FloatArray
    length: float

    def to_image(self, along_px: FloatArray, inward_px: FloatArray) -> FloatArray:
        out: FloatArray = (
            self.origin + along_px[:, None] * self.along + inward_px[:, None] * self.inward
        )
        return out


def side_lines(
    lab: NDArray[np.float32],
    start: FloatArray,
    end: FloatArray,
    depth_px: float,
    slanted: bool = False,
) -> list[EdgeLine]:
    """The straight edges along the side start -> end of the cloth quadrilateral.

    Args:
        lab: (H, W, 3) float32 Lab image.
        start, end: (2,) side ends, px, in the quad's turning sense (the cloth is on the left
            of start -> end on the image, v down).
        depth_px: how far inward to look, px.
        slanted: reach as far outside as inside, and take more lines
            (`SLANTED_OUTSIDE_SHARE`, `SLANTED_MAX_LINES`).

    Returns:
        The lines found, most supported first; empty if the side shows no straight edge.
    """
    frame = _side_frame(start, end)
    share = SLANTED_OUTSIDE_SHARE if slanted else OUTSIDE_SHARE
    along, inward, profile_index, step = _edge_points(lab, frame, depth_px, share)
    found: list[EdgeLine] = []
    remaining = np.ones(len(along), dtype=bool)
    for _ in range(SLANTED_MAX_LINES if slanted else MAX_LINES):
        fit = _ransac(along[remaining], inward[remaining], profile_index[remaining])
        if fit is None:
            break
        intercept, slope, inliers = fit
        support = len(np.unique(profile_index[remaining][inliers])) / PROFILES_PER_SIDE
        if support < MIN_SUPPORT:
            break
        chosen = np.flatnonzero(remaining)[inliers]
        remaining[chosen] = False
        points = frame.to_image(along[chosen], inward[chosen])
        ends = frame.to_image(
            np.array([0.0, frame.length]), np.array([intercept, intercept + slope * frame.length])
        )
        inset = intercept + slope * frame.length / 2.0
        line = line_through(ends[0], ends[1])
        steps = np.median(step[chosen], axis=0)
        chroma = float(np.hypot(steps[1], steps[2]))
        found.append(EdgeLine(line, support, inset, points, float(steps[0]), chroma))
    return found


def _side_frame(start: FloatArray, end: FloatArray) -> _Frame:
    length = float(np.linalg.norm(end - start))
    along = (end - start) / length
    # Negative shoelace area (table corner order) puts the inside on the side where the cross
    # product along x inward is negative: inward = (along_v, -along_u).
    inward = np.array([along[1], -along[0]])
    return _Frame(start.astype(np.float64), along, inward, length)


def _profile_positions() -> FloatArray:
    t = np.linspace(0.08, 0.92, PROFILES_PER_SIDE)
    return t


def _edge_points(
    lab: NDArray[np.float32], frame: _Frame, depth_px: float, outside_share: float
) -> tuple[FloatArray, FloatArray, NDArray[np.int64], FloatArray]:
    """Sub-pixel gradient peaks on profiles across the side.

    Returns:
        along, inward (px in the side frame) and profile index, each (N,), and the (N, 3)
        signed Lab gradient at each point (units per px, inward).
    """
    t = _profile_positions()
    # Skip the middle of the side: a side pocket cuts the cushion there.
    t = np.where(np.abs(t - 0.5) < 0.06, np.nan, t)
    outside = max(OUTSIDE_MARGIN_PX, outside_share * depth_px)
    offsets = np.arange(-outside, depth_px, PROFILE_STEP_PX, dtype=np.float64)
    along_px = t * frame.length
    grid = (
        frame.origin
        + np.nan_to_num(along_px, nan=-1e6)[:, None, None] * frame.along
        + offsets[None, :, None] * frame.inward
    )
    samples = cv2.remap(
        lab,
        grid[..., 0].astype(np.float32),
        grid[..., 1].astype(np.float32),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(np.nan, np.nan, np.nan),
    )
    derivative = np.gradient(samples, PROFILE_STEP_PX, axis=1)
    derivative = cv2.GaussianBlur(derivative, (5, 1), 1.2)
    strength = np.sqrt(np.sum(derivative * derivative, axis=2))
    strength[~np.isfinite(strength) | np.isnan(along_px)[:, None]] = 0.0
    along, inward, rows, columns = _peaks(strength, offsets, along_px)
    return along, inward, rows, derivative[rows, columns].astype(np.float64)


def _peaks(
    strength: FloatArray, offsets: FloatArray, along_px: FloatArray
) -> tuple[FloatArray, FloatArray, NDArray[np.int64], NDArray[np.int64]]:
    middle = strength[:, 1:-1]
    is_peak = (middle > strength[:, :-2]) & (middle >= strength[:, 2:])
    floor = np.maximum(MIN_EDGE_STRENGTH, RELATIVE_EDGE_STRENGTH * strength.max(axis=1))
    is_peak &= middle >= floor[:, None]
    rows, columns = np.nonzero(is_peak)
    columns = columns + 1
    left, centre, right = (strength[rows, columns + k] for k in (-1, 0, 1))
    curvature = left - 2.0 * centre + right
    shift = np.where(curvature < 0, 0.5 * (left - right) / np.where(curvature < 0, curvature, 1), 0)
    inward = offsets[columns] + np.clip(shift, -0.5, 0.5) * PROFILE_STEP_PX
    return along_px[rows], inward, rows.astype(np.int64), columns.astype(np.int64)


def _ransac(
    along: FloatArray, inward: FloatArray, profile: NDArray[np.int64]
) -> tuple[float, float, NDArray[np.bool_]] | None:
    """Best line inward = intercept + slope * along by profile support, then refined."""
    if len(along) < 2:
        return None
    rng = np.random.default_rng(0)
    best: tuple[int, float, float] | None = None
    for _ in range(300):
        i, j = rng.choice(len(along), size=2, replace=False)
        if profile[i] == profile[j]:
            continue
        slope = (inward[j] - inward[i]) / (along[j] - along[i])
        if abs(slope) > MAX_SLOPE:
            continue
        intercept = inward[i] - slope * along[i]
        inliers = np.abs(inward - intercept - slope * along) < INLIER_PX
        score = len(np.unique(profile[inliers]))
        if best is None or score > best[0]:
            best = (score, intercept, slope)
    if best is None:
        return None
    _, intercept, slope = best
    for _ in range(3):
        inliers = np.abs(inward - intercept - slope * along) < INLIER_PX
        if inliers.sum() < 2:
            return None
        slope, intercept = np.polyfit(along[inliers], inward[inliers], 1)
    inliers = np.abs(inward - intercept - slope * along) < INLIER_PX
    return float(intercept), float(slope), inliers
