"""Finding the table in a video file, wherever in the clip it can be seen.

A fixed camera sees the same table all through a clip, but not always from the first frame:
a player may stand in front of the table, lean over a rail or walk along it for the first
seconds, or the recording may start on something else. So the table is looked for in
windows of the clip, each combined by a temporal median (what moves drops out):

1. the first `FIRST_WINDOW_S` seconds (the usual case: found there, nothing else is read);
2. when that fails or is doubtful (confidence under `DOUBTFUL`): frames spread over the
   whole clip, keeping the more confident table;
3. when neither shows a table: consecutive stretches of the clip (`STRETCHES` of them at
   most), until one does.

The head is where the rule of `calibration.orientation.head_side` puts it unless a rack
stands at the other end. A rack stands only until the break, usually well inside the first
window, so its median has often lost it: each of the window's single frames votes for the
end its rack stands at (`calibration.orientation.rack_patterns`: balls where a rack's
stand, cloth around them; a person over an end covers both), and the head and foot are
swapped when the votes say the rack stands at the end called the head.

Frames are read with OpenCV's own reader (calibration imports nothing from `vision`),
seeking to each wanted frame past the first window.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray
from calibration.find import FindOptions, TableFinding, TableNotFoundError, with_note
from calibration.fit import fit_camera_report
from calibration.io import CORNER_NAMES, Calibration, CalibrationError
from calibration.orientation import RACK_FILL, rack_fills, rack_patterns
from calibration.scale import find_sized_table
from calibration.table import TableSpec

__all__ = [
    "VideoFinding",
    "find_in_video",
    "find_in_windows",
    "rack_checked",
    "rack_votes",
    "read_window",
    "windows",
]

FIRST_WINDOW_S = 3.75
"""The first window: frames over this many seconds at `FRAMES_PER_S`."""

FRAMES_PER_S = 4.0
"""Frames kept per second of the first window (a median of 15 over 3.75 s removes balls
rolling and people walking)."""

WINDOW_FRAMES = 15
"""Frames combined per window."""

DOUBTFUL = 0.3
"""A table found in the first window with a confidence under this is looked for again in
frames spread over the clip, and the more confident one kept (well-found tables score
0.45-0.95; corner views, whose cushions show no clear pockets, and tables whose cushion lines
a person hides score under 0.15)."""

STRETCHES = 6
"""At most this many consecutive stretches of the clip are searched after the spread
window (each of `WINDOW_FRAMES` frames)."""

RACK_PATTERN = 0.15
"""Smallest rack pattern score for a frame to vote for an end (a rack near the camera scores
0.4-0.9, one at the far end of a corner view about 0.25; a body over the spot about 0)."""

RACK_RATIO = 2.5
"""How many times fuller than the other end's the rack's disk must be for a frame to vote
for that end (a tight rack fills 0.5-0.6 of it; the breaker's hand, cue and cue ball fill
up to about 0.15 of the disk at the head spot)."""

Progress = Callable[[str], None]
Image = NDArray[np.uint8]


@dataclass(frozen=True, slots=True, eq=False)
class VideoFinding:
    """A table found in a video.

    Attributes:
        finding: the table (calibration, confidence, notes: the window it was found in and
            any head/foot swap are among the notes).
        window_s: (start, end) seconds of the clip whose frames found it.
        attempts: windows searched.
    """

    finding: TableFinding
    window_s: tuple[float, float]
    attempts: int


def read_window(
    capture: cv2.VideoCapture, indices: Sequence[int], sequential: bool = False
) -> list[Image]:
    """The frames at `indices` (ascending) of an open capture; missing ones are skipped.

    Args:
        capture: an opened OpenCV capture.
        indices: frame numbers, ascending.
        sequential: read from the current position, grabbing (not decoding) the frames in
            between, instead of seeking to each (for frames close together at the start).
    """
    frames: list[Image] = []
    position = 0
    for index in indices:
        if sequential:
            while position < index and capture.grab():
                position += 1
            if position != index:
                break
        else:
            capture.set(cv2.CAP_PROP_POS_FRAMES, float(index))
        ok, frame = capture.read()
        position = index + 1
        if ok and frame is not None:
            frames.append(np.asarray(frame, dtype=np.uint8))
        elif sequential:
            break
    return frames


def windows(fps: float, frame_count: int) -> list[tuple[int, ...]]:
    """Frame numbers of each window to search, in order (first window first).

    Args:
        fps: frames per second (> 0).
        frame_count: frames in the clip (0 when unknown: only the first window).
    """
    step = max(1, round(fps / FRAMES_PER_S))
    first = tuple(range(0, WINDOW_FRAMES * step, step))
    if frame_count <= first[-1] + 1:
        return [tuple(i for i in first if i < frame_count)] if frame_count else [first]
    out = [first, _spread(0, frame_count)]
    count = min(STRETCHES, max(1, frame_count // (WINDOW_FRAMES * step)))
    if count > 1:
        edges = np.linspace(0, frame_count, count + 1).round().astype(int)
        out += [_spread(int(a), int(b)) for a, b in itertools.pairwise(edges)]
    return out


def _spread(start: int, end: int) -> tuple[int, ...]:
    """`WINDOW_FRAMES` frame numbers evenly spread over [start, end)."""
    picks = np.linspace(start, end - 1, WINDOW_FRAMES).round().astype(int)
    return tuple(int(i) for i in np.unique(picks))


def find_in_video(
    path: str | Path,
    table: TableSpec | None,
    options: FindOptions | None = None,
    progress: Progress | None = None,
) -> VideoFinding:
    """Find the table in a video file, looking further into the clip when the first seconds
    show none (see the module docstring).

    Args:
        path: the video file.
        table: the table's size, or None to measure it from the balls.
        options: head rule, camera prior, cushion nose height.
        progress: called with a line for a person each time a further window is searched.

    Raises:
        TableNotFoundError: no window of the clip shows a table; the message says what was
            searched and why the first window failed.
        CalibrationError: the file cannot be read as a video.
    """
    capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        raise CalibrationError(f"{path}: cannot be opened as a video")
    try:
        fps = float(capture.get(cv2.CAP_PROP_FPS)) or 30.0
        count = max(0, int(capture.get(cv2.CAP_PROP_FRAME_COUNT)))
        plan = windows(fps, count)

        def read(k: int) -> list[Image]:
            if k > 0 and progress is not None:
                progress(f"table: looking in {_span(plan[k], fps)} of the clip")
            return read_window(capture, plan[k], sequential=k == 0)

        return find_in_windows(read, plan, fps, table, options)
    finally:
        capture.release()


def find_in_windows(
    read: Callable[[int], list[Image]],
    plan: Sequence[Sequence[int]],
    fps: float,
    table: TableSpec | None,
    options: FindOptions | None = None,
) -> VideoFinding:
    """`find_in_video` over windows given as frame numbers, read by `read(k)` for window k.

    Raises:
        TableNotFoundError: no window shows a table.
    """
    options = options or FindOptions()
    best: tuple[TableFinding, int, list[Image]] | None = None
    outcomes: list[str] = []
    first: list[Image] = []
    for k in range(len(plan)):
        frames = read(k)
        first = first or frames
        finding, outcome = _search(frames, table, options)
        outcomes.append(outcome)
        if finding is not None and (best is None or finding.confidence > best[0].confidence):
            best = (finding, k, frames)
        if best is not None and (best[0].confidence >= DOUBTFUL or k >= 1):
            break
    if best is None:
        raise TableNotFoundError(
            f"no table in any of the {len(plan)} stretch(es) of the clip searched (up to "
            f"{max(max(w, default=0) for w in plan) / fps:.1f} s); in the first "
            f"{FIRST_WINDOW_S:g} s: {outcomes[0]}"
        )
    finding, k, frames = best
    if options.head is None:
        finding = rack_checked(finding, [*first, *frames] if k else frames, options)
    if k > 0:
        finding = with_note(
            finding,
            f"found in frames spread over {_span(plan[k], fps)} of the clip (in the first "
            f"{FIRST_WINDOW_S:g} s: {outcomes[0]})",
        )
    return VideoFinding(finding, (plan[k][0] / fps, plan[k][-1] / fps), len(outcomes))


def _search(
    frames: list[Image], table: TableSpec | None, options: FindOptions
) -> tuple[TableFinding | None, str]:
    """The table in one window's frames (None when there is none) and what happened, for
    a person."""
    if not frames:
        return None, "no frame could be read"
    try:
        finding = find_sized_table(frames, table, options)
    except CalibrationError as error:
        return None, f"no table ({error})"
    return finding, f"a table of confidence {finding.confidence:.2f}"


def _span(indices: Sequence[int], fps: float) -> str:
    return f"{indices[0] / fps:.1f}-{indices[-1] / fps:.1f} s"


def rack_votes(frames: Sequence[Image], calibration: Calibration) -> tuple[int, int]:
    """How many single frames show a rack at the head, and how many at the foot: that end's
    disk at least `RACK_FILL` full and `RACK_RATIO` times fuller than the other end's (a
    hand or a cue over it), and its pixels in a rack's pattern (balls where a rack's stand,
    cloth around them: `calibration.orientation.rack_patterns` at least `RACK_PATTERN`,
    above the other end's) rather than a body covering it all."""
    head = foot = 0
    for frame in frames:
        fills = rack_fills(frame, calibration.camera, calibration.table)
        patterns = rack_patterns(frame, calibration.camera, calibration.table)
        if fills is None or patterns is None:
            continue
        for end, other in ((0, 1), (1, 0)):
            full = fills[end] >= RACK_FILL and fills[end] >= RACK_RATIO * fills[other]
            racked = patterns[end] >= RACK_PATTERN and patterns[end] > patterns[other]
            if full and racked:
                head, foot = (head + 1, foot) if end == 0 else (head, foot + 1)
    return head, foot


