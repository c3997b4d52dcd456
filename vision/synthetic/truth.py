"""Truth values of a synthetic clip and their files (design.md §5, contract).

Frame timing: frame k shows the table at the instant t = k / fps (seconds from the start of
the clip). An event keeps its exact time `time_s` and carries `frame` = the first frame at or
after that time, ceil(time_s * fps). A pocketed ball gets one tracks.csv row, on the frame of
its ball_pocket event, with status `pocketed`; a ball that leaves the table gets one row with
status `off_table` on the frame of its ball_off_table event; neither has rows afterwards.

vision/ may not import tracking/, so events are written here in exactly the JSON form of
`tracking.types.Event.to_json` (a test checks the two agree).
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.types import BALL_NAMES

EVENT_KINDS = (
    "strike",
    "ball_ball",
    "ball_cushion",
    "ball_pocket",
    "ball_off_table",
    "ball_disturbed",
    "shot_end",
)
TRACKS_HEADER = ("frame", "time_s", "ball", "x_mm", "y_mm", "u_px", "v_px", "status")


def frame_at_or_after(time_s: float, fps: float) -> int:
    """The first frame index whose instant k / fps is at or after `time_s`."""
    return max(0, math.ceil(time_s * fps - 1e-9))


@dataclass(frozen=True, slots=True)
class TruthEvent:
    """One exact physical event.

    Attributes:
        time_s: exact time, seconds (shot-local while a shot is built, clip time in files).
        kind: one of `EVENT_KINDS`.
        balls: ball classes (0 cue, 1..10); for ball_ball the striking ball first.
        cushion: cushion name (ball_cushion only).
        pocket: pocket name (ball_pocket only).
    """

    time_s: float
    kind: str
    balls: tuple[int, ...] = ()
    cushion: str | None = None
    pocket: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in EVENT_KINDS:
            raise ValueError(f"unknown event kind {self.kind!r}; expected one of {EVENT_KINDS}")

    def shifted(self, offset_s: float) -> TruthEvent:
        """The same event `offset_s` later."""
        return TruthEvent(self.time_s + offset_s, self.kind, self.balls, self.cushion, self.pocket)

    def to_json(self, fps: float) -> dict[str, Any]:
        """The events.jsonl object of design.md §5."""
        out: dict[str, Any] = {
            "frame": frame_at_or_after(self.time_s, fps),
            "time_s": round(self.time_s, 4),
            "kind": self.kind,
            "balls": [BALL_NAMES[b] for b in self.balls],
        }
        if self.cushion is not None:
            out["cushion"] = self.cushion
        if self.pocket is not None:
            out["pocket"] = self.pocket
        return out


@dataclass(frozen=True, slots=True)
class TrackRow:
    """One row of tracks.csv."""

    frame: int
    time_s: float
    ball: int
    x_mm: float
    y_mm: float
    u_px: float
    v_px: float
    status: str

    def cells(self) -> list[str]:
        return [
            str(self.frame),
            f"{self.time_s:.4f}",
            BALL_NAMES[self.ball],
            f"{self.x_mm:.2f}",
            f"{self.y_mm:.2f}",
            f"{self.u_px:.2f}",
            f"{self.v_px:.2f}",
            self.status,
        ]


def write_atomic(path: Path, text: str) -> None:
    """Write a text file through a temporary name, so a crash leaves no half file."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def write_jsonl(path: Path, objects: Iterable[dict[str, Any]]) -> None:
    write_atomic(path, "".join(json.dumps(o) + "\n" for o in objects))


def write_tracks(path: Path, rows: Iterable[TrackRow]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(TRACKS_HEADER)
        for row in rows:
            writer.writerow(row.cells())
    os.replace(temporary, path)


def read_tracks(path: Path) -> list[TrackRow]:
    """Rows of a tracks.csv (truth or review output)."""
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != TRACKS_HEADER:
            raise ValueError(f"{path}: header must be {','.join(TRACKS_HEADER)}")
        return [
            TrackRow(
                int(r["frame"]),
                float(r["time_s"]),
                BALL_NAMES.index(r["ball"]),
                float(r["x_mm"]),
                float(r["y_mm"]),
                float(r["u_px"]),
                float(r["v_px"]),
                r["status"],
            )
            for r in reader
        ]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
