"""A short ring buffer of recent ball positions, and straight-line fits over it.

The event detector looks back a few frames to see where trajectories before and after a
contact meet; this buffer holds the measured (visible) centres of all eleven balls.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from tracking.status_masks import status_is
from tracking.types import TrackSet, TrackStatus
from vision.types import NUM_CLASSES

FloatArray = NDArray[np.float64]


class PositionHistory:
    """The last ``capacity`` frames: times, frame indices and visible ball centres.

    Args:
        capacity: frames kept (at least 4).
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 4:
            raise ValueError(f"capacity must be at least 4 frames, got {capacity}")
        self.capacity = capacity
        # Each frame is stored twice, at its slot and a capacity later, so that every window
        # (at most ``capacity`` frames) is one contiguous slice: a view, never a copy.
        self._time = np.full(2 * capacity, np.nan)
        self._frame = np.zeros(2 * capacity, np.int64)
        self._xy = np.full((2 * capacity, NUM_CLASSES, 2), np.nan)
        self.count = 0

    def push(self, trackset: TrackSet) -> None:
        """Append one frame: the measured centre of each visible ball (the filtered one when
        no measurement is given); balls not visible (occluded, gone) are stored as NaN."""
        slot = self.count % self.capacity
        self._time[slot] = trackset.time_s
        self._frame[slot] = trackset.frame
        self._xy[slot] = np.nan
        if len(trackset):
            visible = status_is(trackset.status, TrackStatus.ON_TABLE)
            measured = np.asarray(trackset.measured_xy_mm)
            xy = np.where(np.isfinite(measured), measured, trackset.xy_mm)
            self._xy[slot, trackset.ball[visible]] = xy[visible]
        twin = slot + self.capacity
        self._time[twin], self._frame[twin] = self._time[slot], self._frame[slot]
        self._xy[twin] = self._xy[slot]
        self.count += 1

    def window(self, first: int, stop: int) -> tuple[FloatArray, NDArray[np.int64], FloatArray]:
        """Frames with absolute push numbers ``first <= n < stop`` (clipped to what is kept).

        Returns:
            time_s (K,), frame (K,), xy_mm (K, 11, 2) with NaN where a ball was not visible:
            views of the buffer, to be read only.
        """
        first = max(first, self.count - self.capacity, 0)
        stop = min(stop, self.count)
        start = first % self.capacity
        end = start + max(0, stop - first)
        return self._time[start:end], self._frame[start:end], self._xy[start:end]


def fit_lines(
    time_s: FloatArray, xy_mm: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]]:
    """Least-squares straight lines x(t) = p + v (t - t_ref), one per ball, ignoring NaNs.

    Args:
        time_s: (K,) times, s.
        xy_mm: (K, B, 2) positions, NaN where missing.

    Returns:
        t_ref (B,) mean time of the used samples; p (B, 2) position at t_ref; v (B, 2)
        velocity, mm/s (0 with fewer than two samples); n (B,) samples used.
    """
    valid = ~np.isnan(xy_mm[:, :, 0])
    weight = valid.astype(np.float64)
    n = weight.sum(axis=0)
    safe_n = np.maximum(n, 1.0)
    t_ref = (time_s @ weight) / safe_n
    # Missing samples add nothing (positions are finite or NaN: no infinities to map).
    xy = np.where(np.isnan(xy_mm), 0.0, xy_mm)
    p = xy.sum(axis=0) / safe_n[:, None]
    dt = (time_s[:, None] - t_ref[None, :]) * weight
    denominator = (dt * dt).sum(axis=0)
    ok = (n >= 2) & (denominator > 1e-12)
    # Σ dt (x - p) = Σ dt x, because the weighted dt sum to zero.
    v = np.einsum("kb,kbi->bi", dt, xy) / np.where(ok, denominator, 1.0)[:, None]
    v[~ok] = 0.0
    return t_ref, p, v, n.astype(np.int64)


Fit = tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]]
"""`fit_lines`' (t_ref (B,), p (B, 2), v (B, 2), n (B,)) over one window."""


class WindowFits:
    """`fit_lines` over windows of one `PositionHistory`, remembered while they can recur.

    The kink analysis fits a window after each analysed frame and, a window later, the
    same frames as the window before the frame then analysed: each is fitted once.
    """

    def __init__(self) -> None:
        self._history: PositionHistory | None = None
        self._fits: dict[tuple[int, int], Fit] = {}

    def fit(self, history: PositionHistory, first: int, stop: int) -> Fit:
        """`fit_lines` over ``history``'s pushes ``first <= n < stop``; read-only arrays.

        A window still wholly kept holds the same samples as when it was fitted, so its
        fit is reused; any other window is fitted afresh (and not remembered when clipped).
        """
        if history is not self._history:
            self._history = history
            self._fits = {}
        kept_from = history.count - history.capacity
        cached = self._fits.get((first, stop))
        if cached is not None and first >= kept_from:
            return cached
        times, _, xy = history.window(first, stop)
        fit = fit_lines(times, xy)
        for array in fit:
            array.flags.writeable = False
        if first >= max(kept_from, 0) and stop <= history.count:
            self._fits[(first, stop)] = fit
            # Only windows ending within two of this one's lengths can recur.
            horizon = stop - 2 * (stop - first) - 2
            for key in [key for key in self._fits if key[1] < horizon]:
                del self._fits[key]
        return fit
