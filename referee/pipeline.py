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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from numpy.typing import NDArray

from calibration.camera import BALL_CENTRE_HEIGHT_MM
from calibration.io import Calibration
from referee.declarations import DeclarationLog
from referee.pipeline_calls import CallConfig, CallStage, ShotInput, ShotResult
from referee.pipeline_plan import SearchPlan
from tracking.rack_fill import RackFillConfig, RackFiller
from tracking.types import Event, EventKind, TrackSet
from vision.types import Detections, Frame

if TYPE_CHECKING:  # the stages are imported when a pipeline is built, not before
    from referee.shots import ShotConfig
    from tracking.event_config import EventConfig
    from tracking.tracker import TrackerConfig
    from vision.detector import DetectorConfig

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
class PipelineConfig:
    """Options of every stage, nested (style.md §8).

    Attributes:
        detector: the detector's config (None: its defaults).
        tracker: the tracker's config (None: its defaults).
        events: the event detector's config (None: its defaults).
        shots: the shot segmenter's config (None: its defaults).
        calls: the rules stage's options.
        full_search_every_s: the detector searches the whole table this often, seconds of
            video (the frames whose time first reaches each multiple of it), and otherwise
            only around the tracked balls, at any frame rate (at 60 frames/s, every 60th
            frame). Lowering it finds a returning ball (a spotted 10, a cue ball in hand)
            sooner but costs time; 0 turns it off.
        full_search_every_frames: when above 0, every this many frames instead of
            `full_search_every_s` (a count of frames means less time at a higher frame
            rate: prefer the seconds).
        lost_search_every_s: while a moving ball is lost (a blurred break shot, a ball past a
            cushion the prediction missed) or the cue ball is lost (struck, it leaves its
            search window before its filter sees it move) or in hand (pocketed or off the
            table: it comes back where the player puts it), the whole table is searched
            this often, seconds.
            Lowering it re-acquires such balls sooner at the cost of more full searches; 0
            turns it off.
        lost_ball_speed_mm_s: a lost ball counts as moving above this estimated speed.
        lost_cue_wait_s: a lost cue ball counts as moving (whatever its filter says) once
            it has been lost this long, seconds. A stroke that meets a ball sooner is
            placed from the rest spot (`tracking.strokes`), more surely than from a smeared
            sighting mid-flight; a slower one is found again on the way. Negative: never.
        lead_hint_radii: a ball whose step to the next frame (its speed times the last
            frame interval) is expected to exceed this many ball radii gets a second search
            hint where it will be, beside the one where it is: a window around where it is
            (`DetectorConfig.hint_window_radii`) no longer holds it (a fast ball at 30
            frames/s moves 2-4 radii a frame). The two windows overlap and merge into one
            along its path. 0 (the default) turns it off. Measured with the real detector:
            at 1.5 or 2.5 a rendered 30 frames/s clip went from 1/3 to 3/3 calls (ball-frame
            precision 92.7 -> 98.2 %), but the tracker does not yet take such sightings
            well: at 1.5, broadcast_nudge's break (60 frames/s) read the potted 4 as the
            10 (calls kept) and fresh f1_corner's switches went 3 -> 7; at 2.5,
            broadcast_pushout (30 frames/s) lost three calls (3/4 -> 0/4).
        reach_speed_mm_s: an unseen cue ball (its filter still says it rests when a stroke
            takes it out of its window within a frame at 30 frames/s) is searched for,
            besides its own window, in windows tiling a disc of its speed (at rest: this
            speed, a hard break's) times the time it has been unseen, around where its
            filter puts it (`referee.pipeline_search.reach_centres`), until it has been
            unseen `lost_cue_wait_s` (then the whole table is searched); 0 (the default)
            turns it off. Measured at 6000 with the real detector (359a494): ball-frame
            recall and precision up on all 15 sample and fresh clips (e.g. broadcast_pushout
            96.43/99.06 -> 96.53/99.13 %, lip_stay switches 18 -> 16); broadcast_pushout
            (30 frames/s) shot 4: the cue ball unseen for 8 frames from the stroke -> found
            on the next frame, its contact with the 1 seen (3/4 -> 4/4 calls); but fresh
            s1_broadcast shot 3 (60 frames/s) lost its call (3/3 -> 2/3): the struck cue
            ball now seen all the way, its contact with the 3 between two frames (113 mm
            apart at 4.6 m/s) is no longer found, where the gap in its track had it
            inferred. On once the contacts find such a between-frames contact.
        reach_max_radii: that disc stops growing at this many ball radii (its windows cost
            about a fifth of a whole-table search there).
        struck_lost_s: for this long after it was lost, a ball near a moving one (or lost
            with the cue ball) counts as maybe struck into motion, and the whole table is
            searched every `lost_search_every_s` (`referee.pipeline_search.struck_ball_lost`);
            0 (the default) turns it off. Measured at 0.3 with the real detector on four
            rendered clips (top 50 and 30 frames/s, broadcast 30, corner 50): frames of balls
            moving 1.5-3 m/s found 644 -> 660 of 748, above 3 m/s 76 -> 85 of 224, ghosts
            unchanged (17); calls 10/12 -> 9/12 (a 30 frames/s top-view break gained a
            cushion contact of the cue ball before its first contact).
        detector_model: path of a learned detector's .onnx file
            (`vision.learned.LearnedBallDetector`, docs/learned-detector.md) to use instead
            of the classical detector; None for the classical one.
        rack_fill: when the classical detector's output gains a standing rack's balls it
            cannot tell apart (`tracking.rack_fill.RackFiller`; ``enabled = false``: never).
    """

    detector: DetectorConfig | None = None
    tracker: TrackerConfig | None = None
    events: EventConfig | None = None
    shots: ShotConfig | None = None
    calls: CallConfig = field(default_factory=CallConfig)
    full_search_every_s: float = 1.0
    full_search_every_frames: int = 0
    lost_search_every_s: float = 0.1
    lost_ball_speed_mm_s: float = 100.0
    lost_cue_wait_s: float = 0.25
    lead_hint_radii: float = 0.0
    reach_speed_mm_s: float = 0.0
    reach_max_radii: float = 10.0
    struck_lost_s: float = 0.0
    detector_model: str | None = None
    rack_fill: RackFillConfig = field(default_factory=RackFillConfig)


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
        self.totals_ms = dict.fromkeys(STAGES, 0.0)
        self.frames = 0

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
        t1 = clock()
        tracks = self._with_pixels(self.tracker.update(detections, frame.index, frame.time_s))
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
