"""Balls smeared by motion blur: one ball wide, several radii long.

A camera integrates light over its exposure, so a ball travelling T px during it paints a
stadium 2r wide and T + 2r long whose every pixel is the ball's colour mixed with the
cloth's in proportion to the share of the exposure the ball covered it. Searched as round
balls, such a streak splits into two or three "balls" (the distance transform has a ridge,
not a peak), so streaks are looked for first and their pixels taken out of the round search.

What tells a streak from two touching balls one behind the other (the same outline, give
or take a waist) is the direction of its edges: blur along the motion wipes out the
lightness gradient along it, so a streak's gradient runs mostly across its axis, while two
sharp balls have round outlines and texture in every direction. Its ends are soft too: the
share of the exposure rises over min(T, 2r) from each end, where a sharp ball's outline is a
step.

A streak's centroid is its ball's position at mid-exposure (corrected for perspective by the
detector, which knows the camera); the project's renderer (vision.synthetic.timeline)
centres the exposure on the frame instant, as a global-shutter camera's timestamp does, so
that is the ball's position at the frame's time (a camera that stamps the exposure's start
would need the centre moved back along the motion by half the travel).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.candidates import SearchRegion, map_at, nonzero_2d

CUT_CLEAR_PX = 1.0
"""A blob pixel nearer than this to a window's cut side lies on it (`streaks`)."""
MAX_CUT_RUN_RADII = 3.0
"""Longest run, in ball radii measured along a blurred streak's axis, of its pixels on one
cut side of its window (`streaks`): a ball leaving its window (or crossing it, in at one
side and out at the other) touches a side with its width, a run of 2 r / tan(angle) along
its path, at most three radii unless it leaves within 34 degrees of the side; a blob lying
along the side further is a cut through something larger than a ball (a foreground
cushion face filling the window), whose shape is the window's."""
MIN_LENGTH_RADII = 2.8
"""Shortest streak (in radii): a ball that travels 0.8 radii; less blur the round search
handles (its disc still fills to the rim)."""

SOFT_END_RADII = 0.3
"""Shortest ramp (25 % to 75 % of the streak's level), in radii, at each end of a streak: a
blur of T px ramps over T / 2 (at least 0.4 radii here); a sharp outline, or a shadow's
soft edge, over about a pixel."""


STREAK_WIDTH = 1.03
"""A streak's width (second moments across it, of the pixels above half the threshold) over
the ball's diameter: measured 0.88-1.19 (5-95 %, median 1.04) on 118 streaks of single
balls travelling 1-6 radii per exposure in rendered breaks (top, broadcast and corner views;
red, green and blue cloth; 30, 50 and 60 frames/s)."""

STREAK_WIDTH_SLACK = 0.36
"""Width off `STREAK_WIDTH` (in diameters) at which a blob stops fitting a streak; half of it
costs half the score."""


PAIR_LENGTH_RADII = 4.4
"""Longest two touching balls look (in radii of the farther one): the nearer one is a
little larger in an angled view."""

PAIR_SHARE_ALONG = 0.48
"""Share of the lightness gradient along a blob's axis (see `along_share`) above which a
blob short enough to be two touching balls is taken for them: measured 0.45-0.59 for
touching pairs and 0.25-0.39 for such short streaks in rendered frames."""

ROW_SHARE_ALONG = 0.56
"""The same for longer blobs (a row of touching balls; long streaks drawn or exposed as a
few overlapping copies have more texture along them: measured up to 0.52)."""

SMEARED_SHARE_ALONG = 0.40
"""Share along at or below which a blob is surely smeared and may be as wide as a streak
with its shadow (`STREAK_WIDTH`). In rendered breaks (top, broadcast and corner views; red,
green, blue and grey cloth; 30-60 frames/s): of blobs longer than `PAIR_LENGTH_RADII`,
single balls' continuous streaks measured 0.22-0.34 (34 streaks) and blobs of two or more
balls 0.43-0.60 (5 %-max, 155 blobs: corner views' balls lying in a row with their shadows);
of shorter blobs (2.8-4.4 radii), 132 at or below it were single moving balls (118 of the
183 travelling a radius or more per exposure), 3 single balls barely moving and none of two
or more balls."""


