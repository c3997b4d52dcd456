"""Centre jumps: a resting ball "started" by its detected centre, not by a touch.

The detector can move a resting ball's centre by half a radius from one frame to the next
(a ball of the cloth's hue whose lit rim share crosses a threshold, a blob merged with a
ball rolling past, a cast shadow): two displaced sightings running then read as a start,
and a ball rolling past within the contact reach is taken for its toucher (a wrong first
contact, failure type 1). A struck ball cannot move so: leaving at the speed its first
step shows, it keeps going, losing at most `sliding_deceleration_mm_s2` of that speed a
second, unless a ball it rests against takes its momentum (a cluster) or a cushion beside
it sends it back. `stopped_dead` tells a start whose ball covered its first step faster
than it could then stop, and stopped; `JumpCheck` is the mixin through which
`tracking.starts.StartExplainer` dismisses such a start (`EventConfig.jump_check`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking.event_config import EventConfig
from tracking.fastnp import true_indices
from tracking.history import FloatArray, PositionHistory

JUMP_KEEP = 0.5
"""The share of the progress a struck ball must at least make after its first step, of the
least it would make decelerating at `sliding_deceleration_mm_s2` from its first step's
speed (the first step's speed is itself an underestimate when it was struck between
frames, and this leaves room for a poorly fitted step)."""
JUMP_NOISE_SIGMAS = 3.0
"""The progress must also exceed this many standard deviations of a difference of two
sightings: a slow ball's progress within noise tells nothing."""
NEIGHBOUR_DIAMETERS = 1.5
"""A resting ball this near (centre to centre, in diameters) may have taken the struck
ball's momentum: no jump is told then."""
RAIL_DIAMETERS = 1.0
"""A ball this near a cushion line (beyond one radius, in diameters) may have been struck
into it and back: no jump is told then."""


@dataclass(frozen=True, slots=True)
class StartSightings:
    """One start's sightings of the ball that started.

    Attributes:
        before_s: time of its last sighting before the start was seen, s.
        before_mm: (2,) where it was then, mm.
        time_s: (K,) its sightings from the first displaced one on, s (increasing).
        xy_mm: (K, 2) where, mm.
    """

    before_s: float
    before_mm: FloatArray
    time_s: FloatArray
    xy_mm: FloatArray


def stopped_dead(
    seen: StartSightings,
    noise_mm: float,
    steps_mm: tuple[float, float],
    deceleration_mm_s2: float,
) -> bool:
    """Whether a start's ball made its first step faster than it could then stop, and
    stopped (or went back): a centre jump, not a ball set moving.

    Args:
        seen: the start's sightings (`StartSightings`).
        noise_mm: position noise of one sighting, mm.
        steps_mm: the least first step that can tell (a ball creeping out of its rest spot
            over many frames shows no step: its start is left as it is) and the largest a
            centre can jump (within the ball's own image: a radius; a ball a hand jerks a
            diameter aside and leaves there moved, `tracking.disturbances`).
        deceleration_mm_s2: the strongest deceleration of a ball on cloth.

    Returns:
        True for a jump; False when the sightings cannot tell (fewer than three after the
        step, a step too small or too large, too long a gap before it) or the ball kept
        going.
    """
    if len(seen.time_s) < 3:
        return False
    min_step_mm, max_step_mm = steps_mm
    step = seen.xy_mm[0] - seen.before_mm
    step_mm = float(np.hypot(step[0], step[1]))
    gap_s = float(seen.time_s[0] - seen.before_s)
    if not min_step_mm <= step_mm <= max_step_mm or not gap_s > 0.0:
        return False
    speed = step_mm / gap_s
    along = step / step_mm
    # Its progress along the step: the later half of its sightings' median, beyond the
    # first sighting, against the least a ball leaving at ``speed`` covers by then at the
    # strongest braking.
    half = len(seen.time_s) // 2
    progress = float((np.median(seen.xy_mm[half:], axis=0) - seen.xy_mm[0]) @ along)
    elapsed = min(float(np.median(seen.time_s[half:]) - seen.time_s[0]), speed / deceleration_mm_s2)
    least = speed * elapsed - 0.5 * deceleration_mm_s2 * elapsed**2
    noise = JUMP_NOISE_SIGMAS * np.sqrt(2.0) * noise_mm
    return bool(progress < JUMP_KEEP * least - noise or progress < -noise)


