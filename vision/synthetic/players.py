"""The `player` nuisance: people's bodies between the camera and the table.

Two people per shot, both drawn as convex solids (boxes for the torso and limbs, a sphere for
the head) projected through the clip's camera, so what they hide depends on where the camera
stands exactly as it would in a club:

- the **shooter** stands at the rail behind the cue ball and leans over the table along the
  shot line while aiming and striking (torso, head, legs, the back arm to the cue's grip),
  with the soft shadow of the torso and head on the cloth; after the strike they straighten
  up and walk off along the rail;
- on some shots the **other player** walks along the rail nearest the camera while the balls
  roll: seen from an angled camera, a standing body there hides a band across the table.

Clothing is dark and of varied colour, skin of varied tone, both picked per shot from a
generator seeded by the shot, so the same clip always renders the same frames. Heights are
above the cloth: the floor is `FLOOR_MM` below it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from calibration.table import TableSpec
from vision.synthetic.plan import PlannedShot
from vision.synthetic.render import Overlay
from vision.synthetic.table_image import CUSHION_WIDTH_MM, RAIL_WIDTH_MM
from vision.types import CUE

FloatArray = NDArray[np.float64]
PLAYER = "player"
FLOOR_MM = -780.0
"""Floor height relative to the cloth, mm."""
HIP_MM = 170.0
SHOULDER_MM = 640.0
HEAD_RADIUS_MM = 105.0
LEAN_FROM_S = -1.2
"""The shooter is down on the shot from this long before the strike ..."""
LEAN_UNTIL_S = 0.35
RISE_S = 0.5
WALK_OFF_S = 1.5
WALK_SPEED_MM_S = 1200.0
WALKER_CHANCE = 0.75
"""Fraction of shots on which the other player walks along the rail nearest the camera."""
WALKER_FROM_S = -1.0
WALK_IN_S = 1.3
STAND_S = 2.6
"""The other player walks in from this long before the strike, stops at the rail and
watches the balls roll, hiding what is behind them for seconds, then walks on."""
WALKER_FOR_S = WALK_IN_S + STAND_S + 1.2
WALKER_CAMERA_MM = 1500.0
"""The other player keeps at least this far (horizontally) from the camera."""
SHADOW = 0.45
"""Light lost in the shooter's shadow on the cloth (0 none, 1 black)."""
CLOTHES_BGR = (
    (38, 36, 40),
    (70, 40, 28),
    (35, 30, 95),
    (85, 80, 70),
    (30, 60, 32),
    (110, 108, 112),
    (22, 22, 24),
    (95, 60, 45),
)
SKIN_BGR = ((120, 150, 200), (95, 125, 175), (60, 85, 125), (150, 175, 215), (45, 60, 90))
SPHERE = 24


@dataclass(frozen=True, slots=True)
class Look:
    """Colours of one person: shirt, trousers and skin (BGR)."""

    shirt: tuple[int, int, int]
    trousers: tuple[int, int, int]
    skin: tuple[int, int, int]


def _look(rng: np.random.Generator) -> Look:
    shirt, trousers = rng.choice(len(CLOTHES_BGR), 2)
    skin = int(rng.integers(len(SKIN_BGR)))
    return Look(CLOTHES_BGR[int(shirt)], CLOTHES_BGR[int(trousers)], SKIN_BGR[skin])


def _shot_rng(shot: PlannedShot) -> np.random.Generator:
    """A generator fixed by the shot (its number, strike time and cue ball position)."""
    cue = shot.start.get(CUE, (0.0, 0.0))
    return np.random.default_rng(
        [shot.number, round(shot.strike_s * 1000.0), round(cue[0]), round(cue[1])]
    )


def with_players(
    shot: PlannedShot,
    time_s: float,
    camera: CameraModel,
    table: TableSpec,
    stroke: list[Overlay],
) -> list[Overlay]:
    """The shot's `stroke` overlays (cue, arm) with its people, in drawing order.

    Shadows come first; the bodies go over the cue when the camera is behind the shooter
    and under it when the camera faces them.
    """
    people = player_overlays(shot, time_s, camera, table)
    if not people:
        return stroke
    shadows = [o for o in people if o.shade > 0]
    solids = [o for o in people if o.shade == 0]
    direction = np.asarray(shot.params.direction_mm, dtype=np.float64)
    behind = float(np.dot(camera.centre_mm[:2] - np.asarray(shot.start[CUE]), direction)) < 0
    return shadows + (stroke + solids if behind else solids + stroke)


