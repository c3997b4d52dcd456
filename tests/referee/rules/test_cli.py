"""`tenball rules run` as a subprocess: the design.md §6 contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.referee.rules.rule_cases import ALL_CASES
from tests.referee.rules.runner import mismatches

ROOT = Path(__file__).resolve().parents[3]
PUBLIC = ROOT / "tests" / "data" / "scenarios-public.json"
AUDIT = ROOT / "tests" / "data" / "scenarios-audit.json"


def _tenball(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the console script when installed beside this Python, else the same entry point."""
    script = Path(sys.executable).parent / "tenball"
    command = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "from referee.cli import main; raise SystemExit(main())"]
    )
    return subprocess.run(
        [*command, "rules", "run", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def _check_contract(path: Path, scenarios: list[dict[str, Any]]) -> list[dict[str, Any]]:
    done = _tenball(str(path))
    lines = _lines(done.stdout)
    steps = [(s["id"], i, step) for s in scenarios for i, step in enumerate(s["steps"])]
    assert [(line["id"], line["step"]) for line in lines] == [(ident, i) for ident, i, _ in steps]
    for line, (ident, i, step) in zip(lines, steps, strict=True):
        assert set(line) == {"id", "step", "result"}
        assert not mismatches(step["expected"], line["result"]), f"{ident} step {i}"
    return lines


def test_public_file_follows_the_contract() -> None:
    scenarios = json.loads(PUBLIC.read_text(encoding="utf-8"))["scenarios"]
    done = _tenball(str(PUBLIC))
    assert done.returncode == 0, done.stderr
    _check_contract(PUBLIC, scenarios)


def test_audit_file_follows_the_contract() -> None:
    """The independent audit scenarios, as the command prints them (every expected key)."""
    done = _tenball(str(AUDIT))
    assert done.returncode == 0, done.stderr
    _check_contract(AUDIT, json.loads(AUDIT.read_text(encoding="utf-8"))["scenarios"])


def test_rule_cases_run_through_the_command(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"scenarios": ALL_CASES}), encoding="utf-8")
    lines = _check_contract(path, ALL_CASES)
    assert any("error" in line["result"] for line in lines)
    assert _tenball(str(path)).returncode == 1  # the error cases were refused


def test_a_bad_step_is_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    good = json.loads(PUBLIC.read_text(encoding="utf-8"))["scenarios"][1]
    bad = {
        **good,
        "id": "BAD",
        "steps": [{"type": "juggle"}, {"type": "shot", "shot": {"pocketed": [12]}}, *good["steps"]],
    }
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps({"scenarios": [bad, good]}), encoding="utf-8")
    done = _tenball(str(path))
    lines = _lines(done.stdout)
    assert done.returncode == 1
    assert [line["id"] for line in lines] == ["BAD", "BAD", "BAD", good["id"]]
    assert (
        "type" in lines[0]["result"]["error"] and lines[1]["result"]["field"] == "shot.pocketed[0]"
    )
    assert not mismatches(good["steps"][0]["expected"], lines[2]["result"])  # state unchanged


@pytest.mark.parametrize(
    "content", ["{not json", '{"scenarios": 3}', ""], ids=["malformed", "not-a-list", "empty"]
)
def test_an_unreadable_file_exits_2(tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    done = _tenball(str(path))
    assert done.returncode == 2 and "cannot read" in done.stderr and not done.stdout


@pytest.mark.parametrize("form", ["bom", "jsonl"])
def test_a_file_from_another_editor_or_as_json_lines_is_read(tmp_path: Path, form: str) -> None:
    """A UTF-8 BOM (a Windows editor) and one scenario per line (JSON Lines) are read as the
    same scenarios: the public file's results, unchanged."""
    scenarios = json.loads(PUBLIC.read_text(encoding="utf-8"))["scenarios"]
    path = tmp_path / "scenarios.json"
    if form == "bom":
        path.write_text(json.dumps({"scenarios": scenarios}), encoding="utf-8-sig")
    else:
        path.write_text("\n".join(json.dumps(s) for s in scenarios) + "\n", encoding="utf-8")
    done = _tenball(str(path))
    assert done.returncode == 0, done.stderr
    _check_contract(path, scenarios)


def test_explain_names_a_step_typed_another_way_and_a_bad_option_by_its_field(
    tmp_path: Path,
) -> None:
    """A step whose type is under 'kind' (or left to its keys) is named by its type in the
    words of --explain; a scenario's bad option is refused as 'config', not 'initial_config'."""
    facts = {
        "first_object_ball_contacted": 1,
        "cushion_after_first_contact": [2, 3, 4],
        "object_balls_to_cushion_on_break": 4,
        "pocketed": [],
    }
    scenarios = [
        {"id": "K", "steps": [{"kind": "shot", "facts": facts}, {"shot": facts}]},
        {"id": "C", "config": {"variant": "nonsense"}, "steps": []},
    ]
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"scenarios": scenarios}), encoding="utf-8")
    words = _tenball(str(path), "--explain").stdout
    assert "K step 0 (shot): " in words and "K step 1 (shot): " in words
    refused = _lines(_tenball(str(path)).stdout)[-1]
    assert refused["id"] == "C" and refused["result"]["field"] == "config"
    assert refused["result"]["error"].startswith("config: ")


def test_a_missing_file_exits_2(tmp_path: Path) -> None:
    assert _tenball(str(tmp_path / "absent.json")).returncode == 2


def test_explain_prints_each_call_in_words() -> None:
    done = _tenball(str(PUBLIC), "--explain")
    assert done.returncode == 0
    assert "BRK-03 step 0 (shot): Foul by A (Casse 1, Fautes 2)" in done.stdout
    assert "[Déroulement 3]" in done.stdout and "B has ball in hand anywhere." in done.stdout


def test_adversarial_audit_cases_run_through_the_command(tmp_path: Path) -> None:
    """audit_cases.py and adversary_cases.py through the design.md §6 command: every step
    runs, every key matches."""
    from tests.referee.rules.adversary_cases import ADVERSARY_CASES
    from tests.referee.rules.audit_cases import AUDIT_CASES

    cases = AUDIT_CASES + ADVERSARY_CASES
    path = tmp_path / "audit2.json"
    path.write_text(json.dumps({"scenarios": cases}), encoding="utf-8")
    assert _tenball(str(path)).returncode == 0
    _check_contract(path, cases)
