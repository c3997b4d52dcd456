"""The committed sample clips: their truth agrees with itself and with the calls it claims."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracking.types import Event, EventKind
from vision.synthetic.truth import read_jsonl, read_tracks

ROOT = Path(__file__).resolve().parents[3] / "sample_videos"
CLIPS = sorted(p for p in ROOT.glob("*") if (p / "truth" / "shots.jsonl").is_file())
needs_clips = pytest.mark.skipif(not CLIPS, reason="sample_videos/ holds no clip")


def _kinds(clip: Path) -> list[str]:
    return [s["synthetic_kind"] for s in read_jsonl(clip / "truth" / "shots.jsonl")]


@needs_clips
@pytest.mark.parametrize("clip", CLIPS, ids=[c.name for c in CLIPS])
def test_removals_have_events_and_tracks_end_there(clip: Path) -> None:
    events = [Event.from_json(e) for e in read_jsonl(clip / "truth" / "events.jsonl")]
    rows = read_tracks(clip / "truth" / "tracks.csv")
    removed = {e.balls[0]: e for e in events if e.kind.removes_ball()}
    strikes = [e.frame for e in events if e.kind == EventKind.STRIKE]
    for ball, event in removed.items():
        track = [r for r in rows if r.ball == ball]
        status = "pocketed" if event.kind == "ball_pocket" else "off_table"
        until = [r for r in track if r.frame <= event.frame]
        assert until[-1].frame == event.frame and until[-1].status == status, (ball, event)
        if ball == 0 and any(f > event.frame for f in strikes):
            # Put down in hand for the next shot: back on the table by its strike.
            after = next(f for f in strikes if f > event.frame)
            assert any(r.frame == after and r.status != status for r in track), event
        else:
            assert track[-1] == until[-1], (ball, event)
    last = max(r.frame for r in rows)
    for ball in {r.ball for r in rows} - set(removed):
        assert max(r.frame for r in rows if r.ball == ball) == last


@needs_clips
@pytest.mark.parametrize("clip", CLIPS, ids=[c.name for c in CLIPS])
def test_shots_agree_with_events(clip: Path) -> None:
    events = read_jsonl(clip / "truth" / "events.jsonl")
    shots = read_jsonl(clip / "truth" / "shots.jsonl")
    strikes = [e["frame"] for e in events if e["kind"] == "strike"]
    assert strikes == [s["frame_strike"] for s in shots]
    for shot in shots:
        inside = [e for e in events if shot["frame_strike"] <= e["frame"] <= shot["frame_end"]]
        dropped = {
            (int(e["balls"][0]), e["pocket"])
            for e in inside
            if e["kind"] == "ball_pocket" and e["balls"][0] != "cue"
        }
        assert {(p["ball"], p["pocket"]) for p in shot["facts"]["pocketed"]} == dropped
        assert "call" in shot, "tenball synth fills the rules engine's call"


@needs_clips
@pytest.mark.parametrize("clip", CLIPS, ids=[c.name for c in CLIPS])
def test_scripted_fouls_leave_their_marks(clip: Path) -> None:
    shots = {s["synthetic_kind"]: s for s in read_jsonl(clip / "truth" / "shots.jsonl")}
    events = read_jsonl(clip / "truth" / "events.jsonl")
    if "nudge" in shots:
        disturbed = [e for e in events if e["kind"] == "ball_disturbed"]
        assert disturbed and disturbed[0]["frame"] < shots["nudge"]["frame_strike"]
        assert (
            shots["nudge"]["facts"]["balls_disturbed"] and "F6" in shots["nudge"]["call"]["fouls"]
        )
    if "off-table" in shots:
        assert (
            shots["off-table"]["facts"]["off_table"] and "F5" in shots["off-table"]["call"]["fouls"]
        )
    if "moving-strike" in shots:
        assert shots["moving-strike"]["facts"]["balls_moving_at_strike"]
        assert "F9" in shots["moving-strike"]["call"]["fouls"]
    if "lip-late" in shots:
        assert shots["lip-late"]["facts"]["late_drops"] == [10]
    if "lip-stay" in shots:
        assert all(p["ball"] != 10 for p in shots["lip-stay"]["facts"]["pocketed"])
        rows = read_tracks(clip / "truth" / "tracks.csv")
        assert rows[-1].frame == max(r.frame for r in rows if r.ball == 10)


@needs_clips
def test_readme_gives_each_clip_its_command() -> None:
    readme = (ROOT / "README.md").read_text()
    for clip in CLIPS:
        settings = json.loads((clip / "synth.json").read_text())
        command = f"--out sample_videos/{clip.name} --seed {settings['seed']} "
        assert command in readme, clip.name
        assert f"--shots {','.join(settings['shots'])}" in readme, clip.name
