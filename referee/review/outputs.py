"""The machine files of `tenball review` (design.md §5, contract), written as processing goes.

tracks.csv, events.jsonl and shots.jsonl are appended in whole lines and flushed at least
once a second of video, so a crash or a truncated video leaves valid files for what was
processed. summary.json is replaced atomically (written to a temporary file, then renamed)
and says whether the run completed.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from referee.review.settle import settle_tracks_file
from tracking.types import BALL_NAMES, Event, EventKind, TrackSet, TrackStatus

__all__ = ["TRACKS_HEADER", "ReviewWriter", "settle_tracks_file", "write_json_atomic"]

TRACKS_HEADER = "frame,time_s,ball,x_mm,y_mm,u_px,v_px,status\n"
_ONCE = (TrackStatus.POCKETED, TrackStatus.OFF_TABLE)


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to `path` through a temporary file and a rename (never half-written)."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(temporary, path)


_REMOVAL = {
    EventKind.BALL_POCKET: TrackStatus.POCKETED,
    EventKind.BALL_OFF_TABLE: TrackStatus.OFF_TABLE,
}


def _number(value: float) -> str:
    return f"{value:.1f}" if math.isfinite(value) else ""


class ReviewWriter:
    """Streams tracks.csv, events.jsonl and shots.jsonl into an output folder.

    A ball that drops gets one `pocketed` (or `off_table`) row, on the frame it drops, and no
    rows after until it is seen on the bed again (a spotted 10).

    Args:
        out_dir: the output folder (created if needed).
        flush_every_frames: flush the files at least this often; lower is safer, slower.
    """

    def __init__(self, out_dir: str | Path, flush_every_frames: int = 60) -> None:
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._tracks: IO[str] = (self.out_dir / "tracks.csv").open("w", newline="")
        self._events: IO[str] = (self.out_dir / "events.jsonl").open("w")
        self._shots: IO[str] = (self.out_dir / "shots.jsonl").open("w")
        self._tracks.write(TRACKS_HEADER)
        self._gone: set[int] = set()
        self._flush_every = max(1, flush_every_frames)
        self._since_flush = 0
        self.counts = {"track_rows": 0, "events": 0, "shots": 0}
        self._removals: list[tuple[int, int, str]] = []

    def write_tracks(self, tracks: TrackSet) -> None:
        """Append the rows of one frame's TrackSet."""
        lines = []
        head = f"{tracks.frame},{tracks.time_s:.4f},"
        xy_mm, xy_px = tracks.xy_mm.tolist(), tracks.xy_px.tolist()
        for ball, status, (x, y), (u, v) in zip(
            tracks.ball.tolist(), tracks.status.tolist(), xy_mm, xy_px, strict=True
        ):
            if status in _ONCE:
                if ball in self._gone:
                    continue
                self._gone.add(ball)
            else:
                self._gone.discard(ball)
            lines.append(
                f"{head}{BALL_NAMES[ball]},{_number(x)},{_number(y)},"
                f"{_number(u)},{_number(v)},{status}\n"
            )
        self._tracks.write("".join(lines))
        self.counts["track_rows"] += len(lines)
        self._since_flush += 1
        if self._since_flush >= self._flush_every:
            self.flush()

    def write_events(self, events: list[Event] | tuple[Event, ...]) -> None:
        """Append events (design.md §5 objects)."""
        self._removals += [
            (e.balls[0], e.frame, str(_REMOVAL[e.kind])) for e in events if e.kind in _REMOVAL
        ]
        if events:
            self._events.write("".join(json.dumps(e.to_json()) + "\n" for e in events))
            self.counts["events"] += len(events)

    def write_shot(self, shot: dict[str, Any]) -> None:
        """Append one shots.jsonl object and flush: a finished shot is never lost."""
        self._shots.write(json.dumps(shot) + "\n")
        self.counts["shots"] += 1
        self.flush()

    def flush(self) -> None:
        for handle in (self._tracks, self._events, self._shots):
            handle.flush()
        self._since_flush = 0

    def close(self) -> None:
        for handle in (self._tracks, self._events, self._shots):
            if not handle.closed:
                handle.close()
        if self._removals:
            settle_tracks_file(self.out_dir / "tracks.csv", self._removals)
            self._removals = []

    def __enter__(self) -> ReviewWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
