"""Outlines of balls whose colour is close to the cloth's.

A ball's outline is where the detector's circle search and outline fits look; they read it
from a lightness gradient. Grey lightness weighs the channels by how bright they look to a
person, so a ball of the cloth's hue that differs from it mostly in the cloth's own channel
(a red 3 or a maroon 7 on red cloth: red, weighed 0.3 in grey; a dark green 6 on green cloth)
shows a weak edge where the picture has a sharp one. The channel in which the cloth is
brightest carries that difference in full, so where grey is blind (below the outline
threshold) the channel's gradient is taken when it is stronger: edges grey shows well stay as
they were, and on a neutral edge every channel changes alike, so the two agree.

Where it is not used (`channel_edge_skip`): where the camera looks at the table at a slant, a
ball's contact shadow shows beside it, darker cloth with an edge as sharp as the ball's in the
cloth's channel, and pulls the round-outline search off the ball (measured: broadcast and
corner clips lose precision, overhead ones gain recall); and in the band along the border of
an uncalibrated view, which takes in cushion tops of the cloth's colour whose straight edges
the channel shows too.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

_TO_LIGHTNESS = 100.0 / 255.0
"""8-bit level to lightness units (0..100), the unit of the detector's gradient."""

OVERHEAD_SEPARATION = 1.9
"""Touching balls' centre distance, in radii (`vision.cloth.TableView.separation`: 2 seen
from straight above), from which the view counts as overhead: the table foreshortened by
under 5 %, a camera within about 18 degrees of vertical."""


def channel_edge_skip(
    band: NDArray[np.uint8], separation: NDArray[np.float32], calibrated: bool
) -> NDArray[np.uint8]:
    """(H, W) uint8 mask, 1 where the grey gradient is kept as it is: where the view is not
    overhead, and, in an uncalibrated view, on the band along its border.

    Args:
        band: (H, W) uint8 the view's band along the cushions (`TableView.edge_band`).
        separation: (H, W) float32 touching balls' centre distance, radii.
        calibrated: whether the view has a camera (its band is then cushion faces the cloth
            model already takes as background).
    """
    skip = separation < OVERHEAD_SEPARATION
    if not calibrated:
        skip |= band > 0
    return skip.astype(np.uint8)


def brightest_channel(cloth_bgr: NDArray[np.float32]) -> int:
    """The BGR channel (0, 1 or 2) in which the cloth is brightest on average.

    Args:
        cloth_bgr: (H, W, 3) expected cloth colour at each pixel.
    """
    pixels = cloth_bgr.reshape(-1, 3)
    step = max(1, len(pixels) // 4096)
    return int(np.argmax(pixels[::step].mean(axis=0)))


def sobel_pair(signal: NDArray[np.uint8], scale: float) -> NDArray[np.float32]:
    """(H, W, 2) float32 (d/du, d/dv) of a (H, W) 8-bit map (3x3 Sobel scaled to a unit
    step's change), times `scale`."""
    factor = 0.125 * scale
    return np.dstack(
        [
            cv2.Sobel(signal, cv2.CV_32F, 1, 0, ksize=3, scale=factor),
            cv2.Sobel(signal, cv2.CV_32F, 0, 1, ksize=3, scale=factor),
        ]
    )


def with_channel_edges(
    gradient: NDArray[np.float32],
    image: NDArray[np.uint8],
    channel: int,
    skip: NDArray[np.uint8] | None = None,
    keep_above: float | None = None,
) -> NDArray[np.float32]:
    """The lightness gradient with, per pixel, the channel's gradient where that is stronger.

    Args:
        gradient: (H, W, 2) float32 grey lightness gradient, lightness units per px.
        image: (H, W, 3) uint8 BGR pixels it was taken from.
        channel: the BGR channel to add (`brightest_channel` of the cloth).
        skip: optional (H, W) uint8 mask, nonzero where the grey gradient stays as it is.
        keep_above: optional grey gradient magnitude (lightness units per px; the
            detector's outline threshold) from which grey already shows an edge and is kept:
            the channel only fills in where grey is blind, so outlines grey reads well (the
            balls of a rack, whose neighbours' edges in the channel would pull them) stay.

    Returns:
        (H, W, 2) float32 gradient, lightness units per px.
    """
    if gradient.shape != (*image.shape[:2], 2):
        raise ValueError(f"gradient is {gradient.shape}, image is {image.shape}")
    extra = sobel_pair(np.ascontiguousarray(image[..., channel]), _TO_LIGHTNESS)
    grey = np.einsum("hwc,hwc->hw", gradient, gradient)
    stronger = np.einsum("hwc,hwc->hw", extra, extra) > grey
    if skip is not None:
        stronger &= skip == 0
    if keep_above is not None:
        stronger &= grey < keep_above * keep_above
    merged: NDArray[np.float32] = np.where(stronger[..., None], extra, gradient)
    return merged
