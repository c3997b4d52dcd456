"""The scripted fouls: a ball nudged at rest, a ball jumping off the table, a 10 on the lip.

Each is exact by construction: the script decides the motion and the event times, and the
rest of the shot stays the simulated physics. (A strike while balls still roll is pure
physics: see `plan`.)

- `nudge`: before the stroke, a hand pushes an object ball 35-60 mm while every ball is at
  rest: a `ball_disturbed` event when it starts to move; the shot's `balls_disturbed` fact.
- `off-table`: a shot in which an object ball meets a cushion hard and touches nothing
  afterwards; from that contact the ball rises over the cushion and rail and falls off:
  `ball_off_table` when its centre crosses the cushion nose.
- `lip-late` / `lip-stay`: a shot that pockets the 10; instead, the 10 slows to a stop on the
  lip; `lip-late` drops it 1.5 s after every ball is at rest (within the 5 s of I-20, so it
  counts as pocketed on the shot), `lip-stay` leaves it there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from vision.synthetic.physics import settle_time
from vision.synthetic.render import Overlay
from vision.synthetic.scripts import Motion, Positions, ScriptKind
from vision.synthetic.truth import TruthEvent
from vision.types import BALL_NAMES, CUE

if TYPE_CHECKING:
    from vision.synthetic.physics import SimulatedShot
    from vision.synthetic.plan import PlannedShot

FloatArray = NDArray[np.float64]
SKIN_BGR = (120, 150, 200)
NUDGE_S = 0.3
NUDGE_BEFORE_STRIKE_S = 0.55
JUMP_MIN_SPEED_MM_S = 1300.0
JUMP_RISE_MM_S = 1300.0
GRAVITY_MM_S2 = 9810.0
LIP_DECELERATION_MM_S2 = 700.0
LATE_DROP_S = 1.5


def _smooth(fraction: FloatArray) -> FloatArray:
    f = np.clip(fraction, 0.0, 1.0)
    out: FloatArray = f * f * (3.0 - 2.0 * f)
    return out


def _rolling_spin(velocity_mm_s: FloatArray, radius_mm: float) -> FloatArray:
    """(K, 3) angular velocity of a ball rolling without slip (table axes, z down)."""
    v = np.atleast_2d(velocity_mm_s)
    return np.column_stack([v[:, 1], -v[:, 0], np.zeros(len(v))]) / radius_mm


@dataclass(frozen=True, slots=True)
class Placement:
    """Ball in hand: the cue ball is lifted and put down at `end_xy` at `t0_s` (legal)."""

    start_xy: tuple[float, float]
    end_xy: tuple[float, float]
    t0_s: float
    strike_s: float

    def disturbed(self) -> list[int]:
        return []

    def final_positions(self, positions: Positions) -> Positions:
        return positions

    def modify(self, motion: Motion, until_s: float) -> None:
        times = motion.time_s
        window = (times >= self.t0_s) & (times < self.strike_s)
        motion.xy_mm[window, CUE] = self.end_xy
        motion.drawn[window, CUE] = True
        motion.angular_rad_s[window, CUE] = 0.0

    def overlays(self, time_s: float) -> list[Overlay]:
        return []


@dataclass(frozen=True, slots=True)
class Nudge:
    """A resting ball pushed by a hand from `start_xy` to `end_xy` over [t0, t1]."""

    ball: int
    start_xy: tuple[float, float]
    end_xy: tuple[float, float]
    t0_s: float
    t1_s: float
    strike_s: float
    radius_mm: float

    def disturbed(self) -> list[int]:
        return [self.ball]

    def final_positions(self, positions: Positions) -> Positions:
        return positions

    def modify(self, motion: Motion, until_s: float) -> None:
        times = motion.time_s
        window = (times >= self.t0_s) & (times < self.strike_s)
        fraction = _smooth((times[window] - self.t0_s) / (self.t1_s - self.t0_s))
        start, end = np.array(self.start_xy), np.array(self.end_xy)
        motion.xy_mm[window, self.ball] = start + (end - start) * fraction[:, None]
        moving = window & (times <= self.t1_s)
        speed = (end - start) / (self.t1_s - self.t0_s) * 1.5
        motion.angular_rad_s[moving, self.ball] = _rolling_spin(speed, self.radius_mm)
        motion.drawn[window, self.ball] = True

    def overlays(self, time_s: float) -> list[Overlay]:
        if not (self.t0_s - 0.35 <= time_s <= self.t1_s + 0.3):
            return []
        start, end = np.array(self.start_xy), np.array(self.end_xy)
        push = (end - start) / max(float(np.linalg.norm(end - start)), 1e-9)
        fraction = float(_smooth(np.array([(time_s - self.t0_s) / (self.t1_s - self.t0_s)]))[0])
        fingertip = start + (end - start) * fraction - push * (self.radius_mm + 4.0)
        wrist = fingertip - push * 170.0
        side = np.array([-push[1], push[0]])
        corners = [
            fingertip + side * 35,
            wrist + side * 45,
            wrist - side * 45,
            fingertip - side * 35,
        ]
        return [Overlay(np.array([[*c, 45.0] for c in corners]), SKIN_BGR)]


def _prepare_nudge(
    positions: Positions, table: TableSpec, rng: np.random.Generator
) -> tuple[Positions, Any]:
    radius = table.ball_radius_mm
    balls = [b for b in positions if b != CUE]
    for _ in range(400):
        ball = int(rng.choice(balls))
        angle = float(rng.uniform(0.0, 2.0 * math.pi))
        distance = float(rng.uniform(35.0, 60.0))
        start = np.array(positions[ball])
        end = start + distance * np.array([math.cos(angle), math.sin(angle)])
        if not table.contains(end[None], -2.0 * radius)[0]:
            continue
        others = [np.array(p) for b, p in positions.items() if b != ball]
        if min(np.linalg.norm(o - end) for o in others) < 2.0 * radius + 25.0:
            continue
        moved = dict(positions)
        moved[ball] = (float(end[0]), float(end[1]))
        return moved, (ball, positions[ball])
    raise ValueError("no ball can be nudged without touching another; try another seed")


def _build_nudge(shot: PlannedShot, table: TableSpec, context: Any) -> Nudge:
    ball, start = context
    t1 = shot.strike_s - NUDGE_BEFORE_STRIKE_S
    t0 = t1 - NUDGE_S
    shot.events.append(TruthEvent(t0, "ball_disturbed", (ball,)))
    shot.events.sort(key=lambda e: e.time_s)
    return Nudge(ball, start, shot.start[ball], t0, t1, shot.strike_s, table.ball_radius_mm)


@dataclass(frozen=True, slots=True)
class Jump:
    """A ball leaving the table over a cushion after a hard contact at `t0_s`."""

    ball: int
    t0_s: float
    start_xy: tuple[float, float]
    velocity_mm_s: tuple[float, float]
    radius_mm: float
    gone_after_mm: float

    def disturbed(self) -> list[int]:
        return []

    def final_positions(self, positions: Positions) -> Positions:
        return {b: p for b, p in positions.items() if b != self.ball}

    def modify(self, motion: Motion, until_s: float) -> None:
        times = motion.time_s
        after = (times >= self.t0_s) & (times < until_s)
        dt = times[after] - self.t0_s
        xy = np.array(self.start_xy) + np.outer(dt, self.velocity_mm_s)
        height = self.radius_mm + JUMP_RISE_MM_S * dt - 0.5 * GRAVITY_MM_S2 * dt * dt
        travelled = np.linalg.norm(np.outer(dt, self.velocity_mm_s), axis=1)
        visible = (travelled < self.gone_after_mm) & (height > -300.0)
        motion.xy_mm[after, self.ball] = xy
        motion.height_mm[after, self.ball] = height
        motion.drawn[after, self.ball] = visible
        motion.angular_rad_s[after, self.ball] = _rolling_spin(
            np.array(self.velocity_mm_s), self.radius_mm
        )

    def overlays(self, time_s: float) -> list[Overlay]:
        return []


def _hard_cushion(sim: SimulatedShot, table: TableSpec) -> tuple[int, float, FloatArray] | None:
    """(ball, contact time, velocity before it) of an object ball's hard cushion contact
    after which it meets no other ball."""
    for event in sim.events:
        if event.kind != "ball_cushion" or event.balls[0] == CUE:
            continue
        ball = event.balls[0]
        later = [e for e in sim.events if e.time_s > event.time_s and ball in e.balls]
        if any(e.kind in ("ball_ball", "ball_pocket") for e in later):
            continue
        states = sim.states(np.array([max(event.time_s - 1e-4, 0.0)]))
        velocity = states.velocity_mm_s[0, ball]
        outward = _outward_speed(states.xy_mm[0, ball], velocity, table)
        if outward >= JUMP_MIN_SPEED_MM_S * 0.6 and np.linalg.norm(velocity) >= JUMP_MIN_SPEED_MM_S:
            return ball, event.time_s, velocity
    return None


def _accept_jump(sim: SimulatedShot, table: TableSpec) -> bool:
    return _hard_cushion(sim, table) is not None


def _build_jump(shot: PlannedShot, table: TableSpec, context: Any) -> Jump:
    found = _hard_cushion(shot.sim, table)
    if found is None:  # the search accepted only shots that have one
        raise ValueError("off-table: the shot has no hard cushion contact")
    ball, t_local, velocity = found
    start = shot.sim.states(np.array([t_local])).xy_mm[0, ball]
    t0 = shot.strike_s + t_local
    outward = _outward_speed(start, velocity, table)
    t_off = t0 + table.ball_radius_mm / max(outward, 1e-6)
    end = max(shot.strike_s + settle_time(shot.sim.system, skip=(BALL_NAMES[ball],)), t_off)
    keep = [e for e in shot.events if not (ball in e.balls and e.time_s > t0)]
    keep = [e for e in keep if e.kind != "shot_end"]
    keep += [TruthEvent(t_off, "ball_off_table", (ball,)), TruthEvent(end, "shot_end")]
    shot.end_s = end
    shot.events[:] = sorted(keep, key=lambda e: e.time_s)
    margin = 50.0 + 110.0 + 2 * table.ball_radius_mm
    gone = float(np.linalg.norm(velocity)) * (margin / max(outward, 1e-6))
    return Jump(
        ball,
        t0,
        (float(start[0]), float(start[1])),
        (float(velocity[0]), float(velocity[1])),
        table.ball_radius_mm,
        gone,
    )


def _outward_speed(xy: FloatArray, velocity: FloatArray, table: TableSpec) -> float:
    """Speed toward the nearest cushion line, mm/s."""
    gaps = {
        (-1.0, 0.0): xy[0],
        (1.0, 0.0): table.length_mm - xy[0],
        (0.0, -1.0): xy[1],
        (0.0, 1.0): table.width_mm - xy[1],
    }
    normal = min(gaps, key=lambda k: gaps[k])
    return float(np.dot(velocity, normal))


@dataclass(frozen=True, slots=True)
class Hang:
    """The 10 slowing to a stop on the lip of its pocket instead of dropping.

    Attributes:
        ball: the hanging ball.
        path_xy: (K, 2) its simulated path before the pocket, table mm.
        path_s: (K,) arc length along that path, mm.
        t0_s: clip time it starts to slow (its path position is path_s0_mm then).
        path_s0_mm: arc length at t0_s.
        speed_mm_s: its speed at t0_s.
        stop_mm: arc length of the lip point, where it stops.
        late_drop_s: clip time it finally drops, or None if it stays.
    """

    ball: int
    path_xy: FloatArray
    path_s: FloatArray
    t0_s: float
    path_s0_mm: float
    speed_mm_s: float
    stop_mm: float
    late_drop_s: float | None
    radius_mm: float

    @property
    def stop_s(self) -> float:
        return self.t0_s + 2.0 * (self.stop_mm - self.path_s0_mm) / self.speed_mm_s

    @property
    def lip_xy(self) -> tuple[float, float]:
        x, y = self._at(np.array([self.stop_mm]))[0]
        return (float(x), float(y))

    def disturbed(self) -> list[int]:
        return []

    def final_positions(self, positions: Positions) -> Positions:
        if self.late_drop_s is not None:
            return {b: p for b, p in positions.items() if b != self.ball}
        return {**positions, self.ball: self.lip_xy}

    def _at(self, arc_mm: FloatArray) -> FloatArray:
        x = np.interp(arc_mm, self.path_s, self.path_xy[:, 0])
        y = np.interp(arc_mm, self.path_s, self.path_xy[:, 1])
        return np.column_stack([x, y])

    def modify(self, motion: Motion, until_s: float) -> None:
        times = motion.time_s
        window = (times >= self.t0_s) & (times < until_s)
        dt = np.minimum(times[window] - self.t0_s, self.stop_s - self.t0_s)
        deceleration = self.speed_mm_s**2 / (2.0 * (self.stop_mm - self.path_s0_mm))
        arc = self.path_s0_mm + self.speed_mm_s * dt - 0.5 * deceleration * dt * dt
        motion.xy_mm[window, self.ball] = self._at(arc)
        motion.height_mm[window, self.ball] = self.radius_mm
        motion.drawn[window, self.ball] = True
        speed = np.maximum(self.speed_mm_s - deceleration * dt, 0.0)
        ahead = self._at(arc + 1.0) - self._at(arc)
        ahead /= np.maximum(np.linalg.norm(ahead, axis=1, keepdims=True), 1e-9)
        motion.angular_rad_s[window, self.ball] = _rolling_spin(
            ahead * speed[:, None], self.radius_mm
        )

    def overlays(self, time_s: float) -> list[Overlay]:
        return []


def _ten_path(sim: SimulatedShot) -> tuple[FloatArray, FloatArray, float] | None:
    """The 10's straight run into its pocket: times, (K, 2) centres, pocket time (local)."""
    drops = [e for e in sim.events if e.kind == "ball_pocket" and e.balls[0] == 10]
    if not drops:
        return None
    t_pocket = drops[0].time_s
    contacts = [
        e.time_s
        for e in sim.events
        if 10 in e.balls and e.time_s < t_pocket and e.kind in ("ball_ball", "ball_cushion")
    ]
    start = max([*contacts, t_pocket - 1.5])
    times = np.arange(start + 1e-3, t_pocket - 1e-4, 0.002, dtype=np.float64)
    if len(times) < 10:
        return None
    xy: FloatArray = sim.states(times).xy_mm[:, 10]
    return np.asarray(times, dtype=np.float64), xy, t_pocket


