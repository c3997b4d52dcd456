"""Ball appearance: colours of the standard and "TV" sets, numbers, stripes, orientation.

A ball's body frame has its number circles on the +x and -x axes and, for the stripes (9 and
10), the coloured band around its equator (|z| small). Orientation matrices map body axes to
table axes (x along, y across, z down).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

STANDARD_BGR: dict[int, tuple[int, int, int]] = {
    0: (232, 238, 240),
    1: (20, 200, 250),
    2: (165, 70, 10),
    3: (35, 35, 205),
    4: (120, 40, 85),
    5: (15, 120, 250),
    6: (50, 120, 15),
    7: (40, 30, 120),
    8: (28, 28, 28),
    9: (20, 200, 250),
    10: (165, 70, 10),
}
"""Ball colours, BGR: 1 yellow, 2 blue, 3 red, 4 purple, 5 orange, 6 green, 7 maroon, 8 black."""

TV_BGR: dict[int, tuple[int, int, int]] = {
    **STANDARD_BGR,
    4: (175, 80, 215),
    7: (35, 75, 125),
}
"""The "TV" set: 4 pink-purple, 7 brown (easier to tell from 3 and 8 on camera)."""

STRIPES = frozenset({9, 10})
NUMBER_CIRCLE_COS = float(np.cos(0.42))
"""Cosine of the angular radius of the white number circle."""
STRIPE_HALF_WIDTH = 0.52
"""|body z| below this is the coloured band of a stripe ball."""
DIGIT_TEXTURE_PX = 48


def ball_colours(ball_set: str) -> dict[int, tuple[int, int, int]]:
    """Colours of a set by name: "standard" or "tv"."""
    sets = {"standard": STANDARD_BGR, "tv": TV_BGR}
    if ball_set not in sets:
        raise ValueError(f"unknown ball set {ball_set!r}; expected one of {sorted(sets)}")
    return sets[ball_set]


def digit_textures() -> dict[int, NDArray[np.bool_]]:
    """(48, 48) bool ink masks of the printed numbers 1..10, centred."""
    out: dict[int, NDArray[np.bool_]] = {}
    for ball in range(1, 11):
        canvas = np.zeros((DIGIT_TEXTURE_PX, DIGIT_TEXTURE_PX), np.uint8)
        text = str(ball)
        scale = 1.3 if ball < 10 else 1.0
        (width, height), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, 3)
        origin = ((DIGIT_TEXTURE_PX - width) // 2, (DIGIT_TEXTURE_PX + height) // 2)
        cv2.putText(canvas, text, origin, cv2.FONT_HERSHEY_DUPLEX, scale, 255, 3, cv2.LINE_AA)
        out[ball] = canvas > 96
    return out


@dataclass(frozen=True, slots=True)
class BallAlbedo:
    """Surface colour lookup for one ball set.

    Attributes:
        colours: ball class -> BGR base colour.
        digits: ball class -> ink mask of its number.
    """

    colours: dict[int, tuple[int, int, int]]
    digits: dict[int, NDArray[np.bool_]]

    @classmethod
    def create(cls, ball_set: str) -> BallAlbedo:
        return cls(ball_colours(ball_set), digit_textures())

    def sample(self, ball: int, normal_body: FloatArray) -> FloatArray:
        """(K, 3) BGR albedo 0..1 at (K, 3) unit surface normals in the ball's body frame."""
        base = np.array(self.colours[ball], dtype=np.float64) / 255.0
        white = np.array(STANDARD_BGR[0], dtype=np.float64) / 255.0
        albedo = np.broadcast_to(base, normal_body.shape).copy()
        if ball == 0:
            return albedo
        if ball in STRIPES:
            albedo[np.abs(normal_body[:, 2]) >= STRIPE_HALF_WIDTH] = white
        circle = np.abs(normal_body[:, 0]) >= NUMBER_CIRCLE_COS
        albedo[circle] = white
        ink = self._ink(ball, normal_body[circle])
        rows = np.flatnonzero(circle)[ink]
        albedo[rows] = (0.08, 0.08, 0.08)
        return albedo

    def _ink(self, ball: int, normal_body: FloatArray) -> NDArray[np.bool_]:
        """Which points of the number circle are printed ink."""
        side = np.sign(normal_body[:, 0])
        radius = np.sqrt(1.0 - NUMBER_CIRCLE_COS**2)
        # Tangent-plane coordinates on the circle; mirrored on the far side so both read.
        u = side * normal_body[:, 1] / radius
        v = normal_body[:, 2] / radius
        size = DIGIT_TEXTURE_PX
        cols = np.clip(((u * 0.8 + 1.0) * 0.5 * size).astype(int), 0, size - 1)
        rows = np.clip(((v * 0.8 + 1.0) * 0.5 * size).astype(int), 0, size - 1)
        ink: NDArray[np.bool_] = self.digits[ball][rows, cols]
        return ink


def rotation_from_vector(rotation_rad: FloatArray) -> FloatArray:
    """(3, 3) rotation matrix of a rotation vector (axis times angle), Rodrigues' formula."""
    angle = float(np.linalg.norm(rotation_rad))
    if angle < 1e-12:
        return np.eye(3)
    axis = rotation_rad / angle
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    # R = I + sin(a) K + (1 - cos(a)) K^2
    out: FloatArray = np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * (k @ k)
    return out


def random_orientation(rng: np.random.Generator) -> FloatArray:
    """(3, 3) uniformly random rotation (body -> table axes)."""
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
