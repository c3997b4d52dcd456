"""Reading ahead in a thread keeps frames in order, ends cleanly and passes errors on."""

from __future__ import annotations

import numpy as np
import pytest

from referee.review.prefetch import PrefetchSource
from vision.types import Frame


class ListSource:
    def __init__(self, count: int, fail_at: int | None = None) -> None:
        self.count, self.fail_at, self.index = count, fail_at, 0
        self.fps = 30.0
        self.closed = False

    def read(self) -> Frame | None:
        if self.index == self.fail_at:
            raise OSError("disk went away")
        if self.index >= self.count:
            return None
        self.index += 1
        return Frame(np.zeros((2, 2, 3), np.uint8), self.index - 1, (self.index - 1) / self.fps)

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize("depth", [1, 4, 64], ids=["depth-1", "depth-4", "depth-64"])
def test_frames_come_in_order_then_none(depth: int) -> None:
    inner = ListSource(50)
    source = PrefetchSource(inner, depth)
    indices = []
    while (frame := source.read()) is not None:
        indices.append(frame.index)
    assert indices == list(range(50))
    assert source.read() is None
    assert source.fps == 30.0  # attributes of the wrapped source
    source.close()
    assert inner.closed


def test_an_error_in_the_reader_is_raised_to_the_caller() -> None:
    source = PrefetchSource(ListSource(50, fail_at=7))
    got = [source.read() for _ in range(7)]
    assert [f.index for f in got if f is not None] == list(range(7))
    with pytest.raises(OSError, match="disk went away"):
        source.read()
    source.close()


def test_closing_early_stops_the_reader() -> None:
    source = PrefetchSource(ListSource(10_000), depth=2)
    assert source.read() is not None
    source.close()
    assert not source._thread.is_alive()
