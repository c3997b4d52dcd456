"""Rail grazes: the part of `tracking.kinks.KinkExplainer` that finds cushions met by balls
rolling nearly along them (`EventConfig.rail_graze_check`).

A ball that meets a rail at a shallow angle keeps its speed along it and turns only its
slow motion across it: a kink far below the threshold, and within one fit window's noise.
Fitted over `GRAZE_WINDOWS` windows either side, the turn stands out of the noise.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from tracking import contacts
from tracking.fastnp import true_indices
from tracking.history import FloatArray, WindowFits
from tracking.rail_contacts import APPROACH_SIGMAS, RailContacts
from tracking.starts import Path
from tracking.types import Event

RAIL_SIGMAS = 3.0
"""A path that turns back off a cushion right at it (`KinkExplainer._turned_off_rail`) met
it when its velocity changed by this many standard deviations of the change noise alone: the
place and the reversal already rule out most of what else could change a velocity (a curve
of a spinning ball does not reverse it at a rail), so the floor and the share of the speed
that guard kinks elsewhere are not needed; 3 sigmas keep a ball rolling along a rail with
nothing but noise from bouncing (one-sided 0.13 % per independent fit)."""
GRAZE_WINDOWS = 4
"""Fit windows (`EventConfig.fit_window_s`) fitted either side of a possible graze: the
noise of a fitted velocity falls as the window's frames to the power 1.5 (8 times over 4
windows), so a turn of 30-40 mm/s across a rail is told at 60 fps (t2613 shot 2: the 2
at 250 mm/s along the right rail came in at 29 mm/s and left at 6; two windows missed
it). The paths either side must hold no other contact (another ball near the corner
rules it out) and the ball be seen on all but one frame of each."""


class RailGrazes(RailContacts):
    """Rail grazes for `tracking.kinks.KinkExplainer` (which defines the state used here)."""

    _window_fits: WindowFits

    def _turned_off_rail(
        self,
        before: tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]],
        after: tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]],
        approach_mm_s: float,
    ) -> NDArray[np.bool_]:
        raise NotImplementedError

    def _resting_since_before(self, first: int) -> NDArray[np.bool_]:
        raise NotImplementedError

    def _cushion_contact(self, ball: int, side: int, before: Path, t_kink: float) -> Event | None:
        raise NotImplementedError

    def _rail_grazes(self) -> list[Event]:
        """Cushions grazed by balls rolling nearly along them (`EventConfig.rail_graze_check`).

        A ball that meets a rail at a shallow angle turns its slow motion across the rail
        from in to out while keeping its speed along it: a change of velocity far below the
        kink threshold (which grows with the speed) and, over one fit window, within the
        noise of the change (s2621 shot 5: the 1 at 1.8 m/s along the head rail came in at
        80 mm/s and left at 20 mm/s). Over `GRAZE_WINDOWS` fit windows either side the noise
        of a fitted velocity is `GRAZE_WINDOWS` ** 1.5 times smaller: the paths' corner at the rail
        (`_turned_off_rail`), a way in beyond `APPROACH_SIGMAS` of its noise and a turn
        beyond `RAIL_SIGMAS` of the change's tell the graze, with no other ball within
        contact reach of the corner (a ball, not the rail, may have turned it).
        """
        k = GRAZE_WINDOWS * self._fit_frames
        m = self._history.count - k
        if m - k < 0:
            return []
        fits = self._window_fits
        before, after = fits.fit(self._history, m - k, m), fits.fit(self._history, m, m + k)
        noise_std = self._kink_noise_mm_s(k)
        turned = self._turned_off_rail(before, after, APPROACH_SIGMAS * noise_std / np.sqrt(2.0))
        turned &= (before[3] >= k - 1) & (after[3] >= k - 1) & self._moving & self._alive
        turned &= ~self._resting_since_before(m - k)
        events = []
        for ball in true_indices(turned):
            found = self._graze(int(ball), before, after, RAIL_SIGMAS * noise_std)
            events += [] if found is None else [found]
        return events

    def _graze(
        self,
        ball: int,
        before: tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]],
        after: tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]],
        least_turn_mm_s: float,
    ) -> Event | None:
        """The cushion ``ball`` grazed between its two-window fits (`_rail_grazes`), or None."""
        path_in: Path = (float(before[0][ball]), before[1][ball], before[2][ball])
        path_out: Path = (float(after[0][ball]), after[1][ball], after[2][ball])
        t_kink = contacts.line_intersection_time(path_in, path_out)
        if t_kink is None:
            return None
        t_kink = min(max(t_kink, path_in[0]), path_out[0])
        xy = path_in[1] + path_in[2] * (t_kink - path_in[0])
        side = int(np.argmin(contacts.inside_distances_mm(self.table, xy)))
        turn = float((path_out[2] - path_in[2]) @ contacts.CUSHION_NORMALS[side])
        if turn < least_turn_mm_s or contacts.in_rail_opening(self.table, xy, side):
            return None
        # Each split of the long windows near the contact tells it again: once is enough.
        span = path_out[0] - path_in[0]
        if any(b == ball and abs(t - t_kink) <= span for (b, _), t in self._last_cushion.items()):
            return None
        t_ref, p, v, n = before
        others = np.where((n >= 2)[:, None], p + v * (t_kink - t_ref)[:, None], np.nan)
        others[ball] = np.nan
        others[~self._alive] = np.nan
        reach = self.table.ball_diameter_mm + self.config.ball_contact_tolerance_mm
        distance = np.hypot(others[:, 0] - xy[0], others[:, 1] - xy[1])
        if bool((np.nan_to_num(distance, nan=np.inf) <= reach).any()):
            return None
        return self._cushion_contact(ball, side, path_in, t_kink)
