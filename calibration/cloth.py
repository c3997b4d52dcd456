"""Finding the cloth: its colour, its region and the quadrilateral around it.

The cloth is whatever colour covers the middle of the frame (green, blue, red, grey...), so
nothing here knows a colour in advance: the reference is measured from the frame itself and
the region is the connected set of pixels close to it.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray
from calibration.io import CalibrationError

LIGHTNESS_WEIGHT = 0.4
"""Weight of Lab lightness against chroma in the colour distance: cloth keeps its hue under
uneven light but not its brightness. Raising it makes shadows fall out of the cloth region."""

MIN_COLOUR_DISTANCE = 8.0
MAX_COLOUR_DISTANCE = 40.0
"""Bounds on the Lab distance threshold chosen by Otsu's method; raising the upper bound lets
the cloth region grow into similar-coloured surroundings."""

GROW_STEP = (2.0, 1.5, 1.5)
"""Largest Lab difference (L, a, b) between neighbouring pixels inside the grown cloth region;
raising it lets the region leak across soft edges into the rails."""

MIN_CLOTH_FRACTION = 0.05
"""Smallest share of the frame the cloth region may cover to count as a table."""


class TableNotFoundError(CalibrationError):
    """No pool table could be found in the frame; the message says why."""


@dataclass(frozen=True, slots=True, eq=False)
class ClothRegion:
    """The cloth seen in a frame.

    Attributes:
        mask: (H, W) uint8, 255 on the cloth region (holes from balls and lines filled).
        colour_lab: (3,) float64 reference cloth colour in OpenCV 8-bit Lab.
        outer_px: (4, 2) float64 corners of the quadrilateral around the region, px, going
            round in the same sense as the table's corner order (negative shoelace area in
            u right, v down), starting anywhere.
    """

    mask: NDArray[np.uint8]
    colour_lab: FloatArray
    outer_px: FloatArray


def median_frame(frames: list[NDArray[np.uint8]]) -> NDArray[np.uint8]:
    """Per-pixel temporal median of (H, W, 3) uint8 frames: moving balls and people vanish."""
    if not frames:
        raise ValueError("need at least one frame")
    if len(frames) == 1:
        return frames[0]
    stack = np.stack(frames)
    out: NDArray[np.uint8] = np.median(stack, axis=0).astype(np.uint8)
    return out


def lab_image(image: NDArray[np.uint8]) -> NDArray[np.float32]:
    """(H, W, 3) float32 Lab of a BGR uint8 image, lightly smoothed against sensor noise."""
    blurred = cv2.GaussianBlur(image, (5, 5), 0)
    out: NDArray[np.float32] = cv2.cvtColor(blurred, cv2.COLOR_BGR2LAB).astype(np.float32)
    return out


def find_cloth(image: NDArray[np.uint8]) -> list[ClothRegion]:
    """Candidate cloth regions and their quadrilaterals in a BGR uint8 image.

    One candidate per colour threshold that gives a four-sided region (see `_thresholds`)
    and one grown from the middle (`_grown_mask`); the caller keeps the one whose table fits
    best.

    Raises:
        TableNotFoundError: no threshold gives a large cloth-coloured region with four sides.
    """
    lab = lab_image(image)
    colour = _reference_colour(lab)
    distance = _colour_distance(lab, colour)
    found: list[ClothRegion] = []
    failure = "no colour threshold gave a cloth region"
    makers: list[Callable[[], NDArray[np.uint8]]] = [
        functools.partial(_cloth_mask, distance, limit) for limit in _thresholds(distance)
    ]
    makers.append(functools.partial(_grown_mask, lab, distance))
    for make in makers:
        try:
            mask = make()
            quads = _outer_quads(mask)
        except TableNotFoundError as error:
            failure = str(error)
            continue
        found += [ClothRegion(mask=mask, colour_lab=colour, outer_px=quad) for quad in quads]
    if not found:
        raise TableNotFoundError(failure)
    return found


def _thresholds(distance: NDArray[np.float32]) -> list[float]:
    """Candidate colour-distance thresholds: Otsu's split over the colours within two windows.

    The widest (all colours, far ones clipped) and wide windows split cloth from floor and
    people; the narrow one splits cloth from a rail of a similar colour.
    """
    limits: list[float] = []
    for window in (2.5 * MAX_COLOUR_DISTANCE, 2.0 * MAX_COLOUR_DISTANCE, MAX_COLOUR_DISTANCE):
        near = np.minimum(distance, window) if window > 2 * MAX_COLOUR_DISTANCE else distance
        near = near[near <= window]
        if near.size == 0:
            continue
        scaled = np.clip(near * (255.0 / window), 0, 255).astype(np.uint8)
        otsu, _ = cv2.threshold(scaled.reshape(1, -1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        limit = float(np.clip(otsu * window / 255.0, MIN_COLOUR_DISTANCE, MAX_COLOUR_DISTANCE))
        if all(abs(limit - other) > 1.0 for other in limits):
            limits.append(limit)
    return limits


def _reference_colour(lab: NDArray[np.float32]) -> FloatArray:
    """Cloth colour: the commonest chroma in the middle third of the frame, then its median."""
    height, width = lab.shape[:2]
    centre = lab[height // 3 : 2 * height // 3, width // 3 : 2 * width // 3].reshape(-1, 3)
    chroma = np.clip(centre[:, 1:], 0, 255).astype(np.int32) // 4
    keys = chroma[:, 0] * 64 + chroma[:, 1]
    mode = np.bincount(keys, minlength=64 * 64).argmax()
    near = np.abs(keys // 64 - mode // 64) + np.abs(keys % 64 - mode % 64) <= 2
    out: FloatArray = np.median(centre[near], axis=0).astype(np.float64)
    return out


def _colour_distance(lab: NDArray[np.float32], colour: FloatArray) -> NDArray[np.float32]:
    weights = np.array([LIGHTNESS_WEIGHT, 1.0, 1.0], dtype=np.float32)
    difference = (lab - colour.astype(np.float32)) * weights
    out: NDArray[np.float32] = np.sqrt(np.sum(difference * difference, axis=2))
    return out


def _cloth_mask(distance: NDArray[np.float32], limit: float) -> NDArray[np.uint8]:
    """The filled region of colour distance below `limit` that covers the frame's middle."""
    return _central_region((distance < limit).astype(np.uint8) * 255)


