"""Events, shots and calls in a second process, while the main one detects the next frames.

Only detection and tracking feed the next frame (where to search); the event detector, the
shot segmenter and the rules stage only read each frame's tracks, in order. On a machine
with two cores they run in a forked copy of the pipeline, so a review costs about the
slower of the two processes per frame instead of their sum. The results are the same as
in one process: the worker runs the same objects on the same tracks in the same order
(`Pipeline.judge`), and the review handles each frame's results in frame order.

Tracks cross the pipe as raw arrays (a pickled TrackSet with its enum statuses costs ten
times more); results come back pickled, once per frame.
"""

from __future__ import annotations

import multiprocessing
import os
import struct
import sys
import time
import traceback
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from referee.pipeline import Pipeline
from referee.pipeline_calls import ShotResult
from tracking.types import Event, TrackSet, TrackStatus

_STATUSES = tuple(TrackStatus)
_STATUS_CODE = {status: code for code, status in enumerate(_STATUSES)}
_STATUS_ARRAY = np.array(_STATUSES, dtype=object)
_HEAD = struct.Struct("<qdq")
_END = b""

Judged = tuple[tuple[Event, ...], tuple[ShotResult, ...]]


class JudgeWorkerError(RuntimeError):
    """The judging process failed or died; the message carries its traceback."""


def encode_tracks(tracks: TrackSet) -> bytes:
    """One TrackSet as bytes: frame, time, count, then the raw arrays and status codes."""
    codes = np.array([_STATUS_CODE[s] for s in tracks.status.tolist()], np.int8)
    assert tracks.measured_xy_mm is not None  # filled by TrackSet itself
    parts = (tracks.ball, tracks.xy_mm, tracks.velocity_mm_s, tracks.xy_px, tracks.measured_xy_mm)
    head = _HEAD.pack(tracks.frame, tracks.time_s, len(tracks.ball))
    return head + b"".join(np.ascontiguousarray(a).tobytes() for a in parts) + codes.tobytes()


def decode_tracks(data: bytes) -> TrackSet:
    """The TrackSet `encode_tracks` wrote (bit for bit the same values)."""
    frame, time_s, n = _HEAD.unpack_from(data)
    offset = _HEAD.size
    ball = np.frombuffer(data, np.int64, n, offset)
    offset += 8 * n
    pairs = []
    for _ in range(4):
        pairs.append(np.frombuffer(data, np.float64, 2 * n, offset).reshape(n, 2))
        offset += 16 * n
    status = _STATUS_ARRAY[np.frombuffer(data, np.int8, n, offset)]
    xy_mm, velocity, xy_px, measured = pairs
    return TrackSet(int(frame), float(time_s), ball, xy_mm, velocity, xy_px, status, measured)


def parallel_available() -> bool:
    """Whether judging in a second process can pay: two cores or more, on Linux, where
    `fork` starts the worker as a copy of the pipeline instead of importing and building it
    anew (macOS system libraries are not fork-safe; Windows has no fork)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    fork = "fork" in multiprocessing.get_all_start_methods()
    return (cores or 1) >= 2 and fork and sys.platform.startswith("linux")


def _serve(conn: Connection, parent_end: Connection, pipeline: Pipeline) -> None:
    """The worker's loop: tracks in, (events, shots) out; at the end the stage totals, the
    worker's CPU seconds and what the end of the input ends (`Pipeline.judge_end`). The main
    process's end of the pipe is closed here, so the worker sees the end of input if the main
    process dies."""
    parent_end.close()
    totals: dict[str, float] = {}
    try:
        while (data := conn.recv_bytes()) != _END:
            events, shots, timing = pipeline.judge(decode_tracks(data))
            for stage, ms in timing.items():
                totals[stage] = totals.get(stage, 0.0) + ms
            conn.send(("judged", (events, shots)))
        ended = pipeline.judge_end()
        conn.send(("totals", (totals, time.process_time(), ended)))
    except EOFError:  # the main process is gone: nobody to answer
        pass
    except BaseException:  # reported to the main process, which raises it there
        conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


class JudgeWorker:
    """A forked copy of the pipeline that judges the frames the main process sends it.

    Send each frame's tracks with `submit`, in frame order; `receive` gives each frame's
    results in the same order. Call `finish` at the end (stage totals) or `close`.

    Args:
        pipeline: the pipeline whose events, segmenter and call stage the worker runs;
            forked before its first frame, so the copy starts from the same state. The
            main process must not run `judge` on it itself.
    """

    def __init__(self, pipeline: Pipeline) -> None:
        context = multiprocessing.get_context("fork")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, self._conn, pipeline), name="tenball-judge", daemon=True
        )
        self._process.start()
        child.close()
        self.pending = 0
        """Frames submitted whose results were not received yet."""
        self.cpu_s = 0.0
        """The worker's CPU seconds, known after `finish`."""
        self.ended: Judged = ((), ())
        """The events and the shot the end of the input ended (`Pipeline.judge_end`), known
        after `finish`."""

    def submit(self, tracks: TrackSet) -> None:
        """Send one frame's tracks (frames in order).

        Raises:
            JudgeWorkerError: the worker failed (its traceback) or died.
        """
        try:
            self._conn.send_bytes(encode_tracks(tracks))
        except OSError as error:  # it stopped reading: its last words say why
            raise self._failure() from error
        self.pending += 1

    def ready(self) -> bool:
        """Whether the oldest pending frame's results can be received without waiting."""
        return self.pending > 0 and self._conn.poll()

    def receive(self) -> Judged:
        """The oldest pending frame's (events, shots); waits for them.

        Raises:
            JudgeWorkerError: the worker failed (its traceback) or died.
        """
        kind, payload = self._message()
        if kind != "judged":
            raise JudgeWorkerError(f"the judging process answered {kind!r} to a frame")
        self.pending -= 1
        events, shots = payload
        return tuple(events), tuple(shots)

    def finish(self) -> dict[str, float]:
        """Ends the worker once every pending frame was received; returns its milliseconds
        per stage summed over the frames."""
        if self.pending:
            raise JudgeWorkerError(f"{self.pending} frames were not received before finish")
        self._conn.send_bytes(_END)
        kind, payload = self._message()
        if kind != "totals":
            raise JudgeWorkerError(f"the judging process answered {kind!r} at the end")
        totals, self.cpu_s, self.ended = payload
        self.close()
        return dict(totals)

    def close(self) -> None:
        """Stops the worker (at once if it is still busy)."""
        self._conn.close()
        self._process.join(timeout=1.0)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(timeout=1.0)

    def _failure(self) -> JudgeWorkerError:
        """What the worker said last before it stopped (its error), or that it died."""
        try:
            while True:
                self._message()
        except JudgeWorkerError as error:
            return error

    def _message(self) -> tuple[str, Any]:
        try:
            kind, payload = self._conn.recv()
        except (EOFError, OSError) as error:
            code = self._process.exitcode
            raise JudgeWorkerError(f"the judging process died (exit code {code})") from error
        if kind == "error":
            raise JudgeWorkerError(f"the judging process failed:\n{payload}")
        return str(kind), payload
