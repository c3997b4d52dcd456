"""Shot facts (rules.md §4) read off a shot's exact truth events.

These are the facts the camera should report, computed from physics rather than from
pixels. Field names are exactly those of rules.md §4 plus `balls_moving_at_strike` and
`balls_disturbed` (design.md §5).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vision.synthetic.truth import TruthEvent, frame_at_or_after
from vision.types import CUE


def _file_ball(ball: int) -> str | int:
    return "cue" if ball == CUE else ball


def first_contact(events: Sequence[TruthEvent]) -> tuple[int | None, float]:
    """(first object ball the cue ball touched or None, time of that contact or +inf)."""
    for event in events:
        if event.kind == "ball_ball" and CUE in event.balls:
            other = [b for b in event.balls if b != CUE]
            return other[0], event.time_s
    return None, float("inf")


def shot_facts(
    events: Sequence[TruthEvent],
    fps: float,
    is_break: bool,
    moving_at_strike: Sequence[int] = (),
    disturbed: Sequence[int] = (),
) -> dict[str, Any]:
    """The rules.md §4 facts of one shot.

    Args:
        events: the shot's events in clip time, from its strike to its end.
        fps: frame rate, to give each pocketed ball its frame.
        is_break: the shot is a break (adds `object_balls_to_cushion_on_break`).
        moving_at_strike: balls still moving when the cue ball was struck.
        disturbed: balls moved with nothing touching them, charged to this shot.
    """
    first, first_time = first_contact(events)
    cushions = [e for e in events if e.kind == "ball_cushion"]
    after = sorted({e.balls[0] for e in cushions if e.time_s > first_time})
    pockets = [e for e in events if e.kind == "ball_pocket"]
    off = [e.balls[0] for e in events if e.kind == "ball_off_table"]
    facts: dict[str, Any] = {
        "first_object_ball_contacted": first,
        "cue_ball_cushion_before_first_contact": any(
            e.balls[0] == CUE and e.time_s < first_time for e in cushions
        ),
        "cushion_after_first_contact": [_file_ball(b) for b in after],
        "pocketed": [
            {"ball": e.balls[0], "pocket": e.pocket, "frame": frame_at_or_after(e.time_s, fps)}
            for e in pockets
            if e.balls[0] != CUE
        ],
        "off_table": sorted(b for b in off if b != CUE),
        "cue_ball_pocketed": any(e.balls[0] == CUE for e in pockets),
        "cue_ball_off_table": CUE in off,
        "balls_moving_at_strike": [_file_ball(b) for b in sorted(moving_at_strike)],
        "balls_disturbed": [_file_ball(b) for b in sorted(disturbed)],
    }
    if is_break:
        facts["object_balls_to_cushion_on_break"] = len(
            {e.balls[0] for e in cushions if e.balls[0] != CUE}
        )
    return facts


def simple_foul(facts: dict[str, Any], lowest: int) -> bool:
    """Whether the facts show an obvious camera-visible foul (for the default shooter order).

    The rules engine (referee/) makes the real call; this only decides who the synthetic
    truth says shoots next when the engine is not used.
    """
    first = facts["first_object_ball_contacted"]
    reached = facts["cushion_after_first_contact"] or facts["pocketed"]
    return bool(
        first != lowest
        or not reached
        or facts["cue_ball_pocketed"]
        or facts["cue_ball_off_table"]
        or facts["off_table"]
        or facts["balls_disturbed"]
        or facts["balls_moving_at_strike"]
    )
