"""Builders for the live-service tests: a real video file, a scripted pipeline, a real server.

The scripted pipeline stands in for referee.pipeline where a test needs events and shots at
known frames (the service, not the vision, is under test): it reports a ball moving across
the table on every frame, the events of `script` on their frames, and a finished shot with
the given facts. Shots can be held back until a test opens `gate`.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import uvicorn

from referee.live.app import create_app
from referee.live.listen import bound_port, listen
from referee.live.settings import LiveSettings
from tracking.types import Event, EventKind, TrackSet, TrackStatus
from vision.types import Frame

BREAK_FACTS: dict[str, Any] = {
    "first_object_ball_contacted": 1,
    "cushion_after_first_contact": ["cue", 2, 5],
    "object_balls_to_cushion_on_break": 5,
    "pocketed": [{"ball": 3, "pocket": "foot_left"}],
    "off_table": [],
    "cue_ball_pocketed": False,
    "cue_ball_off_table": False,
}


def write_video(
    path: Path, frames: int = 60, fps: float = 30.0, size: tuple[int, int] = (320, 180)
) -> Path:
    """A small MJPG .avi: a green cloth with a white ball crossing it, frame number drawn in."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, size)
    assert writer.isOpened(), "OpenCV cannot write MJPG video here"
    width, height = size
    for i in range(frames):
        image = np.full((height, width, 3), (60, 120, 30), np.uint8)
        x = int(20 + (width - 40) * i / max(frames - 1, 1))
        cv2.circle(image, (x, height // 2), 6, (250, 250, 250), -1)
        cv2.putText(image, str(i), (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1)
        writer.write(image)
    writer.release()
    return path


@dataclass
class ScriptedShot:
    facts: dict[str, Any]
    frame_strike: int
    frame_end: int
    shot: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"shot": self.shot, "frame_strike": self.frame_strike,
                "frame_end": self.frame_end, "facts": self.facts}  # fmt: skip


@dataclass
class ScriptedResult:
    events: tuple[Event, ...]
    shots: tuple[ScriptedShot, ...]
    tracks: TrackSet


@dataclass
class ScriptedPipeline:
    """Events at fixed frames and shots ending at fixed frames (see module doc).

    Attributes:
        events: frame index -> events reported on that frame.
        shots: frame index -> shot finished on that frame.
        gate: events and shots wait for this (set when there is no shot); held ones are
            reported on the first frame after the gate opens (as an event detector reports
            an event once it is certain, a few frames late).
        delay_s: work per frame, seconds (to play a slow pipeline).
        at_end: shots still open when the input ends, judged by `judge_end` (as
            referee.pipeline.Pipeline ends a shot the recording stopped in).
    """

    events: dict[int, list[Event]] = field(default_factory=dict)
    shots: dict[int, ScriptedShot] = field(default_factory=dict)
    gate: threading.Event = field(default_factory=threading.Event)
    delay_s: float = 0.0
    processed: list[int] = field(default_factory=list)
    at_end: tuple[ScriptedShot, ...] = ()
    _held: list[ScriptedShot] = field(default_factory=list)
    _held_events: list[Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.shots:
            self.gate.set()

    def process(self, frame: Frame) -> ScriptedResult:
        if self.delay_s:
            time.sleep(self.delay_s)
        # frames dropped or skipped on a loaded machine do not lose what happened on them:
        # it is reported on the next frame processed, as a real event detector reports late
        since = self.processed[-1] if self.processed else -1
        self.processed.append(frame.index)
        for index in range(since + 1, frame.index + 1):
            if index in self.shots:
                self._held.append(self.shots[index])
            self._held_events += self.events.get(index, [])
        shots: tuple[ScriptedShot, ...] = ()
        events: tuple[Event, ...] = ()
        if self.gate.is_set():
            shots, self._held = tuple(self._held), []
            events, self._held_events = tuple(self._held_events), []
        x_mm = 100.0 + (frame.index % 200) * 10.0
        on_table = np.array([TrackStatus.ON_TABLE, TrackStatus.ON_TABLE], dtype=object)
        xy_mm = np.array([[x_mm, 635.0], [1905.0, 635.0]])
        xy_px = np.array([[50.0, 90.0], [250.0, 90.0]])
        tracks = TrackSet(
            frame.index, frame.time_s, np.array([0, 1]), xy_mm, np.zeros((2, 2)), xy_px, on_table
        )
        return ScriptedResult(events, shots, tracks)

    def judge_end(self) -> tuple[tuple[Event, ...], tuple[ScriptedShot, ...]]:
        last = self.processed[-1] if self.processed else 0
        ended = tuple(self.at_end)
        self.at_end = ()
        events = (Event(last, last / 30, EventKind.SHOT_END),) if ended else ()
        return events, ended


def break_script(strike: int = 10, end: int = 30) -> ScriptedPipeline:
    """A legal break: strike, cue on the 1, a pocketed 3, shot end."""
    events = {
        strike: [Event(strike, strike / 30, EventKind.STRIKE, (0,))],
        strike + 3: [Event(strike + 3, (strike + 3) / 30, EventKind.BALL_BALL, (0, 1))],
        end - 5: [Event(end - 5, (end - 5) / 30, EventKind.BALL_POCKET, (3,), pocket="foot_left")],
        end: [Event(end, end / 30, EventKind.SHOT_END)],
    }
    return ScriptedPipeline(events, {end: ScriptedShot(dict(BREAK_FACTS), strike, end)})


@dataclass
class RunningServer:
    url: str
    token: str
    app: Any

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/ws"

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@contextlib.contextmanager
def serve(
    settings: LiveSettings, pipeline: Any = None, port: int = 0, **kwargs: Any
) -> Iterator[RunningServer]:
    """A real uvicorn server on 127.0.0.1 in a thread, stopped on exit as `tenball serve`
    stops. It listens on `port`, by default any free one: the socket is bound here and handed
    to uvicorn, so no other test can take the port between choosing it and serving on it
    (`server.url` has the port it got). A given `port` (a server coming back where it was) is
    retried for a few seconds while taken."""
    from referee.cli.serve import GRACEFUL_SHUTDOWN_S

    sock = listen("127.0.0.1", port, retry_s=10.0 if port else 0.0)
    port = bound_port(sock)
    settings = settings.model_copy(update={"port": port, "token": settings.token or "test-token"})
    if pipeline is not None:
        kwargs["make_pipeline"] = lambda frame: pipeline
    app = create_app(settings, **kwargs)
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws="websockets-sansio",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise RuntimeError("the live server did not start")
        time.sleep(0.02)
    try:
        yield RunningServer(f"http://127.0.0.1:{port}", settings.token, app)
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()


def receive_until(
    ws: Any, want: str, timeout_s: float = 10.0, where: Mapping[str, Any] | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Read messages until one of type `want` (and matching `where`); returns it and all read."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            kinds = [m.get("type") for m in seen]
            raise AssertionError(f"no {want!r} message within {timeout_s} s; got {kinds}")
        message = json.loads(ws.recv(timeout=left))
        message["received_s"] = time.monotonic()
        seen.append(message)
        if message.get("type") == want and all(
            message.get(k) == v for k, v in (where or {}).items()
        ):
            return message, seen


def wait_for(predicate: Any, timeout_s: float = 10.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class CsvTruthDetector:
    """Detections read from a clip's truth/tracks.csv (exact balls, the real rest of the
    pipeline): the live service then runs at the clip's rate on any machine."""

    def __init__(self, tracks_csv: Path, radius_px: float = 10.0) -> None:
        import csv

        from vision.types import NUM_CLASSES, ball_id

        self._rows: dict[int, list[tuple[int, float, float, float, float]]] = {}
        with tracks_csv.open() as handle:
            for row in csv.DictReader(handle):
                if row["status"] != "on_table":
                    continue
                item = (ball_id(row["ball"]), float(row["u_px"]), float(row["v_px"]),
                        float(row["x_mm"]), float(row["y_mm"]))  # fmt: skip
                self._rows.setdefault(int(row["frame"]), []).append(item)
        self._classes = NUM_CLASSES
        self._radius_px = radius_px

    def detect(self, frame: Frame, hint_xy_px: Any = None) -> Any:
        from vision.types import Detections

        rows = self._rows.get(frame.index, [])
        n = len(rows)
        class_prob = np.zeros((n, self._classes), np.float32)
        class_prob[np.arange(n), [r[0] for r in rows]] = 1.0
        return Detections(
            xy_px=np.array([[r[1], r[2]] for r in rows], np.float32).reshape(n, 2),
            xy_mm=np.array([[r[3], r[4]] for r in rows], np.float32).reshape(n, 2),
            radius_px=np.full(n, self._radius_px, np.float32),
            confidence=np.ones(n, np.float32),
            class_prob=class_prob,
        )


class SteppedCamera:
    """A live camera that gives frame i only once the test allowed frames up to it; while
    unplugged its reads fail (the capture reopens it, and it goes on where it was)."""

    fps = 30.0
    frame_count = None

    def __init__(self) -> None:
        self.allowed = 0
        self.index = 0
        self.unplugged = False
        self._condition = threading.Condition()

    @contextlib.contextmanager
    def plugged(self) -> Iterator[None]:
        """Unplugged on exit: a read waiting for the test returns (the service stops then)."""
        try:
            yield
        finally:
            self.plug(False)

    def plug(self, plugged: bool) -> None:
        with self._condition:
            self.unplugged = not plugged
            self._condition.notify_all()

    def allow(self, frames: int) -> None:
        with self._condition:
            self.allowed = frames
            self._condition.notify_all()

    def read(self) -> Frame | None:
        with self._condition:
            self._condition.wait_for(
                lambda: self.index < self.allowed or self.unplugged, timeout=60
            )
        if self.index >= self.allowed or self.unplugged:
            return None
        self.index += 1
        index = self.index - 1
        return Frame(np.zeros((8, 8, 3), np.uint8), index, index / self.fps)

    def close(self) -> None:
        return None
