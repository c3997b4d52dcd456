"""Frames and per-frame detections: the values that leave vision/.

Ball classes are integers: 0 is the cue ball, 1..10 the object balls. Files name them
"cue" and "1".."10" (design.md §3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

CUE = 0
NUM_CLASSES = 11
"""Cue ball plus balls 1..10."""

BALL_NAMES: tuple[str, ...] = ("cue", *(str(n) for n in range(1, 11)))


def ball_name(ball: int) -> str:
    """ "cue" for 0, else the number as text."""
    return BALL_NAMES[ball]


def ball_id(name: str | int) -> int:
    """Inverse of `ball_name`; accepts "cue", "3" or 3."""
    if isinstance(name, int) or (isinstance(name, str) and name.isdigit()):
        value = int(name)
        if 1 <= value <= 10:
            return value
        if value == 0:
            return CUE
    elif name == "cue":
        return CUE
    raise ValueError(f"unknown ball {name!r}: expected 'cue' or 1..10")


def _frozen(array: NDArray[np.generic]) -> NDArray[np.generic]:
    array.flags.writeable = False
    return array


@dataclass(frozen=True, slots=True, eq=False)
class Frame:
    """One image from a frame source.

    Attributes:
        image: (H, W, 3) uint8 BGR image.
        index: frame number from the start of the source, 0-based.
        time_s: timestamp in seconds from the start of the source.
    """

    image: NDArray[np.uint8]
    index: int
    time_s: float

    def __post_init__(self) -> None:
        if self.image.ndim != 3 or self.image.shape[2] != 3 or self.image.dtype != np.uint8:
            raise ValueError(
                f"image must be (H, W, 3) uint8 BGR, got {self.image.shape} {self.image.dtype}"
            )

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return (int(self.image.shape[1]), int(self.image.shape[0]))


@dataclass(frozen=True, slots=True, eq=False)
class Detections:
    """Balls found in one frame, columnar (as supervision's Detections).

    Attributes:
        xy_px: (N, 2) float32 ball centre in the image, pixels.
        xy_mm: (N, 2) float32 ball centre in the table frame on the ball-centre plane, mm
            (NaN where no calibration was available).
        radius_px: (N,) float32 apparent radius, pixels.
        confidence: (N,) float32 probability that the detection is a ball, 0..1.
        class_prob: (N, 11) float32 probability of each class (cue, 1..10); rows sum to 1.
    """

    xy_px: NDArray[np.float32]
    xy_mm: NDArray[np.float32]
    radius_px: NDArray[np.float32]
    confidence: NDArray[np.float32]
    class_prob: NDArray[np.float32]

    def __post_init__(self) -> None:
        n = len(self.confidence)
        expected = {
            "xy_px": (n, 2),
            "xy_mm": (n, 2),
            "radius_px": (n,),
            "confidence": (n,),
            "class_prob": (n, NUM_CLASSES),
        }
        for name, shape in expected.items():
            array = np.ascontiguousarray(getattr(self, name), dtype=np.float32)
            if array.shape != shape:
                raise ValueError(f"Detections.{name} must have shape {shape}, got {array.shape}")
            object.__setattr__(self, name, _frozen(array))

    @classmethod
    def empty(cls) -> Detections:
        return cls(
            xy_px=np.zeros((0, 2), np.float32),
            xy_mm=np.zeros((0, 2), np.float32),
            radius_px=np.zeros(0, np.float32),
            confidence=np.zeros(0, np.float32),
            class_prob=np.zeros((0, NUM_CLASSES), np.float32),
        )

    def __len__(self) -> int:
        return len(self.confidence)

    def __getitem__(self, index: NDArray[np.bool_] | NDArray[np.integer] | slice) -> Detections:
        return Detections(
            xy_px=self.xy_px[index],
            xy_mm=self.xy_mm[index],
            radius_px=self.radius_px[index],
            confidence=self.confidence[index],
            class_prob=self.class_prob[index],
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Detections):
            return NotImplemented
        return all(
            np.array_equal(getattr(self, name), getattr(other, name), equal_nan=True)
            for name in ("xy_px", "xy_mm", "radius_px", "confidence", "class_prob")
        )

    __hash__ = None  # type: ignore[assignment]

    @property
    def label(self) -> NDArray[np.int64]:
        """(N,) most probable class: 0 cue, 1..10."""
        labels: NDArray[np.int64] = np.argmax(self.class_prob, axis=1).astype(np.int64)
        return labels
