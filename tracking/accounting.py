"""Balls gone at a shot's end: where a ball lost in the shot and not seen again went.

`tracking.lost.fate` follows a lost ball's straight path as it vanished and answers only
when that path leads clearly into a pocket or off the table; it answers nothing when the
path meets another ball first, when the ball was too slow for the cushion it met, or when
another ball was seen where the lost one would be (the detector may have given it that
ball's name). When the shot ends, every ball at rest and the lost ball still unseen after
the table has been quiet for a while, the table itself says more: the ball is no longer on
it (a ball at rest on the bed is seen), so it left, and the question is only where.

`gone_fate` answers it from the loss: the pocket or the cushion its straight path reaches,
other balls ignored (it may have pushed through them, or glanced off them, and gone on);
else the pocket nearest to where it was lost among those it could reach at its speed (every
pocket for a ball struck from rest with an unknown speed). A ball too slow to reach any
pocket's hole stays on the table: it is hidden, not gone. The answer is an inference with a
confidence below every other removal's.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from tracking.event_config import EventConfig
from tracking.geometry import POCKETS, segment_point_distance_mm
from tracking.jaws import hole_gap_mm
from tracking.lost import Fate, Loss, cushion_ahead, fate
from tracking.types import EventKind
from vision.types import NUM_CLASSES

FloatArray = NDArray[np.float64]

GONE_CONFIDENCE = 0.4
"""How sure a removal inferred only from a ball's absence at the shot's end is."""


def rest_segment(
    table: TableSpec, loss: Loss, config: EventConfig
) -> tuple[FloatArray, FloatArray]:
    """(start (2,), end (2,)) mm: where ``loss``'s ball can lie if it stayed on the bed along
    its straight path: from where it was lost to where it stops at the gentlest rolling
    deceleration or meets a cushion, whichever comes first (a point for a ball lost at rest
    or whose last sightings may have been another ball)."""
    start = loss.xy_mm
    speed = float(np.linalg.norm(loss.velocity_mm_s))
    if loss.taken_over or speed < config.start_min_speed_mm_s:
        return start, start
    direction = loss.velocity_mm_s / speed
    stop = speed**2 / (2.0 * config.rolling_deceleration_mm_s2)
    length = min(stop, cushion_ahead(table, start, direction)[0])
    return start, start + direction * length


def reachable_pockets(table: TableSpec, loss: Loss, config: EventConfig) -> list[tuple[float, int]]:
    """(distance from where ``loss``'s ball was lost to a pocket's point, mm; index into
    `POCKETS`) of the pockets it could reach, nearest first: their hole within its
    stopping distance at
    the gentlest rolling deceleration (`EventConfig.rolling_deceleration_mm_s2`), any
    distance for a ball struck from rest (its speed is a guess) or lost at rest."""
    speed = float(np.linalg.norm(loss.velocity_mm_s))
    moving = speed >= config.start_min_speed_mm_s and loss.struck_by is None
    reach = speed**2 / (2.0 * config.rolling_deceleration_mm_s2) if moving else np.inf
    out = []
    for index, pocket in enumerate(POCKETS):
        point = table.pocket_xy_mm(pocket)
        distance = float(np.linalg.norm(np.asarray(point) - loss.xy_mm))
        mouth = table.corner_mouth_mm if pocket.is_corner() else table.side_mouth_mm
        # A side hole's gap runs square to its cushion: the mouth bounds it along.
        gap = max(hole_gap_mm(table, loss.xy_mm, point), distance - 0.5 * mouth)
        if gap <= reach:
            out.append((distance, index))
    return sorted(out)


def deflectable(
    table: TableSpec, loss: Loss, config: EventConfig, others_mm: FloatArray | None
) -> bool:
    """Whether another ball can have turned ``loss``'s ball off its straight path toward a
    pocket that path does not reach: one of ``others_mm`` ((K, 2) where other balls were,
    NaN rows ignored) lies within touching reach (a diameter and
    `EventConfig.ball_contact_tolerance_mm`) of where it can have rolled on the bed
    (`rest_segment`). True when the others are unknown (None), or the ball was lost at
    rest or hit (its way is a guess)."""
    speed = float(np.linalg.norm(loss.velocity_mm_s))
    if others_mm is None or loss.struck_by is not None or speed < config.start_min_speed_mm_s:
        return True
    others = np.asarray(others_mm, dtype=np.float64).reshape(-1, 2)
    seen = others[np.isfinite(others[:, 0])]
    if not len(seen):
        return False
    start, end = rest_segment(table, loss, config)
    reach = table.ball_diameter_mm + config.ball_contact_tolerance_mm
    return bool(np.any(segment_point_distance_mm(start[None], end[None], seen) <= reach))


def gone_fate(
    table: TableSpec,
    loss: Loss,
    config: EventConfig,
    trust_path: bool = True,
    others_mm: FloatArray | None = None,
) -> Fate | None:
    """Where a ball lost in a shot and gone from the table at its end most likely went.

    Args:
        table: the table.
        loss: the ball's loss.
        config: the decelerations, speeds and confidences.
        trust_path: False when another ball was seen where the lost one would have been
            (`tracking.lost.taken_over`): its last sightings may have been that ball, so its
            path says nothing; only where it was seen counts.
        others_mm: (K, 2) where the other balls were (NaN: none), or None (unknown). A
            ball lost rolling whose straight path meets no pocket, no cushion it can leave
            over and no other ball (`deflectable`) went where that path took it: it is on
            the table, hidden, not in the nearest pocket (a ball lost rolling at 0.3 m/s
            into a cushion 160 mm ahead, with nothing near its way, was put in a corner
            pocket 330 mm off that way).

    Returns:
        The pocket or cushion its straight path reaches (other balls ignored), else the
        nearest pocket it could reach; None when it could reach none (it is on the table,
        hidden).
    """
    speed = float(np.linalg.norm(loss.velocity_mm_s))
    if trust_path and speed >= config.start_min_speed_mm_s:
        along = fate(table, loss, np.full((NUM_CLASSES, 2), np.nan), config)
        if along is not None:
            return Fate(
                along.kind,
                along.time_s,
                along.pocket,
                min(along.confidence, GONE_CONFIDENCE),
                f"{along.reason}; gone from the table when the shot ended",
            )
        over = over_near_cushion(table, loss, config)
        if over is not None:
            return over
        if not deflectable(table, loss, config, others_mm):
            return None
    reachable = reachable_pockets(table, loss, config)
    if not reachable:
        return None
    distance, index = reachable[0]
    name = str(POCKETS[index])
    travel_s = distance / speed if speed >= config.start_min_speed_mm_s else 0.0
    return Fate(
        EventKind.BALL_POCKET,
        loss.time_s + travel_s,
        name,
        min(loss.confidence, GONE_CONFIDENCE),
        f"lost {distance:.0f} mm from the {name} pocket and gone from the table when the "
        "shot ended: the nearest pocket it could reach",
    )


NEAR_CUSHION_DIAMETERS = 2.0
"""A ball lost moving this many diameters or less before the cushion its path meets
vanished at that cushion."""

SOFT_JUMP_FRACTION = 0.5
"""The share of `EventConfig.off_table_min_speed_mm_s` (a rolling ball's least normal speed
to clear the nose) a ball that vanished at a cushion, and is gone, must have had along
that cushion's normal to have left over it: a ball airborne from a hard hit, or one
struck down onto the nose, needs less than the rolling bound."""


def over_near_cushion(table: TableSpec, loss: Loss, config: EventConfig) -> Fate | None:
    """``ball_off_table`` for a ball lost moving toward a cushion, no further than
    `NEAR_CUSHION_DIAMETERS` before meeting it, away from every pocket's mouth, at a
    normal speed of at least `SOFT_JUMP_FRACTION` of the rolling bound, and gone from the
    table when the shot ended. Bounced back, it would have rolled on over the bed in view
    and been seen; gone, it left over that cushion (`lost.fate` asks the full rolling
    bound of a ball that may yet be found). None otherwise."""
    speed = float(np.linalg.norm(loss.velocity_mm_s))
    if speed < config.start_min_speed_mm_s:
        return None
    direction = loss.velocity_mm_s / speed
    distance, outward, _ = cushion_ahead(table, loss.xy_mm, direction)
    if distance > NEAR_CUSHION_DIAMETERS * table.ball_diameter_mm:
        return None
    mouth = max(table.corner_mouth_mm, table.side_mouth_mm)
    at = loss.xy_mm + direction * distance
    if float(np.min(np.linalg.norm(table.pockets_xy_mm() - at, axis=1))) <= mouth:
        return None  # at a pocket's mouth: where it went is the pockets' question
    if speed * outward < SOFT_JUMP_FRACTION * config.off_table_min_speed_mm_s:
        return None
    return Fate(
        EventKind.BALL_OFF_TABLE,
        loss.time_s + distance / speed,
        None,
        min(loss.confidence, GONE_CONFIDENCE),
        f"lost {distance:.0f} mm before a cushion at {speed * outward / 1000:.1f} m/s along its "
        "normal and gone from the table when the shot ended: it left over that cushion",
    )