def player_overlays(
    shot: PlannedShot, time_s: float, camera: CameraModel, table: TableSpec
) -> list[Overlay]:
    """The people of one shot at clip time `time_s`: shadows first, then bodies far to near.

    Args:
        shot: the planned shot (its strike time, cue ball and direction place the shooter).
        time_s: clip time, s.
        camera: the clip's camera (solids are outlined as their projected convex hulls).
        table: the table (its rails place the people).
    """
    dt = time_s - shot.strike_s
    start_s = min(LEAN_FROM_S, WALKER_FROM_S)
    if CUE not in shot.start or not (start_s <= dt <= WALKER_FROM_S + WALKER_FOR_S):
        return []
    rng = _shot_rng(shot)
    shooter_look, walker_look = _look(rng), _look(rng)
    walks = bool(rng.random() < WALKER_CHANCE) and shot.number > 1
    start_fraction = float(rng.random())
    parts: list[tuple[FloatArray, tuple[int, int, int]]] = []
    shadows: list[Overlay] = []
    if dt <= LEAN_UNTIL_S + RISE_S + WALK_OFF_S:
        body = _shooter(shot, dt, table, camera)
        parts += _dress(body, shooter_look)
        if dt <= LEAN_UNTIL_S + RISE_S:
            shadows.append(_shadow(body))
    if walks and dt >= WALKER_FROM_S:
        walker = _walker(dt - WALKER_FROM_S, start_fraction, camera, table)
        parts += _dress(walker, walker_look)
    eye = camera.centre_mm
    parts.sort(key=lambda p: -float(np.linalg.norm(p[0].mean(axis=0) - eye)))
    solids = [_solid(points, colour, camera) for points, colour in parts]
    return shadows + [s for s in solids if s is not None]


@dataclass(frozen=True, slots=True)
class Body:
    """Key points of a person (x, y, height), mm, and the horizontal axis across them."""

    hips: FloatArray
    shoulders: FloatArray
    head: FloatArray
    feet: FloatArray
    hands: FloatArray
    """(2, 3) where the arms end (the right one first)."""
    across: FloatArray


def _dress(body: Body, look: Look) -> list[tuple[FloatArray, tuple[int, int, int]]]:
    """The solids of a body with their colours."""
    across3 = np.array([*body.across, 0.0])
    out: list[tuple[FloatArray, tuple[int, int, int]]] = []
    for sign in (-1.0, 1.0):
        hip = body.hips + across3 * 95.0 * sign
        out.append(
            (_box(hip, body.feet + across3 * 110.0 * sign, 150.0, 130.0, body), look.trousers)
        )
    out.append((_box(body.hips, body.shoulders, 380.0, 450.0, body), look.shirt))
    for sign, hand in zip((-1.0, 1.0), body.hands, strict=True):
        shoulder = body.shoulders + across3 * 200.0 * sign
        out.append((_box(shoulder, hand, 110.0, 85.0, body), look.shirt))
        out.append((_sphere(hand, 45.0), look.skin))
    out.append((_sphere(body.head, HEAD_RADIUS_MM), look.skin))
    return out


def _box(start: FloatArray, end: FloatArray, w0: float, w1: float, body: Body) -> FloatArray:
    """(8, 3) corners of a limb or torso from `start` to `end`, widths across the body and a
    thickness of 0.6 times the width."""
    along = end - start
    across = np.array([*body.across, 0.0])
    depth = np.cross(along, across)
    norm = float(np.linalg.norm(depth))
    depth = depth / norm if norm > 1e-6 else np.array([0.0, 0.0, 1.0])
    corners = [
        point + across * w * a / 2.0 + depth * 0.6 * w * d / 2.0
        for point, w in ((start, w0), (end, w1))
        for a in (-1.0, 1.0)
        for d in (-1.0, 1.0)
    ]
    return np.array(corners)


def _sphere(centre: FloatArray, radius: float) -> FloatArray:
    """(SPHERE, 3) points spread over a sphere (a Fibonacci lattice)."""
    k = np.arange(SPHERE) + 0.5
    z = 1.0 - 2.0 * k / SPHERE
    ring = np.sqrt(1.0 - z * z)
    turn = math.pi * (3.0 - math.sqrt(5.0)) * k
    return centre + radius * np.column_stack([ring * np.cos(turn), ring * np.sin(turn), z])


def _solid(points: FloatArray, colour: tuple[int, int, int], camera: CameraModel) -> Overlay | None:
    """The overlay outlining `points` as seen by `camera` (None when behind it)."""
    if np.any(camera.depth_mm(points[:, :2], points[:, 2]) <= 0):
        return None
    uv = camera.project(points[:, :2], points[:, 2]).astype(np.float32)
    hull = cv2.convexHull(uv.reshape(-1, 1, 2), returnPoints=False).ravel()
    return Overlay(points[hull], colour)


def _shadow(body: Body) -> Overlay:
    """The soft shadow of the torso and head on the cloth (a lamp straight above)."""
    across3 = np.array([*body.across, 0.0])
    points = np.vstack(
        [
            _box(body.hips, body.shoulders, 380.0, 450.0, body),
            _sphere(body.head, HEAD_RADIUS_MM),
            body.shoulders + across3 * 260.0,
            body.shoulders - across3 * 260.0,
        ]
    )[:, :2].astype(np.float32)
    hull = cv2.convexHull(points.reshape(-1, 1, 2)).reshape(-1, 2).astype(np.float64)
    return Overlay(np.column_stack([hull, np.zeros(len(hull))]), (0, 0, 0), shade=SHADOW)


