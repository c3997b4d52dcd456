"""Ten-ball shots played by pooltool, converted to the table frame of design.md §3.

pooltool works in metres with x across the table (x = 0 the left cushion) and y along it
(y = 0 the head cushion), z up. The table frame is millimetres with x along the table and y
across, so a pooltool point (x, y) is the table point (1000 y, 1000 x). The map swaps two axes
and flips z (the table frame's third axis points down), a proper rotation, so angular
velocities convert with the same matrix.

pooltool's cushion noses lie on the playing-surface boundary (x = 0, x = w, y = 0, y = l), as
the table frame's do; its pocket mouths are set from the `TableSpec` mouths.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.table import Pocket, TableSpec
from vision.synthetic.truth import TruthEvent
from vision.types import BALL_NAMES, ball_id

FloatArray = NDArray[np.float64]

POOLTOOL_TO_TABLE = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]])
"""(3, 3) rotation taking pooltool axes (across, along, up) to table axes (along, across, down)."""

POCKET_NAMES: dict[str, Pocket] = {
    "lb": Pocket.HEAD_LEFT,
    "lc": Pocket.SIDE_LEFT,
    "lt": Pocket.FOOT_LEFT,
    "rb": Pocket.HEAD_RIGHT,
    "rc": Pocket.SIDE_RIGHT,
    "rt": Pocket.FOOT_RIGHT,
}
"""pooltool pocket ids to the pocket names of design.md §3."""

POCKETED = 4
"""pooltool's motion-state label of a pocketed ball."""
SLIDING = 2
ROLLING = 3

CUSHION_MERGE_S = 0.01
"""Cushion contacts of one ball closer than this are one contact (jaw segments, rebounds)."""


def to_table_mm(xy_m: NDArray[np.floating]) -> FloatArray:
    """(N, 2) pooltool (x across, y along) metres -> (N, 2) table (x along, y across) mm."""
    xy = np.asarray(xy_m, dtype=np.float64).reshape(-1, 2)
    out: FloatArray = xy[:, ::-1] * 1000.0
    return out


def to_pooltool_m(xy_mm: NDArray[np.floating]) -> FloatArray:
    """(N, 2) table mm -> (N, 2) pooltool metres; the inverse of `to_table_mm`."""
    xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
    out: FloatArray = xy[:, ::-1] / 1000.0
    return out


def phi_deg(direction_mm: tuple[float, float]) -> float:
    """pooltool cue angle (degrees from its +x, counter-clockwise) of a table-frame direction."""
    dx_along, dy_across = direction_mm
    return math.degrees(math.atan2(dx_along, dy_across)) % 360.0


def pooltool_table(table: TableSpec) -> Any:
    """A pooltool pocket table with the playing surface and pocket mouths of `table`."""
    import pooltool as pt
    from pooltool.objects import PocketTableSpecs

    specs = PocketTableSpecs(
        l=table.length_mm / 1000.0,
        w=table.width_mm / 1000.0,
        corner_pocket_width=table.corner_mouth_mm / 1000.0,
        side_pocket_width=table.side_mouth_mm / 1000.0,
    )
    return pt.Table.from_table_specs(specs)


class PhysicsFailure(ValueError):
    """pooltool could not play one stroke out; another stroke or rack works.

    A rare numerical case in its collision resolvers (e.g. a ball-cushion impact seen with no
    inward speed) ends in an ``AssertionError`` inside ``pooltool.simulate``.
    """


@dataclass(frozen=True, slots=True)
class ShotParams:
    """How the cue strikes the cue ball.

    Attributes:
        speed_m_s: cue speed at impact, m/s (break ~7-9, a firm pot ~2-3).
        direction_mm: aim direction in the table frame (need not be unit length).
        side_spin: pooltool `a`, -1..1 of the ball radius: left (-) or right (+) english.
        top_spin: pooltool `b`, -1..1: draw (-) or follow (+).
        elevation_deg: cue elevation above the cloth, degrees.
    """

    speed_m_s: float
    direction_mm: tuple[float, float]
    side_spin: float = 0.0
    top_spin: float = 0.0
    elevation_deg: float = 0.0


