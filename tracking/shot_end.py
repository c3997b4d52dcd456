"""When a shot ends: the part of `EventDetector` that says ``shot_end``.

A shot ends once every ball in play has been at rest for ``settle_s``: none moving, no start
still to explain, no ball lost rolling that may still roll out of sight
(`tracking.vanish.VanishWatcher._hidden_rolling`). A ball the tracker has just given up as
pocketed or off the table is timed from when it left, not from when it was given up. A ball
left at rest in a pocket's mouth in this shot keeps it open for ``lip_wait_s`` more (it may
yet drop: the 5-second rule), unless a ball elsewhere starts in that wait
(`EventConfig.lip_wait_yields`): the next stroke, which starts a shot of its own.
`ShotEnd` is a mixin: `tracking.events.EventDetector` holds the state.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from tracking.geometry import in_pocket_mouth
from tracking.kinks import KinkExplainer
from tracking.types import Event, EventKind, TrackSet
from vision.types import NUM_CLASSES


class ShotEnd(KinkExplainer):
    """Shot ends for `EventDetector` (which defines the state used here)."""

    _in_shot: bool
    _quiet_since: float | None
    _anchor_at_strike: NDArray[np.float64]

    def _resolve_starts(self) -> list[Event]:
        """`StartExplainer._resolve_starts`, explained outside the shot when one of the starts
        it explains now (those whose fit window is complete, as it picks them) came while the
        shot only waited on a ball on a pocket lip (`_lip_wait_quiet`): the shot ends where
        the table fell quiet, unless every start is dismissed (a centre pulled aside by an arm
        over a resting ball, a ball creeping on, noise), when it waits on."""
        quiet = self._lip_wait_quiet()
        if quiet is None:
            return super()._resolve_starts()
        waiting = len(self._disturbances)
        self._in_shot, self._quiet_since = False, None
        events = super()._resolve_starts()
        if events or self._in_shot or len(self._disturbances) > waiting:
            return [Event(self._frame_of(quiet), quiet, EventKind.SHOT_END), *events]
        self._in_shot, self._quiet_since = True, quiet
        return events

    def _lip_wait_quiet(self) -> float | None:
        """When the table fell quiet, if one of the starts explained now
        (`StartExplainer._ready_starts`) came while the shot only waited on a ball on a
        pocket lip: every ball at rest for ``settle_s`` as it was seen moving, and it did
        not rest in a pocket's mouth itself (the lip ball dropping stays in the shot); else
        None. That start is the next stroke, or a ball disturbed: inside the old shot, a cue
        ball seen moving only as it reached the ball it was aimed at was taken for a contact
        of that shot, no strike, and the two strokes merged into one (a top 9 ft 50 fps
        break's 6 resting in a side mouth, seed 1074)."""
        if not (self.config.lip_wait_yields and self._in_shot):
            return None
        for ball, detected in self._ready_starts():
            quiet = float(self._quiet_at_start[ball])
            if not math.isfinite(quiet):
                continue  # some ball still rolled as this one left: a contact, in the shot
            seen_s = float(self._history.window(detected, detected + 1)[0][0])
            if seen_s - quiet + 1e-9 < self.config.settle_s:
                continue  # still settling: a ball creeping on belongs to the shot
            if not in_pocket_mouth(self.table, self._anchor_before[ball][None, :])[0]:
                return quiet
        return None

    def _on_lip(self) -> NDArray[np.bool_]:
        """(11,) balls at rest in a pocket mouth that came to rest there in this shot: one
        resting there since before the strike, within a radius of where it was then, may
        not drop late in this shot (it was left on the lip by an earlier one)."""
        offset = self._anchor - self._anchor_at_strike
        stayed = np.sqrt(offset[:, 0] ** 2 + offset[:, 1] ** 2) <= self.table.ball_radius_mm
        resting = self._alive & ~self._moving & np.isfinite(self._anchor[:, 0]) & ~stayed
        lip = np.zeros(NUM_CLASSES, bool)
        if resting.any():
            lip[resting] = in_pocket_mouth(self.table, self._anchor[resting])
        return lip

    def _quiet_start(self, now_s: float, events: list[Event]) -> float:
        """When the table fell quiet, seen at `now_s`: now, or, when a ball the tracker has
        just given up as pocketed or off the table is what kept the shot busy, the later of
        its (back-dated) removal and the last rest of the balls still in play. The tracker
        coasts a dropped ball a while before giving it up; a cue ball placed by hand in that
        time must not find the shot still open."""
        removed = [
            e.time_s for e in events if e.kind in (EventKind.BALL_POCKET, EventKind.BALL_OFF_TABLE)
        ]
        if not removed:
            return now_s
        rests = self._rest_since[self._alive]
        rested = float(rests[np.isfinite(rests)].max()) if np.isfinite(rests).any() else -math.inf
        return min(now_s, max(max(removed), rested))

    def _shot_end(self, trackset: TrackSet, events: list[Event]) -> list[Event]:
        if not self._in_shot:
            return []
        latest = self._history.window(self._history.count - 1, self._history.count)[2][0]
        hidden = ~np.isfinite(latest[:, 0])
        # A ball hidden while moving keeps the shot open until the tracker gives it up, or
        # while it coasts no slower than a ball at rest creeps: a track held on a stray
        # sighting coasts on at a few mm/s, and must not hold the shot open for ever.
        speed_sq = np.einsum("bi,bi->b", self._velocity, self._velocity)
        given_up = hidden & (speed_sq < self.config.rest_speed_mm_s**2)
        busy = bool((self._moving & self._alive & ~given_up).any() or self._pending_starts)
        if busy or self._hidden_rolling(trackset.time_s):
            self._quiet_since = None
            return []
        if self._quiet_since is None:
            self._quiet_since = self._quiet_start(trackset.time_s, events)
        if trackset.time_s - self._quiet_since + 1e-9 < self.config.settle_s:
            return []
        if self._on_lip().any() and trackset.time_s - self._quiet_since < self.config.lip_wait_s:
            return []  # a ball on a pocket lip may still drop (the 5-second rule)
        self._in_shot = False
        self._quiet_since = None
        return [Event(trackset.frame, trackset.time_s, EventKind.SHOT_END)]
