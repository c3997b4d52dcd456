"""Kinematic ball sequences with exact truth, and noisy detections made from them.

`simulate` plays balls on a table with straight-line motion, constant rolling deceleration,
equal-mass ball collisions, cushion reflections and drops into pockets, event by event, so
every contact time is exact. `detections_from` turns the truth into the `Detections` a
detector would give: noise, misses and occlusion gaps from a seeded Generator, and class
probabilities with confusion between balls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from calibration.table import Pocket, TableSpec
from tracking.event_config import EventConfig
from tracking.events import EventDetector
from tracking.tracker import BallTracker, TrackerConfig
from tracking.types import Event, EventKind, TrackSet, TrackStatus
from vision.types import NUM_CLASSES, Detections

TABLE = TableSpec()
FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Truth:
    """Exact ball states at the frame instants and the exact events.

    Attributes:
        time_s: (F,) frame times.
        xy_mm: (F, 11, 2) centres, NaN when the ball is not on the table.
        events: exact events (time_s exact, frame = first frame at or after it).
        fps: frame rate.
    """

    time_s: FloatArray
    xy_mm: FloatArray
    events: list[Event]
    fps: float

    def on_table(self) -> NDArray[np.bool_]:
        return np.isfinite(self.xy_mm[:, :, 0])


@dataclass(slots=True)
class _Sim:
    xy: FloatArray
    v: FloatArray
    present: NDArray[np.bool_]
    events: list[tuple[float, EventKind, tuple[int, ...], str | None]] = field(default_factory=list)


def _advance(sim: _Sim, h: float, decel: float) -> None:
    speed = np.linalg.norm(sim.v, axis=1)
    moving = speed > 0
    sim.xy[sim.present] += sim.v[sim.present] * h
    new_speed = np.maximum(speed - decel * h, 0.0)
    scale = np.where(moving, new_speed / np.where(moving, speed, 1.0), 0.0)
    sim.v *= scale[:, None]


def _next_ball_contact(sim: _Sim, h: float, diameter: float) -> tuple[float, int, int] | None:
    best: tuple[float, int, int] | None = None
    idx = np.flatnonzero(sim.present)
    for a_pos, a in enumerate(idx):
        for b in idx[a_pos + 1 :]:
            d = sim.xy[a] - sim.xy[b]
            w = sim.v[a] - sim.v[b]
            aa, bb, cc = w @ w, 2 * d @ w, d @ d - diameter**2
            if aa < 1e-12 or bb >= 0:
                continue
            disc = bb * bb - 4 * aa * cc
            if disc < 0:
                continue
            t = (-bb - math.sqrt(disc)) / (2 * aa)
            if -1e-9 <= t <= h and (best is None or t < best[0]):
                best = (max(t, 0.0), int(a), int(b))
    return best


def _in_mouth(table: TableSpec, xy: FloatArray, side: int) -> bool:
    along = xy[1] if side < 2 else xy[0]
    corner = table.corner_mouth_mm / math.sqrt(2.0)
    limit = table.width_mm if side < 2 else table.length_mm
    if along < corner or along > limit - corner:
        return True
    return side >= 2 and abs(along - table.length_mm / 2) < table.side_mouth_mm / 2


def _next_wall(sim: _Sim, h: float, table: TableSpec) -> tuple[float, int, int, bool] | None:
    r = table.ball_radius_mm
    best: tuple[float, int, int, bool] | None = None
    normals = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    for ball in np.flatnonzero(sim.present):
        x, y = sim.xy[ball]
        gaps = np.array([x, table.length_mm - x, y, table.width_mm - y])
        for side in range(4):
            approach = -(sim.v[ball] @ normals[side])
            if approach <= 1e-9:
                continue
            t_cush = (gaps[side] - r) / approach
            if not (-1e-9 <= t_cush <= h) or (best is not None and t_cush >= best[0]):
                continue
            # Reaching the cushion line inside a pocket mouth is a drop.
            drop = _in_mouth(table, sim.xy[ball] + sim.v[ball] * t_cush, side)
            best = (max(t_cush, 0.0), int(ball), side, drop)
    return best


def _nearest_pocket(table: TableSpec, xy: FloatArray) -> str:
    d = np.linalg.norm(table.pockets_xy_mm() - xy, axis=1)
    return str(list(Pocket)[int(np.argmin(d))])


def _step(sim: _Sim, t: float, h: float, table: TableSpec) -> float:
    """Advance to the next contact inside [t, t + h] and resolve it; returns the new time."""
    contact = _next_ball_contact(sim, h, table.ball_diameter_mm)
    wall = _next_wall(sim, h, table)
    if contact is not None and (wall is None or contact[0] <= wall[0]):
        dt, a, b = contact
        _advance(sim, dt, 0.0)
        n = (sim.xy[b] - sim.xy[a]) / np.linalg.norm(sim.xy[b] - sim.xy[a])
        va, vb = sim.v[a] @ n, sim.v[b] @ n
        striker = (a, b) if np.linalg.norm(sim.v[a]) >= np.linalg.norm(sim.v[b]) else (b, a)
        sim.v[a] += (vb - va) * n
        sim.v[b] += (va - vb) * n
        sim.events.append((t + dt, EventKind.BALL_BALL, striker, None))
        return t + dt
    if wall is not None:
        dt, ball, side, drop = wall
        _advance(sim, dt, 0.0)
        if drop:
            sim.present[ball] = False
            sim.v[ball] = 0.0
            pocket = _nearest_pocket(table, sim.xy[ball])
            sim.events.append((t + dt, EventKind.BALL_POCKET, (ball,), pocket))
        else:
            normal = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])[side]
            sim.v[ball] -= 1.8 * (sim.v[ball] @ normal) * normal
            name = str(table.nearest_cushion(*sim.xy[ball]))
            sim.events.append((t + dt, EventKind.BALL_CUSHION, (ball,), name))
        return t + dt
    _advance(sim, h, 0.0)
    return t + h


def simulate(
    positions: dict[int, tuple[float, float]],
    strikes: list[tuple[float, int, tuple[float, float]]],
    duration_s: float,
    fps: float = 60.0,
    table: TableSpec = TABLE,
    decel_mm_s2: float = 250.0,
) -> Truth:
    """Play balls from ``positions`` with impulses ``strikes`` [(time_s, ball, velocity)].

    The first strike of the cue ball (0) is reported as a ``strike``, others as
    ``ball_disturbed``; ``shot_end`` is not added.
    """
    sim = _Sim(
        np.full((NUM_CLASSES, 2), np.nan), np.zeros((NUM_CLASSES, 2)), np.zeros(NUM_CLASSES, bool)
    )
    for ball, xy in positions.items():
        sim.xy[ball] = xy
        sim.present[ball] = True
    frames = round(duration_s * fps) + 1
    times = np.arange(frames) / fps
    out = np.full((frames, NUM_CLASSES, 2), np.nan)
    pending = sorted(strikes)
    t, sub = 0.0, 1.0 / (fps * 8)
    for f, frame_time in enumerate(times):
        while t < frame_time - 1e-12:
            while pending and pending[0][0] <= t + 1e-12:
                _, ball, velocity = pending.pop(0)
                kind = EventKind.STRIKE if ball == 0 else EventKind.BALL_DISTURBED
                sim.v[ball] = velocity
                sim.events.append((t, kind, (ball,), None))
            h = min(sub, frame_time - t)
            if pending:
                h = min(h, max(pending[0][0] - t, 1e-9))
            t_new = _step(sim, t, h, table)
            _advance(sim, 0.0, 0.0)
            # Rolling deceleration applied over the time actually advanced.
            speed = np.linalg.norm(sim.v, axis=1)
            keep = np.maximum(speed - decel_mm_s2 * (t_new - t), 0.0)
            sim.v *= np.where(speed > 0, keep / np.where(speed > 0, speed, 1.0), 0.0)[:, None]
            t = t_new
        out[f] = np.where(sim.present[:, None], sim.xy, np.nan)
    events = [
        Event(
            max(0, math.ceil(ts * fps - 1e-9)),
            ts,
            kind,
            balls,
            cushion=name if kind == EventKind.BALL_CUSHION else None,
            pocket=name if kind == EventKind.BALL_POCKET else None,
        )
        for ts, kind, balls, name in sim.events
    ]
    return Truth(times, out, events, fps)


@dataclass(frozen=True, slots=True)
class Noise:
    """How the fake detector degrades the truth.

    Attributes:
        position_std_mm: Gaussian noise on each centre.
        miss_rate: probability a visible ball is not detected in a frame.
        true_class_prob: probability mass on the right class; the rest goes mostly to one
            confusable class (``confusion``) and a little to all.
        occlusions: (ball, start_s, end_s) spans where the ball is hidden.
    """

    position_std_mm: float = 1.5
    miss_rate: float = 0.0
    true_class_prob: float = 0.85
    confusion: dict[int, int] = field(default_factory=dict)
    occlusions: tuple[tuple[int, float, float], ...] = ()


def detections_from(truth: Truth, noise: Noise, seed: int) -> list[Detections]:
    """One `Detections` per frame of ``truth`` (shuffled order), made noisy with ``seed``."""
    rng = np.random.default_rng(seed)
    out = []
    for f, time_s in enumerate(truth.time_s):
        balls = np.flatnonzero(np.isfinite(truth.xy_mm[f, :, 0]))
        keep = rng.random(len(balls)) >= noise.miss_rate
        for ball, start, end in noise.occlusions:
            keep &= ~((balls == ball) & (start <= time_s <= end))
        balls = rng.permutation(balls[keep])
        xy = truth.xy_mm[f, balls] + rng.normal(0.0, noise.position_std_mm, (len(balls), 2))
        prob = np.full((len(balls), NUM_CLASSES), 0.02)
        for row, ball in enumerate(balls):
            confused = noise.confusion.get(int(ball))
            prob[row, ball] = noise.true_class_prob * 10
            if confused is not None:
                prob[row, confused] = (1.0 - noise.true_class_prob) * 10
        prob /= prob.sum(axis=1, keepdims=True)
        out.append(
            Detections(
                xy_px=xy.astype(np.float32),
                xy_mm=xy.astype(np.float32),
                radius_px=np.full(len(balls), 10.0, np.float32),
                confidence=np.full(len(balls), 0.95, np.float32),
                class_prob=prob.astype(np.float32),
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class Run:
    """What the tracker and the event detector made of a sequence."""

    tracksets: list[TrackSet]
    events: list[Event]


def run_tracking(
    truth: Truth,
    noise: Noise | None = None,
    seed: int = 0,
    configs: tuple[TrackerConfig | None, EventConfig | None] = (None, None),
) -> Run:
    """Feed noisy detections of ``truth`` through `BallTracker` and `EventDetector`."""
    tracker = BallTracker(TABLE, configs[0])
    detector = EventDetector(TABLE, configs[1])
    tracksets, events = [], []
    frames = detections_from(truth, noise or Noise(), seed)
    for index, (detections, time_s) in enumerate(zip(frames, truth.time_s, strict=True)):
        trackset = tracker.update(detections, index, float(time_s))
        tracksets.append(trackset)
        events += detector.update(trackset)
    return Run(tracksets, events)


def identity_switches(truth: Truth, run: Run) -> int:
    """Frames where a visible ball's track sits on another ball's true position."""
    diameter = TABLE.ball_diameter_mm
    switches = 0
    for f, trackset in enumerate(run.tracksets):
        for ball, xy in zip(trackset.ball, trackset.xy_mm, strict=True):
            true_xy = truth.xy_mm[f]
            if not np.isfinite(true_xy[ball, 0]):
                continue
            own = np.linalg.norm(xy - true_xy[ball])
            others = np.linalg.norm(true_xy - xy, axis=1)
            others[ball] = np.inf
            if own > diameter and np.nanmin(others) < 0.5 * diameter:
                switches += 1
    return switches


def position_errors(truth: Truth, run: Run) -> FloatArray:
    """Errors of every on-table track row against the truth, mm."""
    errors = []
    for f, trackset in enumerate(run.tracksets):
        visible = trackset.status == TrackStatus.ON_TABLE
        for ball, xy in zip(trackset.ball[visible], trackset.xy_mm[visible], strict=True):
            if np.isfinite(truth.xy_mm[f, ball, 0]):
                errors.append(float(np.linalg.norm(xy - truth.xy_mm[f, ball])))
    return np.array(errors)


Sighting = tuple[float, float, dict[int, float]]
"""A detection for `track_sightings`: x mm, y mm and {class: probability} (the rest share
what is left)."""


def class_probabilities(weights: dict[int, float]) -> NDArray[np.float64]:
    """(NUM_CLASSES,) probabilities: `weights` for the named classes, 0.002 for the others,
    normalised."""
    prob = np.full(NUM_CLASSES, 0.002)
    for ball, p in weights.items():
        prob[ball] = p
    result: NDArray[np.float64] = prob / prob.sum()
    return result


def detections_of(balls: list[Sighting]) -> Detections:
    """One frame's Detections of `balls` [(x_mm, y_mm, {class: weight})] (pixels = mm, radius
    and confidence 1, `class_probabilities`)."""
    xy = np.array([[x, y] for x, y, _ in balls], np.float32).reshape(-1, 2)
    prob = np.array([class_probabilities(w) for _, _, w in balls], np.float32)
    ones = np.ones(len(balls), np.float32)
    return Detections(xy, xy, ones, ones, prob.reshape(-1, NUM_CLASSES))


def track_sightings(frames: list[list[Sighting]], fps: float = 60.0) -> TrackSet:
    """The tracker's last TrackSet after one Detections per frame of `frames`."""
    tracker = BallTracker(TABLE)
    tracks = TrackSet.empty()
    for index, balls in enumerate(frames):
        tracks = tracker.update(detections_of(balls), index, index / fps)
    return tracks
