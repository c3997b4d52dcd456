"""Every scenario of the spec and of the audits, rewritten the ways another author could write
the same input (balls as text, pockets in words, flags as text, a call as "3 in foot_left",
fact, step and state keys under other names, referee fouls by code or as a map, option
choices in words, players as "Player a", the cue ball as 0, empty optional keys left out),
gets the same answer at every step.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from referee.rules import RulesInputError, initial_state, run_step
from referee.rules.steps import scenario_config
from tests.referee.rules.adversary_cases import ADVERSARY_CASES
from tests.referee.rules.audit_cases import AUDIT_CASES
from tests.referee.rules.rule_cases import ALL_CASES
from tests.referee.rules.runner import RESULT_KEYS
from tests.referee.rules.walk_cases import WALK_CASES

SPEC = Path(__file__).resolve().parents[2] / "data" / "scenarios-public.json"
CASES = [
    *json.loads(SPEC.read_text())["scenarios"],
    *ALL_CASES,
    *AUDIT_CASES,
    *ADVERSARY_CASES,
    *WALK_CASES,
]
POCKETS = ("head_left", "head_right", "side_left", "side_right", "foot_left", "foot_right")
CODES = {
    "no_foot_on_floor": "F4", "ball_touched": "F6", "double_hit": "F7", "push_shot": "F8",
    "balls_moving": "F9", "bad_cue_ball_placement": "F10", "cue_on_table": "F11",
    "played_out_of_turn": "F12", "slow_play": "F13",
}  # fmt: skip
CHOICE_WORDS = {"shoot": ["accept the table", "Shoot"], "hand_back": ["Hand back", "return"]}


def _answers(scenario: dict[str, Any]) -> list[Any]:
    game, config = initial_state(scenario), scenario_config(scenario)
    out: list[Any] = []
    for step in scenario["steps"]:
        try:
            result, game = run_step(step, game, config)
            out.append({k: result.get(k) for k in (*RESULT_KEYS, "rack_valid")})
        except RulesInputError as error:
            out.append(("refused", error.field))
    return out


def _ball(value: Any, rng: random.Random) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 10:
        return rng.choice([str(value), f"ball {value}", value])
    return value


def _pocket(value: Any, rng: random.Random) -> Any:
    if value not in POCKETS:
        return value
    end, side = value.split("_")
    words = f"middle {side}" if end == "side" else f"{end} {side} corner"
    return rng.choice([f"{end.title()} {side.title()}", f"{side}-{end}", words, value.upper()])


def _flag(value: Any, rng: random.Random) -> Any:
    return rng.choice([str(value).lower(), int(value), value]) if isinstance(value, bool) else value


def _facts(facts: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = dict(facts)
    for key in ("cushion_after_first_contact", "off_table", "simultaneous_first_contact"):
        if isinstance(out.get(key), list):
            out[key] = [0 if b == "cue" else _ball(b, rng) for b in out[key]] or None
    if isinstance(out.get("pocketed"), list):
        out["pocketed"] = [
            {**p, "ball": _ball(p.get("ball"), rng), "pocket": _pocket(p.get("pocket"), rng)}
            if isinstance(p, dict)
            else _ball(p, rng)
            for p in out["pocketed"]
        ]
    for key in ("cue_ball_pocketed", "cue_ball_off_table", "cue_ball_cushion_before_first_contact"):
        if key in out:
            out[key] = _flag(out[key], rng)
    if "first_object_ball_contacted" in out:  # left out it would mean "not reported"
        out["first_ball_contacted"] = _ball(out.pop("first_object_ball_contacted"), rng)
    return {k: v for k, v in out.items() if v is not None or k == "first_ball_contacted"}


def _declarations(decl: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = {k: _flag(v, rng) for k, v in decl.items() if v is not False}
    call = decl.get("call")
    if isinstance(call, dict) and call.get("pocket") in POCKETS and "source" not in call:
        out["call"] = f"{call['ball']} in {call['pocket']}"
    elif isinstance(call, dict) and call.get("source", "announced") == "announced":
        del out["call"]
        out["called_ball"], out["called_pocket"] = (
            call.get("ball"),
            _pocket(call.get("pocket"), rng),
        )
    return out


def _step(step: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = dict(step)
    out["type"] = str(step.get("type", "shot")).replace("_", " ").title()
    if isinstance(step.get("shot"), dict):
        del out["shot"]
        out[rng.choice(["shot", "facts"])] = _facts(step["shot"], rng)
    if isinstance(step.get("declarations"), dict):
        out["declarations"] = _declarations(step["declarations"], rng)
    fouls = step.get("referee_fouls")
    if isinstance(fouls, list) and all(isinstance(f, str) for f in fouls):
        out["referee_fouls"] = rng.choice(
            [{f: True for f in fouls}, [CODES.get(f, f) for f in fouls]]
        )
    if step.get("choice") in CHOICE_WORDS:
        out["choice"] = rng.choice(CHOICE_WORDS[step["choice"]])
    if isinstance(step.get("player"), str):
        out["player"] = "Player " + step["player"].lower()
    return out


STATE_KEYS = {"balls_on_table": "balls", "consecutive_fouls": "fouls", "warned": "warnings"}


def _state(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = {STATE_KEYS.get(k, k) if rng.random() < 0.5 else k: v for k, v in state.items()}
    for key in ("turn", "breaker"):
        if isinstance(out.get(key), str):
            out[key] = rng.choice([out[key].lower(), f"Player {out[key]}"])
    if isinstance(out.get("cue_ball"), str):
        out["cue_ball"] = out["cue_ball"].replace("_", " ").title()
    return out


def _rewritten(scenario: dict[str, Any], seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    out = copy.deepcopy(scenario)
    out["steps"] = [_step(step, rng) for step in scenario["steps"]]
    if isinstance(scenario.get("initial_state"), dict):
        del out["initial_state"]
        out[rng.choice(["initial_state", "state"])] = _state(scenario["initial_state"], rng)
    return out


@pytest.mark.parametrize("scenario", CASES, ids=[c["id"] for c in CASES])
def test_the_same_input_written_otherwise_gets_the_same_answers(scenario: dict[str, Any]) -> None:
    assert _answers(_rewritten(scenario, seed=len(scenario["id"]))) == _answers(scenario)