@dataclass(frozen=True, slots=True, eq=False)
class Streaks:
    """Streaks found in a search region.

    Attributes:
        xy: (K, 2) float64 centres (each blob's centroid), region px.
        axis: (K, 2) float64 unit vectors along the motion.
        score: (K,) float64 how well each fits one smeared ball, 0..1.
        half_length: (K,) float64 half the streak's extent along its motion, px.
        pixels: K arrays (K_i, 3) uint8 BGR of each streak's core (for naming it).
        labels: (H, W) int32 connected-component label of every region pixel.
        label: (K,) int64 each streak's label in `labels`.
    """

    xy: NDArray[np.float64]
    axis: NDArray[np.float64]
    score: NDArray[np.float64]
    half_length: NDArray[np.float64]
    pixels: list[NDArray[np.uint8]]
    labels: NDArray[np.int32]
    label: NDArray[np.int64]

    def pixels_of(self, keep: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """(H, W) bool: the pixels of the kept streaks."""
        lookup = np.zeros(int(self.labels.max(initial=0)) + 1, bool)
        lookup[self.label[keep]] = True
        claimed: NDArray[np.bool_] = lookup[self.labels]
        return claimed


def find_streaks(region: SearchRegion, low_threshold: float, max_length_radii: float) -> Streaks:
    """Every blob above `low_threshold` shaped like one ball smeared along a line.

    A blurred ball mixes its colour with the cloth's, so its extent is taken at a lower
    threshold than a sharp ball's (half of it is usual).

    Args:
        region: the searched pixels.
        low_threshold: distance from the cloth above which a pixel belongs to a streak.
        max_length_radii: longest streak, in radii (the farthest a ball travels during an
            exposure plus its diameter); raising it accepts longer bands (cushion shadows).
    """
    above = (region.distance > low_threshold).astype(np.uint8)
    # Lines a pixel or two wide (the edge of the surface, a cushion's highlight) would join
    # a streak to things far away.
    mask = cv2.morphologyEx(above, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # BBDT labels a sparse mask about three times faster than OpenCV's default here.
    _, labels, stats, centroids = cv2.connectedComponentsWithStatsWithAlgorithm(
        mask, 8, cv2.CV_32S, cv2.CCL_BBDT
    )
    radius = map_at(region.radius, np.asarray(centroids[1:], np.float64))
    width, height = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]
    area = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
    # The bounding box of a streak is at least as long as its diagonal allows (a round
    # ball's, about two radii a side, is not: most blobs go no further) and no longer than
    # the longest streak; its area at least a stadium's of the shortest.
    possible = (
        (radius > 0)
        & (np.hypot(width, height) >= MIN_LENGTH_RADII * radius)
        & (np.maximum(width, height) >= ((MIN_LENGTH_RADII - 2.0) / np.sqrt(2.0) + 2.0) * radius)
        & (np.maximum(width, height) <= max_length_radii * radius + 2)
        & (area >= 0.6 * (2.0 * (MIN_LENGTH_RADII - 2.0) + np.pi) * radius**2)
    )
    shapes: list[StreakShape] = []
    labelled: list[int] = []
    pixels: list[NDArray[np.uint8]] = []
    for index in np.flatnonzero(possible):
        x0, y0, w, h = (int(stats[index + 1, k]) for k in range(4))
        ys, xs = nonzero_2d(labels[y0 : y0 + h, x0 : x0 + w] == index + 1)
        ys, xs = ys + y0, xs + x0
        values = region.distance[ys, xs].astype(np.float64)
        # A streak's core stands out as a ball does; a band where the cloth model is a
        # little off (along a cushion) is faint all over.
        if tenth_highest_below(values, region.threshold):
            continue
        points = np.column_stack([xs, ys]).astype(np.float64)
        # The principal axes once, for the edges' test and the shape.
        moments = np.linalg.eigh(np.cov(points.T))
        smeared = _smeared(region, ys, xs, moments[1][:, 1])
        shape = streak_shape(
            points, values, float(radius[index]), max_length_radii, (smeared, moments)
        )
        if shape is None or not region.centre_valid[round(shape.centre[1]), round(shape.centre[0])]:
            continue
        blurred = motion_blurred(region, ys, xs, shape, float(radius[index]))
        shape = replace(shape, score=min(shape.score, blurred))
        if shape.score <= 0.0:
            continue
        shapes.append(shape)
        labelled.append(index + 1)
        pixels.append(region.image[ys, xs][values >= np.median(values)])
    return Streaks(
        np.array([s.centre for s in shapes]).reshape(-1, 2),
        np.array([s.axis for s in shapes]).reshape(-1, 2),
        np.array([s.score for s in shapes]),
        np.array([s.half_length for s in shapes]),
        pixels,
        np.asarray(labels, np.int32),
        np.array(labelled, np.int64),
    )


@dataclass(frozen=True, slots=True)
class StreakShape:
    """One blob seen as a smeared ball.

    Attributes:
        centre: (2,) float64 the blob's centroid, px (the swept stadium's middle: the
            ball's position at mid-exposure where the view has no perspective).
        axis: (2,) float64 unit vector along the motion.
        half_length: half the blob's extent along the motion, px.
        score: how well it fits one smeared ball, 0..1 (the worst of: width a ball's, area
            a stadium's, no waist, soft ends).
    """

    centre: NDArray[np.float64]
    axis: NDArray[np.float64]
    half_length: float
    score: float


Moments = tuple[NDArray[np.float64], NDArray[np.float64]]
"""`np.linalg.eigh` of a blob's pixels' covariance: (2,) spreads ascending, (2, 2) axes."""


def streak_shape(
    points: NDArray[np.float64],
    values: NDArray[np.float64],
    radius: float,
    max_length_radii: float,
    seen: tuple[bool, Moments | None] = (False, None),
) -> StreakShape | None:
    """How well (N, 2) pixels with (N,) distances from the cloth fit one ball of `radius`
    px smeared along a line; None when the blob is too short or too long or fits not at
    all. `seen`: whether the blob's edges show strong blur along its axis (`_width_fit`),
    and its `Moments` when already known (None: computed here)."""
    smeared, moments = seen
    centre = points.mean(axis=0)
    spreads, axes = np.linalg.eigh(np.cov(points.T)) if moments is None else moments
    along = (points - centre) @ axes[:, 1]
    across = (points - centre) @ axes[:, 0]
    low, high = np.percentile(along, [0.5, 99.5])
    length = float(high - low) + 1.0
    if not MIN_LENGTH_RADII * radius <= length <= max_length_radii * radius:
        return None
    # A uniform band of width w has standard deviation w / sqrt(12) across it. At half the
    # threshold a streak is about a ball wide: its sides stay sharp (the blur runs along
    # it) and the ball's own contact shadow widens it a little.
    width = float(np.sqrt(max(spreads[0], 0.0) * 12.0))
    width_ok = _width_fit(width / (2.0 * radius), smeared)
    stadium = width * max(length - width, 0.0) + 0.25 * np.pi * width**2
    area_ok = 1.0 - abs(len(points) / max(stadium, 1.0) - 1.0) / 0.4
    bins = np.clip(np.floor(along - low).astype(np.int64), 0, int(length))
    counts = np.bincount(bins, minlength=int(length) + 1).astype(np.float64)
    # Two touching balls have a waist where they meet; a streak is as wide all along.
    middle = counts[int(radius) : max(int(length - radius), int(radius) + 3)]
    waist = float(np.convolve(middle, np.ones(3) / 3.0, "valid").min()) / max(
        float(np.median(middle)), 1.0
    )
    waist_ok = (waist - 0.5) / 0.2
    core = np.abs(across) < 0.4 * radius
    level = np.bincount(bins[core], values[core], minlength=len(counts)) / np.maximum(
        np.bincount(bins[core], minlength=len(counts)), 1
    )
    reach = round(2.0 * radius)
    ramp = min(_ramp(level, reach), _ramp(level[::-1], reach)) / radius
    soft_ok = (ramp - 0.5 * SOFT_END_RADII) / (0.5 * SOFT_END_RADII)
    score = float(np.clip(min(width_ok, area_ok, waist_ok, soft_ok), 0.0, 1.0))
    if score <= 0.0:
        return None
    return StreakShape(centre, axes[:, 1].copy(), 0.5 * length, score)


def _width_fit(width: float, smeared: bool) -> float:
    """How well a blob's width (in ball diameters) fits a streak. A blob whose edges are
    `smeared` along it (`SMEARED_SHARE_ALONG`) may be a ball wide with its shadow
    (`STREAK_WIDTH`); any other must be narrower (0.9: the threshold cuts a smeared ball's
    soft sides), so a ball and its shadow, or two balls in a row, are no streak."""
    if smeared:
        return 1.0 - abs(width - STREAK_WIDTH) / STREAK_WIDTH_SLACK
    return 1.0 - abs(width - 0.9) / 0.4


def _smeared(
    region: SearchRegion,
    ys: NDArray[np.int64],
    xs: NDArray[np.int64],
    axis: NDArray[np.float64],
) -> bool:
    """Whether the edges of a blob's (N,) pixels are surely smeared along its (2,) main
    `axis` (`SMEARED_SHARE_ALONG`)."""
    return along_share(region, ys, xs, axis) <= SMEARED_SHARE_ALONG


def along_share(
    region: SearchRegion, ys: NDArray[np.int64], xs: NDArray[np.int64], axis: NDArray[np.float64]
) -> float:
    """Share of a blob's lightness gradient that runs along `axis` (mean |g . axis| over
    mean |g . axis| + mean |g . across|)."""
    gradient = region.gradient[ys, xs].astype(np.float64)
    along = np.abs(gradient @ axis).sum()
    across = np.abs(gradient @ np.array([-axis[1], axis[0]])).sum()
    return float(along / max(along + across, 1e-9))


def motion_blurred(
    region: SearchRegion,
    ys: NDArray[np.int64],
    xs: NDArray[np.int64],
    shape: StreakShape,
    radius: float,
) -> float:
    """0..1 how surely a blob's outline and texture are smeared along its axis.

    Blur along the motion wipes out the lightness gradient along it (only the soft ends and
    the ball's texture between the rendered or exposed instants remain), while the sides
    stay sharp: a streak's gradient is mostly across its axis. Two sharp touching balls, one
    behind the other, have round outlines and texture in every direction (a share along
    the axis near a half). A blob too long to be two touching balls needs less proof.
    """
    share = along_share(region, ys, xs, shape.axis)
    limit = (
        PAIR_SHARE_ALONG
        if 2.0 * shape.half_length < PAIR_LENGTH_RADII * radius
        else ROW_SHARE_ALONG
    )
    return float(np.clip((limit - share) / 0.06, 0.0, 1.0))


def _ramp(level: NDArray[np.float64], reach: int) -> float:
    """Pixels from the start of a profile to its first rise to three quarters of its
    highest value within `reach` pixels of the start."""
    start = level[: max(reach, 1)]
    return float(np.argmax(start >= 0.75 * start.max()))


def streaks(
    region: SearchRegion,
    found_xy: NDArray[np.float64],
    low_threshold: float,
    cut_distance: Callable[[NDArray[np.float64]], NDArray[np.float64]] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], list[NDArray[np.uint8]]]:
    """Balls smeared by motion blur (the break): foreground streaks one ball wide and two
    to eight radii long, away from the balls already found.

    A blurred ball mixes its colour with the cloth, so a lower threshold is used. The centre
    is the streak's centroid (the ball's position at mid-exposure).

    `cut_distance`: the distance of (N, 2) region points from a side of their window that
    cuts through the picture (`vision.mosaic.Mosaic.cut_distance`); when given, a blob lying
    along such a side further than a ball crossing it (`MAX_CUT_RUN_RADII`) is left: its
    shape is the window's, not a ball's (a narrow window over foreground that fills it, as a
    cushion face beside a pocket whose background was learned under a player's arm, scores
    as a streak on plain cloth). A ball leaving its window through a side stays a streak.

    Returns:
        (K, 2) centres, (K,) confidences and each streak's (K_i, 3) BGR pixels.
    """
    mask = (region.distance > low_threshold).astype(np.uint8)
    for (u, v), r in zip(found_xy, map_at(region.radius, found_xy), strict=True):
        cv2.circle(mask, (round(u), round(v)), round(1.3 * r) + 1, 0, -1)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    centres: list[NDArray[np.float64]] = []
    scores: list[float] = []
    pixels: list[NDArray[np.uint8]] = []
    for label in np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= 20)[1:].tolist():
        x0, y0, w, h = (int(stats[label, k]) for k in range(4))
        ys, xs = nonzero_2d(labels[y0 : y0 + h, x0 : x0 + w] == label)
        points = np.column_stack([xs + x0, ys + y0]).astype(np.float64)
        # A ball at most eight radii long per exposure covers each pixel of its streak's
        # core for at least a fifth of it: the core stands out as a ball does, while a
        # band where the cloth model is a little off (along a cushion) is faint all over.
        if tenth_highest_below(region.distance[ys + y0, xs + x0], region.threshold):
            continue
        score = _streak_score(points, region)
        if score > 0.0 and cut_distance is not None:
            score *= not _along_cut(points, cut_distance, map_at(region.radius, points[:1])[0])
        if score > 0.0:
            centres.append(points.mean(axis=0))
            scores.append(score)
            pixels.append(region.image[ys + y0, xs + x0])
    if not centres:
        return np.zeros((0, 2)), np.zeros(0), []
    return np.array(centres), np.array(scores), pixels


