"""The pipeline of design.md §2 over any frame stream.

`Frame -> Detections -> TrackSet -> Event* -> ShotRecord -> Call`: one `process(frame)` per
frame runs the detector (searching only around where the tracker expects balls, with a full
search every so often: `referee.pipeline_plan.SearchPlan`), the tracker, the event detector,
the shot segmenter and, for each finished shot, the rules engine. Every stage is timed.
Stages are small protocols, so the real detector and the synthetic truth detector (fast CPU
tests) plug in alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from calibration.camera import BALL_CENTRE_HEIGHT_MM
from calibration.io import Calibration
from referee.declarations import DeclarationLog
from referee.pipeline_calls import CallStage, ShotInput, ShotResult
from referee.pipeline_census import BallCensus
from referee.pipeline_plan import SearchPlan
from referee.pipeline_settings import PipelineConfig as PipelineConfig
from tracking.rack_fill import RackFiller
from tracking.types import Event, EventKind, TrackSet
from vision.types import Detections, Frame

STAGES = ("detect", "track", "events", "shots", "rules")


class Detector(Protocol):
    def detect(
        self, frame: Frame, hint_xy_px: NDArray[np.floating] | None = None
    ) -> Detections: ...


class Tracker(Protocol):
    def update(self, detections: Detections, frame: int, time_s: float) -> TrackSet: ...


class EventStage(Protocol):
    def update(self, trackset: TrackSet) -> list[Event]: ...


class Segmenter(Protocol):
    def update(self, events: list[Event], trackset: TrackSet) -> Sequence[Any]: ...


@dataclass(frozen=True, slots=True)
class Stages:
    """Stages to use instead of the defaults built from the config (tests, other trackers).

    Attributes:
        tracker / events / segmenter: None for the default of that stage.
        clock: seconds counter for the stage timings.
    """

    tracker: Tracker | None = None
    events: EventStage | None = None
    segmenter: Segmenter | None = None
    clock: Callable[[], float] = time.perf_counter


@dataclass(frozen=True, slots=True, eq=False)
class FrameResult:
    """What one frame produced.

    Attributes:
        frame: the frame's index.
        time_s: its time, seconds.
        detections: the detector's output.
        tracks: every ball's state, with `xy_px` filled by projection where the tracker had none.
        events: events that became certain on this frame (their `frame` may be earlier).
        shots: shots that finished on this frame, judged.
        timing_ms: milliseconds spent in each stage of STAGES.
    """

    frame: int
    time_s: float
    detections: Detections
    tracks: TrackSet
    events: tuple[Event, ...]
    shots: tuple[ShotResult, ...]
    timing_ms: dict[str, float]


@dataclass(frozen=True, slots=True, eq=False)
class Perceived:
    """What detection and tracking made of one frame.

    Attributes:
        detections: the detector's output.
        tracks: every ball's state, with `xy_px` filled by projection where the tracker had none.
        timing_ms: milliseconds spent detecting and tracking.
    """

    detections: Detections
    tracks: TrackSet
    timing_ms: dict[str, float]


def shot_input(record: Any) -> ShotInput:
    """Read a shot segmenter's record into the rules stage's input (duck-typed)."""
    if isinstance(record, ShotInput):
        return record
    facts = record.facts
    facts_json = facts if isinstance(facts, dict) else facts.to_json()
    events = tuple(getattr(record, "events", ()))
    strike_time = getattr(record, "time_strike_s", None)
    if strike_time is None:
        strike_time = next((e.time_s for e in events if e.kind is EventKind.STRIKE), 0.0)
    # A record that names its lost balls describes them in `uncertain` too: they are passed
    # as they are, and flagged only where their fate would change the call. A shot the video
    # cut short says so whatever it lost.
    unaccounted = tuple((int(b), int(f)) for b, f in getattr(record, "unaccounted", ()))
    uncertain = tuple(getattr(record, "uncertain", ()))
    if unaccounted:
        cut_short = getattr(record, "cut_short", None)
        uncertain = (cut_short,) if cut_short else ()
    uncertain += tuple(getattr(record, "corrected", ()))
    return ShotInput(
        frame_strike=int(record.frame_strike),
        frame_end=int(record.frame_end),
        time_strike_s=float(strike_time),
        facts=dict(facts_json),
        confidence=float(getattr(record, "confidence", 1.0)),
        events=events,
        uncertain=uncertain,
        fact_confidence=dict(getattr(record, "fact_confidence", {})),
        unaccounted=unaccounted,
    )


class Pipeline:
    """Detector -> tracker -> events -> shots -> rules, one frame at a time.

    Args:
        calibration: the table and camera.
        config: options of every stage.
        detector: the detector to use (default: the real `BallDetector`).
        declarations: the declarations file (default: none; assumptions are stated).
        stages: tracker, event detector, segmenter or clock to use instead of the defaults.
    """

    def __init__(
        self,
        calibration: Calibration,
        config: PipelineConfig | None = None,
        detector: Detector | None = None,
        declarations: DeclarationLog | None = None,
        stages: Stages | None = None,
    ) -> None:
        self.calibration = calibration
        self.config = config or PipelineConfig()
        self.detector = (
            detector if detector is not None else _default_detector(calibration, self.config)
        )
        stages = stages or Stages()
        self.tracker = stages.tracker or _default_tracker(calibration, self.config)
        self.events = stages.events or _default_events(calibration, self.config)
        self.segmenter = stages.segmenter or _default_segmenter(calibration, self.config)
        self.calls = CallStage(declarations, self.config.calls)
        self._clock = stages.clock
        self.search = SearchPlan(calibration, self.config)
        self.census = BallCensus(self.config.census_searches)
        self.totals_ms = dict.fromkeys(STAGES, 0.0)
        self.frames = 0

    @property
    def warnings(self) -> list[str]:
        """What the user must know about the whole video (another game's balls)."""
        warning = self.census.warning
        return [warning] if warning else []

    @property
    def full_searches(self) -> int:
        """How many frames the detector searched the whole table (the expensive search)."""
        return self.search.full_searches

    def process(self, frame: Frame) -> FrameResult:
        """Run every stage on one frame."""
        seen = self.perceive(frame)
        events, shots, judged_ms = self.judge(seen.tracks)
        self.add_times(judged_ms)
        timing = {**seen.timing_ms, **judged_ms}
        return FrameResult(
            frame.index, frame.time_s, seen.detections, seen.tracks, events, shots, timing
        )

    def perceive(self, frame: Frame) -> Perceived:
        """Detection and tracking of one frame, and where to search the next one. Only
        these stages feed the next frame's; `judge` may run elsewhere, later, in order."""
        clock = self._clock
        t0 = clock()
        hint = self.search.hint(frame)
        reach_px = self.search.reach_px
        reaching = getattr(self.detector, "detect_reaching", None)
        if hint is not None and len(reach_px) and reaching is not None:
            detections = reaching(frame, hint, reach_px)
        else:
            detections = self.detector.detect(frame, hint)
        if hint is None:
            self.census.add(detections)
        t1 = clock()
        tracks = self._with_pixels(self.tracker.update(detections, frame.index, frame.time_s))
        self._note_plain_cloth(frame, tracks)
        t2 = clock()
        self.search.follow(tracks)
        timing = {"detect": 1000.0 * (t1 - t0), "track": 1000.0 * (t2 - t1)}
        self.add_times(timing)
        self.frames += 1
        return Perceived(detections, tracks, timing)

    def judge(
        self, tracks: TrackSet
    ) -> tuple[tuple[Event, ...], tuple[ShotResult, ...], dict[str, float]]:
        """Events, finished shots and their calls from one frame's tracks (frames in order).

        Returns:
            The events that became certain, the shots judged, and milliseconds per stage.
        """
        clock = self._clock
        t0 = clock()
        events = tuple(self.events.update(tracks))
        t1 = clock()
        records = self.segmenter.update(list(events), tracks)
        t2 = clock()
        shots = tuple(self.calls.judge(shot_input(r)) for r in records)
        t3 = clock()
        timing = {
            "events": 1000.0 * (t1 - t0),
            "shots": 1000.0 * (t2 - t1),
            "rules": 1000.0 * (t3 - t2),
        }
        return events, shots, timing

    def judge_end(self) -> tuple[tuple[Event, ...], tuple[ShotResult, ...]]:
        """The end of the input: a shot still open ends at the last frame judged and is
        called, so a recording that stops before its last shot settled (a ball on a pocket
        lip, balls still rolling) loses nothing. Stages without ``finish`` end nothing.

        Returns:
            The events of the end and the shot they end, judged (empty when none was open).
        """
        finish_events = getattr(self.events, "finish", None)
        finish_shots = getattr(self.segmenter, "finish", None)
        if finish_events is None or finish_shots is None:
            return (), ()
        events = tuple(finish_events())
        records = finish_shots(list(events))
        return events, tuple(self.calls.judge(shot_input(r)) for r in records)

    def add_times(self, timing_ms: dict[str, float]) -> None:
        """Add milliseconds per stage to the totals (`judge` run elsewhere adds its own)."""
        for stage, ms in timing_ms.items():
            self.totals_ms[stage] += ms

    def _note_plain_cloth(self, frame: Frame, tracks: TrackSet) -> None:
        """Tell the tracker which hidden balls' windows show plain cloth: gone, not hidden
        (`vision.plain`, `TrackerConfig.plain_cloth_end_s`)."""
        hidden = tracks.status == "occluded"
        plain = getattr(self.detector, "plain_cloth", None)
        note = getattr(self.tracker, "note_plain_cloth", None)
        end_s = getattr(getattr(self.tracker, "config", None), "plain_cloth_end_s", 0.0)
        if plain is not None and note is not None and end_s > 0.0 and hidden.any():
            note(tracks.ball[hidden], plain(frame, tracks.xy_px[hidden]), frame.time_s)

    def _with_pixels(self, tracks: TrackSet) -> TrackSet:
        """Fill unknown image positions by projecting the table positions."""
        missing = ~np.isfinite(tracks.xy_px).all(axis=1)
        if not missing.any():
            return tracks
        xy_px = tracks.xy_px.copy()
        xy_px[missing] = self.calibration.camera.project(
            tracks.xy_mm[missing], BALL_CENTRE_HEIGHT_MM
        )
        return TrackSet(
            tracks.frame,
            tracks.time_s,
            tracks.ball,
            tracks.xy_mm,
            tracks.velocity_mm_s,
            xy_px,
            tracks.status,
        )

    def mean_ms(self) -> dict[str, float]:
        """Mean milliseconds per frame of each stage so far."""
        return {k: v / max(1, self.frames) for k, v in self.totals_ms.items()}


def _default_detector(calibration: Calibration, config: PipelineConfig) -> Detector:
    from vision.detector import BallDetector

    if config.detector_model is not None:
        from vision.learned.detector import LearnedBallDetector

        return LearnedBallDetector(config.detector_model, calibration)
    detector = BallDetector(calibration, config.detector)
    if not config.rack_fill.enabled:
        return detector
    return RackFiller(detector, calibration.table, config.rack_fill)


def _default_tracker(calibration: Calibration, config: PipelineConfig) -> Tracker:
    from tracking.tracker import BallTracker

    table = calibration.table
    return BallTracker(table) if config.tracker is None else BallTracker(table, config.tracker)


def _default_events(calibration: Calibration, config: PipelineConfig) -> EventStage:
    from tracking.events import EventDetector

    table = calibration.table
    return EventDetector(table) if config.events is None else EventDetector(table, config.events)


def _default_segmenter(calibration: Calibration, config: PipelineConfig) -> Segmenter:
    from referee.shots import ShotSegmenter

    table = calibration.table
    return ShotSegmenter(table) if config.shots is None else ShotSegmenter(table, config.shots)
