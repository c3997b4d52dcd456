"""tracks.csv settled at the end of a review, streamed: bounded memory for any length of match.

A ball leaves the rows on the frame the referee says it left, not when the tracker gave it
up. The tracker says a ball dropped only once it stays unseen long enough, and keeps a ball
whose drop it could not see (struck at rest and gone at once, or lost in its blur) as
hidden; other balls' single sightings under its number keep its track going. The removals
the referee settled on (`tracking.vanish`: the ball's path, the shot's end) say when it
left. Each removal, in frame order, whose ball has a row in play (on the bed, seen or
hidden) on the removal's frame turns that row into the removal (pocketed, off the table),
and the ball's rows after it go until it is found again: seen on the bed on `found_frames`
consecutive frames (a spotted 10), back in the rows from the first of them. A removal whose
ball has no such row (the tracker removed it first) leaves its rows as they are.

A two-hour match is millions of rows, so the file is never read whole: three passes over
its lines find the frame step, then each removal's span (one small state machine per
removed ball, holding at most a found-again run of rows), then rewrite it into a temporary
file renamed over the old one (a crash leaves the old file whole). The memory held is the
removals and their spans, plus one count per distinct frame step, whatever the number of
rows. Rows come in frame order (the order `ReviewWriter` writes them).
"""

from __future__ import annotations

import math
import os
from collections import Counter, deque
from collections.abc import Iterator
from pathlib import Path

from tracking.types import BALL_NAMES, TrackStatus

FOUND_S = 0.05
"""A removed ball is back in the rows once seen this long in a row (three frames at least):
`tracking.event_config.EventConfig.lost_found_s`."""

_ON_TABLE = str(TrackStatus.ON_TABLE)
_IN_PLAY = (_ON_TABLE, str(TrackStatus.OCCLUDED))

Span = tuple[int, int | None, str]
"""One removal applied: (frame of the removal row, frame the ball is found again or None for
never, status of the removal row). Rows strictly between the two frames go."""


def settle_tracks_file(path: Path, removals: list[tuple[int, int, str]]) -> None:
    """Rewrite tracks.csv (through a temporary file and a rename) once the run's removals
    are known: a ball leaves the rows on the frame the referee says it left.

    Args:
        path: the review's tracks.csv (design.md §5 header, rows in frame order).
        removals: (ball index, frame, status) of each ball_pocket / ball_off_table event.

    Raises:
        ValueError: a row names no ball of the set (the line is quoted).
    """
    found = found_frames(path)
    spans = removal_spans(path, removals, found)
    temporary = path.with_name(path.name + ".tmp")
    try:
        _rewrite(path, temporary, spans)
    except BaseException:
        temporary.unlink(missing_ok=True)  # the old file stays whole, and nothing beside it
        raise
    os.replace(temporary, path)


def _rewrite(path: Path, temporary: Path, spans: dict[str, list[Span]]) -> None:
    """Copy tracks.csv into `temporary`, each removed ball's rows settled by its spans."""
    with path.open(newline="") as source, temporary.open("w", newline="") as target:
        target.write(next(source, ""))
        cursor = {name: _Cursor(kept) for name, kept in spans.items()}
        for line in source:
            fields = line.split(",", 3)
            if fields[2] not in cursor:
                target.write(line)
                continue
            status = cursor[fields[2]].status_at(int(fields[0]))
            if status is None:
                target.write(line)
            elif status:
                target.write(line.rstrip("\n").rsplit(",", 1)[0] + f",{status}\n")


def _rows(path: Path) -> Iterator[tuple[int, str, str, str]]:
    """(frame, time text, ball name, status) of each row after the header, streamed."""
    names = set(BALL_NAMES)
    with path.open(newline="") as handle:
        next(handle, None)
        for line in handle:
            fields = line.split(",", 3)
            if len(fields) < 4 or fields[2] not in names:
                raise ValueError(f"tracks.csv: a row names no ball of the set: {line!r}")
            yield int(fields[0]), fields[1], fields[2], line.rstrip("\n").rsplit(",", 1)[1]


