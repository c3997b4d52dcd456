"""The pipeline's own call stage plays the match the service referees (shadow.py): after a
restart mid-rack, and with what the operator declared. A real server on loopback, the real
call stage of referee.pipeline_calls judging the scripted shots."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from referee.live.settings import LiveSettings
from referee.live.shadow import camera_facts
from referee.live.store import MatchStore
from referee.pipeline_calls import CallStage, ShotInput
from tests.referee.live.helpers import (
    BREAK_FACTS,
    ScriptedPipeline,
    ScriptedResult,
    ScriptedShot,
    serve,
    wait_for,
    write_video,
)
from vision.types import Frame

SAFE_FACTS: dict[str, Any] = {
    "first_object_ball_contacted": 1,
    "cushion_after_first_contact": [1],
    "pocketed": [],
    "off_table": [],
    "cue_ball_pocketed": False,
    "cue_ball_off_table": False,
}


@dataclass
class JudgingPipeline(ScriptedPipeline):
    """The scripted shots, judged by the pipeline's real call stage (as Pipeline does)."""

    calls: CallStage = field(default_factory=CallStage)
    fact_confidence: dict[str, float] = field(default_factory=dict)

    def process(self, frame: Frame) -> ScriptedResult:
        result = super().process(frame)
        judged = tuple(self.calls.judge(self._input(s)) for s in result.shots)
        return ScriptedResult(result.events, judged, result.tracks)  # type: ignore[arg-type]

    def _input(self, shot: ScriptedShot) -> ShotInput:
        return ShotInput(shot.frame_strike, shot.frame_end, shot.frame_strike / 30.0,
                         dict(shot.facts), fact_confidence=dict(self.fact_confidence))  # fmt: skip


def _played(settings: LiveSettings, pipeline: JudgingPipeline, shots: int) -> dict[str, Any]:
    pipeline.gate.set()
    with serve(settings, pipeline) as server:
        state = wait_for(lambda: (s := httpx.get(f"{server.url}/api/state").json())["match"]
                         ["shots"] == shots and s, what=f"shot {shots} judged")  # fmt: skip
        match: dict[str, Any] = httpx.get(f"{server.url}/api/matches/1").json()
    return {"state": state["match"], "calls": match["calls"]}


def test_after_a_restart_mid_rack_the_pipeline_judges_in_the_match(tmp_path: Path) -> None:
    """A breaks and pots the 3; the service restarts; A plays the 1 safe. The pipeline
    restarted on a fresh rack: it took the shot for a break (it filled the break's count of
    balls to a cushion) and its doubts were about a break. Now it judges in the match."""
    video = write_video(tmp_path / "clip.avi", frames=20, fps=30.0)
    settings = LiveSettings(source=str(video), db=tmp_path / "m.sqlite3", realtime=False)
    store = MatchStore(settings.db)
    store.create_match({"A": "Ann", "B": "Ben"}, "A")
    store.close()
    _played(settings, JudgingPipeline(shots={5: ScriptedShot(dict(BREAK_FACTS), 2, 5)}), 1)
    again = JudgingPipeline(shots={8: ScriptedShot(dict(SAFE_FACTS), 3, 8)},
                            fact_confidence={"first_object_ball_contacted": 0.5})  # fmt: skip
    played = _played(settings, again, shots=2)
    call = played["calls"][-1]
    assert "object_balls_to_cushion_on_break" not in call["facts"]
    assert call["result"]["next_shooter"] == "B"
    doubts = " ".join(call["review_reasons"])
    assert "break" not in doubts and "Foul by A" in doubts  # no first contact: A's foul
    assert again.calls.state.to_json() == played["state"]["rules_state"]


@pytest.mark.parametrize(
    ("facts", "kept", "notes"),
    [
        ({"pocketed": [{"ball": 3, "pocket": "foot_left"}, {"ball": 4, "pocket": "side_left"}],
          "first_object_ball_contacted": 4}, {"pocketed": [{"ball": 4, "pocket": "side_left"}],
          "first_object_ball_contacted": 4}, 1),
        ({"first_object_ball_contacted": 3, "off_table": ["cue", 3]},
         {"first_object_ball_contacted": None, "off_table": ["cue"]}, 2),
        ({"first_object_ball_contacted": 1, "pocketed": []},
         {"first_object_ball_contacted": 1, "pocketed": []}, 0),
    ],
    ids=["ghost-drop", "ghost-contact-and-off-table", "nothing-down"],
)  # fmt: skip
def test_camera_facts_drop_balls_already_down(
    facts: dict[str, Any], kept: dict[str, Any], notes: int
) -> None:
    on_table = [1, 2, 4, 5, 6, 7, 8, 9, 10]  # the 3 dropped on the break
    clean, said = camera_facts(facts, on_table)
    assert {k: clean[k] for k in kept} == kept
    assert len(said) == notes
