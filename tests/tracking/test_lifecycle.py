"""Track bookkeeping (`tracking.lifecycle`): what a ball lost from sight may be doing."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tracking.builders import TABLE
from tracking.jaws import in_jaws
from tracking.lifecycle import start_pending
from tracking.track_state import PENDING_NONE, PENDING_OFF, PENDING_POCKET, TrackState
from tracking.tracker_config import TrackerConfig

L, W = TABLE.length_mm, TABLE.width_mm
MOUTH = TABLE.corner_mouth_mm / np.sqrt(2.0)


@pytest.mark.parametrize(
    ("xy", "want"),
    [
        ((L - 0.4 * MOUTH, 0.4 * MOUTH), True),
        ((0.3 * MOUTH, W - 0.5 * MOUTH), True),
        ((L - 0.6 * MOUTH, 0.6 * MOUTH), False),
        ((L / 2 + 20.0, -5.0), True),
        ((L / 2 + 20.0, 5.0), False),
        ((L / 2 + TABLE.side_mouth_mm, -5.0), False),
        ((L / 2, W / 2), False),
    ],
    ids=[
        "corner-deep",
        "head-corner",
        "corner-short-of-mouth",
        "side-past-line",
        "side-on-bed",
        "side-beside-mouth",
        "centre",
    ],
)
def test_in_jaws_is_past_a_pocket_mouth(xy: tuple[float, float], want: bool) -> None:
    assert in_jaws(TABLE, np.array([xy]))[0] == want


def _lost(xy: tuple[float, float], velocity: tuple[float, float]) -> int:
    state = TrackState()
    state.seen_xy_mm[3] = xy
    state.seen_velocity[3] = velocity
    start_pending(state, TABLE, TrackerConfig(), np.array([3]))
    return int(state.pending[3])


@pytest.mark.parametrize(
    ("xy", "velocity", "want"),
    [
        # Rattling back out along the foot rail, deep in the foot_left jaws.
        ((L - 0.4 * MOUTH, 0.45 * MOUTH), (-150.0, -150.0), PENDING_POCKET),
        # The same spot at rest (a ball resting on the lip is found again where it lies).
        ((L - 0.4 * MOUTH, 0.45 * MOUTH), (0.0, 5.0), PENDING_NONE),
        # Moving short of the mouth, away from the pocket: only hidden.
        ((L - 1.5 * MOUTH, 1.5 * MOUTH), (-150.0, 150.0), PENDING_NONE),
        # Heading in from afar.
        ((L - 120.0, 120.0), (1500.0, -1500.0), PENDING_POCKET),
    ],
    ids=["rattling-in-jaws", "resting-in-jaws", "leaving-near-mouth", "heading-in"],
)
def test_start_pending_drop_when_moving_in_the_jaws(
    xy: tuple[float, float], velocity: tuple[float, float], want: int
) -> None:
    assert _lost(xy, velocity) == want


@pytest.mark.parametrize(
    ("xy", "velocity", "want"),
    [
        # Over the side cushion 110 mm from the side pocket, flying along it toward the pocket.
        ((L / 2 + 110.0, -25.0), (-2500.0, -300.0), PENDING_OFF),
        # Beyond the same cushion line inside the side pocket's mouth: dropping.
        ((L / 2 + 30.0, -25.0), (-300.0, -2500.0), PENDING_POCKET),
        # Over the foot cushion beside a corner's jaw, heading for the corner.
        ((L + 25.0, 200.0), (500.0, -2500.0), PENDING_OFF),
    ],
    ids=["over-cushion-by-side-pocket", "in-side-mouth", "over-cushion-by-corner"],
)
def test_start_pending_off_the_table_over_a_cushion_beside_a_pocket(
    xy: tuple[float, float], velocity: tuple[float, float], want: int
) -> None:
    assert _lost(xy, velocity) == want