def _grown_mask(lab: NDArray[np.float32], distance: NDArray[np.float32]) -> NDArray[np.uint8]:
    """The cloth grown from its most typical pixel in the middle of the frame, step by step
    between neighbours: follows slow drifts of colour across the cloth (a projector, a lamp's
    pool of light) that a single threshold cuts, and stops at the sharp edge of a rail."""
    height, width = distance.shape
    middle = distance[height // 3 : 2 * height // 3, width // 3 : 2 * width // 3]
    row, column = np.unravel_index(int(np.argmin(middle)), middle.shape)
    smooth = cv2.GaussianBlur(np.clip(lab, 0, 255).astype(np.uint8), (0, 0), 2.0)
    mask = np.zeros((height + 2, width + 2), np.uint8)
    seed = (int(column + width // 3), int(row + height // 3))
    flags = 4 | cv2.FLOODFILL_MASK_ONLY | (255 << 8)
    cv2.floodFill(smooth, mask, seed, (0, 0, 0), GROW_STEP, GROW_STEP, flags)
    return _central_region(mask[1:-1, 1:-1])


def _central_region(raw: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The filled component of a 0/255 mask that covers most of the frame's middle."""
    height, width = raw.shape
    raw = np.asarray(cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(raw, connectivity=4)
    centre = labels[height // 3 : 2 * height // 3, width // 3 : 2 * width // 3]
    votes = np.bincount(centre.reshape(-1), minlength=count)
    votes[0] = 0
    best = int(votes.argmax())
    if votes[best] == 0 or stats[best, cv2.CC_STAT_AREA] < MIN_CLOTH_FRACTION * raw.size:
        raise TableNotFoundError(
            "no cloth-coloured region covers the middle of the frame "
            f"(largest is {100.0 * stats[best, cv2.CC_STAT_AREA] / raw.size:.1f}% of the frame)"
        )
    region = (labels == best).astype(np.uint8) * 255
    size = max(3, int(0.015 * np.hypot(height, width)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    region = np.asarray(cv2.morphologyEx(region, cv2.MORPH_CLOSE, kernel), dtype=np.uint8)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    filled = np.zeros_like(region)
    cv2.drawContours(filled, [max(contours, key=cv2.contourArea)], -1, 255, cv2.FILLED)
    return filled


def _outer_quads(mask: NDArray[np.uint8]) -> list[FloatArray]:
    """Quadrilaterals around the region, each side refitted to the contour points along it
    (pocket notches and intrusions fall out as outliers). Two starting guesses: the hull
    simplified to four sides, and the largest quadrilateral on the hull's vertices (robust to
    an arm or a cue bulging over one side); both are kept when they differ."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contour = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
    hull = cv2.convexHull(contour.astype(np.float32)).reshape(-1, 2).astype(np.float64)
    quads: list[FloatArray] = []
    for start in (_simplified_quad(hull), _largest_quad(hull)):
        if start is None:
            continue
        lines = [_refit_side(contour, start[i], start[(i + 1) % 4]) for i in range(4)]
        try:
            corners = np.array([_intersect(lines[i - 1], lines[i]) for i in range(4)])
        except TableNotFoundError:
            continue
        if _signed_area(corners) > 0:  # same turning sense as head_left, head_right, ...
            corners = corners[::-1].copy()
        if all(_quad_distance(corners, other) > 2.0 for other in quads):
            quads.append(corners)
    if not quads:
        raise TableNotFoundError("the cloth region does not have four straight sides")
    return quads


def _quad_distance(first: FloatArray, second: FloatArray) -> float:
    """Largest corner distance between two quads, over the four rotations of the second."""
    return min(
        float(np.max(np.linalg.norm(first - np.roll(second, k, axis=0), axis=1))) for k in range(4)
    )


def _simplified_quad(hull: FloatArray) -> FloatArray | None:
    """The hull simplified (Douglas-Peucker) until it has four vertices, if it gets there."""
    perimeter = cv2.arcLength(hull.astype(np.float32), True)
    for fraction in np.linspace(0.005, 0.15, 60):
        simplified = cv2.approxPolyDP(hull.astype(np.float32), fraction * perimeter, True)
        if len(simplified) == 4:
            four: FloatArray = np.asarray(simplified, dtype=np.float64).reshape(4, 2)
            return four
        if len(simplified) < 4:
            break
    return None


def _largest_quad(hull: FloatArray) -> FloatArray | None:
    """The largest-area quadrilateral on the hull's vertices (the hull first reduced to at
    most 16)."""
    perimeter = cv2.arcLength(hull.astype(np.float32), True)
    approx: FloatArray = hull
    for fraction in np.linspace(0.002, 0.05, 25):
        simplified = cv2.approxPolyDP(hull.astype(np.float32), fraction * perimeter, True)
        approx = np.asarray(simplified, dtype=np.float64).reshape(-1, 2)
        if len(approx) <= 16:
            break
    if len(approx) < 4 or len(approx) > 16:
        return None
    combos = np.array(list(itertools.combinations(range(len(approx)), 4)))
    quads = approx[combos]  # (C, 4, 2), in hull order
    x, y = quads[..., 0], quads[..., 1]
    areas = 0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1))
    out: FloatArray = quads[int(np.argmax(areas))]
    return out


def _refit_side(contour: FloatArray, start: FloatArray, end: FloatArray) -> FloatArray:
    """Homogeneous line (a, b, c), a² + b² = 1, fitted to the contour points along a side.

    The band around the line narrows over a few rounds, so a rough first side (from the hull)
    still ends on the boundary's straight part.
    """
    line = line_through(start, end)
    direction = (end - start) / np.linalg.norm(end - start)
    length = float(np.linalg.norm(end - start))
    along = (contour - start) @ direction
    middle = (along > 0.1 * length) & (along < 0.9 * length)
    for fraction in (0.04, 0.015, 0.006):
        across = contour @ line[:2] + line[2]
        keep = middle & (np.abs(across) < max(1.5, fraction * length))
        if keep.sum() < 10:
            break
        fitted = cv2.fitLine(contour[keep].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01)
        vx, vy, x0, y0 = (float(v) for v in fitted.reshape(-1))
        line = line_through(np.array([x0, y0]), np.array([x0 + vx, y0 + vy]))
    return line


def line_through(a: FloatArray, b: FloatArray) -> FloatArray:
    """Homogeneous line through two points, normalised so (a, b) is a unit normal."""
    line = np.cross([a[0], a[1], 1.0], [b[0], b[1], 1.0])
    out: FloatArray = line / np.hypot(line[0], line[1])
    return out


def _intersect(first: FloatArray, second: FloatArray) -> FloatArray:
    point = np.cross(first, second)
    if abs(point[2]) < 1e-12:
        raise TableNotFoundError("two opposite cushion lines are parallel")
    out: FloatArray = point[:2] / point[2]
    return out


def intersect(first: FloatArray, second: FloatArray) -> FloatArray:
    """(2,) intersection of two homogeneous lines."""
    return _intersect(first, second)


def _signed_area(points: FloatArray) -> float:
    x, y = points[:, 0], points[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
