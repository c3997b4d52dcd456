"""Samples a planned rack on a fine time grid: positions, heights, spins and orientations.

The grid has `SUBSTEPS` points per frame; frame k is grid point k * SUBSTEPS, the instant
t = k / fps. The points either side of it give the motion-blur samples (an exposure of half a
frame interval, centred on the frame instant, so a blurred ball's mean position is its true
centre at constant speed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from vision.synthetic.balls import random_orientation, rotation_from_vector
from vision.synthetic.plan import RackPlan
from vision.synthetic.scripts import Motion
from vision.synthetic.table_image import pocket_holes_mm
from vision.synthetic.truth import frame_at_or_after
from vision.types import NUM_CLASSES

FloatArray = NDArray[np.float64]

SUBSTEPS = 4
DROP_S = 0.22
"""How long a pocketed ball takes to sink out of sight."""
POCKET_ORDER = ("head_left", "head_right", "side_left", "side_right", "foot_left", "foot_right")
"""Order of `table_image.pocket_holes_mm`."""


@dataclass(frozen=True, slots=True, eq=False)
class Timeline:
    """The clip's sampled motion plus each ball's orientation on the grid.

    Attributes:
        fps: frame rate.
        frame_count: number of frames.
        motion: sampled motion (grid of frame_count * SUBSTEPS + 2 points).
        orientation: (G, 11, 3, 3) body -> table-axes rotations.
        removals: per ball (11), each time it left play: (clip time it left, clip time it
            is back in play or +inf, "pocketed" or "off_table"). Only the cue ball comes
            back (put down in hand after a scratch), and it may leave again.
    """

    fps: float
    frame_count: int
    motion: Motion
    orientation: FloatArray
    removals: tuple[tuple[Removal, ...], ...]

    def frame_index(self, frame: int) -> int:
        """Grid index of frame `frame`."""
        return frame * SUBSTEPS

    def out_of_play(self, ball: int, frame: int) -> str | None:
        """Whether ``ball`` is out of play at ``frame``: its removal kind on the frame it
        left (its last row), "gone" after that until it is back, else None."""
        for left_s, back_s, kind in self.removals[ball]:
            left = frame_at_or_after(left_s, self.fps)
            back = frame_at_or_after(back_s, self.fps) if math.isfinite(back_s) else math.inf
            if frame == left:
                return kind
            if left < frame < back:
                return "gone"
        return None


Removal = tuple[float, float, str]
"""(clip time a ball left play, clip time it is back in play or +inf, "pocketed" or
"off_table")."""


def build_timeline(plan: RackPlan, rng: np.random.Generator) -> Timeline:
    """Sample the whole clip: physics, scripts, pocket drops and rolling orientation."""
    frame_count = math.floor(plan.duration_s * plan.fps) + 1
    times = np.arange(frame_count * SUBSTEPS + 2) / (SUBSTEPS * plan.fps)
    motion = _physics_motion(plan, times)
    for index, shot in enumerate(plan.shots):
        until = plan.shots[index + 1].strike_s if index + 1 < len(plan.shots) else math.inf
        for script in shot.scripts:
            script.modify(motion, until)
    removals: list[list[Removal]] = [[] for _ in range(NUM_CLASSES)]
    drawn = motion.drawn.copy()
    for event in plan.events():
        ball = event.balls[0] if event.balls else -1
        if event.kind not in ("ball_pocket", "ball_off_table"):
            continue
        if removals[ball] and event.time_s < removals[ball][-1][1]:
            continue  # already out of play (a second report of the same removal)
        back_s = _back_in_play(times, drawn[:, ball], event.time_s)
        kind = "pocketed" if event.kind == "ball_pocket" else "off_table"
        removals[ball].append((event.time_s, back_s, kind))
        if event.kind == "ball_pocket":
            _drop(motion, ball, (event.time_s, back_s), str(event.pocket), plan.table)
    orientation = _orientations(motion, plan.table.ball_radius_mm, rng)
    gone = tuple(tuple(r) for r in removals)
    return Timeline(plan.fps, frame_count, motion, orientation, gone)


def _back_in_play(times: FloatArray, drawn: NDArray[np.bool_], removed_s: float) -> float:
    """When a ball removed at ``removed_s`` is drawn on the table again (the cue ball put
    down in hand by a later shot's placement), +inf if never."""
    after = times > removed_s
    gone = np.flatnonzero(after & ~drawn)
    if not len(gone):
        return math.inf
    back = np.flatnonzero((times > times[gone[0]]) & drawn)
    return float(times[back[0]]) if len(back) else math.inf


def _physics_motion(plan: RackPlan, times: FloatArray) -> Motion:
    count = len(times)
    motion = Motion(
        time_s=times,
        xy_mm=np.zeros((count, NUM_CLASSES, 2)),
        height_mm=np.full((count, NUM_CLASSES), plan.table.ball_radius_mm),
        angular_rad_s=np.zeros((count, NUM_CLASSES, 3)),
        drawn=np.zeros((count, NUM_CLASSES), dtype=bool),
        scale=np.ones((count, NUM_CLASSES)),
        shade=np.ones((count, NUM_CLASSES)),
    )
    first = plan.shots[0].strike_s if plan.shots else math.inf
    before = times < first
    for ball, xy in plan.rack.items():
        motion.xy_mm[before, ball] = xy
        motion.drawn[before, ball] = True
    for index, shot in enumerate(plan.shots):
        stop = plan.shots[index + 1].strike_s if index + 1 < len(plan.shots) else math.inf
        window = np.flatnonzero((times >= shot.strike_s) & (times < stop))
        if window.size == 0:
            continue
        states = shot.sim.states(times[window] - shot.strike_s)
        present = states.present[None, :] & ~states.pocketed
        motion.xy_mm[window] = np.nan_to_num(states.xy_mm)
        motion.angular_rad_s[window] = states.angular_rad_s
        motion.drawn[window] = present
    return motion


def _drop(
    motion: Motion, ball: int, gone: tuple[float, float], pocket: str, table: TableSpec
) -> None:
    """Sink a pocketed ball into its hole over DROP_S instead of making it vanish; ``gone``
    is (pocketed at, back in play at) in clip seconds: from then on the motion is left as is."""
    time_s, back_s = gone
    times = motion.time_s[: int(np.searchsorted(motion.time_s, back_s))]
    start = int(np.searchsorted(times, time_s))
    if start >= len(times):
        return
    origin = motion.xy_mm[max(start - 1, 0), ball].copy()
    hole = np.array(pocket_holes_mm(table)[POCKET_ORDER.index(pocket)][0])
    radius = table.ball_radius_mm
    fraction = np.clip((times[start:] - time_s) / DROP_S, 0.0, None)
    sinking = fraction <= 1.0
    rows = np.arange(start, len(times))
    f = fraction[sinking][:, None]
    motion.xy_mm[rows[sinking], ball] = origin + (hole - origin) * np.minimum(f * 1.5, 1.0)
    motion.height_mm[rows[sinking], ball] = radius * (1.0 - 1.5 * f[:, 0])
    motion.scale[rows[sinking], ball] = 1.0 - 0.35 * f[:, 0]
    motion.shade[rows[sinking], ball] = 1.0 - 0.85 * f[:, 0]
    motion.drawn[rows[sinking], ball] = True
    motion.drawn[rows[~sinking], ball] = False
    motion.angular_rad_s[rows, ball] = 0.0


def _orientations(motion: Motion, radius_mm: float, rng: np.random.Generator) -> FloatArray:
    """Integrate each ball's angular velocity over the grid: O(t+h) = exp([w h]x) O(t)."""
    count = len(motion.time_s)
    out = np.zeros((count, NUM_CLASSES, 3, 3))
    step = float(motion.time_s[1] - motion.time_s[0]) if count > 1 else 0.0
    for ball in range(NUM_CLASSES):
        current = random_orientation(rng)
        for index in range(count):
            out[index, ball] = current
            spin = motion.angular_rad_s[index, ball]
            if spin.any():
                current = rotation_from_vector(spin * step) @ current
    return out