@dataclass(frozen=True, slots=True)
class BallStates:
    """Exact states of all eleven balls at a list of times (ball class order: cue, 1..10).

    Attributes:
        time_s: (T,) times, seconds from the strike.
        xy_mm: (T, 11, 2) centres in the table frame, mm.
        velocity_mm_s: (T, 11, 2) velocities in the table frame, mm/s.
        angular_rad_s: (T, 11, 3) angular velocities in table axes (along, across, down), rad/s.
        pocketed: (T, 11) bool, True once the ball is down.
        present: (11,) bool, the ball took part in the shot (was on the table at the strike).
    """

    time_s: FloatArray
    xy_mm: FloatArray
    velocity_mm_s: FloatArray
    angular_rad_s: FloatArray
    pocketed: NDArray[np.bool_]
    present: NDArray[np.bool_]


@dataclass(slots=True)
class SimulatedShot:
    """A simulated shot: the pooltool system plus the truth events in the table frame.

    Attributes:
        system: the simulated pooltool System (its balls hold the exact event history).
        events: truth events with shot-local times (the strike at 0), table names.
        duration_s: time from the strike until every ball is at rest.
        final_xy_mm: ball class -> final centre of each ball still on the table.
        pocketed: ball class -> (pocket name, shot-local time) of each ball that dropped.
    """

    system: Any
    events: list[TruthEvent]
    duration_s: float
    final_xy_mm: dict[int, tuple[float, float]]
    pocketed: dict[int, tuple[str, float]] = field(default_factory=dict)

    def states(self, times_s: NDArray[np.floating]) -> BallStates:
        """Exact ball states at shot-local `times_s` (ascending), held after the end."""
        return _states(self.system, np.asarray(times_s, dtype=np.float64))


def build_system(table: Any, positions_mm: dict[int, tuple[float, float]], radius_mm: float) -> Any:
    """A pooltool System with balls at rest at `positions_mm` (ball class -> table mm)."""
    import pooltool as pt

    balls = {}
    for ball, (x_mm, y_mm) in positions_mm.items():
        name = BALL_NAMES[ball]
        balls[name] = pt.Ball.create(name, xy=(y_mm / 1000.0, x_mm / 1000.0), R=radius_mm / 1000)
    return pt.System(cue=pt.Cue(cue_ball_id="cue"), table=table, balls=balls)


def simulate_shot(system: Any, shot: ShotParams, table: TableSpec) -> SimulatedShot:
    """Strike the cue ball of `system` (balls at rest or moving) and play the shot out.

    Args:
        system: a pooltool System whose history is empty; it is copied, never changed.
        shot: the stroke.
        table: the table the system was built for (names cushions and pockets).

    Returns:
        The simulated shot with its truth events.

    Raises:
        PhysicsFailure: pooltool failed on this stroke (its collision resolvers assert).
    """
    import pooltool as pt

    played = system.copy()
    played.reset_history()
    played.cue.set_state(
        V0=shot.speed_m_s,
        phi=phi_deg(shot.direction_mm),
        theta=shot.elevation_deg,
        a=shot.side_spin,
        b=shot.top_spin,
        cue_ball_id="cue",
    )
    moving = any(int(ball.state.s) not in (0, POCKETED) for ball in played.balls.values())
    if moving:
        # pooltool strikes only a system at rest; with balls rolling, resolve the stroke on the
        # cue ball here (the same stick-ball model) and let the physics run from there.
        from pooltool.physics.resolve.resolver import Resolver

        Resolver.default().stick_ball.resolve(played.cue, played.balls["cue"], inplace=True)
    try:
        pt.simulate(played, inplace=True)
    except AssertionError as error:
        raise PhysicsFailure(f"pooltool could not play this stroke out ({error!r})") from error
    events = convert_events(played.events, table)
    if moving:
        events.insert(0, TruthEvent(0.0, "strike", (0,)))
    pocketed = {e.balls[0]: (str(e.pocket), e.time_s) for e in events if e.kind == "ball_pocket"}
    final = {}
    for name, ball in played.balls.items():
        if int(ball.state.s) != POCKETED:
            x_mm, y_mm = to_table_mm(ball.state.rvw[0][:2])[0]
            final[ball_id(name)] = (float(x_mm), float(y_mm))
    return SimulatedShot(played, events, settle_time(played), final, pocketed)


