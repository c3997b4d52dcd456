"""White balance and per-ball statistics for identification.

The light's colour is read off the balls' own white (the cue ball, the stripes' caps, the
number circles); per-ball quantiles are taken over all balls' pixels at once.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

WHITE_LEVEL = 235.0
"""sRGB level (0..255) the balls' white is balanced to."""

MAX_BRIGHTEN = 1.15
"""Most the white balance brightens a frame (a gain on every channel). Under a dim light a
ball's chroma falls with its lightness (a dim orange 5 reads as the TV set's brown 7): its
white, below `WHITE_LEVEL`, says by how much, and brightening to it restores the colours.
Capped (a light down to about 0.73 of the usual is fully undone) so a frame whose brightest
neutral pixels are not white (no white ball in view) is not blown up; 1.0: never brighten
(before 2026-11-30). Measured at detection level (`tests/benchmarks/eval_identify.py`, real
detector, truth-matched balls, 1.0 -> 1.15): three dim clips (0.7-0.8 light, white at
213-235) 0.917 -> 0.928 (the TV 5 read as the 7: 41 -> 16 of 831 balls); 96 random rendered
scenes 0.954 -> 0.955 (1.3: 0.952, a scene with its white at 157 lost two balls); fresh and
sample clips (white at 246-251) unchanged (0.948, 0.987)."""


def white_balance_gains(pixels_bgr: NDArray[np.uint8]) -> NDArray[np.float32]:
    """(3,) per-channel gains that make the brightest near-neutral ball pixels white.

    The white of the cue ball, the stripes' caps and the number circles is the brightest
    thing on the balls in every channel; its colour is the light's colour and its level the
    light's strength (a dim frame is brightened by at most `MAX_BRIGHTEN`). When that is
    not plausibly a tinted white (a strong colour), the gains are 1.

    Args:
        pixels_bgr: (K, 3) uint8 pixels of all balls in a frame.
    """
    ones = np.ones(3, np.float32)
    if len(pixels_bgr) < 20:
        return ones
    # Each pixel's darkest channel (three-way minimum: a reduction over a length-3 axis
    # costs far more).
    low = np.minimum(np.minimum(pixels_bgr[:, 0], pixels_bgr[:, 1]), pixels_bgr[:, 2]).astype(
        np.float32
    )
    bright = pixels_bgr[low >= np.percentile(low, 97)].astype(np.float32)
    white = np.median(bright, axis=0)
    lab = cv2.cvtColor((white / 255.0).reshape(1, 1, 3).astype(np.float32), cv2.COLOR_BGR2Lab)
    chroma = float(np.hypot(lab[0, 0, 1], lab[0, 0, 2]))
    if chroma > 28.0 or lab[0, 0, 0] < 45.0:
        return ones
    gains = np.clip(np.float32(WHITE_LEVEL) / np.maximum(white, 1.0), 0.6, 2.5)
    # A dim table's white is brought up to the usual level (at most by MAX_BRIGHTEN), so its
    # balls' colours are compared at the palette's light.
    return np.asarray(gains / max(1.0, float(gains.min()) / MAX_BRIGHTEN), dtype=np.float32)


def segment_quantile(
    values: NDArray[np.float32],
    segment: NDArray[np.int64],
    keep: NDArray[np.bool_],
    count: int,
    q: float,
) -> NDArray[np.float64]:
    """(count,) q-quantile (lower) of the kept values of each segment; NaN where none.

    Values must lie in [0, 1000) (Lab lightness and chroma do): each segment is shifted by
    its own multiple of 1024 and the dropped values pushed past the kept ones, so one plain
    sort orders segment, then kept before dropped, then value (float64 keeps them to 1e-10).
    """
    shift = segment.astype(np.float64) * 1024.0
    ordered = np.sort(np.where(keep, values.astype(np.float64), 1000.0) + shift)
    kept = np.bincount(segment[keep], minlength=count)
    starts = np.concatenate([[0], np.cumsum(np.bincount(segment, minlength=count))[:-1]])
    index = np.minimum(
        starts + np.floor(q * np.maximum(kept - 1, 0)).astype(np.int64), len(values) - 1
    )
    out: NDArray[np.float64] = ordered[index] - np.arange(count) * 1024.0
    out[kept == 0] = np.nan
    return out
