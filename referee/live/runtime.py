"""The running service: capture and pipeline threads wired to the referee and the viewers.

`LiveRuntime` owns everything the lifespan starts: the store, the referee, the websocket
manager, the capture thread, the pipeline worker and the JPEG board. Threads hand their output
to the event loop with `call_soon_threadsafe`; the referee, the store writes and the
broadcasts all happen on the loop, one message at a time.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from referee.live.capture import CaptureThread, FrameMailbox, FrameSource, SourceStatus
from referee.live.connections import ConnectionManager
from referee.live.fit_check import FitWatch
from referee.live.outage import OUTAGE_STATES, OutageWatch
from referee.live.service import LiveReferee
from referee.live.session import RulesBackend
from referee.live.settings import LiveSettings
from referee.live.shadow import ShadowSync, ShadowSynced
from referee.live.store import MatchStore
from referee.live.worker import FrameOutput, FramePipeline, JpegBoard, PipelineWorker
from vision.types import Frame

logger = logging.getLogger(__name__)

SourceOpener = Callable[[], FrameSource]
PipelineFactory = Callable[[Frame], FramePipeline]
DEFAULT_TABLE_MM = {"length_mm": 2540.0, "width_mm": 1270.0}


def _percentile_ms(values: collections.deque[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, round(q * (len(ordered) - 1)))
    return round(ordered[index] * 1000.0, 2)


class LiveRuntime:
    """Everything the service runs, started and stopped by the app's lifespan.

    Args:
        settings: the service settings.
        rules: the rules engine.
        open_source: opens the frame source (None: no camera, the API alone).
        make_pipeline: builds the pipeline from the first frame.
    """

    def __init__(
        self,
        settings: LiveSettings,
        rules: RulesBackend,
        open_source: SourceOpener | None,
        make_pipeline: PipelineFactory,
    ) -> None:
        self.settings = settings
        self.manager = ConnectionManager(settings.client_queue_messages)
        self.store = MatchStore(settings.db)
        self.referee = LiveReferee(self.store, rules, self.publish)
        self.board = JpegBoard(settings.mjpeg_fps, settings.jpeg_quality)
        self.mailbox = FrameMailbox(settings.frame_queue_frames, lossless=not settings.realtime)
        self._open_source = open_source
        self._make_pipeline = make_pipeline
        self.capture: CaptureThread | None = None
        self.worker: PipelineWorker | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.started_s = time.monotonic()
        self.table = dict(DEFAULT_TABLE_MM)
        self.balls: list[dict[str, Any]] = []
        self.last_frame: int | None = None
        self.event_latency_s: collections.deque[float] = collections.deque(maxlen=2000)
        self.call_latency_s: collections.deque[float] = collections.deque(maxlen=200)
        self.event_delay_s: collections.deque[float] = collections.deque(maxlen=2000)
        """From the capture of the frame an event happened on (the event detector reports
        events once certain, a few frames late) to its broadcast."""
        self._captured_at: collections.OrderedDict[int, float] = collections.OrderedDict()
        self._processed: collections.deque[tuple[int, float]] = collections.deque(maxlen=36000)
        """(frame index, time s) of each frame the pipeline processed, to tell for a shot how
        many of its frames were analysed."""
        self._last_status: dict[str, Any] = {}
        self._watchdog: asyncio.Task[None] | None = None
        self._judging_captured_s: float | None = None
        self._announced_error = ""
        self.fit_watch: FitWatch | None = None
        self.outage = OutageWatch()
        self.shadow = ShadowSync()
        """The match as the pipeline's own call stage is to see it (see shadow.py)."""

    def alert(self, message: str) -> None:
        """Tell the operator something needs them: kept in the database until dismissed, so
        a reloaded page or a restarted service shows the same alerts."""
        alert_id = self.store.add_alert(self.referee.match_id, message)
        self.manager.broadcast({"type": "alert", "id": alert_id, "message": message})

    def dismiss_alert(self, alert_id: int) -> bool:
        """The operator tapped an alert away: gone from every page; False if not open."""
        if not self.store.dismiss_alert(alert_id):
            return False
        self.manager.broadcast({"type": "alert_dismissed", "id": alert_id})
        return True

    def publish(self, message: dict[str, Any]) -> None:
        if message.get("type") == "alert":
            self.alert(str(message.get("message", "")))
            return
        if message.get("type") == "state":
            self.shadow.publish(self.referee.view)
            message = {**message, "table": self.table}
        elif message.get("type") == "call" and self._judging_captured_s is not None:
            message = {**message, "captured_s": self._judging_captured_s}
        self.manager.broadcast(message)

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.referee.resume()
        self.shadow.publish(self.referee.view)
        if self._open_source is None:
            return
        self.worker = PipelineWorker(
            self.mailbox,
            self._build_pipeline,
            self._output_from_thread,
            self.board,
            self.settings.balls_hz,
        )
        self.capture = CaptureThread(
            self._open_source,
            self.mailbox,
            self.settings.realtime,
            self._status_from_thread,
            ready=self.worker.ready,
        )
        self.worker.start()
        self.capture.start()
        self._watchdog = asyncio.create_task(self._watch_source())

    async def stop(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        for thread in (self.capture, self.worker):
            if thread is not None:
                thread.stop()
        self.mailbox.close()
        for thread in (self.capture, self.worker):
            if thread is not None:
                await asyncio.to_thread(thread.join, 5.0)
        await self.manager.close_all()
        self.store.close()

    def _build_pipeline(self, frame: Frame) -> FramePipeline:
        """Build the pipeline (worker thread) and learn the table size from its calibration;
        with a calibration, the picture is checked against it as the match goes on."""
        pipeline = ShadowSynced(self._make_pipeline(frame), self.shadow)
        calibration = getattr(pipeline, "calibration", None)
        table = getattr(calibration, "table", None)
        if table is not None:
            self.table = {"length_mm": table.length_mm, "width_mm": table.width_mm}
        if table is None or getattr(calibration, "camera", None) is None:
            return pipeline
        self.fit_watch = FitWatch(calibration, self.settings.fit_check_s)
        return _FitWatched(pipeline, self.fit_watch, self._fit_from_thread)

    def _fit_from_thread(self, message: str) -> None:
        text = message or "the calibration fits the camera again"
        self._call_soon(self.alert, text)

    def _call_soon(self, callback: Callable[..., None], *args: Any) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed since the check
                loop.call_soon_threadsafe(callback, *args)

    def _status_from_thread(self, status: SourceStatus) -> None:
        self._call_soon(self._announce_status)

    def _output_from_thread(self, output: FrameOutput) -> None:
        self._call_soon(self.on_output, output)

    def source_status(self) -> dict[str, Any]:
        if self.capture is None:
            return {"state": "none", "message": "no frame source configured"}
        return self.capture.snapshot(self.settings.stall_after_s).to_json()

    def _announce_status(self) -> None:
        status = self.source_status()
        key = {"state": status.get("state"), "message": status.get("message")}
        if key != self._last_status:
            self._last_status = key
            self.outage.on_state(str(status.get("state")), self.balls, time.monotonic())
            # stalled with frames still queued: the capture waits for a slow pipeline
            if status.get("state") in OUTAGE_STATES and not len(self.mailbox):
                self.referee.on_source_down()
            self.manager.broadcast({"type": "source_status", **status})

    async def _watch_source(self) -> None:
        while True:
            await asyncio.sleep(0.25)
            self._announce_status()
            self._announce_pipeline_error()
            self._announce_worker_notices()

    def _announce_worker_notices(self) -> None:
        worker = self.worker
        while worker is not None and worker.notices:
            self.alert(worker.notices.pop(0))

    def _announce_pipeline_error(self) -> None:
        """Tell the viewers (the operator's toast) once when the pipeline fails (no table
        found, a bad calibration, a frame it cannot take), and again only when the failure
        changes: /api/health alone was seen by no one at the table."""
        error = self.worker.error if self.worker is not None else ""
        problem = error.partition(": ")[2] or error  # "frame 12: why" -> "why"
        if problem != self._announced_error:
            self._announced_error = problem
            if problem:
                self.alert(f"camera analysis failed: {problem}")

    def on_output(self, output: FrameOutput) -> None:
        """One frame's output, on the loop: events, balls, then shots (judged and called)."""
        if not self._processed or output.frame > self._processed[-1][0]:
            self._processed.append((output.frame, output.time_s))
        self.last_frame = output.frame
        self._captured_at[output.frame] = output.captured_s
        while len(self._captured_at) > 3600:
            self._captured_at.popitem(last=False)
        for event in output.events:
            self.outage.on_event(str(event.get("kind")))
            happened_s = self._captured_at.get(int(event.get("frame", -1)))
            self.referee.on_event(
                event | {"captured_s": output.captured_s},
                happened_s if happened_s is not None else captured_when(event, output),
            )
            now_s = time.monotonic()
            self.event_latency_s.append(now_s - output.captured_s)
            if happened_s is not None:
                self.event_delay_s.append(now_s - happened_s)
        if output.balls is not None:
            self.balls = output.balls
            changed = self.outage.on_balls(output.balls, time.monotonic())
            if changed is not None:
                self.alert(changed)
            self.manager.broadcast(
                {
                    "type": "balls",
                    "frame": output.frame,
                    "time_s": output.time_s,
                    "captured_s": output.captured_s,
                    "balls": output.balls,
                }
            )
        for shot in output.shots:
            shot = self._with_coverage(shot)
            self._judging_captured_s = output.captured_s  # lets viewers time the call
            try:
                if self.referee.on_shot(shot) is not None:
                    self.call_latency_s.append(time.monotonic() - output.captured_s)
            finally:
                self._judging_captured_s = None

    def _with_coverage(self, shot: dict[str, Any]) -> dict[str, Any]:
        """The shot with how many of its frames the pipeline analysed; flagged for a person
        to check when too few were (the machine fell behind and frames were dropped or
        skipped: contacts and cushions between analysed frames are guessed or missed)."""
        seen = shot_coverage(self._processed, shot, self.capture.status.fps if self.capture else 0)
        if seen is None:
            return shot
        shot = {**shot, "coverage": seen}
        fraction = seen["frames_seen"] / seen["frames_in_shot"]
        if fraction < self.settings.review_below_coverage:
            reason = (f"only {fraction:.0%} of the shot's frames were analysed (the machine fell "
                      "behind the camera): check the call")  # fmt: skip
            shot["review_reasons"] = [*shot.get("review_reasons", []), reason]
        return shot

    def health(self) -> dict[str, Any]:
        """The /api/health body."""
        source = self.source_status()
        worker = self.worker
        uptime_s = time.monotonic() - self.started_s
        pipeline = {
            "processed": worker.processed if worker else 0,
            "error": worker.error if worker else "",
            "busy_fraction": round(worker.busy_s / uptime_s, 3) if worker and uptime_s else 0.0,
            "queued_frames": len(self.mailbox),
            "last_frame": self.last_frame,
        }
        ok = source.get("state") in ("live", "ended", "none") and not pipeline["error"]
        return {
            "status": "ok" if ok else "degraded",
            "uptime_s": round(uptime_s, 1),
            "source": source,
            "pipeline": pipeline,
            "viewers": {
                "websocket": self.manager.count,
                "mjpeg": self.board.viewers,
                "dropped_slow": self.manager.stats.dropped_slow,
                "messages_sent": self.manager.stats.messages_sent,
            },
            "latency_ms": {
                "event_p50": _percentile_ms(self.event_latency_s, 0.5),
                "event_p99": _percentile_ms(self.event_latency_s, 0.99),
                "call_p99": _percentile_ms(self.call_latency_s, 0.99),
                "event_since_it_happened_p50": _percentile_ms(self.event_delay_s, 0.5),
                "event_since_it_happened_p99": _percentile_ms(self.event_delay_s, 0.99),
            },
            "calibration": (
                self.fit_watch.last.to_json() if self.fit_watch and self.fit_watch.last else None
            ),
            "match_id": self.referee.match_id,
            "interrupted_shot": self.referee.interrupted,
            "balls_changed_in_outage": self.outage.last or None,
            "db": str(self.settings.db),
        }

    def state(self) -> dict[str, Any]:
        """The /api/state body: the match, the balls and the source."""
        return {
            **self.referee.state_message(),
            "table": self.table,
            "balls": self.balls,
            "source": self.source_status(),
            "alerts": self.store.open_alerts(),
        }


class _FitWatched:
    """The pipeline, with the picture checked against its calibration now and then."""

    def __init__(
        self, pipeline: FramePipeline, watch: FitWatch, alert: Callable[[str], None]
    ) -> None:
        self._pipeline = pipeline
        self._watch = watch
        self._alert = alert

    def process(self, frame: Frame) -> Any:
        image = frame.image
        if image.ndim == 3 and image.shape[2] == 3:
            message = self._watch.update(image)
            if message is not None:
                self._alert(message)
        return self._pipeline.process(frame)

    def __getattr__(self, name: str) -> Any:  # calibration, judge_end...
        return getattr(self._pipeline, name)


def captured_when(event: dict[str, Any], output: FrameOutput) -> float:
    """When the frame an event happened on was captured, for a frame not processed (skipped
    or dropped): the reporting frame's capture less the picture's time between them."""
    time_s = event.get("time_s")
    between_s = output.time_s - float(time_s) if isinstance(time_s, int | float) else 0.0
    return output.captured_s - max(0.0, between_s)


def shot_coverage(
    processed: collections.deque[tuple[int, float]], shot: dict[str, Any], fps: float
) -> dict[str, int] | None:
    """Frames of a shot the pipeline analysed, and frames the shot lasted.

    Args:
        processed: (frame index, time s) of the processed frames, in order.
        shot: a shot with `frame_strike` and `frame_end`.
        fps: the source's frame rate (0: unknown); a camera's own lost frames show only as
            gaps in time, not in its frame numbers.

    Returns:
        {"frames_seen", "frames_in_shot"}, or None when the shot has no frame range.
    """
    strike, end = shot.get("frame_strike"), shot.get("frame_end")
    if not isinstance(strike, int) or not isinstance(end, int) or end < strike:
        return None
    window = [(f, t) for f, t in processed if strike <= f <= end]
    in_shot = end - strike + 1
    if len(window) >= 2 and fps > 0:
        (first, first_s), (last, last_s) = window[0], window[-1]
        by_time = round((last_s - first_s) * fps) + 1 + (first - strike) + (end - last)
        in_shot = max(in_shot, by_time)
    return {"frames_seen": min(len(window), in_shot), "frames_in_shot": in_shot}