def settle_time(system: Any, skip: tuple[str, ...] = ()) -> float:
    """When the last ball stops moving across the cloth (seconds from the strike).

    pooltool plays a shot on until every ball has stopped spinning in place too, which a
    camera cannot see; a shot ends for the referee when the centres stop (a ball still
    spinning on the spot is at rest in the table frame). Balls named in `skip` are ignored.
    """
    end = 0.0
    for name, ball in system.balls.items():
        if name in skip:
            continue
        states = ball.history.states
        for state, after in pairwise(states):
            if int(state.s) in (SLIDING, ROLLING) or (
                int(state.s) != POCKETED and int(after.s) == POCKETED
            ):
                end = max(end, float(after.t))
    return end


def convert_events(events: list[Any], table: TableSpec) -> list[TruthEvent]:
    """pooltool events -> truth events (strike, ball_ball, ball_cushion, ball_pocket)."""
    out: list[TruthEvent] = []
    last_cushion: dict[int, float] = {}
    for event in events:
        kind = str(event.event_type)
        if kind == "stick_ball":
            out.append(TruthEvent(event.time, "strike", (0,)))
        elif kind == "ball_ball":
            out.append(TruthEvent(event.time, "ball_ball", _striker_first(event)))
        elif kind in ("ball_linear_cushion", "ball_circular_cushion"):
            ball = ball_id(event.ids[0])
            if event.time - last_cushion.get(ball, -1.0) > CUSHION_MERGE_S:
                xy = to_table_mm(event.agents[0].initial.state.rvw[0][:2])[0]
                name = str(table.nearest_cushion(float(xy[0]), float(xy[1])))
                out.append(TruthEvent(event.time, "ball_cushion", (ball,), cushion=name))
            last_cushion[ball] = event.time
        elif kind == "ball_pocket":
            pocket = str(POCKET_NAMES[event.ids[1]])
            out.append(
                TruthEvent(event.time, "ball_pocket", (ball_id(event.ids[0]),), pocket=pocket)
            )
    return out


def _striker_first(event: Any) -> tuple[int, ...]:
    """The two balls of a collision, the faster one (before contact) first."""
    speeds = [float(np.linalg.norm(agent.initial.state.rvw[1])) for agent in event.agents]
    balls = [ball_id(agent.id) for agent in event.agents]
    if speeds[1] > speeds[0]:
        balls.reverse()
    return tuple(balls)


def _states(system: Any, times_s: FloatArray) -> BallStates:
    import pooltool as pt

    count = len(BALL_NAMES)
    shape = (len(times_s), count)
    xy = np.full((*shape, 2), np.nan)
    velocity = np.zeros((*shape, 2))
    angular = np.zeros((*shape, 3))
    pocketed = np.zeros(shape, dtype=bool)
    present = np.zeros(count, dtype=bool)
    for name, ball in system.balls.items():
        index = ball_id(name)
        present[index] = True
        states = pt.interpolate_ball_states(ball, times_s, extrapolate=True)
        rvw = np.array([s.rvw for s in states]).reshape(-1, 3, 3)
        motion = np.array([s.s for s in states])
        xy[:, index] = rvw[:, 0, 1::-1] * 1000.0
        velocity[:, index] = rvw[:, 1, 1::-1] * 1000.0
        angular[:, index] = rvw[:, 2] @ POOLTOOL_TO_TABLE.T
        pocketed[:, index] = motion == POCKETED
    return BallStates(times_s, xy, velocity, angular, pocketed, present)


def system_at(sim: SimulatedShot, time_s: float) -> tuple[Any, dict[int, tuple[float, float]]]:
    """A fresh System holding the exact states of `sim` at shot-local `time_s`.

    Balls keep their velocities and spins, so a stroke played on it is a strike while balls
    are still moving. Pocketed balls are left out.

    Returns:
        The System (empty history) and the centres of its balls, table mm.
    """
    import pooltool as pt
    from pooltool.objects.ball.datatypes import BallState

    balls = {}
    positions: dict[int, tuple[float, float]] = {}
    for name, ball in sim.system.balls.items():
        state = pt.interpolate_ball_states(ball, [time_s], extrapolate=True)[0]
        if int(state.s) == POCKETED:
            continue
        fresh = pt.Ball.create(name, xy=tuple(state.rvw[0][:2]), R=ball.params.R)
        fresh.state = BallState(rvw=state.rvw.copy(), s=int(state.s), t=0.0)
        balls[name] = fresh
        x_mm, y_mm = to_table_mm(state.rvw[0][:2])[0]
        positions[ball_id(name)] = (float(x_mm), float(y_mm))
    system = pt.System(cue=pt.Cue(cue_ball_id="cue"), table=sim.system.table, balls=balls)
    return system, positions
