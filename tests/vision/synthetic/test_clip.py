"""`tenball synth` makes a clip whose truth files parse and agree with each other and the video."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import BALL_CENTRE_HEIGHT_MM
from calibration.io import load_calibration
from referee.cli import main
from tracking.types import Event
from vision.synthetic.truth import TRACKS_HEADER, read_jsonl, read_tracks
from vision.synthetic.truth_detector import TruthDetector, TruthDetectorConfig
from vision.types import Frame

FPS = 12.0
FACT_NAMES = {
    "first_object_ball_contacted",
    "cue_ball_cushion_before_first_contact",
    "cushion_after_first_contact",
    "pocketed",
    "off_table",
    "cue_ball_pocketed",
    "cue_ball_off_table",
    "balls_moving_at_strike",
    "balls_disturbed",
}


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("clip") / "break"
    code = main(
        [
            "synth",
            "--out",
            str(out),
            "--shots",
            "break,pot",
            "--seed",
            "3",
            "--size",
            "192x108",
            "--fps",
            str(FPS),
            "--nuisances",
            "cue,arm",
        ]
    )
    assert code == 0
    return out


def test_clip_has_every_file(clip: Path) -> None:
    for name in (
        "video.mp4",
        "calibration.json",
        "declarations.jsonl",
        "synth.json",
        "truth/tracks.csv",
        "truth/events.jsonl",
        "truth/shots.jsonl",
    ):
        assert (clip / name).is_file(), name
    assert not list(clip.rglob("*.tmp")) and not list(clip.rglob("*.partial*"))
    assert (clip / "truth" / "tracks.csv").read_text().splitlines()[0] == ",".join(TRACKS_HEADER)


def test_video_has_one_frame_per_truth_frame(clip: Path) -> None:
    frames = {row.frame for row in read_tracks(clip / "truth" / "tracks.csv")}
    capture = cv2.VideoCapture(str(clip / "video.mp4"))
    count = 0
    while capture.read()[0]:
        count += 1
    capture.release()
    assert count == max(frames) + 1 == len(frames)


def test_events_are_in_the_contract_form(clip: Path) -> None:
    events = read_jsonl(clip / "truth" / "events.jsonl")
    assert events, "no events"
    times = [e["time_s"] for e in events]
    assert times == sorted(times)
    for raw in events:
        assert Event.from_json(raw).to_json() == raw  # same form as tracking.types.Event
        assert raw["frame"] == math.ceil(raw["time_s"] * FPS - 1e-6)
        if raw["kind"] == "ball_cushion":
            assert raw["cushion"] in {
                "head",
                "foot",
                "left_head",
                "left_foot",
                "right_head",
                "right_foot",
            }
    kinds = [e["kind"] for e in events]
    assert kinds[0] == "strike" and kinds.count("strike") == 2 and "shot_end" in kinds


def test_pocketed_balls_have_events_and_their_tracks_end_there(clip: Path) -> None:
    events = read_jsonl(clip / "truth" / "events.jsonl")
    rows = read_tracks(clip / "truth" / "tracks.csv")
    shots = read_jsonl(clip / "truth" / "shots.jsonl")
    pocketed = [p for s in shots for p in s["facts"]["pocketed"]]
    assert pocketed, "the pot shot pockets a ball"
    drops = {(e["balls"][0], e["pocket"], e["frame"]) for e in events if e["kind"] == "ball_pocket"}
    for item in pocketed:
        assert (str(item["ball"]), item["pocket"], item["frame"]) in drops
        ball_rows = [r for r in rows if r.ball == item["ball"]]
        assert ball_rows[-1].status == "pocketed" and ball_rows[-1].frame == item["frame"]
        assert all(r.status != "pocketed" for r in ball_rows[:-1])


def test_shots_carry_rules_facts_and_calls(clip: Path) -> None:
    shots = read_jsonl(clip / "truth" / "shots.jsonl")
    assert [s["shot"] for s in shots] == [1, 2] and shots[0]["is_break"]
    for shot in shots:
        assert set(shot["facts"]) >= FACT_NAMES
        assert shot["frame_strike"] < shot["frame_end"]
        assert "foul" in shot["call"] and shot["call"]["foul"] is False
    assert "object_balls_to_cushion_on_break" in shots[0]["facts"]
    declarations = read_jsonl(clip / "declarations.jsonl")
    assert declarations[0]["type"] == "match"
    called = [d for d in declarations if d.get("type") == "call"]
    assert called and called[0]["shot"] == 2
    assert {"ball": called[0]["ball"], "pocket": called[0]["pocket"]} in [
        {"ball": p["ball"], "pocket": p["pocket"]} for p in shots[1]["facts"]["pocketed"]
    ]


def test_tracks_project_through_the_saved_calibration(clip: Path) -> None:
    calibration = load_calibration(clip / "calibration.json")
    corners = calibration.camera.project(
        np.array(list(calibration.table.corners_xy_mm().values())), 0.0
    )
    np.testing.assert_allclose(corners, np.array(list(calibration.corners_px.values())), atol=1e-6)
    rows = [r for r in read_tracks(clip / "truth" / "tracks.csv") if r.status == "on_table"]
    xy = np.array([[r.x_mm, r.y_mm] for r in rows])
    uv = np.array([[r.u_px, r.v_px] for r in rows])
    np.testing.assert_allclose(calibration.camera.project(xy, BALL_CENTRE_HEIGHT_MM), uv, atol=0.01)
    assert calibration.table.contains(xy, margin_mm=1.0).all()


def test_truth_detector_returns_truth_and_its_noise(clip: Path) -> None:
    rows = read_tracks(clip / "truth" / "tracks.csv")
    image = np.zeros((108, 192, 3), np.uint8)
    frame = Frame(image, 5, 5 / FPS)
    exact = TruthDetector.from_clip(clip).detect(frame)
    expected = sorted(
        (r.ball, r.u_px, r.v_px) for r in rows if r.frame == 5 and r.status == "on_table"
    )
    got = sorted(
        zip(
            exact.label.tolist(),
            exact.xy_px[:, 0].tolist(),
            exact.xy_px[:, 1].tolist(),
            strict=True,
        )
    )
    assert [g[0] for g in got] == [e[0] for e in expected]
    np.testing.assert_allclose([g[1:] for g in got], [e[1:] for e in expected], atol=1e-3)
    assert TruthDetector.from_clip(clip, TruthDetectorConfig(miss_rate=1.0)).detect(
        frame
    ).xy_px.shape == (0, 2)
    noisy = TruthDetector.from_clip(
        clip,
        TruthDetectorConfig(
            noise_px=1.0, false_positives_per_frame=3.0, identity_confusion=0.2, seed=1
        ),
    ).detect(frame)
    np.testing.assert_allclose(noisy.class_prob.sum(axis=1), 1.0, atol=1e-5)
    assert len(noisy) >= len(exact)


def test_settings_are_recorded(clip: Path) -> None:
    settings = json.loads((clip / "synth.json").read_text())
    assert settings["shots"] == ["break", "pot"] and settings["seed"] == 3
    assert settings["frames"] == len({r.frame for r in read_tracks(clip / "truth" / "tracks.csv")})


def test_unknown_shot_kind_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["synth", "--out", str(tmp_path / "x"), "--shots", "break,teleport"]) == 2
    assert "teleport" in capsys.readouterr().err


def test_synthetic_source_is_a_frame_source() -> None:
    from vision.synthetic.clip import ClipConfig
    from vision.synthetic.source import SyntheticSource

    config = ClipConfig(shots=("break",), size=(160, 90), fps=10.0, seed=2, nuisances=())
    with SyntheticSource(config) as source:
        assert source.fps == 10.0 and source.frame_count == source.scene.timeline.frame_count
        frames = [source.read() for _ in range(source.frame_count)]
        assert source.read() is None
    assert all(f is not None for f in frames)
    assert [f.index for f in frames if f] == list(range(source.frame_count))
    assert frames[3] is not None and frames[3].time_s == pytest.approx(0.3)
    assert frames[0] is not None and frames[0].size == (160, 90)
    moved = [f for f in frames if f is not None and not np.array_equal(f.image, frames[0].image)]
    assert moved, "the break moves the balls"


def test_a_scripted_shot_that_cannot_be_found_is_named_in_the_error() -> None:
    from calibration.table import TableSpec
    from vision.synthetic.physics import pooltool_table
    from vision.synthetic.plan import ShotRequest, _Planner

    table = TableSpec.from_name("9ft")
    planner = _Planner(table, 60.0, np.random.default_rng(0), pooltool_table(table))
    # The cue ball and the 10 alone: no combination on the 10 exists, so no lip-late.
    positions = {0: (600.0, 600.0), 10: (1900.0, 600.0)}
    request = ShotRequest(2, "lip-late", positions, 1.0, "A")
    with pytest.raises(ValueError, match=r"combo-10.*'lip-late' is scripted on it"):
        planner.plan(request)