def _accept_hang(sim: SimulatedShot, table: TableSpec) -> bool:
    path = _ten_path(sim)
    if path is None:
        return False
    length = float(np.sum(np.linalg.norm(np.diff(path[1], axis=0), axis=1)))
    return length >= 120.0


def _build_hang(shot: PlannedShot, table: TableSpec, late: bool) -> Hang:
    path = _ten_path(shot.sim)
    if path is None:  # the search accepted only shots that have one
        raise ValueError("lip: the shot does not pocket the 10")
    times, xy, t_pocket = path
    arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(xy, axis=0), axis=1))])
    stop = float(arc[-1]) - 3.0
    slow_over = min(250.0, 0.8 * stop)
    index = int(np.searchsorted(arc, stop - slow_over))
    speed = float(np.linalg.norm(shot.sim.states(times[index : index + 1]).velocity_mm_s[0, 10]))
    hang = Hang(
        10,
        xy,
        arc,
        shot.strike_s + float(times[index]),
        float(arc[index]),
        max(speed, 50.0),
        stop,
        None,
        table.ball_radius_mm,
    )
    rest = max(shot.end_s, hang.stop_s)
    drop = rest + LATE_DROP_S if late else None
    hang = Hang(
        10, xy, arc, hang.t0_s, hang.path_s0_mm, hang.speed_mm_s, stop, drop, hang.radius_mm
    )
    pocket_event = next(e for e in shot.events if e.kind == "ball_pocket" and e.balls[0] == 10)
    keep = [e for e in shot.events if e is not pocket_event and e.kind != "shot_end"]
    keep.append(TruthEvent(rest, "shot_end"))
    if drop is not None:
        keep.append(TruthEvent(drop, "ball_pocket", (10,), pocket=pocket_event.pocket))
    shot.events[:] = sorted(keep, key=lambda e: e.time_s)
    shot.end_s = rest if drop is None else drop
    del t_pocket
    return hang


SCRIPTED: dict[str, ScriptKind] = {
    "nudge": ScriptKind("any", _build_nudge, prepare=_prepare_nudge),
    "off-table": ScriptKind("rail-drive", _build_jump, accept=_accept_jump),
    "lip-late": ScriptKind(
        "combo-10", lambda shot, table, _: _build_hang(shot, table, True), accept=_accept_hang
    ),
    "lip-stay": ScriptKind(
        "combo-10", lambda shot, table, _: _build_hang(shot, table, False), accept=_accept_hang
    ),
}