def _along_cut(
    points: NDArray[np.float64],
    cut_distance: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    radius: float,
) -> bool:
    """Whether a blob of (N, 2) pixels lies along a cut side of its window: its pixels on
    one side (a column or row of them) run further along the blob's long axis than
    `MAX_CUT_RUN_RADII` ball radii. A ball leaving the window crosses the side: its
    contact runs about its width (2 r / tan of the crossing angle) along its path."""
    on_side = points[cut_distance(points) < CUT_CLEAR_PX]
    if len(on_side) < 2:
        return False
    axis = np.linalg.eigh(np.cov(points.T))[1][:, 1]
    for column, weight in ((0, abs(axis[1])), (1, abs(axis[0]))):
        # Pixels on a vertical side share their column: their run is along v, and the
        # axis's v component says how much of it lies along the blob.
        line = on_side[:, column]
        for value in np.unique(line):
            run = on_side[line == value, 1 - column]
            if (run.max() - run.min() + 1.0) * weight > MAX_CUT_RUN_RADII * radius:
                return True
    return False


def _streak_score(points: NDArray[np.float64], region: SearchRegion) -> float:
    """How much a blob of (N, 2) pixels looks like one ball smeared along a line: its width
    (from the second moments across it) is a ball's, its length (its extent along the line)
    two and a half to nine radii, and its area that of a stadium of that width and length.
    0 when it does not."""
    centre = points.mean(axis=0)
    radius = float(map_at(region.radius, centre[None])[0])
    if radius <= 0 or not region.centre_valid[round(centre[1]), round(centre[0])]:
        return 0.0
    # No blob is longer along any line than its bounding box's diagonal: one too short
    # fails the length test below, known before its moments are taken.
    span = points.max(axis=0) - points.min(axis=0)
    if float(np.hypot(span[0], span[1])) * (1.0 + 1e-9) + 1.0 < 2.5 * radius:
        return 0.0
    spreads, axes = np.linalg.eigh(np.cov(points.T))
    # A uniform band of width w has standard deviation w / sqrt(12) across it.
    width = float(np.sqrt(max(spreads[0], 0.0)) * np.sqrt(12.0))
    along = (points - centre) @ axes[:, 1]
    length = float(along.max() - along.min()) + 1.0
    if not 2.5 * radius <= length <= 9.0 * radius:
        return 0.0
    # The threshold cuts a smeared ball's soft sides, so it looks a little narrower.
    width_ok = 1.0 - abs(width / (2.0 * radius) - 0.9) / 0.4
    stadium = width * max(length - width, 0.0) + 0.25 * np.pi * width**2
    area_ok = 1.0 - abs(len(points) / max(stadium, 1.0) - 1.0) / 0.4
    return float(np.clip(min(width_ok, area_ok), 0.0, 1.0))


def tenth_highest_below(values: NDArray[np.floating], threshold: float) -> bool:
    """`np.percentile(values, 90) < threshold` for (N,) finite values, N >= 1, without
    sorting them where counting settles it: the 90th percentile lies between the sorted
    values at rank floor(0.9 (N - 1)) and the next, so it is below when more values than
    those ranks are, and not when fewer are; only in between is the percentile taken."""
    rank = int(0.9 * (len(values) - 1))
    below = int(np.count_nonzero(values < threshold))
    if below >= rank + 3:
        return True
    if below <= rank - 1:
        return False
    return bool(np.percentile(values, 90) < threshold)
