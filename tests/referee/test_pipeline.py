"""The pipeline's wiring: stage order and timing, search hints, pixels, calls per shot."""

from __future__ import annotations

from itertools import count
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from calibration.camera import BALL_CENTRE_HEIGHT_MM, CameraModel
from calibration.io import Calibration
from calibration.table import TableSpec
from referee.declarations import parse_declarations
from referee.pipeline import Pipeline, PipelineConfig, Stages, Tracker, shot_input
from referee.pipeline_calls import ShotInput
from referee.shots import ShotRecord
from tracking.types import Event, EventKind, TrackSet, TrackStatus
from vision.types import Detections, Frame

TABLE = TableSpec()
SIZE = (320, 180)


def _calibration() -> Calibration:
    camera = CameraModel.look_at(
        (TABLE.length_mm / 2, TABLE.width_mm / 2, 3000.0),
        (TABLE.length_mm / 2, TABLE.width_mm / 2, 0.0),
        SIZE,
        focal_px=200.0,
    )
    corners = {k: tuple(camera.project(np.array(v))[0]) for k, v in TABLE.corners_xy_mm().items()}
    return Calibration(TABLE, camera, corners)


class FakeDetector:
    def __init__(self) -> None:
        self.hints: list[NDArray[np.floating] | None] = []

    def detect(self, frame: Frame, hint_xy_px: NDArray[np.floating] | None = None) -> Detections:
        self.hints.append(hint_xy_px)
        return Detections.empty()


class FakeTracker:
    """Two balls at rest; the 3 is pocketed from frame 5 on."""

    def update(self, detections: Detections, frame: int, time_s: float) -> TrackSet:
        status = TrackStatus.POCKETED if frame >= 5 else TrackStatus.ON_TABLE
        return TrackSet(
            frame,
            time_s,
            np.array([0, 3]),
            np.array([[635.0, 635.0], [1905.0, 300.0]]),
            np.zeros((2, 2)),
            np.array([[100.0, 90.0], [np.nan, np.nan]]),
            np.array([TrackStatus.ON_TABLE, status], dtype=object),
        )


class ScriptedEvents:
    def __init__(self, script: dict[int, list[Event]]) -> None:
        self.script = script

    def update(self, trackset: TrackSet) -> list[Event]:
        return self.script.get(trackset.frame, [])


class ScriptedShots:
    def __init__(self, script: dict[int, list[ShotInput]]) -> None:
        self.script = script

    def update(self, events: list[Event], trackset: TrackSet) -> list[Any]:
        return self.script.get(trackset.frame, [])


def _frame(index: int) -> Frame:
    return Frame(np.zeros((SIZE[1], SIZE[0], 3), np.uint8), index, index / 60.0)


BREAK_FACTS = {
    "first_object_ball_contacted": 1,
    "cushion_after_first_contact": [2, 3, 4, 5],
    "object_balls_to_cushion_on_break": 4,
    "pocketed": [{"ball": 3, "pocket": "foot_left", "frame": 5}],
}
POT_FACTS = {
    "first_object_ball_contacted": 1,
    "cushion_after_first_contact": [],
    "pocketed": [{"ball": 1, "pocket": "side_right", "frame": 40}],
}


def _pipeline(
    shots: dict[int, list[ShotInput]], declarations: str | None = None
) -> tuple[Pipeline, FakeDetector]:
    ticks = count()
    detector = FakeDetector()
    stages = Stages(
        tracker=FakeTracker(),
        events=ScriptedEvents({3: [Event(1, 1 / 60, EventKind.STRIKE, (0,))]}),
        segmenter=ScriptedShots(shots),
        clock=lambda: next(ticks) / 1000.0,
    )
    log = parse_declarations(declarations) if declarations is not None else None
    pipeline = Pipeline(
        _calibration(), PipelineConfig(full_search_every_frames=4), detector, log, stages
    )
    return pipeline, detector


def test_every_stage_is_timed() -> None:
    pipeline, _ = _pipeline({})
    result = pipeline.process(_frame(0))
    assert result.timing_ms == {
        s: pytest.approx(1.0) for s in ("detect", "track", "events", "shots", "rules")
    }
    assert pipeline.mean_ms()["detect"] == pytest.approx(1.0)


