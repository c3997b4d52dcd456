"""Writes frames to an MP4: H.264 through imageio-ffmpeg's ffmpeg when installed, else mp4v.

The file appears under its final name only when complete (written to a temporary name, then
renamed), so a crash never leaves half a video.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from types import TracebackType

import cv2
import numpy as np
from numpy.typing import NDArray

CRF = 26
"""x264 quality (lower = larger files, sharper frames)."""


def _ffmpeg() -> str | None:
    try:
        import imageio_ffmpeg  # type: ignore[import-untyped]
    except ImportError:
        return None
    exe: str = imageio_ffmpeg.get_ffmpeg_exe()
    return exe


class VideoWriter:
    """A context manager writing BGR uint8 frames of one size to `path`."""

    def __init__(self, path: Path, fps: float, size: tuple[int, int], crf: int = CRF) -> None:
        self.path = path
        self.codec = ""
        self._temporary = path.with_name(path.stem + ".partial" + path.suffix)
        self._size = size
        self._process: subprocess.Popen[bytes] | None = None
        self._writer: cv2.VideoWriter | None = None
        exe = _ffmpeg()
        if exe is not None:
            self.codec = "h264"
            width, height = size
            command = [
                exe,
                "-y",
                "-loglevel",
                "error",
                "-f",
                "rawvideo",
                "-pix_fmt",
                "bgr24",
                "-s",
                f"{width}x{height}",
                "-r",
                f"{fps}",
                "-i",
                "-",
                "-an",
                "-c:v",
                "libx264",
                "-preset",
                "medium",
                "-crf",
                str(crf),
                "-pix_fmt",
                "yuv420p",
                "-movflags",
                "+faststart",
                str(self._temporary),
            ]
            self._process = subprocess.Popen(command, stdin=subprocess.PIPE)
        else:
            self.codec = "mp4v"
            fourcc = cv2.VideoWriter.fourcc(*"mp4v")
            self._writer = cv2.VideoWriter(str(self._temporary), fourcc, fps, size)

    def write(self, image: NDArray[np.uint8]) -> None:
        if (image.shape[1], image.shape[0]) != self._size:
            raise ValueError(
                f"frame size {image.shape[1::-1]} differs from video size {self._size}"
            )
        if self._process is not None and self._process.stdin is not None:
            self._process.stdin.write(np.ascontiguousarray(image).tobytes())
        elif self._writer is not None:
            self._writer.write(image)

    def close(self, keep: bool = True) -> None:
        """Finish the file; with keep=False (after an error) remove it instead."""
        if self._process is not None:
            if self._process.stdin is not None:
                self._process.stdin.close()
            if self._process.wait() != 0 and keep:
                raise RuntimeError(f"ffmpeg failed writing {self.path}")
        if self._writer is not None:
            self._writer.release()
        if keep:
            os.replace(self._temporary, self.path)
        else:
            self._temporary.unlink(missing_ok=True)

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close(keep=error is None)
