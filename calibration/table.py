"""The table model in the table frame of design.md §3.

Millimetres on the playing surface bounded by the cushion noses. Origin at the head-left
corner; x runs from the head cushion (x = 0) to the foot cushion (x = L); y runs from the left
cushion (y = 0) to the right cushion (y = W), left and right as seen from the head end.
Heights are measured up from the cloth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from numpy.typing import NDArray

BALL_DIAMETER_MM = 57.15
"""Regulation pool ball diameter (2 1/4 in)."""


class Pocket(StrEnum):
    """The six pockets, named as seen from the head (breaking) end."""

    HEAD_LEFT = "head_left"
    HEAD_RIGHT = "head_right"
    SIDE_LEFT = "side_left"
    SIDE_RIGHT = "side_right"
    FOOT_LEFT = "foot_left"
    FOOT_RIGHT = "foot_right"

    def is_corner(self) -> bool:
        return self not in (Pocket.SIDE_LEFT, Pocket.SIDE_RIGHT)


class Cushion(StrEnum):
    """The six cushion segments between pockets."""

    HEAD = "head"
    FOOT = "foot"
    LEFT_HEAD = "left_head"
    LEFT_FOOT = "left_foot"
    RIGHT_HEAD = "right_head"
    RIGHT_FOOT = "right_foot"


TABLE_SIZES_MM: dict[str, tuple[float, float]] = {
    "9ft": (2540.0, 1270.0),
    "8ft": (2235.0, 1118.0),
    "7ft": (1981.0, 991.0),
}


@dataclass(frozen=True, slots=True)
class TableSpec:
    """Dimensions of a pool table's playing surface.

    Attributes:
        length_mm: Playing length L between the head and foot cushion noses.
        width_mm: Playing width W between the left and right cushion noses.
        ball_diameter_mm: Ball diameter.
        corner_mouth_mm: Corner pocket mouth, jaw to jaw (WPA: 114-117 mm). Raising it widens
            the region where a ball counts as entering a corner pocket.
        side_mouth_mm: Side pocket mouth (WPA: 127-130 mm).
    """

    length_mm: float = 2540.0
    width_mm: float = 1270.0
    ball_diameter_mm: float = BALL_DIAMETER_MM
    corner_mouth_mm: float = 116.0
    side_mouth_mm: float = 130.0

    def __post_init__(self) -> None:
        if not (self.length_mm > 0 and self.width_mm > 0 and self.ball_diameter_mm > 0):
            raise ValueError(
                f"table sizes must be positive, got length_mm={self.length_mm}, "
                f"width_mm={self.width_mm}, ball_diameter_mm={self.ball_diameter_mm}"
            )
        if self.length_mm < self.width_mm:
            raise ValueError(
                f"length_mm ({self.length_mm}) must be at least width_mm ({self.width_mm})"
            )

    @classmethod
    def from_name(cls, name: str) -> TableSpec:
        """A standard table by name: "9ft", "8ft" or "7ft"."""
        try:
            length, width = TABLE_SIZES_MM[name.lower().replace(" ", "")]
        except KeyError:
            known = ", ".join(TABLE_SIZES_MM)
            raise ValueError(f"unknown table size {name!r}; known sizes: {known}") from None
        return cls(length_mm=length, width_mm=width)

    @property
    def ball_radius_mm(self) -> float:
        return self.ball_diameter_mm / 2.0

    @property
    def head_string_x_mm(self) -> float:
        return self.length_mm / 4.0

    @property
    def head_spot_mm(self) -> tuple[float, float]:
        return (self.length_mm / 4.0, self.width_mm / 2.0)

    @property
    def foot_spot_mm(self) -> tuple[float, float]:
        return (3.0 * self.length_mm / 4.0, self.width_mm / 2.0)

    def pocket_xy_mm(self, pocket: Pocket | str) -> tuple[float, float]:
        """Where the two cushion lines of a pocket meet (design.md §3)."""
        length, width = self.length_mm, self.width_mm
        return {
            Pocket.HEAD_LEFT: (0.0, 0.0),
            Pocket.HEAD_RIGHT: (0.0, width),
            Pocket.SIDE_LEFT: (length / 2.0, 0.0),
            Pocket.SIDE_RIGHT: (length / 2.0, width),
            Pocket.FOOT_LEFT: (length, 0.0),
            Pocket.FOOT_RIGHT: (length, width),
        }[Pocket(pocket)]

    def pockets_xy_mm(self) -> NDArray[np.float64]:
        """(6, 2) float64 pocket points in `Pocket` order, table mm."""
        return np.array([self.pocket_xy_mm(p) for p in Pocket], dtype=np.float64)

    def corners_xy_mm(self) -> dict[str, tuple[float, float]]:
        """The four playing-surface corners by calibration-file name (design.md §4)."""
        return {
            "head_left": (0.0, 0.0),
            "head_right": (0.0, self.width_mm),
            "foot_right": (self.length_mm, self.width_mm),
            "foot_left": (self.length_mm, 0.0),
        }

    def cushion_segment_mm(self, cushion: Cushion | str) -> tuple[tuple[float, float], ...]:
        """The cushion nose between the pocket mouths as ((x0, y0), (x1, y1)), table mm.

        Corner mouths are cut at 45 degrees, so the nose ends mouth/sqrt(2) from the corner.
        """
        length, width = self.length_mm, self.width_mm
        corner = self.corner_mouth_mm / math.sqrt(2.0)
        side = self.side_mouth_mm / 2.0
        half = length / 2.0
        return {
            Cushion.HEAD: ((0.0, corner), (0.0, width - corner)),
            Cushion.FOOT: ((length, corner), (length, width - corner)),
            Cushion.LEFT_HEAD: ((corner, 0.0), (half - side, 0.0)),
            Cushion.LEFT_FOOT: ((half + side, 0.0), (length - corner, 0.0)),
            Cushion.RIGHT_HEAD: ((corner, width), (half - side, width)),
            Cushion.RIGHT_FOOT: ((half + side, width), (length - corner, width)),
        }[Cushion(cushion)]

    def nearest_cushion(self, x_mm: float, y_mm: float) -> Cushion:
        """The cushion whose line is nearest to a point (for naming a cushion contact)."""
        distances = {
            "head": x_mm,
            "foot": self.length_mm - x_mm,
            "left": y_mm,
            "right": self.width_mm - y_mm,
        }
        side = min(distances, key=lambda k: distances[k])
        if side in ("head", "foot"):
            return Cushion(side)
        half = "head" if x_mm < self.length_mm / 2.0 else "foot"
        return Cushion(f"{side}_{half}")

    def rack_positions_mm(self, order: list[int] | None = None) -> dict[int, tuple[float, float]]:
        """Ball centres of a tight ten-ball rack (rules S1-S4), table mm.

        The 1 is on the foot spot at the apex, rows of 2, 3 and 4 behind it toward the foot
        cushion, the 10 in the middle of the three-ball row.

        Args:
            order: the other eight balls (2..9) in the order they fill the free places, row by
                row from the apex, left to right. Defaults to 2, 3, ..., 9.
        """
        others = list(order) if order is not None else list(range(2, 10))
        if sorted(others) != list(range(2, 10)):
            raise ValueError(f"order must be a permutation of 2..9, got {others}")
        apex_x, apex_y = self.foot_spot_mm
        diameter = self.ball_diameter_mm
        row_dx = diameter * math.sqrt(3.0) / 2.0
        places: list[tuple[float, float]] = []
        for row in range(4):
            for k in range(row + 1):
                places.append((apex_x + row * row_dx, apex_y + (k - row / 2.0) * diameter))
        positions: dict[int, tuple[float, float]] = {1: places[0], 10: places[4]}
        free = [p for i, p in enumerate(places) if i not in (0, 4)]
        for ball, place in zip(others, free, strict=True):
            positions[ball] = place
        return positions

    def contains(self, xy_mm: NDArray[np.floating], margin_mm: float = 0.0) -> NDArray[np.bool_]:
        """(N,) mask of points inside the playing surface grown by `margin_mm`."""
        xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
        return (
            (xy[:, 0] >= -margin_mm)
            & (xy[:, 0] <= self.length_mm + margin_mm)
            & (xy[:, 1] >= -margin_mm)
            & (xy[:, 1] <= self.width_mm + margin_mm)
        )
