"""`tenball eval`: the truth against itself scores 100%, each perturbation scores lower."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from referee.evaluate import EvalConfig, evaluate, headline, with_truth_calls
from referee.evaluate_io import TRACKS_HEADER, EvalInputError, load_side

FPS = 60.0
BALLS = ("cue", "1", "2", "3")


def _track_rows() -> list[list[Any]]:
    """Four balls over 240 frames; the 2 drops into foot_left at frame 150."""
    rows: list[list[Any]] = []
    for frame in range(240):
        for k, ball in enumerate(BALLS):
            if ball == "2" and frame > 150:
                continue
            status = "pocketed" if ball == "2" and frame == 150 else "on_table"
            x = 300.0 + 400.0 * k + (2.0 * frame if ball in ("cue", "2") else 0.0)
            y = 200.0 + 150.0 * k
            u, v = 100.0 + 0.4 * x, 50.0 + 0.4 * y
            rows.append([frame, round(frame / FPS, 4), ball, x, y, u, v, status])
    return rows


def _events() -> list[dict[str, Any]]:
    def event(frame: int, kind: str, balls: list[str], **extra: Any) -> dict[str, Any]:
        return {
            "frame": frame,
            "time_s": round(frame / FPS, 4),
            "kind": kind,
            "balls": balls,
            **extra,
        }

    return [
        event(10, "strike", ["cue"]),
        event(30, "ball_ball", ["cue", "1"]),
        event(45, "ball_cushion", ["1"], cushion="foot"),
        event(60, "ball_cushion", ["2"], cushion="left_foot"),
        event(70, "ball_cushion", ["3"], cushion="right_foot"),
        event(75, "ball_cushion", ["cue"], cushion="head"),
        event(100, "shot_end", []),
        event(120, "strike", ["cue"]),
        event(135, "ball_ball", ["cue", "1"]),
        event(140, "ball_ball", ["1", "2"]),
        event(150, "ball_pocket", ["2"], pocket="foot_left"),
        event(200, "shot_end", []),
    ]


def _shots() -> list[dict[str, Any]]:
    break_facts = {
        "first_object_ball_contacted": 1,
        "cue_ball_cushion_before_first_contact": False,
        "cushion_after_first_contact": ["1", "2", "3", "cue"],
        "object_balls_to_cushion_on_break": 3,
        "pocketed": [],
        "off_table": [],
        "cue_ball_pocketed": False,
        "cue_ball_off_table": False,
    }
    second_facts = {
        "first_object_ball_contacted": 1,
        "cushion_after_first_contact": [],
        "pocketed": [{"ball": 2, "pocket": "foot_left", "frame": 150}],
        "off_table": [],
        "cue_ball_pocketed": False,
        "cue_ball_off_table": False,
    }
    return [
        {
            "shot": 1,
            "frame_strike": 10,
            "frame_end": 100,
            "is_break": True,
            "shooter": "A",
            "facts": break_facts,
            "call": {"foul": True, "fouls": ["CASSE1_FOUR_CUSHIONS"], "next_shooter": "B"},
            "confidence": 1.0,
        },
        {
            "shot": 2,
            "frame_strike": 120,
            "frame_end": 200,
            "is_break": False,
            "shooter": "B",
            "facts": second_facts,
            "call": {"foul": False, "fouls": [], "next_shooter": "B", "rack_winner": None},
            "confidence": 1.0,
        },
    ]


def write_side(
    folder: Path, rows: list[list[Any]], events: list[dict[str, Any]], shots: list[dict[str, Any]]
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "tracks.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(TRACKS_HEADER)
        writer.writerows(rows)
    for name, objects in (("events.jsonl", events), ("shots.jsonl", shots)):
        (folder / name).write_text("".join(json.dumps(o) + "\n" for o in objects))
    return folder


@pytest.fixture
def clip(tmp_path: Path) -> Path:
    """A clip folder with its truth in truth/, as sample_videos/<clip>/ has it."""
    write_side(tmp_path / "clip" / "truth", _track_rows(), _events(), _shots())
    return tmp_path / "clip"


def test_truth_against_itself_scores_100_percent(clip: Path) -> None:
    numbers = headline(evaluate(clip, clip / "truth"))
    for label, value in numbers.items():
        if label.endswith(("(mm)", "median", "switches")):
            assert value == 0.0, label
        else:
            assert value == 1.0, label


def _drop_pocket(
    rows: list[list[Any]], events: list[dict[str, Any]], shots: list[dict[str, Any]]
) -> None:
    events[:] = [e for e in events if e["kind"] != "ball_pocket"]
    shots[1]["facts"]["pocketed"] = []


def _swap_identities(
    rows: list[list[Any]], events: list[dict[str, Any]], shots: list[dict[str, Any]]
) -> None:
    for row in rows:
        if row[0] >= 60 and row[2] in ("1", "3"):
            row[2] = "3" if row[2] == "1" else "1"


def _shift_position(
    rows: list[list[Any]], events: list[dict[str, Any]], shots: list[dict[str, Any]]
) -> None:
    for row in rows:
        if row[2] in ("1", "3"):
            row[3] += 20.0


PERTURBATIONS = {
    "dropped-pocket": (
        _drop_pocket,
        ["pocket (ball+pocket) recall", "pocketed set exact (per shot)"],
    ),
    "swapped-identities": (_swap_identities, ["identity accuracy"]),
    "shifted-position": (_shift_position, ["position error p95 (mm)"]),
}


@pytest.mark.parametrize("name", list(PERTURBATIONS), ids=list(PERTURBATIONS))
def test_perturbed_truth_scores_lower(clip: Path, tmp_path: Path, name: str) -> None:
    perturb, worse = PERTURBATIONS[name]
    rows, events, shots = _track_rows(), _events(), _shots()
    perturb(rows, events, shots)
    run = write_side(tmp_path / "run", rows, events, shots)
    perfect = headline(evaluate(clip, clip / "truth"))
    numbers = headline(evaluate(clip, run))
    for label in worse:
        higher_is_better = not label.endswith(("(mm)", "median", "switches"))
        assert numbers[label] != perfect[label], label
        assert (numbers[label] < perfect[label]) == higher_is_better, label  # type: ignore[operator]


def test_swapped_identities_count_two_switches(clip: Path, tmp_path: Path) -> None:
    rows = _track_rows()
    _swap_identities(rows, [], [])
    result = evaluate(clip, write_side(tmp_path / "run", rows, _events(), _shots()))
    assert result["tracks"]["identity_switches"] == 2
    assert result["tracks"]["recall"] == 1.0


def test_shift_beyond_the_gate_costs_detection_recall(clip: Path, tmp_path: Path) -> None:
    rows = _track_rows()
    for row in rows:
        if row[2] == "3":
            row[4] += 200.0
    result = evaluate(clip, write_side(tmp_path / "run", rows, _events(), _shots()))
    assert result["tracks"]["recall"] < 0.8
    assert result["tracks"]["precision"] < 0.8


def test_a_missed_shot_costs_shot_recall_and_call_agreement(clip: Path, tmp_path: Path) -> None:
    run = write_side(tmp_path / "run", _track_rows(), _events(), _shots()[:1])
    result = evaluate(clip, run)
    assert result["shots"]["matching"]["recall"] == 0.5
    assert result["calls"]["rate"] == 0.5
    assert result["calls"]["disagreements"] == [{"shot": 2, "keys": ["unmatched"]}]


def test_a_different_call_is_a_disagreement_on_that_key(clip: Path, tmp_path: Path) -> None:
    shots = _shots()
    shots[0]["call"]["next_shooter"] = "A"
    shots[0]["call"]["fouls"] = ["CASSE1_FOUR_CUSHIONS"]
    result = evaluate(clip, write_side(tmp_path / "run", _track_rows(), _events(), shots))
    assert result["calls"]["disagreements"] == [{"shot": 1, "keys": ["next_shooter"]}]


@pytest.mark.parametrize("offset_frames", [0, 12, 29], ids=["same", "late-12", "late-29"])
def test_shots_match_within_the_strike_tolerance(
    clip: Path, tmp_path: Path, offset_frames: int
) -> None:
    shots = _shots()
    for shot in shots:
        shot["frame_strike"] += offset_frames
    result = evaluate(clip, write_side(tmp_path / "run", _track_rows(), _events(), shots))
    assert result["shots"]["matching"]["matched"] == 2


def test_a_strike_beyond_the_tolerance_is_unmatched(clip: Path, tmp_path: Path) -> None:
    shots = _shots()
    shots[1]["frame_strike"] += 40
    config = EvalConfig(shot_tolerance_s=0.5)
    result = evaluate(clip, write_side(tmp_path / "run", _track_rows(), _events(), shots), config)
    assert result["shots"]["matching"]["matched"] == 1


def test_cli_prints_a_table_and_json(clip: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--truth", str(clip), "--run", str(clip / "truth")]) == 0
    table = capsys.readouterr().out
    assert "call agreement" in table and "100.0%" in table
    assert main(["eval", "--truth", str(clip), "--run", str(clip / "truth"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["calls"]["rate"] == 1.0


def test_a_missing_file_is_named(
    clip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    shutil.copytree(clip / "truth", run)
    (run / "events.jsonl").unlink()
    with pytest.raises(EvalInputError, match=r"events\.jsonl"):
        evaluate(clip, run)
    assert main(["eval", "--truth", str(clip), "--run", str(run)]) == 2
    assert "events.jsonl" in capsys.readouterr().err


def test_a_malformed_row_is_named_with_its_line(clip: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(clip / "truth", run)
    with (run / "tracks.csv").open("a") as handle:
        handle.write("7,0.1,eleven,1,2,3,4,on_table\n")
    with pytest.raises(EvalInputError, match=r"tracks.csv:\d+"):
        evaluate(clip, run)


def test_truth_without_calls_is_judged_by_the_engine(tmp_path: Path) -> None:
    shots = _shots()
    for shot in shots:
        del shot["call"]
    shots[0]["facts"]["object_balls_to_cushion_on_break"] = 4
    clip = tmp_path / "clip"
    write_side(clip / "truth", _track_rows(), _events(), shots)
    (clip / "declarations.jsonl").write_text(
        '{"shot": 2, "type": "call", "ball": 1, "pocket": "foot_left"}\n'
    )
    judged = [dict(s) for s in shots]
    run = write_side(tmp_path / "run", _track_rows(), _events(), judged)
    result = evaluate(clip, run)
    # the run has no calls at all: every truth call (made by the engine) disagrees
    assert result["calls"]["total"] == 2 and result["calls"]["hits"] == 0
    truth = with_truth_calls(load_side(clip), FPS)
    assert truth.shots[0]["call"]["foul"] is False  # four balls to a cushion: legal break
    assert truth.shots[1]["shooter"] == "B"
    # B called the 1 but only the 2 dropped: it stays down and the inning ends (D4)
    assert truth.shots[1]["call"]["next_shooter"] == "A"


def test_an_unfinished_last_line_is_ignored(clip: Path, tmp_path: Path) -> None:
    """A review killed mid-write leaves whole lines and at most one unfinished last line."""
    run = tmp_path / "run"
    shutil.copytree(clip / "truth", run)
    with (run / "tracks.csv").open("a") as handle:
        handle.write("240,4.0,cue,30")
    with (run / "events.jsonl").open("a") as handle:
        handle.write('{"frame": 300, "ti')
    assert headline(evaluate(clip, run))["call agreement"] == 1.0
