"""`tenball synth`: render a synthetic ten-ball clip with exact physics truth.

    tenball synth --out DIR --camera top --fps 60 --seed 3 --shots break,pot,wrong-ball

writes DIR/video.mp4, DIR/calibration.json, DIR/declarations.jsonl and DIR/truth/ (see
`vision.synthetic.clip`). vision/ may not import the rules engine, so this command fills each
shot's "call" in truth/shots.jsonl (and its "shooter") by running `referee.rules` over the
shots' facts and declarations.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

SHOT_HELP = (
    "comma-separated shot kinds in order, e.g. break,pot,wrong-ball. Simulated: break, pot, "
    "pot-with-others, several-pockets, wrong-ball, no-cushion, scratch, combo-10, safety, "
    "push-out (declared; only legal right after a legal break), any, rail-drive. "
    "Scripted on top of the physics: off-table, nudge, moving-strike, lip-late, lip-stay."
)


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--size must be WIDTHxHEIGHT, got {text!r}") from None
    if width < 32 or height < 32:
        raise argparse.ArgumentTypeError(f"--size must be at least 32x32, got {text!r}")
    return width, height


def _names(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "synth",
        help="render a synthetic clip with exact physics truth",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", required=True, type=Path, help="output directory")
    parser.add_argument("--shots", type=_names, default=("break", "pot"), help=SHOT_HELP)
    parser.add_argument("--camera", default="top", choices=("top", "broadcast", "corner"))
    parser.add_argument("--table", default="9ft", choices=("9ft", "8ft", "7ft"))
    parser.add_argument("--fps", type=float, default=60.0, help="frame rate (default 60)")
    parser.add_argument("--size", type=_size, default=(1280, 720), help="WIDTHxHEIGHT")
    parser.add_argument("--seed", type=int, default=0, help="seeds rack, shots, look and noise")
    parser.add_argument("--cloth", default="green", choices=("green", "blue", "red", "grey"))
    parser.add_argument("--balls", default="standard", choices=("standard", "tv"))
    parser.add_argument(
        "--nuisances", type=_names, default=("cue",), help="any of cue,arm,player (or 'none')"
    )
    parser.add_argument("--brightness", type=float, default=1.0, help="lighting gain")
    parser.add_argument("--noise", type=float, default=2.0, help="sensor noise, grey levels")
    parser.add_argument("--no-calls", action="store_true", help="skip the rules engine")


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from vision.synthetic.clip import ClipConfig, build_scene, make_clip
    from vision.synthetic.nuisances import NUISANCES

    nuisances = tuple(n for n in args.nuisances if n != "none")
    unknown = [n for n in nuisances if n not in NUISANCES]
    if unknown:
        known = ", ".join(NUISANCES)
        print(f"error: unknown nuisance(s) {unknown}; expected {known} or none", file=sys.stderr)
        return 2
    config = ClipConfig(
        shots=args.shots,
        table=args.table,
        camera=args.camera,
        fps=args.fps,
        size=args.size,
        seed=args.seed,
        cloth=args.cloth,
        balls=args.balls,
        nuisances=nuisances,
        brightness=args.brightness,
        noise_sigma=args.noise,
    )
    try:
        scene = build_scene(config)
        with tqdm(total=scene.timeline.frame_count, unit="frame", desc="synth") as bar:
            result = make_clip(config, args.out, progress=bar.update, scene=scene)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not args.no_calls:
        note = add_calls(args.out)
        if note:
            print(f"note: {note}", file=sys.stderr)
    print(
        f"wrote {args.out}: {result.frames} frames ({result.duration_s:.1f} s, {result.codec}), "
        f"render {result.render_ms_per_frame:.1f} ms/frame"
    )
    return 0


def add_calls(clip_dir: Path) -> str:
    """Fill "call" and "shooter" of truth/shots.jsonl by running the rules engine.

    Returns:
        "" when every shot got a call, else why the remaining shots have none.
    """
    from referee.rules import GameState, RulesInputError, run_step

    shots_path = clip_dir / "truth" / "shots.jsonl"
    shots = [json.loads(line) for line in shots_path.read_text().splitlines() if line.strip()]
    declarations = _declarations(clip_dir / "declarations.jsonl")
    state, note, extra = GameState(), "", []
    for shot in shots:
        step = _step(shot, declarations.get(int(shot["shot"]), []))
        shot["shooter"] = str(state.turn)
        try:
            result, state = run_step(step, state)
        except RulesInputError as error:
            note = f"no call from shot {shot['shot']} on: {error}"
            break
        shot["call"] = result
        if result.get("option"):
            extra.append({"shot": shot["shot"], "type": "option_choice", "choice": "shoot"})
            result_choice, state = run_step({"type": "option_choice", "choice": "shoot"}, state)
            shot["option_choice"] = {"choice": "shoot", "result": result_choice}
    _rewrite(shots_path, shots)
    if extra:
        lines = (clip_dir / "declarations.jsonl").read_text() + "".join(
            json.dumps(e) + "\n" for e in extra
        )
        _rewrite_text(clip_dir / "declarations.jsonl", lines)
    return note


def _declarations(path: Path) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            item = json.loads(line)
            if "shot" in item:
                out.setdefault(int(item["shot"]), []).append(item)
    return out


def _step(shot: dict[str, Any], declared: list[dict[str, Any]]) -> dict[str, Any]:
    declarations: dict[str, Any] = {"call": None, "push_out": False}
    for item in declared:
        if item["type"] == "call":
            declarations["call"] = {"ball": item["ball"], "pocket": item["pocket"]}
        elif item["type"] == "push_out":
            declarations["push_out"] = True
        elif item["type"] == "safety":
            declarations["safety_intended"] = True
    return {
        "type": "shot",
        "declarations": declarations,
        "shot": shot["facts"],
        "referee_fouls": [],
    }


def _rewrite(path: Path, objects: list[dict[str, Any]]) -> None:
    _rewrite_text(path, "".join(json.dumps(o) + "\n" for o in objects))


def _rewrite_text(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text)
    temporary.replace(path)
