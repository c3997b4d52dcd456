"""Frame sources: files, folders, live reconnection and `open_source`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.sources import (
    ImageFolderSource,
    LiveSource,
    SourceError,
    VideoFileSource,
    open_source,
)


def _write_video(path: Path, frames: int, fps: float = 25.0) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (64, 48))
    assert writer.isOpened()
    for i in range(frames):
        image = np.full((48, 64, 3), 10 * i % 256, np.uint8)
        writer.write(image)
    writer.release()


def test_video_file_frames_are_timed_by_index_and_fps(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    _write_video(path, frames=7, fps=25.0)
    with VideoFileSource(path) as source:
        frames = list(source)
        assert source.fps == pytest.approx(25.0)
        assert source.frame_count == 7
    assert [f.index for f in frames] == list(range(7))
    assert [f.time_s for f in frames] == pytest.approx([i / 25.0 for i in range(7)])
    assert frames[3].image.shape == (48, 64, 3)
    assert abs(int(frames[3].image.mean()) - 30) <= 3


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "not found"), (b"", "empty"), (b"this is not a video" * 50, "decode|readable")],
    ids=["missing", "empty", "garbage"],
)
def test_bad_video_files_raise_a_clear_error(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "bad.mp4"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(SourceError, match=message):
        VideoFileSource(path)


def test_truncated_video_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    _write_video(path, frames=40)
    data = path.read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: len(data) // 2])
    with VideoFileSource(cut) as source:
        frames = list(source)
        assert 0 < len(frames) < 40
        assert source.ended_early
    with VideoFileSource(cut, strict=True) as source, pytest.raises(SourceError, match="ended"):
        list(source)


def test_a_skipped_frame_is_passed_over_undecoded_and_keeps_its_index(tmp_path: Path) -> None:
    """A reader behind real time skips frames without decoding them (grab, not read): the
    next read is the frame after, with its own index, time and picture; skip at the end is
    False."""
    path = tmp_path / "clip.avi"
    _write_video(path, frames=5, fps=25.0)
    with VideoFileSource(path) as source:
        assert source.skip() and source.skip()  # frames 0 and 1 (0 was already decoded)
        frame = source.read()
        assert frame is not None and (frame.index, frame.time_s) == (2, pytest.approx(0.08))
        assert abs(int(frame.image.mean()) - 20) <= 3
        assert source.skip() and source.skip()  # 3, 4
        assert not source.skip()
        assert source.read() is None


def test_an_image_folder_skips_without_reading(tmp_path: Path) -> None:
    for i in (1, 2, 3):
        cv2.imwrite(str(tmp_path / f"frame{i}.png"), np.full((8, 8), i, np.uint8))
    source = ImageFolderSource(tmp_path, fps=2.0)
    assert source.skip()
    frame = source.read()
    assert frame is not None and (frame.index, int(frame.image[0, 0, 0])) == (1, 2)
    assert source.skip() and not source.skip()


def test_image_folder_is_read_in_natural_order(tmp_path: Path) -> None:
    for i in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"frame{i}.png"), np.full((8, 8), i, np.uint8))
    (tmp_path / "notes.txt").write_text("not an image")
    source = ImageFolderSource(tmp_path, fps=2.0)
    frames = list(source)
    assert [int(f.image[0, 0, 0]) for f in frames] == [1, 2, 10]
    assert [f.time_s for f in frames] == [0.0, 0.5, 1.0]
    assert source.frame_count == 3


def test_empty_folder_and_corrupt_image_raise(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no images"):
        ImageFolderSource(tmp_path)
    (tmp_path / "a.png").write_bytes(b"broken")
    source = ImageFolderSource(tmp_path)
    with pytest.raises(SourceError, match=r"a\.png"):
        source.read()


class FakeCapture:
    """Plays a script of reads: True gives a frame, False a failed read."""

    def __init__(self, script: list[bool], opened: bool = True) -> None:
        self.script = list(script)
        self.opened = opened

    def isOpened(self) -> bool:
        return self.opened

    def read(self) -> tuple[bool, Any]:
        if self.script and self.script.pop(0):
            return True, np.zeros((4, 4, 3), np.uint8)
        return False, None

    def get(self, prop: int) -> float:
        return 50.0

    def release(self) -> None:
        pass


def test_live_source_reconnects_with_backoff_and_gives_up() -> None:
    captures = [
        FakeCapture([True, True, False]),
        FakeCapture([], opened=False),
        FakeCapture([True, False]),
        FakeCapture([], opened=False),
        FakeCapture([], opened=False),
    ]
    sleeps: list[float] = []
    now = iter(np.arange(0.0, 100.0, 0.1))
    source = LiveSource(
        "rtsp://camera",
        opener=lambda _target: captures.pop(0),
        max_retries=2,
        clock=lambda: float(next(now)),
        sleep=sleeps.append,
    )
    frames = list(source)
    assert [f.index for f in frames] == [0, 1, 2]
    assert source.reconnects == 1
    assert sleeps == [0.5, 1.0, 0.5, 1.0]
    assert source.frame_count is None and source.fps == 50.0
    assert frames[1].time_s > frames[0].time_s


def test_live_source_that_never_opens_raises() -> None:
    with pytest.raises(SourceError, match="cannot open"):
        LiveSource(3, opener=lambda _t: FakeCapture([], opened=False))


def test_open_source_picks_by_spec(tmp_path: Path) -> None:
    video = tmp_path / "clip.avi"
    _write_video(video, frames=3)
    image = tmp_path / "still.jpg"
    cv2.imwrite(str(image), np.zeros((8, 8, 3), np.uint8))
    assert isinstance(open_source(video), VideoFileSource)
    assert isinstance(open_source(str(image)), ImageFolderSource)
    assert isinstance(open_source(tmp_path), ImageFolderSource)
    with pytest.raises(SourceError, match="not found"):
        open_source(tmp_path / "missing.mp4")