def rack_checked(
    finding: TableFinding, frames: Sequence[Image], options: FindOptions
) -> TableFinding:
    """`finding` with head and foot swapped when more of the single `frames` show the rack
    at its head than at its foot (at least two of them: one frame can be a person over the
    head spot); unchanged otherwise."""
    head, foot = rack_votes(frames, finding.calibration)
    if head < 2 or head <= foot:
        return finding
    return _flipped(
        finding,
        f"{head} frame(s) show a rack at the end the rule named head ({foot} at the other): "
        "head and foot swapped",
        options,
    )


def _flipped(finding: TableFinding, note: str, options: FindOptions) -> TableFinding:
    """The same table with head and foot swapped (the corners renamed and the camera
    refitted)."""
    calibration = finding.calibration
    seen = np.array([calibration.corners_px[name] for name in CORNER_NAMES], dtype=np.float64)
    turned: FloatArray = np.roll(seen, -2, axis=0)
    corners = {n: (float(u), float(v)) for n, (u, v) in zip(CORNER_NAMES, turned, strict=True)}
    size = calibration.camera.image_size
    fit = fit_camera_report(corners, calibration.table, size, options.prior, check_shape=False)
    extra = {**calibration.extra, **fit.as_json()}
    flipped = Calibration(calibration.table, fit.camera, corners, extra)
    lines = finding.lines[2:] + finding.lines[:2]
    return with_note(replace(finding, calibration=flipped, fit=fit, lines=lines), note)
