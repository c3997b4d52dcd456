"""Balls the camera lost in a shot and never found again: where they most likely went.

The tracker removes a ball when it sees it go: a path into a pocket, a last sighting beyond a
cushion line. A ball can also vanish between two frames and never be seen again: knocked
from rest over a near cushion (it left the table before the next frame), or rolling into a
pocket while the detector had already lost it. The tracker then keeps it hidden for good and
the shot would end as if it were still on the table.

`LossBook` remembers, for each ball lost since it was last reliably seen, where it was and
how fast it was going (`Loss`); `fate` follows that straight path: into a pocket mouth, or
into a cushion hard enough to leave the table. The result is an inference, never a sighting:
its event carries a confidence below the review threshold, so a call that rests on it is
flagged for review rather than stated as certain. A lost ball whose path meets another ball
first, or that was going too slowly to get anywhere, has no fate: it stays on the table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking.event_config import EventConfig
from tracking.fastnp import true_indices
from tracking.geometry import POCKETS, beside_side_mouth
from tracking.status_masks import status_is
from tracking.types import EventKind, TrackSet, TrackStatus
from vision.types import NUM_CLASSES

FloatArray = NDArray[np.float64]

_CLIMB_FRACTION = 0.5
"""A centre seen this many radii beyond the line where a ball on the bed touches a cushion
is on the cushion (the nose gives a few millimetres): the ball was climbing it."""


@dataclass(frozen=True, slots=True)
class Loss:
    """A ball lost from sight and its estimated motion as it vanished.

    Attributes:
        ball: ball class (0 cue, 1..10).
        time_s: when it was last seen (or, struck, when it was hit), s.
        xy_mm: (2,) where, table mm.
        velocity_mm_s: (2,) its estimated velocity then, mm/s (zeros: at rest, not hit).
        confidence: 0..1, how sure the velocity is (a fitted roll, or one inferred from the
            ball that hit it).
        struck_by: the ball that hit it as it vanished, or None.
        taken_over: another ball was seen where it would have been just after (`taken_over`):
            its last sightings may have been that ball.
    """

    ball: int
    time_s: float
    xy_mm: FloatArray
    velocity_mm_s: FloatArray
    confidence: float
    struck_by: int | None = None
    taken_over: bool = False

    def __post_init__(self) -> None:
        for name in ("xy_mm", "velocity_mm_s"):
            value = np.asarray(getattr(self, name), dtype=np.float64)
            if value.shape != (2,):
                raise ValueError(f"Loss.{name} must have shape (2,), got {value.shape}")
            object.__setattr__(self, name, value)


@dataclass(frozen=True, slots=True)
class Fate:
    """Where a lost ball most likely went.

    Attributes:
        kind: ``ball_pocket`` or ``ball_off_table``.
        time_s: when it got there, s.
        pocket: the pocket's name for ``ball_pocket``.
        confidence: 0..1.
        reason: the inference in words (for the review).
    """

    kind: EventKind
    time_s: float
    pocket: str | None
    confidence: float
    reason: str


def _pocket_ahead(
    table: TableSpec, start: FloatArray, direction: FloatArray, reach_mm: float
) -> tuple[int, float] | None:
    """(index into POCKETS, distance along the path) of the first pocket whose point the path
    passes within half its mouth, no further than ``reach_mm`` (a side pocket's: only when
    the path crosses the cushion line within its mouth, `geometry.beside_side_mouth`);
    None when there is none."""
    best: tuple[int, float] | None = None
    for index, pocket in enumerate(POCKETS):
        offset = np.asarray(table.pocket_xy_mm(pocket)) - start
        along = float(offset @ direction)
        across = abs(float(offset[0] * direction[1] - offset[1] * direction[0]))
        mouth = table.corner_mouth_mm if pocket.is_corner() else table.side_mouth_mm
        inside = 0.0 < along <= reach_mm and across <= 0.5 * mouth
        if inside and not pocket.is_corner():
            inside = not bool(beside_side_mouth(table, start[None], direction[None])[0])
        if inside and (best is None or along < best[1]):
            best = (index, along)
    return best


def cushion_ahead(
    table: TableSpec, start: FloatArray, direction: FloatArray
) -> tuple[float, float, float]:
    """(distance along the path to where the ball meets a cushion (centre one radius from
    its line), cosine between the path and that cushion's outward normal, how far the
    centre already lies beyond that radius line (0 when short of it), mm)."""
    radius = table.ball_radius_mm
    limits = (
        (0, -1.0, radius),
        (0, 1.0, table.length_mm - radius),
        (1, -1.0, radius),
        (1, 1.0, table.width_mm - radius),
    )
    best = (math.inf, 0.0, 0.0)
    for axis, sign, line in limits:
        component = float(direction[axis]) * sign
        if component <= 0.0:
            continue
        gap = (line - float(start[axis])) * sign
        distance = max(0.0, gap) / component
        if distance < best[0]:
            best = (distance, component, max(0.0, -gap))
    return best


def _blocked(
    start: FloatArray, direction: FloatArray, length: float, others: FloatArray, diameter: float
) -> bool:
    """Whether another ball (rows of ``others``, NaN ignored) lies within one diameter of the
    path before ``length``: the lost ball would have met it, and its fate is unknown."""
    seen = others[np.isfinite(others[:, 0])]
    if not len(seen):
        return False
    offset = seen - start
    along = offset @ direction
    across = np.abs(offset[:, 0] * direction[1] - offset[:, 1] * direction[0])
    return bool(np.any((along > 0.0) & (along < length + diameter) & (across < diameter)))


def fate(table: TableSpec, loss: Loss, others: FloatArray, config: EventConfig) -> Fate | None:
    """Where ``loss``'s ball went, following its straight path; None when it cannot be told.

    Args:
        table: the table.
        loss: the lost ball.
        others: (11, 2) where the other balls are (NaN: unknown or gone; the lost ball's own
            row and its striker's are ignored).
        config: `EventConfig.off_table_min_speed_mm_s`, the confidences and the deceleration.

    Returns:
        A pocket the path enters, or a cushion it meets hard enough to have left the table;
        None for a slow ball, a path that meets another ball first, or a cushion hit too
        softly (it bounced, and is only hidden).
    """
    speed = float(np.linalg.norm(loss.velocity_mm_s))
    if speed < config.start_min_speed_mm_s:
        return None
    direction = loss.velocity_mm_s / speed
    # The farthest it can roll at the gentlest deceleration: a generous reach.
    reach = speed**2 / (2.0 * config.rolling_deceleration_mm_s2)
    obstacles = np.array(others, dtype=np.float64, copy=True)
    obstacles[loss.ball] = np.nan
    if loss.struck_by is not None:
        obstacles[loss.struck_by] = np.nan
    hit_distance, outward, depth = cushion_ahead(table, loss.xy_mm, direction)
    # Where the path meets a cushion line within a mouth, there is no cushion: it goes on in.
    mouth = max(table.corner_mouth_mm, table.side_mouth_mm)
    pocket = _pocket_ahead(table, loss.xy_mm, direction, min(reach, hit_distance + mouth))
    length = pocket[1] if pocket is not None else hit_distance
    if length > reach or _blocked(loss.xy_mm, direction, length, obstacles, table.ball_diameter_mm):
        return None
    time_s = loss.time_s + length / speed
    how = "rolling" if loss.struck_by is None else f"hit by the {_name(loss.struck_by)}"
    if pocket is not None:
        name = str(POCKETS[pocket[0]])
        return Fate(
            EventKind.BALL_POCKET,
            time_s,
            name,
            min(loss.confidence, config.lost_pocket_confidence),
            f"lost {how} at {speed / 1000:.1f} m/s heading into the {name} pocket, not seen again",
        )
    # In a pocket mouth a centre may pass the cushion lines: no climbing is seen there.
    mouth_gap = np.min(np.linalg.norm(table.pockets_xy_mm() - loss.xy_mm, axis=1))
    depth = 0.0 if mouth_gap <= mouth else depth
    if not _leaves(table, (speed, length, outward, depth), config):
        return None
    return Fate(
        EventKind.BALL_OFF_TABLE,
        time_s,
        None,
        min(loss.confidence, config.lost_off_table_confidence),
        f"lost {how} at {speed / 1000:.1f} m/s {length:.0f} mm from a cushion, not seen again",
    )


def _leaves(table: TableSpec, path: tuple[float, float, float, float], config: EventConfig) -> bool:
    """Whether a ball lost at ``speed`` mm/s, ``length`` mm before a cushion it meets at
    ``outward`` (cosine with the cushion's normal), last seen ``depth`` mm beyond the line
    where it touches that cushion, may have left the table: it hit that cushion hard enough
    (slowing on the way at the gentlest rolling deceleration), or it was already seen
    climbing the cushion (its centre nearer the cushion line than a ball on the bed can be,
    by more than half a radius).

    However far it was lost from the cushion: the detector loses fast balls in their own
    blur for many frames (fresh s3_top: a ball struck at 7 m/s was never seen between its
    rest spot and the cushion 820 mm away), and a ball that bounced back stays on the bed,
    slows, and is found again before the shot is judged (a loss is judged only once the
    table has been quiet for ``settle_s``)."""
    speed, length, outward, depth = path
    slowing = 2.0 * config.rolling_deceleration_mm_s2 * length
    at_cushion = math.sqrt(max(speed**2 - slowing, 0.0))
    climbing = depth > _CLIMB_FRACTION * table.ball_radius_mm
    return climbing or at_cushion * outward >= config.off_table_min_speed_mm_s


def median_velocity(time_s: FloatArray, xy_mm: FloatArray) -> tuple[FloatArray, int]:
    """A straight path's velocity from its sightings, robust to one stray sighting: the
    median, per axis, of the velocities between every two sightings (Theil-Sen). A track
    that took another ball's detection for a frame (a break's crowded rack) gives one
    sighting off the path: a least-squares fit over a few sightings follows it (fresh off
    its start, two sightings, one of them stray: 6.8 m/s for a ball going 2.4).

    Args:
        time_s: (K,) sighting times, s.
        xy_mm: (K, 2) the sighted centres, mm (NaN rows are skipped).

    Returns:
        (velocity (2,) mm/s, zeros with under two sightings; sightings used).
    """
    seen = np.isfinite(xy_mm[:, 0])
    times, xy = time_s[seen], xy_mm[seen]
    if len(times) < 2:
        return np.zeros(2), len(times)
    first, second = np.triu_indices(len(times), k=1)
    span = times[second] - times[first]
    keep = span > 1e-9
    slopes = (xy[second[keep]] - xy[first[keep]]) / span[keep, None]
    if not len(slopes):
        return np.zeros(2), len(times)
    velocity: FloatArray = np.median(slopes, axis=0)
    return velocity, len(times)


def taken_over(loss: Loss, time_s: float, visible_xy: FloatArray, reach_mm: float) -> bool:
    """Whether another ball is seen, at ``time_s``, within ``reach_mm`` of where the lost
    ball would be: the detector may have given the lost ball that ball's name (or it is
    hidden behind it), so its vanishing says nothing about where it went.

    Args:
        loss: the lost ball.
        time_s: the time of ``visible_xy``, s.
        visible_xy: (11, 2) the balls seen then (NaN: not seen; the lost ball's row is
            ignored, and so is the row of the ball that struck it, beside it at the contact).
        reach_mm: how close counts (a diameter and a tolerance).
    """
    there = loss.xy_mm + loss.velocity_mm_s * (time_s - loss.time_s)
    seen = np.array(visible_xy, dtype=np.float64, copy=True)
    seen[loss.ball] = np.nan
    if loss.struck_by is not None:
        seen[loss.struck_by] = np.nan
    seen = seen[np.isfinite(seen[:, 0])]
    return bool(len(seen)) and bool(np.min(np.linalg.norm(seen - there, axis=1)) <= reach_mm)


def _name(ball: int) -> str:
    return "cue ball" if ball == 0 else str(ball)


class LossBook:
    """Which balls are lost: seen, then hidden, and not found again since.

    A ball is found again after some sightings in a row; single sightings (the detector
    calling another ball by its name) do not count, and do not start a new loss.
    """

    def __init__(self) -> None:
        self.losses: dict[int, tuple[Loss, Fate | None]] = {}
        self.gone: set[int] = set()
        """Balls whose loss was judged to be a removal: not lost again until found again."""
        self.approached: set[int] = set()
        """Lost balls, at rest when lost, that a moving ball came near since: they may have
        been hit out of sight."""
        self.blurred: dict[int, list[tuple[int, FloatArray]]] = {}
        """Per lost ball, the other balls that had just vanished as it was lost, and where
        they were last seen (a fast ball in its blur may have hit it)."""
        self.approach_speed: dict[int, float] = {}
        """Per ball in ``approached``, the fastest a ball came near it at, mm/s: no faster
        can it have been sent off."""
        self.ghosts: set[int] = set()
        """Lost balls whose tracks were never balls (`DropExplainer._ghost`): no fate."""
        self._streak = np.zeros(NUM_CLASSES, np.int64)
        self._visible = np.zeros(NUM_CLASSES, bool)

    def observe(self, trackset: TrackSet, found_frames: int = 3) -> NDArray[np.int64]:
        """Take one frame's tracks; return the balls newly lost on it (hidden now, seen on
        the two frames before, not already lost).

        Args:
            trackset: the frame's tracks.
            found_frames: sightings in a row that find a lost ball again (at least 2).
        """
        if found_frames < 2:
            raise ValueError(f"found_frames must be at least 2, got {found_frames}")
        visible = np.zeros(NUM_CLASSES, bool)
        hidden = np.zeros(NUM_CLASSES, bool)
        visible[trackset.ball[status_is(trackset.status, TrackStatus.ON_TABLE)]] = True
        hidden[trackset.ball[status_is(trackset.status, TrackStatus.OCCLUDED)]] = True
        # A ball lost after one sighting was hardly seen: that sighting may be another ball.
        lost = self._visible & (self._streak >= 2) & hidden
        self._streak = np.where(visible, self._streak + 1, 0)
        found = self._streak >= found_frames
        for ball in list(self.losses):
            if found[ball] or not (visible[ball] or hidden[ball]):
                del self.losses[ball]  # found again, or removed (pocketed, off the table)
        self.approached &= set(self.losses)
        self.approach_speed = {b: v for b, v in self.approach_speed.items() if b in self.approached}
        self.ghosts &= set(self.losses)
        self.blurred = {ball: spots for ball, spots in self.blurred.items() if ball in self.losses}
        self.gone -= set(true_indices(found).tolist())
        lost[np.array([*self.losses, *self.gone], np.int64)] = False
        self._visible = visible
        return true_indices(lost)

    def add(self, loss: Loss, where: Fate | None) -> None:
        """Record a ball's loss and its fate, judged when it was lost (replacing none: the
        first loss since the ball was found counts)."""
        self.losses.setdefault(loss.ball, (loss, where))

    def take(self, lost_before_s: float = math.inf) -> list[tuple[Loss, Fate | None]]:
        """The losses from before ``lost_before_s``, with their fates, by time; each is then
        forgotten (judged once) and its ball, given a fate, is gone until found again.
        Later losses stay: too fresh to tell a removal from a ball about to be found."""
        out = sorted(
            (entry for entry in self.losses.values() if entry[0].time_s <= lost_before_s),
            key=lambda entry: entry[0].time_s,
        )
        for loss, where in out:
            del self.losses[loss.ball]
            if where is not None:
                self.gone.add(loss.ball)
        return out

    def resting(self) -> list[Loss]:
        """The losses of balls lost at rest, not known to be hit, that no moving ball came
        near since (`approached`)."""
        return [
            loss
            for loss, _ in self.losses.values()
            if loss.struck_by is None
            and loss.ball not in self.approached
            and not np.any(loss.velocity_mm_s)
        ]
