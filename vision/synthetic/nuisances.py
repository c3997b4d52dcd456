"""Things over the table that break naive detectors: the cue stick and the player's arm.

The cue stick comes in along the shot line, strokes through the cue ball at the strike and
withdraws; with `arm`, the player's bridge hand and sleeve lie on the table behind the cue ball
and the body leans over the rail for the whole approach.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from vision.synthetic.plan import PlannedShot
from vision.synthetic.render import Overlay
from vision.types import CUE

NUISANCES = ("cue", "arm", "player")
"""Known nuisances; `player` (people's bodies) is drawn by `vision.synthetic.players`."""
APPROACH_S = 1.1
"""The cue stick is over the table this long before the strike."""
WITHDRAW_S = 0.45
STICK_LENGTH_MM = 1450.0
SHAFT_BGR = (150, 195, 225)
BUTT_BGR = (30, 40, 70)
SKIN_BGR = (120, 150, 200)
SLEEVE_BGR = (60, 45, 40)


def _tip_gap_mm(dt_s: float) -> float:
    """Gap between the cue tip and the cue ball, dt_s seconds after the strike."""
    if dt_s < -0.5:
        return 60.0 + 250.0 * (-0.5 - dt_s) / (APPROACH_S - 0.5)
    if dt_s < -0.12:
        return 60.0 + 40.0 * math.sin((dt_s + 0.5) / 0.38 * math.pi)  # warm-up strokes
    if dt_s < 0.0:
        return 60.0 * (-dt_s / 0.12)
    return -40.0 + 500.0 * max(0.0, dt_s - 0.08)  # follow through, then withdraw


def _quad(
    start: NDArray[np.float64], end: NDArray[np.float64], w0: float, w1: float
) -> NDArray[np.float64]:
    """(4, 3) polygon of a tapered bar from `start` to `end` (x, y, height), widths in mm."""
    along = end[:2] - start[:2]
    normal = np.array([-along[1], along[0]]) / max(float(np.linalg.norm(along)), 1e-9)
    offsets = [(start, w0 / 2), (end, w1 / 2), (end, -w1 / 2), (start, -w0 / 2)]
    return np.array([[*(p[:2] + normal * w), p[2]] for p, w in offsets])


def shot_overlays(
    shot: PlannedShot, time_s: float, nuisances: tuple[str, ...], radius_mm: float
) -> list[Overlay]:
    """Overlays of one shot's stroke at clip time `time_s` (empty outside the stroke)."""
    dt = time_s - shot.strike_s
    if not (-APPROACH_S <= dt <= WITHDRAW_S) or CUE not in shot.start:
        return []
    direction = np.array(shot.params.direction_mm, dtype=np.float64)
    direction /= np.linalg.norm(direction)
    ball = np.array(shot.start[CUE], dtype=np.float64)
    out: list[Overlay] = []
    tip_xy = ball - direction * (radius_mm + _tip_gap_mm(dt))
    tip = np.array([*tip_xy, radius_mm])
    rise = math.tan(math.radians(8.0))
    butt = np.array([*(tip_xy - direction * STICK_LENGTH_MM), radius_mm + STICK_LENGTH_MM * rise])
    joint = tip + (butt - tip) * 0.55
    if "arm" in nuisances:
        out.extend(_arm(ball, direction))
    if "cue" in nuisances:
        out.append(Overlay(_quad(tip, joint, 13.0, 22.0), SHAFT_BGR))
        out.append(Overlay(_quad(joint, butt, 22.0, 31.0), BUTT_BGR))
    return out


def _arm(ball: NDArray[np.float64], direction: NDArray[np.float64]) -> list[Overlay]:
    """The bridge hand behind the cue ball and the sleeve running off toward the body."""
    hand_xy = ball - direction * 230.0
    side = np.array([-direction[1], direction[0]])
    hand = np.array([*hand_xy, 30.0])
    elbow = np.array([*(hand_xy - direction * 250.0 + side * 260.0), 120.0])
    shoulder = np.array([*(elbow[:2] - direction * 200.0 + side * 250.0), 350.0])
    step = np.array([*direction, 0.0])
    palm = _quad(hand - step * 20.0, hand + step * 70.0, 95.0, 70.0)
    return [
        Overlay(_quad(hand, elbow, 85.0, 110.0), SLEEVE_BGR),
        Overlay(_quad(elbow, shoulder, 110.0, 170.0), SLEEVE_BGR),
        Overlay(palm, SKIN_BGR),
    ]