def found_frames(path: Path) -> int:
    """Rows in a row that find a removed ball again: `FOUND_S` at the file's frame step (the
    median step between its distinct times), three at least."""
    steps: Counter[float] = Counter()
    last: float | None = None
    for _, text, _, _ in _rows(path):
        time_s = float(text)
        if last is not None and time_s != last:
            steps[time_s - last] += 1
        last = time_s
    step_s = _median(steps) if steps else 1.0
    return max(3, math.ceil(FOUND_S / max(step_s, 1e-6) - 1e-9))


def _median(counts: Counter[float]) -> float:
    """The median of the values counted (numpy's: the mean of the two middle ones if even)."""
    total = sum(counts.values())
    wanted = {(total - 1) // 2, total // 2}
    picked: list[float] = []
    seen = 0
    for value in sorted(counts):
        later = seen + counts[value]
        picked += [value for position in sorted(wanted) if seen <= position < later]
        seen = later
    return picked[0] if len(picked) == 1 else (picked[0] + picked[1]) / 2.0


def removal_spans(
    path: Path, removals: list[tuple[int, int, str]], found: int
) -> dict[str, list[Span]]:
    """Each removed ball's spans (`Span`), by ball name, from one pass over the rows.

    Args:
        path: tracks.csv, rows in frame order.
        removals: (ball index, frame, status) of each removal.
        found: rows in a row on the bed (consecutive frames) that find a removed ball again.
    """
    balls: dict[str, _Removed] = {}
    for ball, frame, kind in sorted(removals, key=lambda removal: removal[1]):
        balls.setdefault(BALL_NAMES[ball], _Removed(max(1, found))).pending.append((frame, kind))
    if balls:
        for frame, _, name, status in _rows(path):
            if name in balls:
                balls[name].feed(frame, status)
    return {name: removed.finish() for name, removed in balls.items()}


class _Removed:
    """One removed ball's rows, fed in frame order: where each of its removals applies and
    where the ball is found again (the module's rule, one row at a time)."""

    __slots__ = ("_found", "_gone", "_run", "pending", "spans")

    def __init__(self, found: int) -> None:
        self._found = found
        self.pending: deque[tuple[int, str]] = deque()
        self.spans: list[Span] = []
        self._gone: tuple[int, str] | None = None
        self._run: list[int] = []

    def feed(self, frame: int, status: str) -> None:
        if self._gone is None:
            self._at_large(frame, status)
        else:
            self._missing(frame, status)

    def _at_large(self, frame: int, status: str) -> None:
        pending = self.pending
        while pending and pending[0][0] < frame:
            pending.popleft()  # no row on its frame: the tracker removed it already
        if not pending or pending[0][0] != frame:
            return
        kind = pending.popleft()[1]
        while pending and pending[0][0] == frame:
            pending.popleft()  # the same removal again finds its row removed
        if status in _IN_PLAY:
            self._gone, self._run = (frame, kind), []

    def _missing(self, frame: int, status: str) -> None:
        run = self._run
        if status != _ON_TABLE:
            run.clear()
        elif run and frame == run[-1] + 1:
            run.append(frame)
        else:
            self._run = run = [frame]
        if len(run) < self._found or self._gone is None:
            return
        at, kind = self._gone
        self.spans.append((at, run[0], kind))
        self._gone, self._run = None, []
        for again in run:  # a later removal may fall on the rows that found it again
            self.feed(again, _ON_TABLE)

    def finish(self) -> list[Span]:
        if self._gone is not None:
            self.spans.append((self._gone[0], None, self._gone[1]))
            self._gone = None
        return self.spans


class _Cursor:
    """Walks one ball's spans alongside its rows (frames ascending)."""

    __slots__ = ("_next", "_spans")

    def __init__(self, spans: list[Span]) -> None:
        self._spans = spans
        self._next = 0

    def status_at(self, frame: int) -> str | None:
        """The row's new status, "" if the row goes, None if it stays as it is."""
        spans = self._spans
        while self._next < len(spans):
            end = spans[self._next][1]
            if end is None or frame < end:
                break
            self._next += 1
        if self._next == len(spans):
            return None
        at, _, kind = spans[self._next]
        if frame == at:
            return kind
        return "" if frame > at else None
