"""Does a calibration fit the camera's picture? A check made when the live pipeline starts.

A club's camera gets bumped, or the service is started with another table's calibration file:
the detector then looks for balls in the wrong place and the calls are wrong without a word.
The check needs no model: where the calibration puts the playing surface the picture should be
one colour (the cloth), and just beyond the cushions (the rails, the floor) it should not.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

INSIDE_MARGIN = 0.08
"""Fraction of the table's length and width kept clear of each cushion when sampling the cloth
(balls gather on the cushions; the cushion faces are shaded)."""
RING_MM = (90.0, 260.0)
"""Band beyond the playing surface sampled as 'not cloth': past the cushion's own cloth, on
the rails and what lies beyond."""


@dataclass(frozen=True, slots=True)
class FitCheck:
    """How well a calibration's table matches a picture.

    Attributes:
        cloth_inside: fraction of the sampled playing surface that has the cloth's colour
            (a fitting calibration: most of it; balls and a player cover some).
        cloth_outside: fraction of the band beyond the cushions that has it too (a fitting
            calibration: little).
        sampled: points of the playing surface that fell inside the picture.
    """

    cloth_inside: float
    cloth_outside: float
    sampled: int
    size_mismatch: str = ""
    """The calibration's picture size against the camera's, when they differ."""

    def fits(self, min_inside: float = 0.7, max_outside: float = 0.15) -> bool:
        """Whether the calibration fits; raising `min_inside` or lowering `max_outside`
        doubts more pictures (a player over the table lowers `cloth_inside`). Measured on the
        9 sample clips and 6 real clips: their own calibrations 0.84-0.99 inside and 0.00
        outside; another camera's 0.56-1.0 inside and mostly 0.19-1.0 outside."""
        if self.size_mismatch:
            return False
        return self.cloth_inside >= min_inside and self.cloth_outside <= max_outside

    def why_not(self) -> str:
        """The doubt in words, for the operator."""
        if self.size_mismatch:
            return f"the calibration is for a {self.size_mismatch}"
        return (f"only {self.cloth_inside:.0%} of where it puts the table looks like cloth, "
                f"and {self.cloth_outside:.0%} beyond the cushions does")  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {"cloth_inside": round(self.cloth_inside, 3), "fits": self.fits(),
                "cloth_outside": round(self.cloth_outside, 3), "sampled": self.sampled,
                "size_mismatch": self.size_mismatch}  # fmt: skip


def check_fit(image: NDArray[np.uint8], calibration: Any) -> FitCheck:
    """Compare a BGR picture with where `calibration` puts the table.

    Args:
        image: (H, W, 3) uint8 BGR frame.
        calibration: a calibration.io.Calibration (`table.length_mm/width_mm`,
            `camera.project(xy_mm) -> (N, 2) px`).

    Returns:
        The check; `sampled` 0 when the table is nowhere in the picture.
    """
    height, width = image.shape[:2]
    if tuple(calibration.image_size) != (width, height):
        size = calibration.image_size
        return FitCheck(
            0.0, 1.0, 0, f"{size[0]}x{size[1]} picture, the camera gives {width}x{height}"
        )
    length_mm, width_mm = calibration.table.length_mm, calibration.table.width_mm
    inside = _sample(image, calibration, _inside_points(length_mm, width_mm))
    outside = _sample(image, calibration, _ring_points(length_mm, width_mm))
    if len(inside) < 10:
        return FitCheck(0.0, 1.0, len(inside))
    cloth = np.median(inside, axis=0)
    distance_in = np.linalg.norm(inside - cloth, axis=1)
    distance_out = np.linalg.norm(outside - cloth, axis=1) if len(outside) else np.zeros(0)
    # cloth-like: closer to the cloth's colour than shading on a cloth would move it
    limit = max(30.0, 2.0 * float(np.percentile(distance_in, 50)))
    outside_share = float(np.mean(distance_out < limit)) if len(distance_out) else 0.0
    return FitCheck(float(np.mean(distance_in < limit)), outside_share, len(inside))


def _inside_points(length_mm: float, width_mm: float) -> NDArray[np.float64]:
    xs = np.linspace(INSIDE_MARGIN, 1 - INSIDE_MARGIN, 24) * length_mm
    ys = np.linspace(INSIDE_MARGIN, 1 - INSIDE_MARGIN, 12) * width_mm
    return np.array([(x, y) for x in xs for y in ys], dtype=np.float64)


def _ring_points(length_mm: float, width_mm: float) -> NDArray[np.float64]:
    points = []
    for offset_mm in np.linspace(*RING_MM, 3):
        xs = np.linspace(0.0, length_mm, 24)
        ys = np.linspace(0.0, width_mm, 12)
        points += [(x, -offset_mm) for x in xs] + [(x, width_mm + offset_mm) for x in xs]
        points += [(-offset_mm, y) for y in ys] + [(length_mm + offset_mm, y) for y in ys]
    return np.array(points, dtype=np.float64)


def _sample(
    image: NDArray[np.uint8], calibration: Any, xy_mm: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(M, 3) colours of the picture at the table points that project inside it."""
    uv = np.asarray(calibration.camera.project(xy_mm), dtype=np.float64)
    height, width = image.shape[:2]
    ok = np.isfinite(uv).all(axis=1) & (calibration.camera.depth_mm(xy_mm) > 0)
    ok &= (uv[:, 0] >= 0) & (uv[:, 0] < width) & (uv[:, 1] >= 0) & (uv[:, 1] < height)
    u, v = uv[ok, 0].astype(int), uv[ok, 1].astype(int)
    colours: NDArray[np.float64] = image[v, u].astype(np.float64)
    return colours


@dataclass
class FitWatch:
    """Checks the calibration against the picture every `period_s` and says when it stops
    fitting (two checks running, the second a quarter period after the first, so a player
    leaning over the table once is not a moved camera) and when it fits again.

    Args:
        calibration: the calibration in use.
        period_s: seconds between checks (each samples ~800 pixels: negligible work).
    """

    calibration: Any
    period_s: float = 10.0
    last: FitCheck | None = None
    failed_in_a_row: int = 0
    _next_s: float = field(default=0.0, repr=False)

    def update(self, image: NDArray[np.uint8], now_s: float | None = None) -> str | None:
        """Check if due; returns an alert when the verdict changes ("" when it fits again)."""
        now_s = time.monotonic() if now_s is None else now_s
        if now_s < self._next_s:
            return None
        was_alerting = self.failed_in_a_row >= 2
        self.last = check_fit(image, self.calibration)
        self.failed_in_a_row = 0 if self.last.fits() else self.failed_in_a_row + 1
        # a first failure is confirmed sooner: the operator setting up wants to know now
        confirming = self.failed_in_a_row == 1
        self._next_s = now_s + (self.period_s / 4 if confirming else self.period_s)
        if self.failed_in_a_row == 2:
            return (
                f"the calibration does not seem to fit the camera: {self.last.why_not()}. "
                "Check that the camera did not move, or run tenball calibrate again"
            )
        if was_alerting and self.failed_in_a_row == 0:
            return ""
        return None
