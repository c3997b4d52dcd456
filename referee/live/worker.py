"""The pipeline worker: frames from the mailbox through the pipeline to the event loop.

The worker owns the pipeline (detector, tracker, events, shots) and runs it on each frame the
capture handed over. What the pipeline finds is turned into plain JSON here, off the event
loop, and handed to `deliver` (which the app points at its loop with call_soon_threadsafe).
The annotated picture for /stream.mjpg is drawn and encoded here too, only while someone
watches it and at most `mjpeg_fps` times a second.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import cv2
import numpy as np

from referee.live.capture import Captured, FrameMailbox
from vision.types import Frame

logger = logging.getLogger(__name__)

BALL_NAMES: tuple[str, ...] = ("cue", *(str(n) for n in range(1, 11)))
BALL_BGR: tuple[tuple[int, int, int], ...] = (
    (240, 240, 240), (0, 215, 255), (200, 80, 0), (0, 0, 220), (130, 0, 110), (0, 110, 255),
    (40, 140, 0), (40, 40, 140), (20, 20, 20), (0, 200, 230), (200, 110, 0),
)  # fmt: skip


class FramePipeline(Protocol):
    """The per-frame pipeline (referee.pipeline.Pipeline implements it)."""

    def process(self, frame: Frame) -> Any: ...


@dataclass(slots=True)
class FrameOutput:
    """What one frame produced, as JSON-ready values.

    Attributes:
        frame: frame index.
        time_s: frame time, s.
        captured_s: monotonic time the capture got the frame, s.
        events: design.md §5 event objects.
        shots: finished shots: {"shot", "frame_strike", "frame_end", "facts", ...}.
        balls: ball positions [{"ball", "x_mm", "y_mm", "status"}] (None: not sent this frame).
    """

    frame: int
    time_s: float
    captured_s: float
    events: list[dict[str, Any]] = field(default_factory=list)
    shots: list[dict[str, Any]] = field(default_factory=list)
    balls: list[dict[str, Any]] | None = None


def _to_json(value: Any) -> Any:
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"cannot turn {type(value).__name__} into JSON")


def shot_json(shot: Any) -> dict[str, Any]:
    """A finished shot as the payload of a `shot` action (facts of rules.md §4).

    Accepts a ShotRecord-like object (`.facts`, `.shot`/`.index`, `.frame_strike`,
    `.frame_end`) or a mapping shaped like a line of shots.jsonl.
    """
    if isinstance(shot, Mapping):
        data = dict(shot)
    elif hasattr(shot, "to_json"):  # referee.pipeline_calls.ShotResult
        data = shot.to_json()
    else:
        data = {}
    facts = data.get("facts", getattr(shot, "facts", None))
    if facts is None:
        raise ValueError("a finished shot must carry its facts")
    out: dict[str, Any] = {"facts": _to_json(facts)}
    keys = ("shot", "frame_strike", "frame_end", "time_strike_s", "time_end_s", "is_break",
            "confidence", "review_reasons")  # fmt: skip
    for key in keys:
        value = data.get(key, getattr(shot, key, None))
        if value is not None:
            out[key] = value.item() if isinstance(value, np.generic) else value
    return out


def balls_json(tracks: Any) -> list[dict[str, Any]]:
    """Balls of a TrackSet as [{"ball": "3", "x_mm", "y_mm", "u_px", "v_px", "status"}]."""
    out = []
    for i in range(len(tracks.ball)):
        x_mm, y_mm = (float(v) for v in tracks.xy_mm[i])
        u_px, v_px = (float(v) for v in tracks.xy_px[i])
        out.append(
            {
                "ball": BALL_NAMES[int(tracks.ball[i])],
                "x_mm": round(x_mm, 1),
                "y_mm": round(y_mm, 1),
                "u_px": None if np.isnan(u_px) else round(u_px, 1),
                "v_px": None if np.isnan(v_px) else round(v_px, 1),
                "status": str(tracks.status[i]),
            }
        )
    return out


def annotate(
    image: np.ndarray[Any, Any], balls: Iterable[Mapping[str, Any]]
) -> np.ndarray[Any, Any]:
    """A copy of a BGR frame with each tracked ball ringed and named."""
    out = image.copy()
    for ball in balls:
        if ball.get("u_px") is None or ball.get("status") not in ("on_table", "occluded"):
            continue
        centre = (round(ball["u_px"]), round(ball["v_px"]))
        index = BALL_NAMES.index(str(ball["ball"]))
        cv2.circle(out, centre, 16, BALL_BGR[index], 2, cv2.LINE_AA)
        cv2.putText(out, str(ball["ball"]), (centre[0] + 14, centre[1] - 14),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 2, cv2.LINE_AA)  # fmt: skip
    return out


class JpegBoard:
    """The latest annotated JPEG, shared by the worker and the MJPEG responses."""

    def __init__(self, fps: float = 15.0, quality: int = 80) -> None:
        self.period_s = 1.0 / max(fps, 0.1)
        self.quality = quality
        self.viewers = 0
        self.jpeg: bytes | None = None
        self.sequence = 0
        self._last_s = 0.0

    def wants_frame(self, now_s: float) -> bool:
        return self.viewers > 0 and now_s - self._last_s >= self.period_s

    def publish(self, image: np.ndarray[Any, Any], now_s: float) -> None:
        ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if ok:
            self.jpeg = buffer.tobytes()
            self.sequence += 1
            self._last_s = now_s


def renice_thread(increment: int) -> None:
    """Change the calling thread's CPU priority by `increment` nice steps (Linux applies nice
    per thread). A no-op where the platform does not allow it (raising priority, a negative
    increment, needs CAP_SYS_NICE)."""
    if increment == 0 or not hasattr(os, "setpriority"):
        return
    with contextlib.suppress(OSError):
        thread_id = threading.get_native_id()
        current = os.getpriority(os.PRIO_PROCESS, thread_id)
        os.setpriority(os.PRIO_PROCESS, thread_id, max(-20, min(19, current + increment)))


def _resized(before: tuple[int, ...], after: tuple[int, ...]) -> str:
    return (f"the camera's picture changed size ({before[1]}x{before[0]} to {after[1]}x"
            f"{after[0]}): the table is found again (check the calibration if one was "
            "given), and the balls tracked anew")  # fmt: skip


class PipelineWorker(threading.Thread):
    """Runs the pipeline on captured frames and delivers their output.

    Args:
        mailbox: frames from the capture thread.
        make_pipeline: builds the pipeline from the first frame (e.g. to find the table).
        deliver: receives each frame's output (from this thread).
        board: where annotated JPEGs go for /stream.mjpg.
        balls_hz: how often ball positions are delivered for the overlay.
    """

    def __init__(
        self,
        mailbox: FrameMailbox,
        make_pipeline: Callable[[Frame], FramePipeline],
        deliver: Callable[[FrameOutput], None],
        board: JpegBoard,
        balls_hz: float = 15.0,
    ) -> None:
        super().__init__(name="tenball-pipeline", daemon=True)
        self.mailbox = mailbox
        self._make_pipeline = make_pipeline
        self._deliver = deliver
        self.board = board
        self._balls_period_s = 1.0 / max(balls_hz, 0.1)
        self._last_balls_s = 0.0
        self._stop_event = threading.Event()
        self.processed = 0
        self.error: str = ""
        self.busy_s = 0.0
        self.notices: list[str] = []
        """Things the operator should hear of (the picture changed size), taken by the app."""
        self.ready = threading.Event()
        """Set once the first frame went through the pipeline, or building the pipeline
        failed on it (a file waiting for it then plays on, so that the build is retried on
        later frames instead of the file waiting minutes for a table that is never found)."""

    nice_increment = 5
    """How much lower than the capture and the web loop this thread runs (Linux nice):
    when the CPUs are short, the pipeline skips frames rather than the capture dropping them."""

    rebuild_after_s = 2.0
    """Wait before building the pipeline again after it failed (finding a table is slow)."""

    def stop(self) -> None:
        self._stop_event.set()

    def run(self) -> None:
        renice_thread(self.nice_increment)
        pipeline: FramePipeline | None = None
        built_for: tuple[int, ...] = ()
        retry_at_s = 0.0
        last: Captured | None = None
        while not self._stop_event.is_set():
            item = self.mailbox.get(0.2)
            if item is None:
                if self.mailbox.closed:
                    if self.mailbox.ended and pipeline is not None and last is not None:
                        self._finish(pipeline, last)
                    return
                continue
            last = item
            started_s = time.monotonic()
            size = item.frame.image.shape[:2]
            if pipeline is not None and size != built_for:
                # a camera replugged or rebooted at another resolution: the pipeline (its
                # table, its masks) was made for the old picture; make it again for this one
                self.notices.append(_resized(built_for, size))
                pipeline, retry_at_s = None, 0.0
            if pipeline is None and started_s < retry_at_s:
                continue  # building failed (e.g. no table found): try again later
            try:
                if pipeline is None:
                    retry_at_s = started_s + self.rebuild_after_s
                    pipeline, built_for = self._make_pipeline(item.frame), size
                self._deliver(self._process(pipeline, item))
                self.ready.set()
                self.error = ""
            except Exception as error:  # keep refereeing: one bad frame must not end the match
                logger.exception("pipeline failed on frame %d", item.frame.index)
                self.error = f"frame {item.frame.index}: {error}"
                self.ready.set()
            self.processed += 1
            self.busy_s += time.monotonic() - started_s

    def _finish(self, pipeline: FramePipeline, last: Captured) -> None:
        """The input ended (a file played to its end): the shot still open when it stopped
        (balls rolling, a ball on a lip in the last frames) is ended and judged, as a review
        of the same file would (`Pipeline.judge_end`); without this its call never came."""
        judge_end = getattr(pipeline, "judge_end", None)
        if judge_end is None:
            return
        try:
            events, shots = judge_end()
        except Exception as error:
            logger.exception("judging the end of the input failed")
            self.error = f"end of input: {error}"
            return
        if events or shots:
            output = FrameOutput(last.frame.index, last.frame.time_s, last.captured_s)
            output.events = [_to_json(e) for e in events]
            output.shots = [shot_json(s) for s in shots]
            self._deliver(output)

    def _process(self, pipeline: FramePipeline, item: Captured) -> FrameOutput:
        frame = item.frame
        result = pipeline.process(frame)
        output = FrameOutput(frame.index, frame.time_s, item.captured_s)
        output.events = [_to_json(e) for e in getattr(result, "events", ()) or ()]
        output.shots = [shot_json(s) for s in getattr(result, "shots", ()) or ()]
        tracks = getattr(result, "tracks", None)
        now_s = time.monotonic()
        send_balls = now_s - self._last_balls_s >= self._balls_period_s
        draw = self.board.wants_frame(now_s)
        if not (send_balls or draw):
            return output
        balls = balls_json(tracks) if tracks is not None else []
        if send_balls:
            output.balls = balls
            self._last_balls_s = now_s
        if draw:
            self.board.publish(annotate(frame.image, balls), now_s)
        return output
