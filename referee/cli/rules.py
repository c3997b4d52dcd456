"""`tenball rules run FILE [--explain]`: feed scenario steps to the rules engine (design.md §6).

For each scenario, start from its `initial_state`, feed the steps in order carrying the
engine's own state (`state_before` is for people only) and print one JSON line per step:
`{"id": ..., "step": i, "result": {...}}`. A step whose input is invalid prints a result with
an `"error"` key naming the field, leaves the state as it was, and the run goes on.

Exit status: 0 when every step ran, 1 when a step (or a scenario) was refused, 2 when the
file cannot be read as JSON scenarios.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rules",
        help="the FFB ten-ball rules engine",
        description="Run the FFB ten-ball rules engine on scenario files.",
    )
    actions = parser.add_subparsers(dest="rules_command", metavar="ACTION")
    run_parser = actions.add_parser(
        "run",
        help="feed each scenario's steps to the engine and print one JSON line per step",
        description=(
            "Read a scenarios file (the format of scenarios-public.json) and print, per step, "
            '{"id": ..., "step": i, "result": {...}}.'
        ),
    )
    run_parser.add_argument("file", type=Path, metavar="FILE", help="scenarios JSON file")
    run_parser.add_argument(
        "--explain", action="store_true", help="print each call in words instead of JSON"
    )
    run_parser.add_argument(
        "--option-on-any-wrongful-pocket",
        action="store_true",
        help="I-10, WPA reading: any ball pocketed without the called shot gives the option",
    )
    run_parser.add_argument(
        "--variant", choices=["ffb", "wpa"], default="ffb", help="rule text (default: ffb)"
    )
    run_parser.add_argument(
        "--break-order",
        choices=["alternate", "winner", "loser"],
        default="alternate",
        help="who breaks the racks after the first (default: alternate, I-23)",
    )


def _load(path: Path) -> list[Any]:
    """The scenarios of a file: {"scenarios": [...]}, a bare list, or one scenario."""
    text = path.read_text(encoding="utf-8-sig")  # a BOM from a Windows editor is not JSON
    try:
        data = json.loads(text)
    except json.JSONDecodeError:  # JSON Lines: one scenario per line
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) < 2:
            raise
        data = [json.loads(line) for line in lines]
    if isinstance(data, Mapping) and "scenarios" in data:
        data = data["scenarios"]
    elif isinstance(data, Mapping) and "steps" in data:
        data = [data]
    if not isinstance(data, list):
        raise ValueError('expected {"scenarios": [...]} or a list of scenarios')
    return data


def _run_scenario(
    scenario: Any, index: int, config: Any
) -> Iterator[tuple[Any, int, dict[str, Any], Any]]:
    """Yield (id, step index, result, step) for each step of one scenario."""
    from referee.rules import RulesInputError, initial_state, run_step
    from referee.rules.steps import scenario_config

    if not isinstance(scenario, Mapping):
        yield (
            f"#{index}",
            0,
            {"error": f"scenario: expected an object, got {type(scenario).__name__}"},
            None,
        )
        return
    ident = scenario.get("id", f"#{index}")
    try:
        state = initial_state(scenario)
    except RulesInputError as error:
        yield ident, 0, {"error": f"initial_{error}", "field": error.field}, None
        return
    try:
        config = scenario_config(scenario, config)
    except RulesInputError as error:  # the scenario's options: named as they are
        yield ident, 0, {"error": str(error), "field": error.field}, None
        return
    steps = scenario.get("steps")
    if not isinstance(steps, list):
        yield ident, 0, {"error": "steps: expected a list of steps"}, None
        return
    for i, step in enumerate(steps):
        try:
            result, state = run_step(step, state, config)
        except RulesInputError as error:
            result = {"error": str(error), "field": error.field}
        except Exception as error:  # one bad step must not end the whole run
            result = {"error": f"step: the engine failed on it ({type(error).__name__}: {error})"}
        yield ident, i, result, step


def _explain_line(ident: Any, i: int, result: Mapping[str, Any], step: Any) -> str:
    from referee.rules.aliases import STEP_KEY_ALIASES, with_canonical_keys
    from referee.rules.steps import step_kind

    kind = (
        step_kind(with_canonical_keys(step, STEP_KEY_ALIASES))
        if isinstance(step, Mapping)
        else None
    )
    kind = kind if isinstance(kind, str) else "?"
    head = f"{ident} step {i} ({kind})"
    if "error" in result:
        return f"{head}: REFUSED: {result['error']}"
    lines = [f"{head}: {result.get('summary', '')}"]
    lines += [f"    [{r['clause']}] {r['text']}" for r in result.get("reasons", [])]
    return "\n".join(lines)


def run_file(path: Path, config: Any, explain: bool, out: TextIO) -> int:
    """Run every scenario of a file; returns the exit status."""
    try:
        scenarios = _load(path)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        print(f"tenball rules run: cannot read {path}: {error}", file=sys.stderr)
        return 2
    status = 0
    for index, scenario in enumerate(scenarios):
        for ident, i, result, step in _run_scenario(scenario, index, config):
            status = 1 if "error" in result else status
            if explain:
                print(_explain_line(ident, i, result, step), file=out)
            else:
                print(
                    json.dumps({"id": ident, "step": i, "result": result}),
                    file=out,
                )
    return status


def run(args: argparse.Namespace) -> int:
    from referee.rules import RulesConfig

    if getattr(args, "rules_command", None) != "run":
        print("usage: tenball rules run FILE [--explain]", file=sys.stderr)
        return 2
    config = RulesConfig(
        option_on_any_wrongful_pocket=args.option_on_any_wrongful_pocket,
        variant=args.variant,
        break_order=args.break_order,
    )
    if args.explain and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")  # clause names carry accents
    try:
        return run_file(args.file, config, args.explain, sys.stdout)
    except BrokenPipeError:  # the reader stopped early (`| head`): not an error of ours
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
