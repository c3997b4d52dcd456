"""`PipelineConfig`: the options of every stage of the pipeline (`referee.pipeline`), nested
(style.md §8), and where the detector looks (`referee.pipeline_plan.SearchPlan`). Read from
a TOML file by `referee.pipeline_config`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from referee.pipeline_calls import CallConfig
from tracking.rack_fill import RackFillConfig

if TYPE_CHECKING:  # the stages are imported when a pipeline is built, not before
    from referee.shots import ShotConfig
    from tracking.event_config import EventConfig
    from tracking.tracker import TrackerConfig
    from vision.detector import DetectorConfig


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
        lead_step_radii: a ball whose step to the next frame exceeds this many ball radii
            also gets a window where it will be, left out when that window would hold
            another ball in play (`referee.pipeline_lead.lead_centres`; unlike
            `lead_hint_radii`, which broke breaks by handing sightings in the crowd to the
            wrong tracks); 0 turns it off. Measured (f4bd8ca) with `knock_corridor_s`, real
            detector: moving ball-frames found at 3-6 m/s 170 -> 214 of 260 on the 9
            samples and 167 -> 204 of 294 on 6 fresh clips; calls kept.
        knock_corridor_s: for this long after a moving ball's path came within three radii
            of a lone resting ball, that ball is also searched for down the line of centres
            it would be sent along (`referee.pipeline_lead.knock_corridor`), until its own
            track sees it move; 0 turns it off.
        detector_model: path of a learned detector's .onnx file
            (`vision.learned.LearnedBallDetector`, docs/learned-detector.md) to use instead
            of the classical detector; None for the classical one.
        rack_fill: when the classical detector's output gains a standing rack's balls it
            cannot tell apart (`tracking.rack_fill.RackFiller`; ``enabled = false``: never).
        census_searches: warn (`referee.pipeline_census.BallCensus`, in the summary, the
            report and on stderr) once this many whole-table searches each found more balls
            at rest than a ten-ball set holds: footage of another game is otherwise reviewed
            without a word; 0 turns it off. Changes no track, shot or call. Measured: the 9
            sample clips and the top-down real clips count at most 11 (never warned);
            broadcast-8ball game1 (15 balls) counts 13-14 on 6 of 7 searches (warned);
            game2 (12 balls, three behind the near cushion half hidden) reaches 12 on one
            search only (not warned: a count cannot tell it from ten-ball).
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
    lead_step_radii: float = 1.5
    knock_corridor_s: float = 0.25
    detector_model: str | None = None
    rack_fill: RackFillConfig = field(default_factory=RackFillConfig)
    census_searches: int = 3
