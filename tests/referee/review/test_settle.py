"""tracks.csv settled at the end of a review, streamed (`referee.review.settle`): the rule on
small cases, the same bytes as a whole-file model of the rule on random files, in bounded
memory."""

from __future__ import annotations

import math
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from referee.review.settle import found_frames, settle_tracks_file
from tracking.types import BALL_NAMES, TrackStatus

HEAD = "frame,time_s,ball,x_mm,y_mm,u_px,v_px,status\n"
STATUSES = [str(s) for s in TrackStatus]
ON, HID, POT, OFF = (str(s) for s in TrackStatus)


def _model(
    rows: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.object_]],
    removals: list[tuple[int, int, str]],
    found_frames: int,
) -> list[str | None]:
    """The rule on whole columns, the way the review applied it before it streamed: each
    removal (ball, frame, status), by frame, whose ball has an in-play row on that frame
    turns that row into the removal and drops the ball's rows after it until it is seen on
    the bed on ``found_frames`` consecutive frames. Each row's new status, None where the
    row goes."""
    frame, ball, status = rows
    out: list[str | None] = list(status)
    for gone, at, kind in sorted(removals, key=lambda removal: removal[1]):
        index = np.flatnonzero((ball == gone) & (frame >= at))
        if len(index) == 0 or frame[index[0]] != at or out[index[0]] not in (ON, HID):
            continue
        back, run = len(index), 0
        for k in range(1, len(index)):
            if out[index[k]] != ON:
                run = 0
                continue
            run = run + 1 if run and frame[index[k]] == frame[index[k - 1]] + 1 else 1
            if run >= found_frames:
                back = k - run + 1
                break
        out[index[0]] = kind
        for k in index[1:back]:
            out[k] = None
    return out


def _whole_file(path: Path, removals: list[tuple[int, int, str]]) -> str:
    """The rewrite as it was before streaming: every row in memory, `_model` on them."""
    lines = path.read_text().splitlines(keepends=True)
    fields = [line.split(",", 3)[:3] for line in lines[1:]]
    names = {name: index for index, name in enumerate(BALL_NAMES)}
    frame = np.array([int(f[0]) for f in fields], np.int64)
    ball = np.array([names[f[2]] for f in fields], np.int64)
    status = np.array([line.rstrip("\n").rsplit(",", 1)[1] for line in lines[1:]], object)
    times = np.unique(np.array([float(f[1]) for f in fields]))
    step_s = float(np.median(np.diff(times))) if len(times) > 1 else 1.0
    found = max(3, math.ceil(0.05 / max(step_s, 1e-6) - 1e-9))
    settled = _model((frame, ball, status), removals, found)
    out = [lines[0]]
    for line, old, new in zip(lines[1:], status, settled, strict=True):
        if new is not None:
            out.append(line if new == old else line.rstrip("\n").rsplit(",", 1)[0] + f",{new}\n")
    return "".join(out)


def _write(path: Path, rows: list[tuple[int, int, str]], fps: float) -> None:
    lines = [HEAD]
    lines += [
        f"{frame},{frame / fps:.4f},{BALL_NAMES[ball]},1.0,2.0,3.0,4.0,{status}\n"
        for frame, ball, status in rows
    ]
    path.write_text("".join(lines))


_rows = st.lists(
    st.tuples(
        st.integers(0, 3),  # frames skipped before this one
        st.lists(st.tuples(st.sampled_from([0, 3, 10]), st.sampled_from(STATUSES)), max_size=3),
    ),
    min_size=0,
    max_size=60,
)
_removals = st.lists(
    st.tuples(st.sampled_from([0, 3, 10]), st.integers(0, 120), st.sampled_from([POT, OFF])),
    max_size=5,
)


@settings(max_examples=300, deadline=None)
@given(frames=_rows, removals=_removals, fps=st.sampled_from([30.0, 50.0, 60.0, 120.0]))
def test_streamed_settling_writes_what_the_whole_file_rewrite_wrote(
    tmp_path_factory: pytest.TempPathFactory,
    frames: list[tuple[int, list[tuple[int, str]]]],
    removals: list[tuple[int, int, str]],
    fps: float,
) -> None:
    rows, frame = [], 0
    for skip, balls in frames:
        frame += skip
        seen: set[int] = set()
        for ball, status in balls:
            if ball not in seen:  # one row per ball and frame, as the writer writes
                seen.add(ball)
                rows.append((frame, ball, status))
        frame += 1
    path = tmp_path_factory.mktemp("settle") / "tracks.csv"
    _write(path, rows, fps)
    want = _whole_file(path, removals)
    settle_tracks_file(path, removals)
    assert path.read_text() == want
    assert not path.with_name("tracks.csv.tmp").exists()


