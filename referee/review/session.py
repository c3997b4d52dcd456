"""`tenball review`: a video through the pipeline into the files of design.md §5.

Opens the video, loads (or finds) the calibration, runs the pipeline frame by frame under a
progress bar, and streams tracks, events and shots to disk; the summary and the report are
written at the end, also when the video ends early or processing fails, for what was
processed.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibration.io import Calibration
from calibration.table import TableSpec
from referee.declarations import DeclarationLog
from referee.pipeline import Detector, FrameResult, Perceived, Pipeline, PipelineConfig
from referee.review.annotate import AnnotatedVideo
from referee.review.history import EvidenceCollector, TrackHistory, table_region_px
from referee.review.judging import JudgeWorker, JudgeWorkerError, parallel_available
from referee.review.outputs import ReviewWriter, write_json_atomic
from referee.review.plot import encode_png, plot_shot
from referee.review.report import ReportInput, ShotView, render_report
from vision.types import Frame


class ReviewInputError(ValueError):
    """The review cannot start: the message says what is wrong with which input."""


@dataclass(frozen=True, slots=True)
class ReviewOptions:
    """What to review and how.

    Attributes:
        out_dir: the output folder.
        annotate: also write annotated.mp4.
        max_frames: stop after this many frames (None: the whole video).
        progress: show a progress bar on stderr.
        config: the pipeline's options.
        table: the table's size, used when the table is found automatically; None measures
            it from the balls (`calibration.scale`).
        parallel: judge (events, shots, calls) in a second process while the next frames
            are detected, where two cores and `fork` are there (`referee.review.judging`);
            the outputs are the same either way.
        max_waiting_frames: frames detected ahead of their judging (each holds its image
            until then); raising it lets a busy machine stall the worker longer before the
            main process waits for it.
    """

    out_dir: Path
    annotate: bool = False
    max_frames: int | None = None
    progress: bool = True
    config: PipelineConfig = field(default_factory=PipelineConfig)
    table: TableSpec | None = None
    parallel: bool = True
    max_waiting_frames: int = 4


@dataclass
class _Run:
    """Mutable bookkeeping of one review (`frames`: those fully processed and written)."""

    read: int = 0
    frames: int = 0
    first_frame: Frame | None = None
    shots: list[ShotView] = field(default_factory=list)
    json_shots: list[dict[str, Any]] = field(default_factory=list)
    stopped: str | None = None
    decode_s: float = 0.0


class Review:
    """One review of one video.

    Args:
        source: an open frame source (`read() -> Frame | None`, `fps`, `frame_count`).
        calibration: the table and camera (checked against the video's size).
        declarations: the declarations file, or None.
        options: output folder and switches.
        detector: a detector to use instead of the real one (the truth detector in tests).
    """

    def __init__(
        self,
        source: Any,
        calibration: Calibration,
        declarations: DeclarationLog | None,
        options: ReviewOptions,
        detector: Detector | None = None,
    ) -> None:
        self.source = source
        self.calibration = calibration
        self.declarations = declarations or DeclarationLog()
        self.options = options
        self.pipeline = Pipeline(calibration, options.config, detector, self.declarations)
        self.writer = ReviewWriter(options.out_dir)
        self.history = TrackHistory()
        region = table_region_px(calibration.corners_px, calibration.image_size)
        self.evidence = EvidenceCollector(region_px=region)
        self.video: AnnotatedVideo | None = None
        self.run = _Run()
        self.calibration_info: dict[str, Any] = {"source": "file"}
        self.worker: JudgeWorker | None = None
        self.worker_cpu_s = 0.0
        """CPU seconds of the judging process (known at the end)."""
        self._waiting: deque[tuple[Frame, Perceived]] = deque()

    def execute(self) -> dict[str, Any]:
        """Process every frame; returns the summary (also written to summary.json)."""
        started = time.perf_counter()
        if self.options.parallel and parallel_available():
            # Forked before the progress bar's and the decoder's threads start.
            self.worker = JudgeWorker(self.pipeline)
        bar = self._progress_bar()
        try:
            while self.options.max_frames is None or self.run.read < self.options.max_frames:
                t0 = time.perf_counter()
                frame = self.source.read()
                self.run.decode_s += time.perf_counter() - t0
                if frame is None:
                    break
                self.run.read += 1
                self._one_frame(frame)
                if bar is not None:
                    bar.update(1)
            self._end_judging()
        except KeyboardInterrupt:
            self.run.stopped = f"interrupted at frame {self.run.frames}"
            raise
        except Exception as error:
            self._salvage(error)
            self.run.stopped = f"processing failed at frame {self.run.frames}: {error}"
            raise
        finally:
            if bar is not None:
                bar.close()
            if self.worker is not None:
                self.worker.close()
            if getattr(self.source, "ended_early", False):
                self.run.stopped = (
                    f"the video ended early, at frame {self.run.frames} (truncated file?)"
                )
            summary = self._finish(time.perf_counter() - started)
        return summary

    def _progress_bar(self) -> Any:
        if not self.options.progress:
            return None
        from tqdm import tqdm

        total = self.source.frame_count
        if self.options.max_frames is not None:
            total = min(total, self.options.max_frames) if total else self.options.max_frames
        return tqdm(total=total, unit="frame", desc="review", dynamic_ncols=True)

    def _one_frame(self, frame: Frame) -> None:
        if self.run.first_frame is None:
            self.run.first_frame = frame
            self._check_size(frame)
            if self.options.annotate:
                path = self.options.out_dir / "annotated.mp4"
                self.video = AnnotatedVideo(path, self.source.fps, frame.size)
        if self.worker is None:
            self._write(frame, self.pipeline.process(frame))
            return
        seen = self.pipeline.perceive(frame)
        self.worker.submit(seen.tracks)
        self._waiting.append((frame, seen))
        # The worker needs a fraction of a frame's detection time, so the results of a frame
        # this old are nearly always there: taking them without asking first saves a system
        # call a frame.
        while len(self._waiting) > self.options.max_waiting_frames:
            self._judged()

    def _judged(self) -> None:
        """Write the oldest waiting frame with the worker's results for it."""
        assert self.worker is not None
        frame, seen = self._waiting.popleft()
        events, shots = self.worker.receive()
        result = FrameResult(
            frame.index, frame.time_s, seen.detections, seen.tracks, events, shots, seen.timing_ms
        )
        self._write(frame, result)

    def _end_judging(self) -> None:
        """Write every waiting frame, take the worker's stage times, then write what the end
        of the video ends (a shot still open: `Pipeline.judge_end`)."""
        if self.worker is None:
            events, shots = self.pipeline.judge_end()
        else:
            while self._waiting:
                self._judged()
            self.pipeline.add_times(self.worker.finish())
            self.worker_cpu_s = self.worker.cpu_s
            events, shots = self.worker.ended
        self.writer.write_events(events)
        self.evidence.on_events(events)
        for shot in shots:
            self._shot(shot)

    def _salvage(self, error: Exception) -> None:
        """After a failure in this process, write the frames the worker was judging, so
        the files hold every frame before the failing one; nothing more is tried if the
        worker itself failed."""
        if self.worker is None or isinstance(error, JudgeWorkerError):
            return
        try:
            while self._waiting:
                self._judged()
        except Exception:  # the original error is the one to report
            return

    def _write(self, frame: Frame, result: FrameResult) -> None:
        """One frame's outputs: tracks, events, evidence, history, judged shots, video."""
        self.run.frames += 1
        self.writer.write_tracks(result.tracks)
        self.writer.write_events(result.events)
        self.evidence.add(frame, result.tracks)
        self.evidence.on_events(result.events)
        self.history.add(result.tracks)
        for shot in result.shots:
            self._shot(shot)
        if self.video is not None:
            self._annotate(frame, result)

    def _check_size(self, frame: Frame) -> None:
        if tuple(frame.size) != tuple(self.calibration.image_size):
            w, h = self.calibration.image_size
            raise ReviewInputError(
                f"the calibration is for {w}x{h} images but the video is "
                f"{frame.size[0]}x{frame.size[1]}: calibrate this camera (tenball calibrate) "
                "or omit --calibration to find the table automatically"
            )

    def _shot(self, shot: Any) -> None:
        data = shot.to_json()
        self.writer.write_shot(data)
        self.run.json_shots.append(data)
        first, last = shot.shot.frame_strike, shot.shot.frame_end
        paths, frames = self.history.paths(first, last)
        plot = plot_shot(self.calibration.table, paths, frames, shot.shot.events) if paths else None
        evidence = tuple(self.evidence.between(first, last))
        self.run.shots.append(
            ShotView(data, evidence, encode_png(plot) if plot is not None else None)
        )

    def _annotate(self, frame: Frame, result: FrameResult) -> None:
        assert self.video is not None
        for shot in result.shots:
            call = shot.call or {}
            lines = [f"Shot {shot.number}: {call.get('summary', 'no call')}"[:90]]
            if shot.review:
                lines.append("check: " + shot.review[0][:80])
            self.video.caption(lines)
        self.video.write(frame, result.tracks)

    def _finish(self, wall_s: float) -> dict[str, Any]:
        self.writer.close()
        if self.video is not None:
            self.video.close()
        summary = self._summary(wall_s)
        write_json_atomic(self.options.out_dir / "summary.json", summary)
        report = ReportInput(
            title=Path(str(getattr(self.source, "path", "video"))).name,
            players=self.declarations.players,
            summary=summary,
            shots=tuple(self.run.shots),
            declarations_known=self.declarations.known,
            notes=(*summary["warnings"], *((self.run.stopped,) if self.run.stopped else ())),
        )
        html_path = self.options.out_dir / "report.html"
        temporary = html_path.with_name("report.html.tmp")
        temporary.write_text(render_report(report))
        temporary.replace(html_path)
        return summary

    def _summary(self, wall_s: float) -> dict[str, Any]:
        shots = self.run.json_shots
        calls = [s.get("call") or {} for s in shots]
        fps = float(self.source.fps)
        frames = self.run.frames
        return {
            "schema": "tenball-review/1",
            "video": str(getattr(self.source, "path", "")),
            "complete": self.run.stopped is None,
            "stopped": self.run.stopped,
            "frames": frames,
            "fps": fps,
            "image_size": list(self.run.first_frame.size) if self.run.first_frame else None,
            "wall_time_s": round(wall_s, 3),
            "frames_per_s": round(frames / wall_s, 2) if wall_s > 0 else None,
            "realtime_factor": round(frames / wall_s / fps, 3) if wall_s > 0 and fps > 0 else None,
            "decode_ms_per_frame": round(1000 * self.run.decode_s / max(1, frames), 3),
            "stage_ms_per_frame": {k: round(v, 3) for k, v in self.pipeline.mean_ms().items()},
            "calibration": {
                **self.calibration_info,
                "image_size": list(self.calibration.image_size),
                "corners_px": {k: list(v) for k, v in self.calibration.corners_px.items()},
            },
            "players": self.declarations.players,
            "declarations": self.declarations.known,
            "counts": {
                **self.writer.counts,
                "fouls": sum(1 for c in calls if c.get("foul")),
                "review_flags": sum(1 for s in shots if s.get("review")),
                "racks": max([int(s.get("rack", 1)) for s in shots], default=0),
            },
            "rack_winners": [c["rack_winner"] for c in calls if c.get("rack_winner")],
            "warnings": self.pipeline.warnings,
        }
