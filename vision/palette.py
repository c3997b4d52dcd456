"""Ball colour palettes of the standard and "TV" sets, in CIE Lab.

The identifier compares a ball's colour (its non-white pixels) with these prototypes after
white balance. Only the hue and chroma of a set matter much: shading moves the lightness of
every pixel, so lightness weighs less in the comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

STRIPED = frozenset({9, 10})
"""The striped balls of a ten-ball set."""

STANDARD_RGB: dict[int, tuple[int, int, int]] = {
    0: (240, 238, 232),
    1: (250, 195, 20),
    2: (15, 65, 165),
    3: (205, 35, 35),
    4: (85, 40, 120),
    5: (250, 115, 15),
    6: (15, 120, 55),
    7: (120, 30, 40),
    8: (28, 28, 28),
    9: (250, 195, 20),
    10: (15, 65, 165),
}
"""Cue, 1 yellow, 2 blue, 3 red, 4 purple, 5 orange, 6 green, 7 maroon, 8 black, 9, 10."""

TV_RGB: dict[int, tuple[int, int, int]] = {
    **STANDARD_RGB,
    4: (220, 95, 160),
    7: (130, 75, 35),
}
"""Broadcast sets: the 4 pink / light purple and the 7 brown."""

PALETTES_RGB: dict[str, dict[int, tuple[int, int, int]]] = {"standard": STANDARD_RGB, "tv": TV_RGB}


def rgb_to_lab(rgb: NDArray[np.floating] | NDArray[np.uint8]) -> NDArray[np.float32]:
    """(N, 3) sRGB 0..255 to (N, 3) float32 Lab (L 0..100, a and b about -128..127)."""
    pixels = np.asarray(rgb, dtype=np.float32).reshape(1, -1, 3) / 255.0
    lab = cv2.cvtColor(pixels, cv2.COLOR_RGB2Lab)
    return np.asarray(lab.reshape(-1, 3), dtype=np.float32)


@dataclass(frozen=True, slots=True, eq=False)
class Palette:
    """Prototype colours of one ball set.

    Attributes:
        name: "standard" or "tv".
        lab: (11, 3) float32 Lab colour of each class (cue, 1..10); for the stripes, the
            colour of the band.
    """

    name: str
    lab: NDArray[np.float32]

    @classmethod
    def named(cls, name: str, light: float = 1.0) -> Palette:
        """The palette of a ball set by name ("standard" or "tv"), under a light of
        ``light`` times the usual (linear RGB scaled, the cue ball's white kept: white
        balance makes it white): under a dim light a ball's chroma falls with its
        lightness, and an orange 5 looks like a brown 7 of the usual light."""
        if name not in PALETTES_RGB:
            raise ValueError(f"unknown ball palette {name!r}; expected one of {list(PALETTES_RGB)}")
        if not 0.0 < light <= 1.0:
            raise ValueError(f"palette light must be in (0, 1], got {light}")
        colours = PALETTES_RGB[name]
        rgb = np.array([colours[ball] for ball in range(11)], dtype=np.float32)
        if light != 1.0:
            linear = np.power(rgb / 255.0, 2.2) * light
            dimmed = 255.0 * np.power(linear, 1.0 / 2.2)
            rgb[1:] = dimmed[1:]
        return cls(name=name if light == 1.0 else f"{name}@{light:g}", lab=rgb_to_lab(rgb))
