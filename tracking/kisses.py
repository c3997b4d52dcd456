"""Soft kisses: a moving ball that grazed a resting one too softly to start it.

A slow ball (a safety played to touch a ball and die) can push the ball it meets a few
millimetres, less than the start distance that tells a start from the detector's noise,
and barely bend its own path (below the kink threshold): neither a start nor a kink then
reports the contact, and a shot that touched a ball looks like one that touched none (F2,
F3). The resting ball's own sightings tell it: averaged over a few frames once the mover
has gone clear of it, its centre lies off its rest spot, away from where the mover passed,
by more than that average's noise. `KissBook` notes each pass of a moving ball within
touching reach of a resting one and, a moment later, reports the contact if the resting
ball was pushed so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from tracking.fastnp import true_indices
from tracking.history import FloatArray, PositionHistory

KISS_WAIT_S = 0.3
"""How long after a pass the resting ball's sightings are averaged (its second half: the
mover has gone on by then); a kissed ball stops within a few centimetres, at once."""
KISS_REACH_MM = 4.0
"""How near touching (beyond one diameter, centre to centre) a pass must come, at least."""
KISS_MIN_SHIFT_MM = 2.0
"""The smallest shift of the resting ball that counts, however quiet the detector."""
KISS_SIGMAS = 4.0
"""A shift must exceed this many standard deviations of the averaged position."""
KISS_MIN_COSINE = 0.7
"""A kissed ball moves away from the mover along the line of centres: the shift's cosine
with that line must reach this (a blob merged with a passing ball pulls its centre toward
it, or aside)."""
KISS_CLEAR_MM = 5.0
"""The mover must lie this much beyond touching when the shift is measured (two blobs
closer than that can pull each other's centres)."""
KISS_GIVE_UP = 4
"""A pass whose mover is not seen clear of the ball within this many waits is dropped."""
KISS_REST_FRAMES = 10
"""Frames before a pass over which the resting ball's seen position is its rest spot."""
KISS_TOP_SPEED_MM_S = 12_000.0
"""No ball moves faster (a power break's cue ball is some 9-11 m/s)."""


@dataclass(frozen=True, slots=True)
class Pass:
    """A moving ball that came within touching reach of a resting one.

    Attributes:
        mover: the moving ball.
        ball: the resting ball.
        time_s: when the mover's path was nearest, s.
        rest_mm: (2,) the resting ball's rest spot then, mm.
        mover_mm: (2,) the mover's centre then, mm.
        push: the history push at which the pass was first seen.
        gap_mm: how far apart the centres came, mm.
    """

    mover: int
    ball: int
    time_s: float
    rest_mm: FloatArray
    mover_mm: FloatArray
    push: int
    gap_mm: float


class KissBook:
    """Passes waiting to be judged, and the judgement.

    Args:
        diameter_mm: ball diameter.
    """

    def __init__(self, diameter_mm: float) -> None:
        self.diameter_mm = diameter_mm
        self.passes: list[Pass] = []

    def note_passes(
        self,
        history: PositionHistory,
        moving: NDArray[np.bool_],
        anchor_mm: FloatArray,
        noise_mm: float,
    ) -> None:
        """Note each moving ball seen on the last two frames whose step between them came
        within touching reach of a resting ball's rest spot (``anchor_mm`` (11, 2), NaN:
        none; a ball in ``moving`` has none that counts)."""
        count = history.count
        times, _, xy = history.window(count - 2, count)
        if len(times) < 2:
            return
        resting = ~moving & np.isfinite(anchor_mm[:, 0]) & np.isfinite(xy[1, :, 0])
        step_mm = np.hypot(*np.moveaxis(xy[1] - xy[0], -1, 0))
        # A step no ball can make in a frame is a track jumping between detections (a
        # ghost, a swapped name), not a ball rolling past.
        possible = step_mm <= KISS_TOP_SPEED_MM_S * float(times[1] - times[0])
        movers = moving & np.isfinite(xy[0, :, 0]) & np.isfinite(xy[1, :, 0]) & possible
        if not movers.any() or not resting.any():
            return
        reach = self.diameter_mm + max(KISS_REACH_MM, 2.0 * noise_mm)
        # Nearest point of each mover's step (M) to each rest spot (R), all pairs at once.
        start, step = xy[0, movers], xy[1, movers] - xy[0, movers]
        spots = anchor_mm[resting]
        length2 = np.maximum(np.einsum("mi,mi->m", step, step), 1e-12)
        frac = np.einsum("mri,mi->mr", spots[None] - start[:, None], step) / length2[:, None]
        frac = np.clip(frac, 0.0, 1.0)
        nearest = start[:, None] + frac[..., None] * step[:, None]
        gap = np.hypot(*np.moveaxis(spots[None] - nearest, -1, 0))
        waiting = {(p.mover, p.ball): i for i, p in enumerate(self.passes)}
        mover_ids, ball_ids = true_indices(movers), true_indices(resting)
        # Only a step that closed on the spot: a ball leaving a neighbour it lay against
        # (a rack) starts nearest it, and the neighbour's centre, no longer merged with it,
        # moves back away.
        for m, r in zip(*np.nonzero((gap <= reach) & (frac > 0.0)), strict=True):
            mover, ball = int(mover_ids[m]), int(ball_ids[r])
            when = float(times[0] + frac[m, r] * (times[1] - times[0]))
            found = Pass(
                mover,
                ball,
                when,
                spots[r].copy(),
                nearest[m, r].copy(),
                count - 1,
                float(gap[m, r]),
            )
            index = waiting.get((mover, ball))
            if index is None:
                self.passes.append(replace(found, rest_mm=_seen_rest(history, ball, spots[r])))
            elif gap[m, r] < self.passes[index].gap_mm:
                # Nearer on this step: the pass is timed where the mover came nearest.
                earlier = self.passes[index]
                self.passes[index] = replace(found, rest_mm=earlier.rest_mm, push=earlier.push)

    def judge(
        self, history: PositionHistory, moving: NDArray[np.bool_], noise_mm: float, dt: float
    ) -> list[tuple[Pass, FloatArray]]:
        """The passes now judged that pushed their resting ball: [(pass, the ball's new rest
        spot (2,) mm)]. A pass is judged `KISS_WAIT_S` after it, once the mover is seen clear
        of the ball (`KISS_CLEAR_MM`), on the ball's sightings of the last half of that
        wait; one whose mover stays against the ball (or hidden) for `KISS_GIVE_UP` waits,
        or whose ball started meanwhile (told by its start), is dropped."""
        wait = max(4, math.ceil(KISS_WAIT_S / dt))
        count = history.count
        _, _, xy = history.window(count - wait // 2, count)
        kept, found = [], []
        for kiss in self.passes:
            if count - kiss.push < wait:
                kept.append(kiss)
                continue
            if moving[kiss.ball]:
                continue
            gap = float(np.hypot(*(xy[-1, kiss.mover] - xy[-1, kiss.ball])))
            # Clear on every sighting averaged, not only the last: a mover back against the
            # ball there (c30t shot 3: the cue ball passed the 1 by 1.3 mm, came back off
            # the rail and hit it as the pass was judged) pushed it itself.
            gaps = np.hypot(*np.moveaxis(xy[:, kiss.mover] - xy[:, kiss.ball], -1, 0))
            if np.any(gaps < self.diameter_mm + KISS_CLEAR_MM):
                gap = math.nan
            if not gap >= self.diameter_mm + KISS_CLEAR_MM:  # NaN: one is out of sight
                if count - kiss.push < KISS_GIVE_UP * wait:
                    kept.append(kiss)
                continue
            shifted = _shift(xy[:, kiss.ball], kiss, noise_mm)
            if shifted is not None:
                found.append((kiss, shifted))
        self.passes = kept
        return found


def _seen_rest(history: PositionHistory, ball: int, anchor_mm: FloatArray) -> FloatArray:
    """Where ``ball`` was seen resting as a pass began: the median of its sightings over the
    `KISS_REST_FRAMES` frames before the step, or its rest spot ``anchor_mm`` (2,) when seen
    on fewer than three. The rest spot can lag the ball (c30t shot 3: the 1's lay 5.8 mm
    short of where it crept to, under half the start distance, so never updated): a shift
    from it that was there before the pass is no kiss."""
    count = history.count
    _, _, xy = history.window(count - 1 - KISS_REST_FRAMES, count - 1)
    seen = xy[:, ball][np.isfinite(xy[:, ball, 0])]
    if len(seen) < 3:
        return anchor_mm.copy()
    rest: FloatArray = np.median(seen, axis=0)
    return rest


def _shift(xy_mm: FloatArray, kiss: Pass, noise_mm: float) -> FloatArray | None:
    """Where ``kiss``'s ball rests, from its sightings ``xy_mm`` (K, 2) mm (NaN: unseen),
    when that lies away from the mover beyond the noise of the average; else None."""
    seen = xy_mm[np.isfinite(xy_mm[:, 0])]
    if len(seen) < 3:
        return None
    where: FloatArray = np.median(seen, axis=0)
    shift = where - kiss.rest_mm
    size = float(np.hypot(*shift))
    if size < max(KISS_MIN_SHIFT_MM, KISS_SIGMAS * noise_mm / math.sqrt(len(seen))):
        return None
    normal = kiss.rest_mm - kiss.mover_mm
    cosine = float(shift @ normal) / max(size * float(np.hypot(*normal)), 1e-9)
    return where if cosine >= KISS_MIN_COSINE else None