def test_detector_searches_around_tracked_balls_with_periodic_full_searches() -> None:
    pipeline, detector = _pipeline({})
    for index in range(9):
        pipeline.process(_frame(index))
    full = [i for i, hint in enumerate(detector.hints) if hint is None]
    assert full == [0, 4, 8]
    assert detector.hints[1] is not None and detector.hints[1].shape == (2, 2)
    assert detector.hints[6] is not None and detector.hints[6].shape == (1, 2)  # the 3 is down


class MovingTracker:
    """The cue ball rolling along the table's length at `speed_mm_s`; the 3 at rest."""

    def __init__(self, speed_mm_s: float) -> None:
        self.speed_mm_s = speed_mm_s

    def update(self, detections: Detections, frame: int, time_s: float) -> TrackSet:
        xy_mm = np.array([[635.0 + self.speed_mm_s * time_s, 635.0], [1905.0, 300.0]])
        camera = _calibration().camera
        return TrackSet(
            frame,
            time_s,
            np.array([0, 3]),
            xy_mm,
            np.array([[self.speed_mm_s, 0.0], [0.0, 0.0]]),
            camera.project(xy_mm, BALL_CENTRE_HEIGHT_MM),
            np.array([TrackStatus.ON_TABLE] * 2, dtype=object),
        )


@pytest.mark.parametrize(
    ("fps", "speed_mm_s", "ahead"),
    [(30.0, 2000.0, True), (60.0, 2000.0, False), (60.0, 4000.0, True), (30.0, 0.0, False)],
    ids=["fast-at-30fps", "same-speed-at-60fps", "break-speed-at-60fps", "at-rest"],
)
def test_a_ball_too_fast_for_its_window_is_also_searched_where_it_will_be(
    fps: float, speed_mm_s: float, ahead: bool
) -> None:
    # 1.5 radii of 28.575 mm a frame: 1286 mm/s at 30 frames/s, 2572 at 60.
    detector = FakeDetector()
    stages = Stages(
        tracker=MovingTracker(speed_mm_s), events=ScriptedEvents({}), segmenter=ScriptedShots({})
    )
    config = PipelineConfig(full_search_every_s=0.0, lost_search_every_s=0.0, lead_hint_radii=1.5)
    pipeline = Pipeline(_calibration(), config, detector, None, stages)
    for index in range(3):
        pipeline.perceive(Frame(np.zeros((SIZE[1], SIZE[0], 3), np.uint8), index, index / fps))
    hints = detector.hints[2]
    assert hints is not None and len(hints) == (3 if ahead else 2)
    if ahead:  # from frame 1's tracks: where the cue ball will be on frame 2, projected
        expected = np.array([[635.0 + speed_mm_s * 2 / fps, 635.0]])
        camera = _calibration().camera
        np.testing.assert_allclose(hints[2], camera.project(expected, BALL_CENTRE_HEIGHT_MM)[0])


@pytest.mark.parametrize(
    ("fps", "every_s", "expected"),
    [
        (60.0, 1.0, [0, 60, 120, 180]),  # the old every-60-frames at 60 frames/s
        (30.0, 1.0, [0, 30, 60, 90]),
        (50.0, 1.0, [0, 50, 100, 150]),
        (29.97, 1.0, [0, 30, 60, 90]),  # the first frame at or past each second
        (60.0, 0.0, [0]),
    ],
    ids=["60fps", "30fps", "50fps", "ntsc", "off"],
)
def test_periodic_full_searches_follow_seconds_of_video(
    fps: float, every_s: float, expected: list[int]
) -> None:
    detector = FakeDetector()
    stages = Stages(tracker=FakeTracker(), events=ScriptedEvents({}), segmenter=ScriptedShots({}))
    config = PipelineConfig(full_search_every_s=every_s, lost_search_every_s=0.0)
    pipeline = Pipeline(_calibration(), config, detector, None, stages)
    for index in range(4 * round(fps)):
        frame = Frame(np.zeros((SIZE[1], SIZE[0], 3), np.uint8), index, index / fps)
        pipeline.perceive(frame)
    assert [i for i, hint in enumerate(detector.hints) if hint is None] == expected


def test_unknown_pixels_are_projected_from_table_positions() -> None:
    pipeline, _ = _pipeline({})
    tracks = pipeline.process(_frame(0)).tracks
    expected = _calibration().camera.project(tracks.xy_mm[1:], BALL_CENTRE_HEIGHT_MM)[0]
    np.testing.assert_allclose(tracks.xy_px[1], expected)
    np.testing.assert_allclose(tracks.xy_px[0], [100.0, 90.0])


