"""Frame sources: video files, cameras, network streams and image folders behind one protocol.

Every source has `read() -> Frame | None` (None at the end), `fps`, `frame_count` (None when
unknown, as for live sources) and `close()`, and is a context manager and an iterator. Files
time their frames from the frame index and the frame rate; live sources time them from a
clock started when the source opened (injected, so tests need no real time), and reconnect
with exponential backoff when the stream drops, counting and logging each drop.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.types import Frame

logger = logging.getLogger(__name__)

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})
STREAM_SCHEMES = ("rtsp://", "rtsps://", "rtmp://", "http://", "https://", "udp://", "tcp://")
DEFAULT_FPS = 30.0
"""Frame rate assumed when a container or camera reports none."""


class SourceError(RuntimeError):
    """A source cannot be opened or read; the message names the source and the problem."""


@runtime_checkable
class FrameSource(Protocol):
    """What every frame source offers."""

    @property
    def fps(self) -> float: ...

    @property
    def frame_count(self) -> int | None: ...

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


class _SourceBase:
    """Context manager and iterator on top of `read` and `close`."""

    def read(self) -> Frame | None:  # pragma: no cover - overridden
        raise NotImplementedError

    def close(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def __enter__(self) -> _SourceBase:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read()) is not None:
            yield frame


def _as_bgr(image: NDArray[Any]) -> NDArray[np.uint8]:
    """Grey or BGRA images from OpenCV as (H, W, 3) uint8 BGR."""
    if image.dtype != np.uint8:
        image = cv2.convertScaleAbs(image, alpha=255.0 / max(float(image.max()), 1.0))
    if image.ndim == 2:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    if image.shape[2] == 4:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGRA2BGR), dtype=np.uint8)
    return np.ascontiguousarray(image, dtype=np.uint8)


class VideoFileSource(_SourceBase):
    """Frames of a video file, timed by frame index / fps.

    Args:
        path: the video file.
        strict: when True, a file that ends more than one frame before the frame count its
            container declares raises `SourceError` (truncated file); when False it is
            logged and `ended_early` is set.

    Raises:
        SourceError: the file is missing, cannot be decoded, or has no frames.
    """

    def __init__(self, path: str | Path, strict: bool = False) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"video file not found: {self.path}")
        if self.path.stat().st_size == 0:
            raise SourceError(f"video file is empty (0 bytes): {self.path}")
        self._capture = cv2.VideoCapture(str(self.path))
        if not self._capture.isOpened():
            raise SourceError(f"cannot decode video file {self.path} (unknown format or corrupt)")
        fps = float(self._capture.get(cv2.CAP_PROP_FPS))
        self._fps = fps if np.isfinite(fps) and fps > 0 else DEFAULT_FPS
        count = int(self._capture.get(cv2.CAP_PROP_FRAME_COUNT))
        self._frame_count = count if count > 0 else None
        self._strict = strict
        self._index = 0
        self.ended_early = False
        first = self._grab()
        if first is None:
            self._capture.release()
            raise SourceError(f"video file has no readable frames: {self.path}")
        self._pending: NDArray[np.uint8] | None = first

    @property
    def fps(self) -> float:
        return self._fps

    @property
    def frame_count(self) -> int | None:
        return self._frame_count

    def _grab(self) -> NDArray[np.uint8] | None:
        ok, image = self._capture.read()
        return _as_bgr(image) if ok and image is not None else None

    def read(self) -> Frame | None:
        image = self._pending if self._pending is not None else self._grab()
        self._pending = None
        if image is None:
            self._check_end()
            return None
        frame = Frame(image=image, index=self._index, time_s=self._index / self._fps)
        self._index += 1
        return frame

    def skip(self) -> bool:
        """Pass over the next frame without decoding it (a reader behind real time); False
        at the end of the file."""
        if self._pending is not None:
            self._pending = None
        elif not self._capture.grab():
            self._check_end()
            return False
        self._index += 1
        return True

    def _check_end(self) -> None:
        declared = self._frame_count
        if declared is None or self._index >= declared - 1 or self.ended_early:
            return
        self.ended_early = True
        message = (
            f"video {self.path} ended at frame {self._index} of {declared} declared "
            "(truncated or damaged file?)"
        )
        if self._strict:
            raise SourceError(message)
        logger.warning(message)

    def close(self) -> None:
        self._capture.release()


def _natural_key(path: Path) -> list[Any]:
    """Sort "frame2" before "frame10"."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", path.name)]


