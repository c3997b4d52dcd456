"""Reading the contract files of design.md §5 for `tenball eval`.

Only the contract files are read (tracks.csv, events.jsonl, shots.jsonl, summary.json), so a
run is judged the same way whoever produced it. A synthetic clip keeps its truth in a
`truth/` folder beside `calibration.json`; `load_side` accepts either that clip folder or a
folder holding the files directly.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tracking.types import BALL_NAMES, Event

TRACKS_HEADER = ("frame", "time_s", "ball", "x_mm", "y_mm", "u_px", "v_px", "status")
IN_PLAY = ("on_table", "occluded")
"""Statuses of a row whose ball is on the bed (seen or hidden)."""
STATUSES = ("on_table", "occluded", "pocketed", "off_table")


class EvalInputError(ValueError):
    """A file of a run or a truth folder is missing or malformed; the message says which."""


def _frozen(array: NDArray[Any]) -> NDArray[Any]:
    array.flags.writeable = False
    return array


@dataclass(frozen=True, slots=True, eq=False)
class TrackRows:
    """The rows of one tracks.csv, columnar.

    Attributes:
        frame: (N,) int64 frame index.
        time_s: (N,) float64 frame time, seconds.
        ball: (N,) int64 ball class (0 cue, 1..10).
        xy_mm: (N, 2) float64 ball centre, table frame, mm.
        uv_px: (N, 2) float64 ball centre in the image, px (NaN when blank).
        status: (N,) int64 index into `STATUSES`.
    """

    frame: NDArray[np.int64]
    time_s: NDArray[np.float64]
    ball: NDArray[np.int64]
    xy_mm: NDArray[np.float64]
    uv_px: NDArray[np.float64]
    status: NDArray[np.int64]

    def __post_init__(self) -> None:
        n = len(self.frame)
        for name, shape in (
            ("frame", (n,)),
            ("time_s", (n,)),
            ("ball", (n,)),
            ("xy_mm", (n, 2)),
            ("uv_px", (n, 2)),
            ("status", (n,)),
        ):
            array = getattr(self, name)
            if array.shape != shape:
                raise ValueError(f"TrackRows.{name} must have shape {shape}, got {array.shape}")
            _frozen(array)

    @classmethod
    def empty(cls) -> TrackRows:
        return cls(
            np.zeros(0, np.int64),
            np.zeros(0),
            np.zeros(0, np.int64),
            np.zeros((0, 2)),
            np.zeros((0, 2)),
            np.zeros(0, np.int64),
        )

    def __len__(self) -> int:
        return len(self.frame)

    def in_play(self) -> NDArray[np.bool_]:
        """(N,) mask of rows whose ball is on the bed (status on_table or occluded)."""
        return self.status <= STATUSES.index("occluded")


@dataclass(frozen=True, slots=True)
class Side:
    """Everything `tenball eval` reads from one side (truth or run).

    Attributes:
        folder: where the files were read from.
        tracks: the rows of tracks.csv.
        events: events.jsonl, in file order.
        shots: shots.jsonl objects, in file order.
        summary: summary.json, or {} when the folder has none (truth folders).
    """

    folder: Path
    tracks: TrackRows
    events: tuple[Event, ...]
    shots: tuple[dict[str, Any], ...]
    summary: dict[str, Any] = field(default_factory=dict)

    def fps(self) -> float | None:
        """Frames per second: summary.json's, else estimated from the tracks' timestamps."""
        value = self.summary.get("fps")
        if isinstance(value, int | float) and value > 0:
            return float(value)
        return _fps_from_rows(self.tracks.frame, self.tracks.time_s)


def _fps_from_rows(frame: NDArray[np.int64], time_s: NDArray[np.float64]) -> float | None:
    frames, first = np.unique(frame, return_index=True)
    if len(frames) < 2:
        return None
    times = time_s[first]
    span_s = float(times[-1] - times[0])
    if span_s <= 0:
        return None
    return float(frames[-1] - frames[0]) / span_s


def resolve_folder(folder: Path) -> Path:
    """The folder holding the contract files: `folder/truth` for a clip, else `folder`."""
    if not folder.is_dir():
        raise EvalInputError(f"{folder} is not a folder")
    truth = folder / "truth"
    if not (folder / "shots.jsonl").exists() and (truth / "shots.jsonl").exists():
        return truth
    return folder


def load_side(folder: str | Path) -> Side:
    """Read tracks.csv, events.jsonl, shots.jsonl and (if present) summary.json.

    Raises:
        EvalInputError: a required file is missing or has a malformed row (named with its line).
    """
    where = resolve_folder(Path(folder))
    summary_path = where / "summary.json"
    summary = _read_json(summary_path) if summary_path.exists() else {}
    return Side(
        folder=where,
        tracks=read_tracks(where / "tracks.csv"),
        events=tuple(Event.from_json(obj) for obj in _read_jsonl(where / "events.jsonl")),
        shots=tuple(_read_jsonl(where / "shots.jsonl")),
        summary=summary,
    )


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise EvalInputError(f"{path} is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise EvalInputError(f"{path}: expected a JSON object")
    return data


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        raise EvalInputError(f"missing file {path}")
    objects: list[dict[str, Any]] = []
    for number, line in enumerate(_whole_lines(path.read_text()), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as error:
            raise EvalInputError(f"{path}:{number}: not valid JSON: {error}") from None
        if not isinstance(obj, dict):
            raise EvalInputError(f"{path}:{number}: expected a JSON object")
        objects.append(obj)
    return objects


def _whole_lines(text: str) -> list[str]:
    """The file's lines without an unfinished last one (a run killed mid-write)."""
    lines = text.splitlines()
    if lines and not text.endswith("\n"):
        lines.pop()
    return lines


def _float(text: str) -> float:
    return float(text) if text.strip() else float("nan")


def read_tracks(path: Path) -> TrackRows:
    """Read a tracks.csv (header `frame,time_s,ball,x_mm,y_mm,u_px,v_px,status`)."""
    if not path.exists():
        raise EvalInputError(f"missing file {path}")
    ball_index = {name: i for i, name in enumerate(BALL_NAMES)}
    columns: list[list[float]] = [[] for _ in range(8)]
    with path.open(newline="") as handle:
        reader = csv.reader(_whole_lines(handle.read()))
        header = tuple(next(reader, ()))
        if header != TRACKS_HEADER:
            raise EvalInputError(f"{path}: header must be {','.join(TRACKS_HEADER)}, got {header}")
        for number, row in enumerate(reader, start=2):
            try:
                values = (
                    int(row[0]),
                    float(row[1]),
                    ball_index[row[2]],
                    _float(row[3]),
                    _float(row[4]),
                    _float(row[5]),
                    _float(row[6]),
                    STATUSES.index(row[7]),
                )
            except (IndexError, KeyError, ValueError) as error:
                raise EvalInputError(f"{path}:{number}: malformed row {row}: {error}") from None
            for column, value in zip(columns, values, strict=True):
                column.append(value)
    return TrackRows(
        frame=np.asarray(columns[0], np.int64),
        time_s=np.asarray(columns[1], np.float64),
        ball=np.asarray(columns[2], np.int64),
        xy_mm=np.stack([np.asarray(columns[3]), np.asarray(columns[4])], axis=1).reshape(-1, 2),
        uv_px=np.stack([np.asarray(columns[5]), np.asarray(columns[6])], axis=1).reshape(-1, 2),
        status=np.asarray(columns[7], np.int64),
    )
