"""What colour the cloth is at every pixel, and how unlike it a pixel is.

`ClothModel` is learned from one frame: the cloth's colour per pixel, estimated robustly
(balls, hands and shadows are left out) and smooth, so a lamp's bright spot or dark corners
do not read as balls. The table's geometry in the image (`TableView`) lives in
`vision.table_view` and is re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.shading import brightest_channel
from vision.table_view import Box, TableView, centre_outline_mm, surface_outline_mm

__all__ = [
    "Box",
    "ClothModel",
    "TableView",
    "brightness_ratio",
    "centre_outline_mm",
    "cloth_distance",
    "distance_along",
    "distance_and_shade",
    "surface_outline_mm",
    "with_static_edges",
]

_CLOTH_CELL_PX = 8


def cloth_distance(
    image: NDArray[np.uint8], cloth: NDArray[np.float32], dark_ratio: float
) -> NDArray[np.float32]:
    """(H, W) float32 how unlike the cloth each pixel is, in 8-bit colour units.

    A shadow on the cloth is the cloth's colour scaled down (as is a cushion face in shade),
    so, as in Horprasert et al.'s background subtraction, a pixel p is split along the
    cloth colour c into a brightness ratio a = p.c / c.c and a colour residual |p - a c|:
    the distance is the residual, plus any brightening beyond the cloth, plus darkening
    below `dark_ratio` of it (a black ball, a pocket), which no shadow reaches.

    Args:
        image: (H, W, 3) uint8 BGR pixels.
        cloth: (H, W, 3) float32 expected BGR cloth colour at each pixel.
        dark_ratio: brightness ratio below which darkness counts; raising it finds the black
            ball on dark cloth better and lets deep shadows in.
    """
    unit, norm = _unit_colour(cloth)
    return distance_along(image, unit, norm, dark_ratio)


def _unit_colour(cloth: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """(H, W, 3) unit colour directions and (H, W) lengths of an (H, W, 3) cloth colour."""
    norm = np.sqrt(np.maximum(np.einsum("hwc,hwc->hw", cloth, cloth), 1.0)).astype(np.float32)
    return (cloth / norm[..., None]).astype(np.float32), norm


def _split(
    image: NDArray[np.uint8], unit: NDArray[np.float32]
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """(H, W) each pixel's length along the cloth's colour and its squared colour residual
    off that line (never negative)."""
    pixels = image.astype(np.float32)
    along = np.asarray(cv2.transform(cv2.multiply(pixels, unit), _SUM_CHANNELS), np.float32)
    squared = cv2.transform(cv2.multiply(pixels, pixels), _SUM_CHANNELS)
    return along, np.asarray(np.maximum(squared - along * along, 0.0), np.float32)


_SUM_CHANNELS = np.ones((1, 3), np.float32)
_FAR = 30.0
"""Colour distance from the cloth (8-bit units) of what is surely not the cloth: a ball, a
hand (the detector's foreground starts at about half of it)."""
_HOLE_RATIO = 0.4
"""Brightness along the cloth's colour, as a share of the cloth's, below which a pixel at a
pocket is its hole (a shadow of the rail keeps more than half the cloth's light)."""
_SHADE_RATIO = 0.8
"""Cloth darker than this share of the first (wide median) estimate is left out of the
cloth model: a passing shadow or a dark object, not the cloth's lasting colour (a lasting
shadow wider than the median's window stays in that estimate)."""


def brightness_ratio(image: NDArray[np.uint8], cloth: NDArray[np.float32]) -> NDArray[np.float32]:
    """(H, W) float32 brightness of each pixel along the cloth's colour as a share of the
    cloth's (p.c / c.c): 1 on the cloth, below 1 in shade."""
    pixels = image.astype(np.float32)
    along = cv2.transform(cv2.multiply(pixels, cloth), _SUM_CHANNELS)
    squared = cv2.transform(cv2.multiply(cloth, cloth), _SUM_CHANNELS)
    ratio: NDArray[np.float32] = along / np.maximum(squared, np.float32(1.0))
    return ratio


def distance_along(
    image: NDArray[np.uint8],
    unit: NDArray[np.float32],
    norm: NDArray[np.float32],
    dark_ratio: float,
) -> NDArray[np.float32]:
    """`cloth_distance` with the cloth given as (H, W, 3) unit colour directions and
    (H, W) lengths (the fast form the detector uses every frame)."""
    along, residual = _split(image, unit)
    return _distance(along, residual, norm, dark_ratio)


def _distance(
    along: NDArray[np.float32],
    residual: NDArray[np.float32],
    norm: NDArray[np.float32],
    dark_ratio: float,
) -> NDArray[np.float32]:
    """(H, W) distance from the cloth given a pixel's split along and across its colour:
    the residual, brightness above the cloth, and darkness beyond `dark_ratio` of it."""
    bright = np.maximum(along - norm, 0.0)
    dark = np.maximum(dark_ratio * norm - along, 0.0) * np.float32(1.0 / max(dark_ratio, 1e-3))
    distance: NDArray[np.float32] = np.sqrt(residual + bright * bright + dark * dark)
    return distance


def distance_and_shade(
    image: NDArray[np.uint8],
    unit: NDArray[np.float32],
    norm: NDArray[np.float32],
    dark_ratio: float,
    shade_ratio: float,
) -> tuple[NDArray[np.float32], NDArray[np.uint8], NDArray[np.uint8]]:
    """`distance_along`, (H, W) uint8 1 where a pixel is darker along the cloth's colour
    than `shade_ratio` of the cloth (a shadow, or the shaded side of a ball: the half a
    ball of the cloth's own hue shows only by its shading), and (H, W) uint8 1 where its
    colour lies within `_FAR` of the line of the cloth's colour (the cloth's hue at any
    brightness, black included: a black ball's rim counts its shade too, which finds the
    8 on red cloth; measured, excluding black lost broadcast_pushout 3/4 -> 0/4)."""
    along, residual = _split(image, unit)
    distance = _distance(along, residual, norm, dark_ratio)
    shade: NDArray[np.uint8] = (along < np.float32(shade_ratio) * norm).astype(np.uint8)
    hued: NDArray[np.uint8] = (residual < np.float32(_FAR * _FAR)).astype(np.uint8)
    return distance, shade, hued


@dataclass(frozen=True, slots=True, eq=False)
class ClothModel:
    """The cloth's colour at every pixel.

    Attributes:
        bgr: (H, W, 3) float32 expected BGR cloth colour.
        noise: robust spread (1.4826 MAD) of cloth pixels' distance from it.
        channel: the BGR channel in which the cloth is brightest (derived): balls of the
            cloth's hue differ from it most there (`vision.shading`).
        passing: (H, W) bool, things in the learning frame that will move, grown by a
            ball radius, so `with_static_edges` never takes them as background: things
            that lie across the view's band into the cloth the camera sees (a hand or an arm
            on the rail, a cue) and blobs about a ball's size of another hue than the cloth
            (a ball against a cushion, even one the detector missed there; cushion faces,
            jaws and shadows are the cloth's hue or dark). Real broadcast frames: a red
            ball against the far cushion of an angled view, half hidden behind the view's
            outline, was missed and then taken for background (recall 0.926 -> 0.944); real
            overhead test split recall 0.660 -> 0.688, precision 0.954 either way; five
            rendered clips' reviews identical. None: nothing known.
        holes: (H, W) bool, pocket holes seen in the learning frame (`_dark_holes`), which
            `with_static_edges` takes as background wherever they reach, except within a
            ball's reach of a highlight (`_near_highlights`: a black ball hanging on a lip
            over the hole is as dark as the hole but for it; rendered top view, the 8 at
            two lip places lost with holes on, found with the guard). None: nothing known.
    """

    bgr: NDArray[np.float32]
    noise: float
    passing: NDArray[np.bool_] | None = field(default=None, repr=False)
    holes: NDArray[np.bool_] | None = field(default=None, repr=False)
    unit: NDArray[np.float32] = field(init=False, repr=False)
    norm: NDArray[np.float32] = field(init=False, repr=False)
    channel: int = field(init=False)

    def __post_init__(self) -> None:
        squared = np.einsum("hwc,hwc->hw", self.bgr, self.bgr)
        norm = np.sqrt(np.maximum(squared, 1.0)).astype(np.float32)
        object.__setattr__(self, "norm", norm)
        object.__setattr__(self, "unit", (self.bgr / norm[..., None]).astype(np.float32))
        object.__setattr__(self, "channel", brightest_channel(self.bgr))

    @classmethod
    def learn(cls, image: NDArray[np.uint8], view: TableView, dark_ratio: float) -> ClothModel:
        """Learn the cloth from one BGR frame, leaving out what is far from its median.

        The first pass takes the median over the whole surface; pixels far from it (balls,
        hands) and a ball radius around them are dropped, and a second pass averages what
        is left over windows of a few ball diameters, so slow changes of light are followed.
        """
        inside = view.valid > 0
        if not inside.any():
            raise ValueError("the table region is empty: cannot learn the cloth colour")
        median = np.median(image[inside][::7], axis=0).astype(np.float32)
        radius = max(2, round(view.typical_radius_px()))
        rough = _median_map(image, inside, median, window_px=16 * radius)
        # Darkness counts for little in the distance (shadows are cloth), but a sleeve, an arm
        # or its shadow is not the cloth's usual colour: averaged in, it darkens the model
        # around it, and the lit cloth there then reads as brighter than the cloth (a ball).
        far = (cloth_distance(image, rough, dark_ratio) > _FAR) | (
            brightness_ratio(image, rough) < _SHADE_RATIO
        )
        far = cv2.dilate(far.astype(np.uint8), np.ones((2 * radius + 1,) * 2, np.uint8)) > 0
        keep = (inside & ~far).astype(np.float32)
        local = _masked_smooth(image, keep, median, window_px=8 * radius)
        distance = cloth_distance(image, local, dark_ratio)[keep > 0]
        spread = (
            1.4826 * float(np.median(np.abs(distance - np.median(distance))))
            if distance.size
            else 2.0
        )
        objects = (cloth_distance(image, local, dark_ratio) > _FAR) & inside
        # The valid region may cut a ball against a far cushion (its top shows over it).
        near = cv2.dilate(view.valid, np.ones((2 * radius + 1,) * 2, np.uint8)) > 0
        hue = _hue_distance(image, local)
        moving = _passing(objects, view, radius) | _ball_sized((hue > _FAR) & near, radius)
        holes = _dark_holes(image, local, hue, view.holes)
        if holes is not None:
            holes &= ~_near_highlights(image, local, view, radius)
        return cls(bgr=local, noise=max(spread, 0.5), passing=moving, holes=holes)


def with_static_edges(
    cloth: ClothModel, image: NDArray[np.uint8], static: NDArray[np.bool_]
) -> ClothModel:
    """The cloth model with the frame's own (lightly smoothed) colour taken as background
    where `static` is set: cushion faces, pocket jaws and rail shadows near the cushions,
    which an angled camera sees and which never move."""
    if cloth.holes is not None:
        static = static | cloth.holes
    if cloth.passing is not None:
        static = static & ~cloth.passing
    merged = cloth.bgr.copy()
    merged[static] = cv2.blur(image, (3, 3)).astype(np.float32)[static]
    return ClothModel(bgr=merged, noise=cloth.noise, passing=cloth.passing, holes=cloth.holes)


def _dark_holes(
    image: NDArray[np.uint8],
    cloth: NDArray[np.float32],
    hue: NDArray[np.float32],
    holes: NDArray[np.uint8],
) -> NDArray[np.bool_] | None:
    """(H, W) bool the pocket holes a frame shows: pixels of a pocket's region (`holes` > 0,
    `TableView.holes`) far darker than the cloth (`_HOLE_RATIO`) and near the line of its
    colour (black, or the cloth's hue in deep shade), in pieces that reach the pocket's core
    (`holes` == 2), grown by 2 px (the blur at the hole's edge). Seen from above, a corner
    pocket's hole reaches past the jaw line where a ball may hang on the lip; its round
    edge was found as a dark ball and, found in the learning frame, never taken as
    background. None: no pockets known."""
    if not holes.any():
        return None
    dark = (holes > 0) & (brightness_ratio(image, cloth) < _HOLE_RATIO) & (hue < _FAR)
    count, labels = cv2.connectedComponents(dark.astype(np.uint8), connectivity=8)
    if count <= 1:
        return None
    core = np.zeros(count, bool)
    core[np.asarray(labels)[dark & (holes == 2)]] = True
    core[0] = False
    grown = cv2.dilate(core[labels].astype(np.uint8), np.ones((5, 5), np.uint8))
    found: NDArray[np.bool_] = grown > 0
    return found


_HIGHLIGHT_RATIO = 1.5
"""Brightness along the cloth's colour, as a share of the cloth's, above which a pixel on
the surface is a lamp's highlight on a ball (white on any cloth gives about 2): a black ball
over a pocket's hole is as dark as the hole but for it."""
_HIGHLIGHT_REACH_RADII = 1.6
"""How far from a highlight a ball's pixels reach, in ball radii (the highlight lies up to
about 0.6 radii off the ball's centre)."""


def _near_highlights(
    image: NDArray[np.uint8], cloth: NDArray[np.float32], view: TableView, radius: int
) -> NDArray[np.bool_]:
    """(H, W) bool within `_HIGHLIGHT_REACH_RADII` ball radii of a highlight (a bright spot
    under a ball's radius across) on the surface (`view.valid`) near a pocket (`view.holes`
    grown by two radii): where a dark ball may lie by or over a pocket's hole, which the
    hole must not take into the background."""
    near = cv2.dilate(view.holes, np.ones((4 * radius + 1,) * 2, np.uint8)) > 0
    lit = near & (view.valid > 0) & (brightness_ratio(image, cloth) > _HIGHLIGHT_RATIO)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(lit.astype(np.uint8), connectivity=8)
    # A highlight is a spot under a ball's radius across; a cue's shaft, a chalk line or a
    # projector's line drawn on the cloth is longer.
    extent = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
    spots = extent <= radius
    spots[0] = False
    if count <= 1 or not spots.any():
        return np.zeros(lit.shape, bool)
    reach = max(1, round(_HIGHLIGHT_REACH_RADII * radius))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
    grown: NDArray[np.bool_] = cv2.dilate(spots[labels].astype(np.uint8), disc) > 0
    return grown


def _passing(objects: NDArray[np.bool_], view: TableView, radius: int) -> NDArray[np.bool_]:
    """(H, W) bool the `objects` (unlike the cloth) that reach from the view's band more than
    half a radius into the cloth beyond it, grown by a radius: a hand or an arm lying over
    the rail, not a cushion face or a jaw (which stay in the band, give or take the
    calibration's error)."""
    beyond = ((view.valid > 0) & (view.edge_band == 0)).astype(np.uint8)
    depth = cv2.distanceTransform(beyond, cv2.DIST_L2, 3)
    count, labels = cv2.connectedComponents(objects.astype(np.uint8), connectivity=8)
    if count <= 1:
        return np.zeros(objects.shape, bool)
    deepest = np.zeros(count, np.float32)
    np.maximum.at(deepest, np.asarray(labels, np.int64)[objects], depth[objects])
    deep = deepest > 0.5 * radius
    deep[0] = False
    grown = cv2.dilate(deep[labels].astype(np.uint8), np.ones((2 * radius + 1,) * 2, np.uint8))
    passing: NDArray[np.bool_] = grown > 0
    return passing


def _hue_distance(image: NDArray[np.uint8], cloth: NDArray[np.float32]) -> NDArray[np.float32]:
    """(H, W) float32 how far each pixel's colour lies from the line of the cloth's colour
    (any brightness of it: shade, a cushion face, a dark pocket are near it), 8-bit units."""
    _, residual = _split(image, _unit_colour(cloth)[0])
    distance: NDArray[np.float32] = np.sqrt(residual)
    return distance


def _ball_sized(things: NDArray[np.bool_], radius: int) -> NDArray[np.bool_]:
    """(H, W) bool the blobs of `things` that are about a ball's size once parts thinner than
    a ball (lines: highlights along a cushion, a cue) are opened away, grown by 2 px."""
    reach = max(1, radius // 2)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
    opened = cv2.morphologyEx(things.astype(np.uint8), cv2.MORPH_OPEN, disc)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    disc_area = np.pi * radius * radius
    area = stats[:, cv2.CC_STAT_AREA]
    extent = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
    sized = (area >= 0.25 * disc_area) & (area <= 2.5 * disc_area) & (extent <= 4 * radius)
    sized[0] = False
    if count <= 1 or not sized.any():
        return np.zeros(things.shape, bool)
    # Grown by the blur at a ball's edge only: the cushion face beside it stays static.
    grown = cv2.dilate(sized[labels].astype(np.uint8), np.ones((5, 5), np.uint8))
    balls: NDArray[np.bool_] = grown > 0
    return balls


def _median_map(
    image: NDArray[np.uint8], inside: NDArray[np.bool_], fill: NDArray[np.float32], window_px: int
) -> NDArray[np.float32]:
    """Median colour over windows (wider than a rack) on a coarse grid, at full size: a
    first cloth estimate that follows lamps and dark corners and ignores the balls."""
    height, width = inside.shape
    filled = image.copy()
    filled[~inside] = np.round(fill).astype(np.uint8)
    small_size = (max(1, width // _CLOTH_CELL_PX), max(1, height // _CLOTH_CELL_PX))
    small = cv2.resize(filled, small_size, interpolation=cv2.INTER_AREA)
    kernel = max(3, window_px // _CLOTH_CELL_PX) | 1
    smooth = cv2.medianBlur(small, min(kernel, 255))
    full = cv2.resize(smooth, (width, height), interpolation=cv2.INTER_LINEAR)
    return np.ascontiguousarray(full, dtype=np.float32)


def _masked_smooth(
    image: NDArray[np.uint8],
    keep: NDArray[np.float32],
    fallback: NDArray[np.float32],
    window_px: int,
) -> NDArray[np.float32]:
    """Mean of the kept pixels over a window, on a coarse grid, back at full size."""
    height, width = keep.shape
    small_size = (max(1, width // _CLOTH_CELL_PX), max(1, height // _CLOTH_CELL_PX))
    weight = cv2.resize(keep, small_size, interpolation=cv2.INTER_AREA)
    values = cv2.resize(
        image.astype(np.float32) * keep[..., None], small_size, interpolation=cv2.INTER_AREA
    )
    kernel = max(3, window_px // _CLOTH_CELL_PX) | 1
    weight_sum = cv2.blur(weight, (kernel, kernel))
    value_sum = cv2.blur(values, (kernel, kernel))
    mean = value_sum / np.maximum(weight_sum, 1e-6)[..., None]
    mean[weight_sum < 0.05] = fallback
    full = cv2.resize(mean, (width, height), interpolation=cv2.INTER_LINEAR)
    return np.ascontiguousarray(full, dtype=np.float32)