def test_events_pass_through_in_order() -> None:
    pipeline, _ = _pipeline({})
    results = [pipeline.process(_frame(i)) for i in range(5)]
    assert [len(r.events) for r in results] == [0, 0, 0, 1, 0]


def _shots() -> dict[int, list[ShotInput]]:
    return {
        6: [ShotInput(1, 6, 1 / 60, BREAK_FACTS)],
        50: [ShotInput(30, 50, 0.5, POT_FACTS, confidence=0.5)],
    }


def test_calls_come_from_the_engine_with_assumptions_stated() -> None:
    pipeline, _ = _pipeline(_shots())
    shots = [s for i in range(51) for s in pipeline.process(_frame(i)).shots]
    assert [s.number for s in shots] == [1, 2]
    first, second = (s.to_json() for s in shots)
    assert first["is_break"] and first["call"]["foul"] is False and first["shooter"] == "A"
    assert first["review"] is False
    assert second["declarations"]["call"] == {
        "ball": 1,
        "pocket": "side_right",
        "source": "obvious",
    }
    assert second["call"]["next_shooter"] == "A"
    assert any("assumed obvious" in r for r in second["review_reasons"])
    assert any("confidence 0.50" in r for r in second["review_reasons"])


def test_declarations_feed_the_engine() -> None:
    declarations = (
        '{"type": "match", "players": {"A": "Ann", "B": "Ben"}, "breaker": "B"}\n'
        '{"shot": 2, "type": "call", "ball": 2, "pocket": "foot_left"}\n'
    )
    pipeline, _ = _pipeline(_shots(), declarations)
    shots = [s.to_json() for i in range(51) for s in pipeline.process(_frame(i)).shots]
    assert shots[0]["shooter"] == "B"
    # the 1 dropped but the 2 was called: pocketed without the call -> D3 option
    assert shots[1]["call"]["next_shooter"] is None
    assert shots[1]["call"]["option"]["holder"] == "A"
    assert not any("assumed" in r for r in shots[1]["review_reasons"])


@pytest.mark.parametrize(("choice", "third_shooter"), [("hand_back", "B"), ("shoot", "A")])
def test_an_option_choice_keyed_by_time_answers_the_option_before_the_next_shot(
    choice: str, third_shooter: str
) -> None:
    """Push-out 4 / D3: the holder chooses between two strikes; a choice keyed by time (after
    shot 2's call, before shot 3's strike) decides who plays shot 3, with nothing assumed."""
    declarations = (
        '{"type": "match", "players": {"A": "Ann", "B": "Ben"}, "breaker": "B"}\n'
        '{"shot": 2, "type": "call", "ball": 2, "pocket": "foot_left"}\n'
        f'{{"time_s": 1.2, "type": "option_choice", "choice": "{choice}"}}\n'
    )
    third = {**POT_FACTS, "pocketed": []}
    shots = {**_shots(), 90: [ShotInput(80, 90, 80 / 60, third)]}
    pipeline, _ = _pipeline(shots, declarations)
    judged = [s.to_json() for i in range(91) for s in pipeline.process(_frame(i)).shots]
    assert judged[1]["call"]["option"]["holder"] == "A"
    assert judged[2]["shooter"] == third_shooter
    assert not any("option choice not known" in r for r in judged[2]["review_reasons"])


def test_a_ball_already_down_is_ignored_and_flagged() -> None:
    again = {**POT_FACTS, "pocketed": [{"ball": 3, "pocket": "foot_left", "frame": 40}]}
    shots = {6: [ShotInput(1, 6, 1 / 60, BREAK_FACTS)], 50: [ShotInput(30, 50, 0.5, again)]}
    pipeline, _ = _pipeline(shots)
    second = [s.to_json() for i in range(51) for s in pipeline.process(_frame(i)).shots][1]
    assert second["facts"]["pocketed"] == [{"ball": 3, "pocket": "foot_left", "frame": 40}]
    assert second["call"] is not None and second["call"]["remain_pocketed"] == []
    assert any("already down" in r for r in second["review_reasons"])


SAFE_FACTS = {
    "first_object_ball_contacted": 1,
    "cushion_after_first_contact": ["cue"],
    "pocketed": [],
}


