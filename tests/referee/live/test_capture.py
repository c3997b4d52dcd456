"""Capture thread: pacing at the source's rate, dropping rather than lagging, reconnecting."""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, field

import numpy as np
import pytest

from referee.live.capture import Captured, CaptureThread, FrameMailbox, SourceStatus
from tests.referee.live.helpers import wait_for
from vision.types import Frame

IMAGE = np.zeros((4, 4, 3), np.uint8)


def _captured(index: int) -> Captured:
    return Captured(Frame(IMAGE, index, index / 30), float(index))


@dataclass
class FakeSource:
    """`frames` frames at `fps`; live sources (frame_count None) fail after them."""

    frames: int
    fps: float = 30.0
    live: bool = False
    read_delay_s: float = 0.0
    index: int = 0
    closed: bool = False

    @property
    def frame_count(self) -> int | None:
        return None if self.live else self.frames

    def read(self) -> Frame | None:
        if self.index >= self.frames:
            return None
        if self.read_delay_s:
            time.sleep(self.read_delay_s)
        frame = Frame(IMAGE, self.index, self.index / self.fps)
        self.index += 1
        return frame

    def close(self) -> None:
        self.closed = True


@dataclass
class FlakyOpener:
    """Fails `failures` times, then opens live sources of `frames` frames that then drop."""

    failures: int
    frames: int = 5
    opened: list[FakeSource] = field(default_factory=list)
    attempts: int = 0

    def __call__(self) -> FakeSource:
        self.attempts += 1
        if self.attempts <= self.failures:
            raise OSError("camera unplugged")
        source = FakeSource(self.frames, fps=100.0, live=True)
        self.opened.append(source)
        return source


def _drain(mailbox: FrameMailbox) -> list[int]:
    out = []
    while (item := mailbox.get(0.01)) is not None:
        out.append(item.frame.index)
    return out


def test_mailbox_drops_the_oldest_frame_when_full() -> None:
    mailbox = FrameMailbox(capacity=3)
    for i in range(5):
        mailbox.put(_captured(i))
    assert mailbox.skipped == 2
    assert _drain(mailbox) == [2, 3, 4]


def test_lossless_mailbox_blocks_instead_of_dropping() -> None:
    mailbox = FrameMailbox(capacity=2, lossless=True)

    def produce() -> None:
        for i in range(6):
            mailbox.put(_captured(i))

    producer = threading.Thread(target=produce)
    producer.start()
    got: list[int] = []
    while len(got) < 6:
        item = mailbox.get(1.0)
        assert item is not None
        got.append(item.frame.index)
        time.sleep(0.005)
    producer.join(2)
    assert got == list(range(6))
    assert mailbox.skipped == 0


@pytest.mark.parametrize(
    ("realtime", "min_s"), [(True, 0.45), (False, 0.0)], ids=["realtime", "fast"]
)
def test_file_is_paced_at_its_frame_rate_only_in_realtime(realtime: bool, min_s: float) -> None:
    mailbox = FrameMailbox(capacity=100, lossless=not realtime)
    capture = CaptureThread(lambda: FakeSource(16, fps=30.0), mailbox, realtime)
    started = time.monotonic()
    capture.start()
    capture.join(5)
    elapsed = time.monotonic() - started
    assert _drain(mailbox) == list(range(16))
    assert capture.status.state == "ended"
    assert mailbox.closed and mailbox.ended, "the end of a file is told to the pipeline"
    assert capture.status.dropped == 0
    assert min_s <= elapsed < 0.5 + min_s


def test_realtime_capture_drops_frames_it_is_late_for() -> None:
    mailbox = FrameMailbox(capacity=100)
    slow = FakeSource(20, fps=100.0, read_delay_s=0.04)  # reads at 25 fps, source is 100 fps
    capture = CaptureThread(lambda: slow, mailbox, realtime=True)
    capture.start()
    capture.join(5)
    delivered = _drain(mailbox)
    assert capture.status.dropped > 0
    assert capture.status.dropped + len(delivered) == 20
    assert delivered == sorted(delivered)


@dataclass
class SkippingSource(FakeSource):
    """A file whose decode (`read`) is slower than its frame rate and that can skip frames
    without decoding them, as vision's file sources can."""

    decoded: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)

    def read(self) -> Frame | None:
        frame = super().read()
        if frame is not None:
            self.decoded.append(frame.index)
        return frame

    def skip(self) -> bool:
        if self.index >= self.frames:
            return False
        self.skipped.append(self.index)
        self.index += 1
        return True


def test_realtime_capture_skips_late_frames_without_decoding_them() -> None:
    """A file that decodes at a third of its frame rate: the frames the capture is too late
    for are passed over undecoded, and every frame it decodes reaches the pipeline (it used
    to decode every frame and, once behind, drop each one it had decoded)."""
    source = SkippingSource(40, fps=100.0, read_delay_s=0.03)
    mailbox = FrameMailbox(capacity=100)
    capture = CaptureThread(lambda: source, mailbox, realtime=True)
    capture.start()
    capture.join(5)
    delivered = _drain(mailbox)
    assert capture.status.state == "ended"
    assert source.skipped, "late frames are skipped"
    assert delivered == source.decoded, "no decoded frame is wasted"
    assert sorted(source.decoded + source.skipped) == list(range(40))
    assert capture.status.dropped == len(source.skipped)
    assert len(delivered) >= 40 // 6, "a slow file still gives every few frames"


def test_live_source_reconnects_with_backoff_and_reports_it() -> None:
    opener = FlakyOpener(failures=2)
    mailbox = FrameMailbox(capacity=1000)
    states: list[str] = []
    capture = CaptureThread(
        opener, mailbox, realtime=True, on_status=lambda s: states.append(s.state)
    )
    capture.initial_backoff_s = 0.01
    capture.start()
    try:
        wait_for(lambda: len(opener.opened) >= 3, timeout_s=5, what="three reconnections")
    finally:
        capture.stop()
        capture.join(5)
    assert states[0] == "reconnecting"  # the camera was unplugged at startup
    assert "live" in states
    assert states.count("reconnecting") >= 3
    assert capture.status.reconnects >= 2
    assert mailbox.closed and not mailbox.ended, "a stop is not the end of the input"
    frames = []
    while (item := mailbox.get(0.01)) is not None:
        frames.append(item.frame)
    indices = [f.index for f in frames]
    times = [f.time_s for f in frames]
    assert indices == list(range(len(frames))), "indices restart after a reconnection"
    assert all(b > a for a, b in itertools.pairwise(times)), "times restart"
    assert all(source.closed for source in opener.opened)


def test_a_silent_live_source_reads_as_stalled() -> None:
    class Silent(FakeSource):
        def read(self) -> Frame | None:
            while self.index >= 2 and not self.closed:  # a camera that hangs
                time.sleep(0.02)
            return None if self.closed else super().read()

    source = Silent(10, live=True)
    capture = CaptureThread(lambda: source, FrameMailbox(), realtime=True)
    capture.start()
    try:
        wait_for(lambda: capture.status.frames == 2, what="two frames")
        time.sleep(0.3)
        status: SourceStatus = capture.snapshot(stall_after_s=0.2)
    finally:
        capture.stop()
        source.closed = True
        capture.join(5)
    assert status.state == "stalled"
    assert "no frame for" in status.message