class ImageFolderSource(_SourceBase):
    """The images of a folder in natural name order, timed as index / fps.

    Args:
        path: a folder of images, or a single image file (a one-frame source).
        fps: rate at which the images are taken to follow each other.

    Raises:
        SourceError: the folder holds no images; `read` raises it for an unreadable image.
    """

    def __init__(self, path: str | Path, fps: float = DEFAULT_FPS) -> None:
        root = Path(path)
        if root.is_file():
            self._paths = [root]
        elif root.is_dir():
            self._paths = sorted(
                (p for p in root.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES),
                key=_natural_key,
            )
        else:
            raise SourceError(f"image folder or file not found: {root}")
        if not self._paths:
            known = ", ".join(sorted(IMAGE_SUFFIXES))
            raise SourceError(f"no images ({known}) in folder {root}")
        if not fps > 0:
            raise SourceError(f"fps must be positive, got {fps}")
        self._fps = float(fps)
        self._index = 0

    @property
    def fps(self) -> float:
        return self._fps

    @property
    def frame_count(self) -> int | None:
        return len(self._paths)

    @property
    def paths(self) -> list[Path]:
        return list(self._paths)

    def read(self) -> Frame | None:
        if self._index >= len(self._paths):
            return None
        path = self._paths[self._index]
        image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if image is None:
            raise SourceError(f"cannot read image {path} (corrupt or not an image)")
        frame = Frame(image=_as_bgr(image), index=self._index, time_s=self._index / self._fps)
        self._index += 1
        return frame

    def skip(self) -> bool:
        """Pass over the next image without reading it; False once there is none."""
        if self._index >= len(self._paths):
            return False
        self._index += 1
        return True

    def close(self) -> None:
        self._index = len(self._paths)


class Capture(Protocol):
    """The part of cv2.VideoCapture a live source uses (a fake in tests)."""

    def isOpened(self) -> bool: ...

    def read(self) -> tuple[bool, Any]: ...

    def get(self, prop: int) -> float: ...

    def release(self) -> None: ...


class LiveSource(_SourceBase):
    """A camera or network stream that reconnects with exponential backoff when it drops.

    Frames are timed by `clock()` from when the source opened. A failed read closes the
    capture and reopens it after `initial_backoff_s`, doubling up to `max_backoff_s`; after
    `max_retries` failed reopenings in a row (None: never give up) `read` returns None.

    Args:
        target: camera index or stream URL, passed to `opener`.
        opener: makes a capture from the target (default cv2.VideoCapture).
        max_retries: reconnection attempts in a row before giving up; raising it rides out
            longer outages, None retries forever.
        clock: seconds, monotonic (injected for tests).
        sleep: waits that many seconds (injected for tests).
    """

    initial_backoff_s = 0.5
    max_backoff_s = 8.0

    def __init__(
        self,
        target: int | str,
        opener: Callable[[int | str], Capture] | None = None,
        max_retries: int | None = 10,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.target = target
        self._opener = opener or (lambda t: cv2.VideoCapture(t))
        self._max_retries = max_retries
        self._clock = clock
        self._sleep = sleep
        self._index = 0
        self._closed = False
        self.reconnects = 0
        """How many times the stream dropped and came back."""
        self._capture = self._opener(target)
        if not self._capture.isOpened():
            self._capture.release()
            raise SourceError(f"cannot open live source {target!r}")
        fps = float(self._capture.get(cv2.CAP_PROP_FPS))
        self._fps = fps if np.isfinite(fps) and 0 < fps < 1000 else DEFAULT_FPS
        self._start_s = clock()

    @property
    def fps(self) -> float:
        return self._fps

    @property
    def frame_count(self) -> int | None:
        return None

    def read(self) -> Frame | None:
        while not self._closed:
            ok, image = self._capture.read()
            if ok and image is not None:
                time_s = self._clock() - self._start_s
                frame = Frame(image=_as_bgr(image), index=self._index, time_s=time_s)
                self._index += 1
                return frame
            if not self._reconnect():
                return None
        return None

    def _reconnect(self) -> bool:
        """Reopen the capture with backoff; False when the retries are spent."""
        self._capture.release()
        delay_s = self.initial_backoff_s
        attempt = 0
        while not self._closed and (self._max_retries is None or attempt < self._max_retries):
            attempt += 1
            logger.warning(
                "live source %r dropped; reconnecting in %.1f s (attempt %d)",
                self.target,
                delay_s,
                attempt,
            )
            self._sleep(delay_s)
            self._capture = self._opener(self.target)
            if self._capture.isOpened():
                self.reconnects += 1
                logger.info("live source %r reconnected", self.target)
                return True
            self._capture.release()
            delay_s = min(delay_s * 2.0, self.max_backoff_s)
        logger.error("live source %r lost after %d attempts", self.target, attempt)
        return False

    def close(self) -> None:
        self._closed = True
        self._capture.release()


def open_source(
    spec: str | int | Path, fps: float | None = None
) -> VideoFileSource | LiveSource | ImageFolderSource:
    """A frame source chosen from a camera index, a stream URL, a folder, an image or a video.

    Args:
        spec: camera index (0, "0"), URL (rtsp://, http(s)://, ...), folder of images,
            image file or video file.
        fps: frame rate for image folders (default 30); ignored by the others, which read
            their own.

    Raises:
        SourceError: the source cannot be opened; the message says why.
    """
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        return LiveSource(int(spec))
    text = str(spec)
    if text.lower().startswith(STREAM_SCHEMES):
        return LiveSource(text)
    path = Path(text)
    if path.is_dir() or path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageFolderSource(path, fps=fps or DEFAULT_FPS)
    return VideoFileSource(path)
