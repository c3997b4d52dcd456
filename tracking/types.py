"""Tracks and physical events: the values that leave tracking/."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np
from numpy.typing import NDArray

BALL_NAMES: tuple[str, ...] = ("cue", *(str(n) for n in range(1, 11)))
"""Ball names in files; index is the ball class (0 cue, 1..10). Mirrors vision.types."""


class EventKind(StrEnum):
    """Event kinds of design.md §5 (contract)."""

    STRIKE = "strike"
    BALL_BALL = "ball_ball"
    BALL_CUSHION = "ball_cushion"
    BALL_POCKET = "ball_pocket"
    BALL_OFF_TABLE = "ball_off_table"
    BALL_DISTURBED = "ball_disturbed"
    SHOT_END = "shot_end"

    def is_contact(self) -> bool:
        return self in (EventKind.BALL_BALL, EventKind.BALL_CUSHION)

    def removes_ball(self) -> bool:
        return self in (EventKind.BALL_POCKET, EventKind.BALL_OFF_TABLE)


class TrackStatus(StrEnum):
    """Per-frame status of a ball (the `status` column of tracks.csv)."""

    ON_TABLE = "on_table"
    OCCLUDED = "occluded"
    POCKETED = "pocketed"
    OFF_TABLE = "off_table"


@dataclass(frozen=True, slots=True)
class Event:
    """One physical event.

    Attributes:
        frame: frame index at (or just after) the event.
        time_s: event time in seconds; may fall between frames (sub-frame estimate).
        kind: what happened.
        balls: ball classes involved (0 cue, 1..10); for ball_ball the striking ball first.
        cushion: cushion name for ball_cushion.
        pocket: pocket name for ball_pocket.
        confidence: 0..1, how sure the inference is.
        reason: why an inferred event was inferred, in words (a ball lost from sight and
            never found: where its path led); None for events seen directly.
    """

    frame: int
    time_s: float
    kind: EventKind
    balls: tuple[int, ...] = ()
    cushion: str | None = None
    pocket: str | None = None
    confidence: float = 1.0
    reason: str | None = None

    def __post_init__(self) -> None:
        # Ball numbers often come out of numpy (argmin, array rows); keep them Python ints so
        # every consumer (shot facts, JSON writers, the rules engine) sees plain numbers.
        object.__setattr__(self, "balls", tuple(int(b) for b in self.balls))
        object.__setattr__(self, "time_s", float(self.time_s))
        object.__setattr__(self, "frame", int(self.frame))

    def to_json(self) -> dict[str, Any]:
        """The events.jsonl object of design.md §5."""
        out: dict[str, Any] = {
            "frame": self.frame,
            "time_s": round(self.time_s, 4),
            "kind": str(self.kind),
            "balls": [BALL_NAMES[b] for b in self.balls],
        }
        if self.cushion is not None:
            out["cushion"] = self.cushion
        if self.pocket is not None:
            out["pocket"] = self.pocket
        if self.confidence != 1.0:
            out["confidence"] = round(self.confidence, 4)
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        balls = tuple(0 if b == "cue" else int(b) for b in data.get("balls", []))
        return cls(
            frame=int(data["frame"]),
            time_s=float(data["time_s"]),
            kind=EventKind(data["kind"]),
            balls=balls,
            cushion=data.get("cushion"),
            pocket=data.get("pocket"),
            confidence=float(data.get("confidence", 1.0)),
            reason=data.get("reason"),
        )


def _frozen(array: NDArray[np.generic]) -> NDArray[np.generic]:
    array.flags.writeable = False
    return array


@dataclass(frozen=True, slots=True, eq=False)
class TrackSet:
    """The state of every tracked ball at one frame, columnar.

    Attributes:
        frame: frame index.
        time_s: frame time, seconds.
        ball: (N,) int64 ball class (0 cue, 1..10), each at most once.
        xy_mm: (N, 2) float64 centre on the ball-centre plane, table mm.
        velocity_mm_s: (N, 2) float64 velocity, mm/s.
        xy_px: (N, 2) float64 centre in the image, px (NaN when unknown).
        status: (N,) object array of TrackStatus values.
        measured_xy_mm: (N, 2) float64 the detection centre this frame, table mm, before
            filtering (NaN when the ball was not detected). Optional; NaN when not given.
    """

    frame: int
    time_s: float
    ball: NDArray[np.int64]
    xy_mm: NDArray[np.float64]
    velocity_mm_s: NDArray[np.float64]
    xy_px: NDArray[np.float64]
    status: NDArray[np.object_]
    measured_xy_mm: NDArray[np.float64] | None = None

    def __post_init__(self) -> None:
        n = len(self.ball)
        if self.measured_xy_mm is None:
            object.__setattr__(self, "measured_xy_mm", np.full((n, 2), np.nan))
        specs: dict[str, tuple[tuple[int, ...], type]] = {
            "ball": ((n,), np.int64),
            "xy_mm": ((n, 2), np.float64),
            "velocity_mm_s": ((n, 2), np.float64),
            "xy_px": ((n, 2), np.float64),
            "status": ((n,), np.object_),
            "measured_xy_mm": ((n, 2), np.float64),
        }
        for name, (shape, dtype) in specs.items():
            array: NDArray[np.generic] = np.asarray(getattr(self, name), dtype=dtype)
            array = array.reshape(shape)
            object.__setattr__(self, name, _frozen(array))

    @classmethod
    def empty(cls, frame: int = 0, time_s: float = 0.0) -> TrackSet:
        return cls(
            frame,
            time_s,
            np.zeros(0, np.int64),
            np.zeros((0, 2)),
            np.zeros((0, 2)),
            np.zeros((0, 2)),
            np.zeros(0, np.object_),
        )

    def __len__(self) -> int:
        return len(self.ball)