@pytest.mark.parametrize(
    ("weak", "flagged"),
    [
        ({"cushion_after_first_contact": 0.4}, True),  # without it: no cushion, F3
        ({"first_object_ball_contacted": 0.4}, True),  # without it: no ball hit, F2
        ({"balls_disturbed": 0.4}, False),  # nothing disturbed either way: call unchanged
    ],
    ids=["cushion-decides", "first-contact-decides", "irrelevant-doubt"],
)
def test_a_call_is_flagged_only_when_an_uncertain_fact_could_change_it(
    weak: dict[str, float], flagged: bool
) -> None:
    second = ShotInput(30, 50, 0.5, {**SAFE_FACTS, "balls_disturbed": []}, fact_confidence=weak)
    pipeline, _ = _pipeline({6: [ShotInput(1, 6, 1 / 60, BREAK_FACTS)], 50: [second]})
    shot = [s.to_json() for i in range(51) for s in pipeline.process(_frame(i)).shots][1]
    assert shot["call"]["foul"] is False
    assert shot["review"] is flagged
    if flagged:
        reason = shot["review_reasons"][0]
        assert "rests on an uncertain fact" in reason
        # said in a referee's words, never as a field name and a Python value
        assert "_" not in reason.split(", the call would be")[0]
        assert "None" not in reason
    if "first_object_ball_contacted" in weak:
        assert "the cue ball hit the 1 first" in shot["review_reasons"][0]
        assert "if instead the cue ball hit no object ball" in shot["review_reasons"][0]


SCRATCH_FACTS = {**SAFE_FACTS, "cue_ball_pocketed": True}


@pytest.mark.parametrize(
    ("lost", "facts", "flagged"),
    [
        (0, SAFE_FACTS, True),  # the cue ball pocketed or off the table: a foul
        (5, SAFE_FACTS, True),  # the 5 off the table: a foul
        (0, SCRATCH_FACTS, False),  # seen dropping, then lost: down either way
    ],
    ids=["lost-cue-ball", "lost-object-ball", "lost-cue-ball-seen-dropping"],
)
def test_a_lost_ball_flags_the_call_only_when_its_fate_could_change_it(
    lost: int, facts: dict[str, Any], flagged: bool
) -> None:
    record = SimpleNamespace(
        frame_strike=30,
        frame_end=50,
        time_strike_s=0.5,
        facts=facts,
        confidence=0.5,
        fact_confidence={"pocketed": 1.0},
        unaccounted=((lost, 44),),
        uncertain=(f"the {lost} was lost from sight while moving",),
    )
    shot_in = shot_input(record)
    assert shot_in.unaccounted == ((lost, 44),) and shot_in.uncertain == ()
    pipeline, _ = _pipeline({6: [ShotInput(1, 6, 1 / 60, BREAK_FACTS)], 50: [shot_in]})
    shot = [s.to_json() for i in range(51) for s in pipeline.process(_frame(i)).shots][1]
    assert shot["review"] is flagged, shot["review_reasons"]
    if flagged:
        assert "lost from sight while moving (last seen on frame 44)" in shot["review_reasons"][0]


def test_a_shot_cut_short_with_a_lost_ball_keeps_both_notes() -> None:
    """The video ends while balls still roll and a ball is lost: the call is flagged for the
    lost ball (its fate would change it) and still says the video cut the shot short."""
    ended = "the video ended while balls were still moving"
    record = ShotRecord(
        shot=2,
        frame_strike=30,
        time_strike_s=0.5,
        frame_end=50,
        time_end_s=50 / 60,
        is_break=False,
        balls_on_table_at_start=tuple(range(1, 11)),
        events=(),
        facts=SAFE_FACTS,
        fact_confidence={"pocketed": 1.0},
        unaccounted=((5, 44),),
        cut_short=ended,
    )
    shot_in = shot_input(record)
    assert shot_in.unaccounted == ((5, 44),) and shot_in.uncertain == (ended,)
    pipeline, _ = _pipeline({6: [ShotInput(1, 6, 1 / 60, BREAK_FACTS)], 50: [shot_in]})
    shot = [s.to_json() for i in range(51) for s in pipeline.process(_frame(i)).shots][1]
    assert shot["review"], shot
    reasons = shot["review_reasons"]
    assert any("lost from sight while moving (last seen on frame 44)" in r for r in reasons)
    assert f"uncertain: {ended}" in reasons