def cushioned(
    xy_mm: FloatArray, others_mm: FloatArray, extent_mm: tuple[float, float], diameter_mm: float
) -> bool:
    """Whether a ball at ``xy_mm`` (2,) has a ball resting (or rested last: ``others_mm``
    (B, 2), NaN: none) or a cushion near enough to have stopped it (`NEIGHBOUR_DIAMETERS`,
    `RAIL_DIAMETERS`); ``extent_mm``: the table's (length, width)."""
    radius = 0.5 * diameter_mm
    x, y = float(xy_mm[0]), float(xy_mm[1])
    rail = min(x, extent_mm[0] - x, y, extent_mm[1] - y) - radius
    if rail <= RAIL_DIAMETERS * diameter_mm:
        return True
    finite = true_indices(np.isfinite(others_mm[:, 0]))
    if not len(finite):
        return False
    distance = np.hypot(*(others_mm[finite] - xy_mm[None, :]).T)
    return bool((distance <= NEIGHBOUR_DIAMETERS * diameter_mm).any())


class JumpCheck:
    """Centre jumps for `tracking.starts.StartExplainer` (`tracking.events.EventDetector`
    holds the state declared here)."""

    table: TableSpec
    config: EventConfig
    _history: PositionHistory
    _moving: NDArray[np.bool_]
    _anchor: FloatArray
    _anchor_weight: FloatArray

    @property
    def _noise_mm(self) -> float:
        raise NotImplementedError

    @property
    def _start_distance_mm(self) -> FloatArray:
        raise NotImplementedError

    def _centre_jumped(self, ball: int, detected: int, frames: int) -> bool:
        """Whether the start of ``ball`` seen at push ``detected`` is a centre jump (its
        sightings over ``frames`` from there); if so it is dismissed, the ball at rest where
        it is last seen."""
        if not self.config.jump_check:
            return False
        seen = self._start_sightings(ball, detected, frames)
        if seen is None:
            return False
        # Every ball's rest spot (a moving ball's is where it rested last: a ball the
        # struck one passed its push on to has left it by now).
        others = self._anchor.copy()
        others[ball] = np.nan
        extent = (self.table.length_mm, self.table.width_mm)
        if cushioned(seen.xy_mm[0], others, extent, self.table.ball_diameter_mm):
            return False
        steps = (0.5 * float(self._start_distance_mm[ball]), self.table.ball_radius_mm)
        slowing = self.config.sliding_deceleration_mm_s2
        if not stopped_dead(seen, self._noise_mm, steps, slowing):
            return False
        self._moving[ball] = False
        # Back on its rest spot (a jump of a few frames) it rests there still; else (the
        # centre now seen off it) where it is seen last.
        last = seen.xy_mm[-1]
        if float(np.hypot(*(last - self._anchor[ball]))) > self._start_distance_mm[ball]:
            self._anchor[ball] = last
            self._anchor_weight[ball] = 1.0
        return True

    def _start_sightings(self, ball: int, detected: int, frames: int) -> StartSightings | None:
        """`StartSightings` of a start of ``ball`` seen at push ``detected``: its last sighting
        within three frames before, and its sightings over ``frames`` from there; None when
        either is missing."""
        times, _, xy = self._history.window(detected, detected + frames)
        past_s, _, past = self._history.window(detected - 3, detected)
        seen = true_indices(np.isfinite(xy[:, ball, 0]))
        before = true_indices(np.isfinite(past[:, ball, 0]))
        if not len(seen) or not len(before):
            return None
        return StartSightings(
            float(past_s[before[-1]]), past[before[-1], ball].copy(), times[seen], xy[seen, ball]
        )
