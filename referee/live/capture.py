"""Frame capture in its own thread, at the source's rate, never falling behind.

The capture thread only reads frames and hands them on through a `FrameMailbox`; it never
waits for the pipeline. When the pipeline is slower than the camera the mailbox drops its
oldest frame (counted as `skipped`); when the capture itself cannot keep up with the source
(a file played in real time, or gaps in a camera's timestamps) the lost frames are counted as
`dropped`. A live source that stops delivering is reopened with exponential backoff for as
long as the service runs; a file that ends leaves the service up with its match.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from vision.types import Frame

logger = logging.getLogger(__name__)


class FrameSource(Protocol):
    """What the service needs from a frame source (vision.sources implements it).

    A file source may also have `skip() -> bool`: pass over its next frame without decoding
    it (False at the end); a file played in real time then skips the frames it is too late
    for instead of decoding and dropping them.
    """

    @property
    def fps(self) -> float: ...

    @property
    def frame_count(self) -> int | None: ...

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Captured:
    """A frame and the monotonic time (s) the capture thread got it."""

    frame: Frame
    captured_s: float


class FrameMailbox:
    """Hand-off from capture to pipeline holding at most `capacity` frames.

    Args:
        capacity: frames held; raising it absorbs longer pipeline hiccups but delays calls.
        lossless: block the producer when full instead of dropping the oldest frame (for
            files processed as fast as the pipeline goes).
    """

    def __init__(self, capacity: int = 8, lossless: bool = False) -> None:
        self.capacity = max(1, capacity)
        self.lossless = lossless
        self._items: collections.deque[Captured] = collections.deque()
        self._condition = threading.Condition()
        self._closed = False
        self.ended = False
        """Closed because the input ended (a file's last frame), not because of a stop."""
        self.skipped = 0

    def put(self, item: Captured) -> None:
        with self._condition:
            while self.lossless and len(self._items) >= self.capacity and not self._closed:
                self._condition.wait(0.1)
            if len(self._items) >= self.capacity:
                self._items.popleft()
                self.skipped += 1
            self._items.append(item)
            self._condition.notify_all()

    def get(self, timeout_s: float = 0.5) -> Captured | None:
        """The oldest waiting frame, or None after `timeout_s` or once closed and empty."""
        with self._condition:
            if not self._items and not self._closed:
                self._condition.wait(timeout_s)
            if not self._items:
                return None
            item = self._items.popleft()
            self._condition.notify_all()
            return item

    def __len__(self) -> int:
        return len(self._items)

    def close(self, ended: bool = False) -> None:
        """No more frames will come; `ended` says the input ended (so its last shot can be
        judged) rather than the service stopping."""
        with self._condition:
            self.ended = self.ended or (ended and not self._closed)
            self._closed = True
            self._condition.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed


@dataclass(slots=True)
class SourceStatus:
    """The source as /api/health and the `source_status` message report it.

    Attributes:
        state: connecting | starting | live | stalled | reconnecting | ended | failed.
        message: the latest problem, in words ("" when none).
        frames: frames captured.
        dropped: frames the capture lost by falling behind the source.
        skipped: frames captured but not processed (the pipeline was busy).
        reconnects: times the source was reopened after a drop (by this thread or by the
            source itself).
        fps: the source's nominal frame rate.
        measured_fps: frames per second actually captured over the last second.
    """

    state: str = "connecting"
    message: str = ""
    frames: int = 0
    dropped: int = 0
    skipped: int = 0
    reconnects: int = 0
    fps: float = 0.0
    measured_fps: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class _Pace:
    """When each frame of a file played in real time is due: frame `first_index` at
    `start_s` (monotonic s), the others `period_s` apart."""

    period_s: float
    start_s: float | None = None
    first_index: int = 0
    next_index: int = 0
    """The index of the next frame the source gives."""

    @property
    def started(self) -> bool:
        return self.start_s is not None

    def restart(self, now_s: float, index: int) -> None:
        self.start_s, self.first_index = now_s, index

    def due_s(self, index: int) -> float:
        assert self.start_s is not None
        return self.start_s + (index - self.first_index) * self.period_s

    def late(self, index: int, now_s: float, frames: int) -> bool:
        """Frame `index` is more than `frames` frames late at `now_s`."""
        return now_s - self.due_s(index) > frames * self.period_s


class CaptureThread(threading.Thread):
    """Reads a source into a mailbox at the source's own rate.

    Args:
        opener: opens the source (raises on failure); called again to reconnect.
        mailbox: where frames go.
        realtime: pace sources with a known length (files, folders) at their frame rate;
            without it they are read as fast as the mailbox takes them.
        on_status: called (from this thread) whenever the source's state changes.
        ready: set once the pipeline has processed its first frame; a file played in real
            time waits for it after its first frame, so that building the pipeline (finding
            the table, loading the detector) does not eat the start of the file.
    """

    initial_backoff_s = 0.5
    max_backoff_s = 10.0
    nice_increment = -5
    """Priority change of this thread (Linux nice): raised above other work where the process
    may (CAP_SYS_NICE), so that a busy machine starves the pipeline before the capture."""
    late_drop_frames = 4
    """A file played in real time drops a frame once it is this many frames late (as a
    camera's driver queue of a few buffers would); raising it lags more before dropping."""

    def __init__(
        self,
        opener: Callable[[], FrameSource],
        mailbox: FrameMailbox,
        realtime: bool,
        on_status: Callable[[SourceStatus], None] | None = None,
        ready: threading.Event | None = None,
    ) -> None:
        super().__init__(name="tenball-capture", daemon=True)
        self._ready = ready
        self._opener = opener
        self.mailbox = mailbox
        self.realtime = realtime
        self._on_status = on_status or (lambda status: None)
        self._stop_event = threading.Event()
        self.status = SourceStatus()
        self.last_frame_s = 0.0
        self._rate_window: collections.deque[float] = collections.deque(maxlen=240)
        self._index_offset = 0
        self._time_offset_s = 0.0
        self._source: FrameSource | None = None
        self._inner_reconnects = 0
        """Reconnections made inside closed sources (vision's LiveSource reconnects itself)."""
        self._last_delivered: tuple[int, float, float] | None = None

    def stop(self) -> None:
        self._stop_event.set()

    def _set_state(self, state: str, message: str = "") -> None:
        if (state, message) != (self.status.state, self.status.message):
            self.status.state = state
            self.status.message = message
            logger.info("source %s%s", state, f": {message}" if message else "")
            self._on_status(self.status)

    def run(self) -> None:
        from referee.live.worker import renice_thread

        renice_thread(self.nice_increment)
        delay_s = self.initial_backoff_s
        while not self._stop_event.is_set():
            try:
                source = self._opener()
            except Exception as error:  # any open failure is an outage to ride out
                self._set_state("reconnecting", f"cannot open source: {error}")
                self._stop_event.wait(delay_s)
                delay_s = min(delay_s * 2.0, self.max_backoff_s)
                continue
            delay_s = self.initial_backoff_s
            live = source.frame_count is None
            self._source = source
            try:
                self._pump(source, live)
            except Exception as error:
                logger.exception("source failed")
                self._set_state("reconnecting", f"source failed: {error}")
            finally:
                self._source = None
                self._inner_reconnects += int(getattr(source, "reconnects", 0))
                source.close()
            if not live and self.status.state == "ended":
                break
            if not self._stop_event.is_set():
                self.status.reconnects += 1
                self._stop_event.wait(delay_s)
        self.mailbox.close(ended=self.status.state == "ended" and not self._stop_event.is_set())

    def _pump(self, source: FrameSource, live: bool) -> None:
        fps = float(source.fps) if source.fps and source.fps > 0 else 30.0
        self.status.fps = fps
        pace = _Pace(1.0 / fps)
        paced = not live and self.realtime
        skips = paced and callable(getattr(source, "skip", None))
        previous_time_s: float | None = None
        self._set_state("live")
        while not self._stop_event.is_set():
            if skips and pace.started and self._skipped_late(source, pace):
                continue
            frame = source.read()
            now_s = time.monotonic()
            if frame is None:
                self._set_state(*(("reconnecting", "the stream stopped delivering frames")
                                  if live else ("ended", "end of file")))  # fmt: skip
                return
            pace.next_index = frame.index + 1
            if not pace.started:
                pace.restart(now_s, frame.index)
            elif not live and self._ready is not None and not self._ready.is_set():
                self._wait_until_ready()
                now_s = time.monotonic()
                pace.restart(now_s, frame.index)
            if paced:
                # drop rather than lag; a frame chosen before its decode is never wasted
                if not skips and pace.late(frame.index, now_s, self.late_drop_frames):
                    self.status.dropped += 1
                    continue
                now_s = self._wait_until(pace.due_s(frame.index), now_s)
            elif live and previous_time_s is not None:
                gap = (frame.time_s - previous_time_s) / pace.period_s
                self.status.dropped += max(0, round(gap) - 1)
            previous_time_s = frame.time_s
            self._deliver(frame, now_s)

    def _wait_until(self, due_s: float, now_s: float) -> float:
        """Wait (unless stopped) until `due_s`; returns the monotonic time after it."""
        if due_s <= now_s:
            return now_s
        self._stop_event.wait(due_s - now_s)
        return time.monotonic()

    def _skipped_late(self, source: FrameSource, pace: _Pace) -> bool:
        """Pass over the next frame of a file played in real time without decoding it when
        it is already `late_drop_frames` late, for a source that can (`skip() -> bool`):
        decoding frames only to drop them would put the capture further behind, and takes
        the CPU the pipeline needs. A frame that is decoded is then delivered however long
        its decode took, so a file that decodes slower than its frame rate still gives
        every few frames, as a camera's driver queue would, instead of none."""
        if self._ready is not None and not self._ready.is_set():
            return False
        if not pace.late(pace.next_index, time.monotonic(), self.late_drop_frames):
            return False
        if not source.skip():  # type: ignore[attr-defined]  # the end: the read says so
            return False
        self.status.dropped += 1
        pace.next_index += 1
        return True

    def _rebased(self, frame: Frame, now_s: float) -> Frame:
        """The frame numbered and timed after everything delivered before it.

        A reopened source counts its frames and times from 0 again; the pipeline must see
        increasing indices and times, with the outage as a real gap in time.
        """
        last = self._last_delivered
        if last is not None and frame.index + self._index_offset <= last[0]:
            index, time_s, at_s = last
            self._index_offset = index + 1 - frame.index
            self._time_offset_s = time_s + max(now_s - at_s, 0.0) - frame.time_s
        if self._index_offset or self._time_offset_s:
            frame = Frame(
                frame.image, frame.index + self._index_offset, frame.time_s + self._time_offset_s
            )
        self._last_delivered = (frame.index, frame.time_s, now_s)
        return frame

    def _wait_until_ready(self, timeout_s: float = 300.0) -> None:
        self._set_state("starting", "waiting for the pipeline to start")
        deadline_s = time.monotonic() + timeout_s
        assert self._ready is not None
        while not self._ready.wait(0.1) and not self._stop_event.is_set():
            if time.monotonic() > deadline_s:
                break

    def _deliver(self, frame: Frame, now_s: float) -> None:
        if self.status.state != "live":
            self._set_state("live")
        frame = self._rebased(frame, now_s)
        self.status.frames += 1
        self.last_frame_s = now_s
        self._rate_window.append(now_s)
        self.mailbox.put(Captured(frame, now_s))
        self.status.skipped = self.mailbox.skipped

    def snapshot(self, stall_after_s: float = 1.0) -> SourceStatus:
        """The status now; a live source silent for `stall_after_s` reads as stalled."""
        status = SourceStatus(**asdict(self.status))
        inner = int(getattr(self._source, "reconnects", 0)) + self._inner_reconnects
        status.reconnects += inner
        now_s = time.monotonic()
        window = [t for t in self._rate_window if now_s - t <= 1.0]
        status.measured_fps = float(len(window))
        silent_s = now_s - self.last_frame_s
        if status.state == "live" and self.last_frame_s and silent_s > stall_after_s:
            status.state = "stalled"
            status.message = f"no frame for {silent_s:.1f} s"
        return status
