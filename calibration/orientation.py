"""Which sides of the found quadrilateral are long, which short side is the head.

Side pockets are dark gaps in the middle of the long cushions: they tell long from short even
when perspective makes the long sides look short. The head is chosen by a rule in image terms
(`head`: left, right, top or bottom) and cross-checked with the rack, which stands at the foot.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel, FloatArray
from calibration.cloth import lab_image
from calibration.table import TableSpec

HEAD_CHOICES = ("left", "right", "top", "bottom")

RACK_FILL = 0.3
"""Share of non-cloth pixels over the rack area that counts as a rack being there (a tight
ten-ball rack covers about 60% of its bounding disk). Raising it needs a fuller rack."""


def pocket_darkness(lab: NDArray[np.float32], start: FloatArray, end: FloatArray) -> float:
    """How much darker the middle of a cushion side is than the cushion either side of it.

    Args:
        lab: (H, W, 3) float32 Lab image.
        start, end: (2,) ends of the cloth-boundary side, px.

    Returns:
        Lightness drop (Lab units) at the side's middle against the quarter points; a side
        pocket makes it large, a plain cushion keeps it near 0.
    """
    length = float(np.linalg.norm(end - start))
    along = (end - start) / length
    outward = np.array([-along[1], along[0]])
    radius = max(2, int(0.012 * length))
    values = []
    for t in (0.25, 0.5, 0.75):
        centre = start + t * (end - start) + outward * radius * 0.5
        values.append(_window_lightness(lab, centre, radius))
    return float(0.5 * (values[0] + values[2]) - values[1])


def _window_lightness(lab: NDArray[np.float32], centre: FloatArray, radius: int) -> float:
    height, width = lab.shape[:2]
    u, v = round(float(centre[0])), round(float(centre[1]))
    window = lab[
        max(0, v - radius) : min(height, v + radius + 1),
        max(0, u - radius) : min(width, u + radius + 1),
        0,
    ]
    return float(np.percentile(window, 25)) if window.size else 0.0


def head_side(midpoints: FloatArray, head: str | None) -> tuple[int, str]:
    """Index (0 or 1) of the short side that is the head, and the rule used.

    Args:
        midpoints: (2, 2) midpoints of the two short sides, px.
        head: "left", "right", "top" or "bottom" (image terms), or None for the default:
            the left end when the table lies across the frame, the bottom (near) end when it
            runs up the frame.
    """
    if head is None:
        delta = np.abs(midpoints[1] - midpoints[0])
        head = "left" if delta[0] >= delta[1] else "bottom"
        rule = f"default: head at the {head}"
    elif head in HEAD_CHOICES:
        rule = f"given: head at the {head}"
    else:
        raise ValueError(f"head must be one of {', '.join(HEAD_CHOICES)}, got {head!r}")
    axis, sign = {"left": (0, -1), "right": (0, 1), "top": (1, -1), "bottom": (1, 1)}[head]
    scores = sign * midpoints[:, axis]
    return int(np.argmax(scores)), rule


def rack_end(image: NDArray[np.uint8], camera: CameraModel, table: TableSpec) -> str | None:
    """ "head" or "foot": the end where a rack stands, or None when none or both look racked
    (one end at least `RACK_FILL` full, the other under a third of that)."""
    fills = rack_fills(image, camera, table)
    if fills is None:
        return None
    head_fill, foot_fill = fills
    if head_fill >= RACK_FILL and foot_fill < RACK_FILL / 3:
        return "head"
    if foot_fill >= RACK_FILL and head_fill < RACK_FILL / 3:
        return "foot"
    return None


def rack_fills(
    image: NDArray[np.uint8], camera: CameraModel, table: TableSpec
) -> tuple[float, float] | None:
    """Share of non-cloth pixels in the rack's disk at the foot spot and in the same disk
    mirrored to the head end, as (head, foot); None when either disk or the table centre
    (where the cloth colour is read) is out of the picture.
    """
    rack = np.array(list(table.rack_positions_mm().values()))
    centre = rack.mean(axis=0)
    mirrored = np.array([table.length_mm - centre[0], centre[1]])
    lab = lab_image(image)
    cloth = _disk_lab(lab, camera, np.array([table.length_mm / 2, table.width_mm / 2]), 150.0)
    if cloth.size == 0:
        return None
    reference = np.median(cloth, axis=0)
    radius = 2.2 * table.ball_diameter_mm
    fills = []
    for where in (mirrored, centre):
        pixels = _disk_lab(lab, camera, where, radius)
        if pixels.size == 0:
            return None
        distance = np.linalg.norm((pixels - reference) * np.array([0.4, 1.0, 1.0]), axis=1)
        fills.append(float(np.mean(distance > 20.0)))
    return fills[0], fills[1]


def rack_patterns(
    image: NDArray[np.uint8], camera: CameraModel, table: TableSpec
) -> tuple[float, float] | None:
    """How much each end looks racked, as (head, foot): the share of non-cloth pixels on the
    rack's balls minus the share around them (within `RACK_REACH` ball diameters of the
    rack's centre). A rack scores about 0.5-0.8; a body, a hand or a cue over the spot
    covers both alike and scores near 0. None when the table centre or an end is out of
    the picture.
    """
    lab = lab_image(image)
    cloth = _disk_lab(lab, camera, np.array([table.length_mm / 2, table.width_mm / 2]), 150.0)
    if cloth.size == 0:
        return None
    reference = np.median(cloth, axis=0)
    rack = np.array(list(table.rack_positions_mm().values()))
    scores = []
    for balls in (np.column_stack([table.length_mm - rack[:, 0], rack[:, 1]]), rack):
        on, around = _rack_samples(balls, table.ball_radius_mm)
        if not len(on) or not len(around):
            return None
        fills = []
        for points in (on, around):
            uv = np.round(camera.project(points, 0.0)).astype(int)
            height, width = lab.shape[:2]
            ok = (uv[:, 0] >= 0) & (uv[:, 0] < width) & (uv[:, 1] >= 0) & (uv[:, 1] < height)
            if np.mean(ok) < 0.9:
                return None
            pixels = lab[uv[ok, 1], uv[ok, 0]]
            distance = np.linalg.norm((pixels - reference) * np.array([0.4, 1.0, 1.0]), axis=1)
            fills.append(float(np.mean(distance > 20.0)))
        scores.append(fills[0] - fills[1])
    return scores[0], scores[1]


RACK_REACH = 2.6
"""Radius of the disk around the rack's centre whose pixels `rack_patterns` reads, in ball
diameters (a ten-ball rack reaches about 1.7 from its centre)."""


def _rack_samples(balls_mm: FloatArray, radius_mm: float) -> tuple[FloatArray, FloatArray]:
    """Points on a 10 mm grid on the rack's balls (within 0.8 radius of a centre) and around
    them (over 1.6 radii from every centre, within `RACK_REACH` diameters of the centre)."""
    centre = balls_mm.mean(axis=0)
    reach = RACK_REACH * 2.0 * radius_mm
    steps = np.arange(-reach, reach + 1e-9, 10.0)
    gx, gy = np.meshgrid(steps, steps)
    points = np.column_stack([gx.ravel(), gy.ravel()]) + centre
    points = points[np.linalg.norm(points - centre, axis=1) <= reach]
    nearest = np.min(np.linalg.norm(points[:, None] - balls_mm[None], axis=2), axis=1)
    return points[nearest <= radius_mm], points[nearest > 2.0 * radius_mm]


def _disk_lab(
    lab: NDArray[np.float32], camera: CameraModel, centre_mm: FloatArray, radius_mm: float
) -> NDArray[np.float32]:
    """(N, 3) Lab pixels inside a disk on the cloth, sampled on a 10 mm grid."""
    steps = np.arange(-radius_mm, radius_mm + 1e-9, 10.0)
    gx, gy = np.meshgrid(steps, steps)
    inside = gx**2 + gy**2 <= radius_mm**2
    xy = np.column_stack([gx[inside] + centre_mm[0], gy[inside] + centre_mm[1]])
    uv = np.round(camera.project(xy, 0.0)).astype(int)
    height, width = lab.shape[:2]
    ok = (uv[:, 0] >= 0) & (uv[:, 0] < width) & (uv[:, 1] >= 0) & (uv[:, 1] < height)
    out: NDArray[np.float32] = lab[uv[ok, 1], uv[ok, 0]]
    return out