@pytest.mark.parametrize(
    ("statuses", "removals", "want"),
    [
        # The tracker confirms the drop half a second late: the hidden rows before it go,
        # the row on the referee's frame becomes the drop.
        ("ooohhhhhp", [(3, POT)], "ooop....."),
        # Struck at rest and gone at once: kept hidden to the end by the tracker.
        ("oooohhhhhhhh", [(5, OFF)], "oooohx......"),
        # Single sightings of other balls under its number do not bring it back.
        ("ooohhohhhoohhhh", [(3, POT)], "ooop..........."),
        # Seen again on three frames in a row: back in play from the first of them.
        ("ooohhhoooh", [(3, POT)], "ooop..oooh"),
        # A spotted ball seen on and on after the tracker's own drop is back in play.
        ("ooohhhp....oooooh", [(3, POT)], "ooop.......oooooh"),
        # A second removal on the rows that found it again applies too.
        ("ooohhhoooohh", [(3, POT), (7, OFF)], "ooop..ox...."),
        # The tracker removed it before the referee's frame: its own rows stand.
        ("ooopoooo", [(3, OFF)], "ooopoooo"),
        ("ooop......", [(6, POT)], "ooop......"),
        # No removal: nothing changes.
        ("oohhhhhh", [], "oohhhhhh"),
    ],
    ids=[
        "late-confirm",
        "struck-at-rest",
        "misread-sightings",
        "found-again",
        "spotted-back",
        "removed-twice",
        "tracker-first",
        "tracker-first-no-row",
        "none",
    ],
)
def test_a_removed_ball_leaves_the_rows_on_the_referees_frame(
    tmp_path: Path, statuses: str, removals: list[tuple[int, str]], want: str
) -> None:
    """The 3's rows (o on_table, h occluded, p pocketed, x off_table, '.' no row) beside the
    cue ball's, seen throughout: only the 3's change, and the header stays."""
    code = {"o": ON, "h": HID, "p": POT, "x": OFF}
    rows = []
    for frame, c in enumerate(statuses):
        rows.append((frame, 0, ON))
        if c != ".":
            rows.append((frame, 3, code[c]))
    path = tmp_path / "tracks.csv"
    _write(path, rows, 60.0)
    settle_tracks_file(path, [(3, frame, kind) for frame, kind in removals])
    lines = path.read_text().splitlines()
    assert lines[0] + "\n" == HEAD
    fields = [line.split(",") for line in lines[1:]]
    assert [f[0] for f in fields if f[2] == "cue"] == [str(i) for i in range(len(statuses))]
    assert all(f[-1] == ON for f in fields if f[2] == "cue")
    back = {value: key for key, value in code.items()}
    threes = {int(f[0]): back[f[-1]] for f in fields if f[2] == "3"}
    assert "".join(threes.get(i, ".") for i in range(len(statuses))) == want
    assert not (tmp_path / "tracks.csv.tmp").exists()


@pytest.mark.parametrize(("fps", "want"), [(30.0, 3), (60.0, 3), (100.0, 5), (240.0, 12)])
def test_found_again_needs_a_twentieth_of_a_second_of_rows(
    tmp_path: Path, fps: float, want: int
) -> None:
    path = tmp_path / "tracks.csv"
    _write(path, [(frame, 0, "on_table") for frame in range(50)], fps)
    assert found_frames(path) == want


def test_a_long_match_is_settled_in_bounded_memory(tmp_path: Path) -> None:
    """50 000 rows (a quarter of an hour of one ball at 60 fps): the memory held stays far
    below the file's size, which a whole-file rewrite would hold several times over."""
    path = tmp_path / "tracks.csv"
    rows = 50_000
    with path.open("w") as handle:
        handle.write(HEAD)
        for frame in range(rows):
            status = "on_table" if frame < 1000 else "occluded"
            handle.write(f"{frame},{frame / 60:.4f},3,1.0,2.0,3.0,4.0,{status}\n")
    size = path.stat().st_size
    tracemalloc.start()
    try:
        settle_tracks_file(path, [(3, 1000, POT)])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < size / 20
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + 1001
    assert lines[-1].startswith("1000,") and lines[-1].endswith(POT)


def test_a_row_naming_no_ball_is_an_error_that_quotes_it(tmp_path: Path) -> None:
    path = tmp_path / "tracks.csv"
    path.write_text(HEAD + "0,0.0000,eleven,1.0,2.0,3.0,4.0,on_table\n")
    with pytest.raises(ValueError, match="eleven"):
        settle_tracks_file(path, [(3, 0, POT)])
    assert path.read_text().endswith("on_table\n")  # the file is left as it was


def test_a_failed_rewrite_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "tracks.csv"
    _write(path, [(frame, 3, "occluded") for frame in range(10)], 60.0)
    before = path.read_text()

    def full_disk(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("referee.review.settle._Cursor.status_at", full_disk)
    with pytest.raises(OSError, match="No space"):
        settle_tracks_file(path, [(3, 2, POT)])
    assert path.read_text() == before
    assert not (tmp_path / "tracks.csv.tmp").exists()
