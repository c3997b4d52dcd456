"""Decode ahead in a thread, so decoding overlaps the pipeline's work on the previous frames.

OpenCV releases the GIL while it decodes, so on a machine with two cores the review runs at
about the slower of decode and processing instead of their sum.
"""

from __future__ import annotations

import queue
import threading
from typing import Any

from vision.types import Frame

_END = object()


class PrefetchSource:
    """Wraps a frame source (`read() -> Frame | None`) with a reader thread.

    Attributes other than `read` and `close` (fps, frame_count, path, ended_early) are those
    of the wrapped source. The thread starts at the first `read`, so a process forked
    before it (`referee.review.judging`) holds no half-taken lock of it.

    Args:
        source: the source to read ahead.
        depth: frames decoded ahead; raising it smooths bursts and costs memory.
    """

    def __init__(self, source: Any, depth: int = 8) -> None:
        self._source = source
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=max(1, depth))
        self._stop = threading.Event()
        self._done = False
        self._thread = threading.Thread(target=self._run, name="frame-prefetch", daemon=True)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                frame = self._source.read()
                self._put(_END if frame is None else frame)
                if frame is None:
                    return
        except BaseException as error:  # handed to the reader, raised there
            self._put(error)

    def _put(self, item: Any) -> None:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def read(self) -> Frame | None:
        """The next frame, None at the end; an error of the reader thread is raised here."""
        if self._done:
            return None
        if self._thread.ident is None:  # not started yet
            self._thread.start()
        item = self._queue.get()
        if item is _END:
            self._done = True
            return None
        if isinstance(item, BaseException):
            self._done = True
            raise item
        frame: Frame = item
        return frame

    def close(self) -> None:
        self._stop.set()
        if self._thread.ident is not None:
            self._thread.join(timeout=5.0)
        self._source.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._source, name)