def test_a_won_rack_starts_the_next_with_the_other_breaker() -> None:
    ten = {
        "first_object_ball_contacted": 1,
        "cushion_after_first_contact": [],
        "pocketed": [{"ball": 10, "pocket": "foot_right", "frame": 40}],
    }
    declarations = '{"shot": 2, "type": "call", "ball": 10, "pocket": "foot_right"}\n'
    shots = {
        6: [ShotInput(1, 6, 1 / 60, BREAK_FACTS)],
        50: [ShotInput(30, 50, 0.5, ten)],
        60: [ShotInput(55, 60, 0.9, BREAK_FACTS)],
    }
    pipeline, _ = _pipeline(shots, declarations)
    out = [s.to_json() for i in range(61) for s in pipeline.process(_frame(i)).shots]
    assert out[1]["call"]["rack_winner"] == "A"
    assert (out[2]["rack"], out[2]["is_break"], out[2]["shooter"]) == (2, True, "B")


class LostMovingCueTracker:
    """The cue ball coasts unseen at 3 m/s from frame 2 to frame 11, then is seen again."""

    def update(self, detections: Detections, frame: int, time_s: float) -> TrackSet:
        lost = 2 <= frame <= 11
        return TrackSet(
            frame,
            time_s,
            np.array([0, 3]),
            np.array([[635.0, 635.0], [1905.0, 300.0]]),
            np.array([[3000.0, 0.0], [0.0, 0.0]]),
            np.array([[100.0, 90.0], [200.0, 60.0]]),
            np.array(
                [TrackStatus.OCCLUDED if lost else TrackStatus.ON_TABLE, TrackStatus.ON_TABLE],
                dtype=object,
            ),
        )


def test_a_lost_moving_ball_brings_full_searches_at_the_configured_rate() -> None:
    detector = FakeDetector()
    stages = Stages(
        tracker=LostMovingCueTracker(),
        events=ScriptedEvents({}),
        segmenter=ScriptedShots({}),
    )
    config = PipelineConfig(full_search_every_frames=1000, lost_search_every_s=0.05)
    pipeline = Pipeline(_calibration(), config, detector, None, stages)
    for index in range(16):
        pipeline.process(_frame(index))  # 60 fps: 0.05 s is every third frame
    full = [i for i, hint in enumerate(detector.hints) if hint is None]
    assert full == [0, 3, 6, 9, 12]  # frame 12 follows the last lost frame (11)


class DroppingBallTracker:
    """The 6 vanishes at 1.5 m/s in the foot-right pocket mouth from frame 2 on."""

    def update(self, detections: Detections, frame: int, time_s: float) -> TrackSet:
        lost = frame >= 2
        table = TableSpec()
        return TrackSet(
            frame,
            time_s,
            np.array([0, 6]),
            np.array([[635.0, 635.0], [table.length_mm - 40.0, 40.0]]),
            np.array([[0.0, 0.0], [1060.0, -1060.0]]),
            np.array([[100.0, 90.0], [200.0, 60.0]]),
            np.array(
                [TrackStatus.ON_TABLE, TrackStatus.OCCLUDED if lost else TrackStatus.ON_TABLE],
                dtype=object,
            ),
        )


@pytest.mark.parametrize(
    ("tracker", "expected"),
    [(LostMovingCueTracker(), [0, 3, 6, 9, 12]), (DroppingBallTracker(), [0])],
    ids=["lost-on-the-bed", "dropping-into-a-pocket"],
)
def test_full_searches_only_for_a_moving_ball_lost_on_the_bed(
    tracker: Tracker, expected: list[int]
) -> None:
    detector = FakeDetector()
    stages = Stages(tracker=tracker, events=ScriptedEvents({}), segmenter=ScriptedShots({}))
    config = PipelineConfig(full_search_every_frames=1000, lost_search_every_s=0.05)
    pipeline = Pipeline(_calibration(), config, detector, None, stages)
    for index in range(16):
        pipeline.process(_frame(index))
    full = [i for i, hint in enumerate(detector.hints) if hint is None]
    assert full == expected
    assert pipeline.full_searches == len(expected)


class LostAtRestTracker:
    """``ball`` (the cue ball or the 3) vanishes from frame 2 to frame 11 while its filter,
    which never saw it move, still says it rests."""

    def __init__(self, ball: int) -> None:
        self.ball = ball

    def update(self, detections: Detections, frame: int, time_s: float) -> TrackSet:
        balls = np.array([0, 3])
        lost = (balls == self.ball) & (2 <= frame <= 11)
        return TrackSet(
            frame,
            time_s,
            balls,
            np.array([[635.0, 635.0], [1905.0, 300.0]]),
            np.zeros((2, 2)),
            np.array([[100.0, 90.0], [200.0, 60.0]]),
            np.where(lost, TrackStatus.OCCLUDED, TrackStatus.ON_TABLE).astype(object),
        )


