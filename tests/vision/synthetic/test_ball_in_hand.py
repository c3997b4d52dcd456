"""After a scratch the cue ball comes back: put down in hand, drawn and in the truth again."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main
from vision.synthetic.truth import read_jsonl, read_tracks


def _synth(factory: pytest.TempPathFactory, shots: str, seed: int) -> Path:
    """A small clip (192x108, 12 fps, no cue or arm drawn) of ``shots``."""
    out = factory.mktemp("clip") / "clip"
    args = ["synth", "--out", str(out), "--shots", shots, "--seed", str(seed)]
    assert main([*args, "--size", "192x108", "--fps", "12", "--nuisances", "none"]) == 0
    return out


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _synth(tmp_path_factory, "break,scratch,pot", seed=1)


def test_cue_ball_is_back_on_the_table_for_the_shot_after_a_scratch(clip: Path) -> None:
    events = read_jsonl(clip / "truth" / "events.jsonl")
    cue_rows = [r for r in read_tracks(clip / "truth" / "tracks.csv") if r.ball == 0]
    scratch = next(e for e in events if e["kind"] == "ball_pocket" and e["balls"] == ["cue"])
    strikes = [e["frame"] for e in events if e["kind"] == "strike"]
    after = next(f for f in strikes if f > scratch["frame"])

    pocketed = [r.frame for r in cue_rows if r.status == "pocketed"]
    assert pocketed == [scratch["frame"]]
    gap = [r.frame for r in cue_rows if scratch["frame"] < r.frame < after]
    assert not gap or gap[0] > scratch["frame"] + 1, "it is out of play for a while"
    struck = next(r for r in cue_rows if r.frame == after)
    assert struck.status == "on_table"


@pytest.fixture(scope="module")
def twice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _synth(tmp_path_factory, "break,scratch,scratch,pot", seed=2)


def test_a_cue_ball_scratched_twice_leaves_and_comes_back_twice(twice: Path) -> None:
    events = read_jsonl(twice / "truth" / "events.jsonl")
    cue_rows = [r for r in read_tracks(twice / "truth" / "tracks.csv") if r.ball == 0]
    scratches = [e["frame"] for e in events if e["kind"] == "ball_pocket" and e["balls"] == ["cue"]]
    strikes = [e["frame"] for e in events if e["kind"] == "strike"]

    assert len(scratches) == 2
    assert [r.frame for r in cue_rows if r.status == "pocketed"] == scratches
    for scratch in scratches:
        after = next(f for f in strikes if f > scratch)
        assert any(r.frame == after and r.status == "on_table" for r in cue_rows), scratch