def _rail_exit_mm(point: FloatArray, back: FloatArray, table: TableSpec) -> float:
    """Distance from `point` along the unit vector `back` to the outer edge of the rail."""
    outer = CUSHION_WIDTH_MM + RAIL_WIDTH_MM
    high = np.array([table.length_mm + outer, table.width_mm + outer])
    steps = [
        ((high[axis] if back[axis] > 0 else -outer) - point[axis]) / back[axis]
        for axis in (0, 1)
        if abs(back[axis]) > 1e-9
    ]
    return max(0.0, float(min(steps)))


def _shooter(shot: PlannedShot, dt: float, table: TableSpec, camera: CameraModel) -> Body:
    """The shooter at `dt` seconds from the strike: down on the shot, rising, walking off."""
    direction = np.array(shot.params.direction_mm, dtype=np.float64)
    direction /= np.linalg.norm(direction)
    side = np.array([-direction[1], direction[0]])
    ball = np.array(shot.start[CUE], dtype=np.float64)
    exit_mm = _rail_exit_mm(ball, -direction, table)
    hips_back = max(exit_mm + 150.0, 950.0)
    shoulders_back = max(680.0, hips_back - 700.0)
    hips_xy = ball - direction * hips_back + side * 150.0
    down = Body(
        hips=np.array([*hips_xy, HIP_MM]),
        shoulders=np.array([*(ball - direction * shoulders_back + side * 150.0), 330.0]),
        head=np.array([*(ball - direction * (shoulders_back - 170.0) + side * 30.0), 300.0]),
        feet=np.array([*(hips_xy - direction * 250.0), FLOOR_MM]),
        hands=np.array(
            [
                [*(ball - direction * 1180.0 - side * 60.0), 190.0],
                [*(ball - direction * 230.0), 40.0],
            ]
        ),
        across=side,
    )
    if dt <= LEAN_UNTIL_S:
        return down
    up = _standing(hips_xy, side, 0.0)
    rise = min(1.0, (dt - LEAN_UNTIL_S) / RISE_S)
    if rise < 1.0:
        return _blend(down, up, rise)
    walked = (dt - LEAN_UNTIL_S - RISE_S) * WALK_SPEED_MM_S
    away = side if float(np.dot(side, camera.centre_mm[:2] - hips_xy)) < 0 else -side
    return _standing(hips_xy + away * walked, side, walked)


def _standing(xy: FloatArray, across: FloatArray, walked_mm: float) -> Body:
    """An upright person standing (or walking, `walked_mm` so far) at `xy` facing the table."""
    swing = 180.0 * math.sin(walked_mm / 350.0)
    facing = np.array([across[1], -across[0]])
    return Body(
        hips=np.array([*xy, HIP_MM]),
        shoulders=np.array([*xy, SHOULDER_MM]),
        head=np.array([*xy, SHOULDER_MM + 60.0 + HEAD_RADIUS_MM]),
        feet=np.array([*(xy + facing * swing * 0.3), FLOOR_MM]),
        hands=np.array([[*(xy - across * 240.0 + facing * swing * 0.2), 60.0]] * 2)
        + np.array([[0.0, 0.0, 0.0], [*(across * 480.0), 0.0]]),
        across=across,
    )


def _blend(a: Body, b: Body, weight: float) -> Body:
    """Body `a` moved `weight` (0..1) of the way to body `b`."""

    def mix(p: FloatArray, q: FloatArray) -> FloatArray:
        return p * (1.0 - weight) + q * weight

    return Body(
        mix(a.hips, b.hips),
        mix(a.shoulders, b.shoulders),
        mix(a.head, b.head),
        mix(a.feet, b.feet),
        mix(a.hands, b.hands),
        a.across,
    )


def _walker(dt: float, start_fraction: float, camera: CameraModel, table: TableSpec) -> Body:
    """The other player `dt` seconds into a walk along the long rail nearest the camera.

    The walk crosses the camera's view along the rail, from near one end toward the other,
    with a stop of `STAND_S` after `WALK_IN_S`,
    keeping the head at least `WALKER_CAMERA_MM` from the camera (nobody brushes the lens).
    """
    eye = camera.centre_mm
    standoff = CUSHION_WIDTH_MM + RAIL_WIDTH_MM + 250.0
    y = -standoff if eye[1] < table.width_mm / 2.0 else table.width_mm + standoff
    head_mm = SHOULDER_MM + 60.0 + HEAD_RADIUS_MM
    rest = WALKER_CAMERA_MM**2 - (y - eye[1]) ** 2 - (head_mm - eye[2]) ** 2
    reach = math.sqrt(max(0.0, rest))
    low, high = 0.0, table.length_mm
    if eye[0] - reach < low < eye[0] + reach:
        low = eye[0] + reach
    if eye[0] - reach < high < eye[0] + reach:
        high = eye[0] - reach
    forward = start_fraction < 0.5
    x = low + (high - low) * (start_fraction if forward else start_fraction - 0.5) * 0.5
    if not forward:
        x = high - (x - low)
    heading = np.array([1.0 if forward else -1.0, 0.0])
    walking_s = dt if dt < WALK_IN_S else max(WALK_IN_S, dt - STAND_S)
    walked = walking_s * WALK_SPEED_MM_S
    return _standing(np.array([x, y]) + heading * walked, heading, walked)