@pytest.mark.parametrize(
    ("ball", "wait_s", "expected"),
    [(0, 0.0, [0, 3, 6, 9, 12]), (0, 0.1, [0, 8, 11]), (0, -1.0, [0]), (3, 0.0, [0])],
    ids=["cue-ball-at-once", "cue-ball-after-a-wait", "cue-ball-never", "object-ball-hidden"],
)
def test_a_lost_cue_ball_may_be_moving_though_its_filter_says_it_rests(
    ball: int, wait_s: float, expected: list[int]
) -> None:
    # A struck cue ball leaves its search window within a frame, before its filter sees it
    # move: lost for lost_cue_wait_s (lost at frame 2, 60 fps), it is searched for on the
    # whole table. An object ball only starts when something hits it, which the tracker
    # sees coming.
    detector = FakeDetector()
    stages = Stages(
        tracker=LostAtRestTracker(ball), events=ScriptedEvents({}), segmenter=ScriptedShots({})
    )
    config = PipelineConfig(
        full_search_every_frames=1000, lost_search_every_s=0.05, lost_cue_wait_s=wait_s
    )
    pipeline = Pipeline(_calibration(), config, detector, None, stages)
    for index in range(16):
        pipeline.process(_frame(index))
    assert [i for i, hint in enumerate(detector.hints) if hint is None] == expected


class CueScriptTracker:
    """The 3 rests; the cue ball's status each frame comes from ``script`` (None: the
    tracker no longer lists it, as after a scratch)."""

    def __init__(self, script: dict[int, TrackStatus | None]) -> None:
        self.script = script

    def update(self, detections: Detections, frame: int, time_s: float) -> TrackSet:
        cue = self.script.get(frame, TrackStatus.ON_TABLE)
        balls = [3] if cue is None else [0, 3]
        status = [TrackStatus.ON_TABLE] if cue is None else [cue, TrackStatus.ON_TABLE]
        xy = np.array([[635.0, 635.0], [1905.0, 300.0]])[-len(balls) :]
        return TrackSet(
            frame,
            time_s,
            np.array(balls),
            xy,
            np.zeros((len(balls), 2)),
            np.array([[100.0, 90.0], [200.0, 60.0]])[-len(balls) :],
            np.array(status, dtype=object),
        )


_HIDDEN, _SEEN = TrackStatus.OCCLUDED, TrackStatus.ON_TABLE


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ({2: TrackStatus.POCKETED, **dict.fromkeys(range(3, 16))}, [0, 3, 6, 9, 12, 15]),
        # Put down on frame 8: the searches stop once it is tracked again.
        ({2: TrackStatus.POCKETED, **dict.fromkeys(range(3, 8))}, [0, 3, 6]),
        # Lost from frame 2; one sighting at frame 8 does not restart the 0.1 s wait.
        ({**dict.fromkeys(range(2, 16), _HIDDEN), 8: _SEEN}, [0, 8, 11, 14]),
        # Seen two frames running, it is found: the 0.1 s wait starts again from frame 8.
        ({**dict.fromkeys(range(2, 16), _HIDDEN), 7: _SEEN, 8: _SEEN}, [0, 15]),
    ],
    ids=["in-hand", "in-hand-then-put-down", "seen-once", "seen-twice"],
)
def test_a_cue_ball_in_hand_or_seen_once_keeps_the_full_searches_going(
    script: dict[int, TrackStatus | None], expected: list[int]
) -> None:
    # In hand the cue ball comes back wherever the player puts it, where no window looks;
    # a single sighting of a lost one is usually a rolling ball caught once.
    detector = FakeDetector()
    stages = Stages(
        tracker=CueScriptTracker(script), events=ScriptedEvents({}), segmenter=ScriptedShots({})
    )
    config = PipelineConfig(
        full_search_every_frames=1000, lost_search_every_s=0.05, lost_cue_wait_s=0.1
    )
    pipeline = Pipeline(_calibration(), config, detector, None, stages)
    for index in range(16):
        pipeline.process(_frame(index))
    assert [i for i, hint in enumerate(detector.hints) if hint is None] == expected


def _cushion(ball: int, frame: int) -> Event:
    return Event(frame, frame / 60, EventKind.BALL_CUSHION, (ball,), cushion="foot")


@pytest.mark.parametrize(
    ("cushioned", "legal"),
    [((2, 3, 4, 5, 0, 2), True), ((2, 3, 0), False)],
    ids=["four-balls-counted-once", "three-balls"],
)
def test_a_break_the_segmenter_missed_is_counted_from_its_cushion_events(
    cushioned: tuple[int, ...], legal: bool
) -> None:
    """The game says the first shot breaks the rack; a false ball outside the rack kept the
    segmenter from seeing one, so it gave no count: the count comes from the shot's events
    (distinct object balls, the cue ball not counted)."""
    facts = {
        "first_object_ball_contacted": 1,
        "cushion_after_first_contact": [2],
        "object_balls_to_cushion_on_break": None,
        "pocketed": [],
    }
    events = tuple(_cushion(ball, 2 + i) for i, ball in enumerate(cushioned))
    pipeline, _ = _pipeline({6: [ShotInput(1, 6, 1 / 60, facts, events=events)]})
    shot = next(s.to_json() for i in range(7) for s in pipeline.process(_frame(i)).shots)
    assert shot["call"] is not None
    assert ("CASSE1_FOUR_CUSHIONS" not in shot["call"]["fouls"]) == legal
    assert shot["facts"]["object_balls_to_cushion_on_break"] == len(set(cushioned) - {0})


class ReachingDetector(FakeDetector):
    def __init__(self) -> None:
        super().__init__()
        self.reaches: dict[int, NDArray[np.floating]] = {}

    def detect_reaching(
        self,
        frame: Frame,
        hint_xy_px: NDArray[np.floating] | None,
        reach_xy_px: NDArray[np.floating],
    ) -> Detections:
        self.reaches[frame.index] = reach_xy_px
        return self.detect(frame, hint_xy_px)


@pytest.mark.parametrize(
    ("ball", "expected"),
    [(0, [3, 4, 5, 6, 7, 8]), (3, [])],
    ids=["cue-ball-struck-from-rest", "object-ball-hidden"],
)
def test_a_lost_cue_ball_is_reached_for_around_its_rest_spot(
    ball: int, expected: list[int]
) -> None:
    # Lost at frame 2 (60 frames/s) with its filter at rest: from frame 3 on, windows tile a
    # growing disc around its rest spot until lost_cue_wait_s (0.1 s) has passed.
    detector = ReachingDetector()
    stages = Stages(
        tracker=LostAtRestTracker(ball), events=ScriptedEvents({}), segmenter=ScriptedShots({})
    )
    config = PipelineConfig(
        full_search_every_frames=1000,
        lost_search_every_s=0.0,
        lost_cue_wait_s=0.1,
        reach_speed_mm_s=6000.0,
    )
    pipeline = Pipeline(_calibration(), config, detector, None, stages)
    for index in range(14):
        pipeline.process(_frame(index))
    assert sorted(detector.reaches) == expected
    sizes = [len(detector.reaches[i]) for i in expected]
    assert sizes == sorted(sizes)
    rest = _calibration().camera.project(np.array([[635.0, 635.0]]), BALL_CENTRE_HEIGHT_MM)
    for reach in detector.reaches.values():
        np.testing.assert_allclose(reach.mean(axis=0), rest[0], atol=0.5)


def test_a_tie_that_spares_a_foul_is_flagged_with_the_foul_it_spared() -> None:
    """I-07: the cue ball met the 2 and the lowest ball (the 1) too close together to order;
    the tie is resolved for the shooter, and the call says it would be a foul had the 2
    clearly come first."""
    tied = {**SAFE_FACTS, "first_object_ball_contacted": 2, "simultaneous_first_contact": [1, 2]}
    second = ShotInput(30, 50, 0.5, tied, fact_confidence={"first_object_ball_contacted": 0.3})
    pipeline, _ = _pipeline({6: [ShotInput(1, 6, 1 / 60, BREAK_FACTS)], 50: [second]})
    shot = [s.to_json() for i in range(51) for s in pipeline.process(_frame(i)).shots][1]
    assert shot["call"]["foul"] is False
    assert shot["review"] is True
    reason = shot["review_reasons"][0]
    assert "the 1 and the 2 too close together to tell which first" in reason
    assert "if instead the cue ball hit the 2 first" in reason
    assert "F2" in reason or "foul" in reason.lower()
