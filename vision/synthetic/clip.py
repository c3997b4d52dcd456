"""Makes a synthetic clip: plans a rack, renders it and writes its truth (design.md §5).

Output directory layout:

    video.mp4              the rendered frames (H.264 when imageio-ffmpeg is installed)
    calibration.json       exact corners plus the "camera" block (calibration.io)
    declarations.jsonl     what the players declared (docs/architecture.md)
    truth/tracks.csv       one row per ball per frame while the ball is in play
    truth/events.jsonl     strike, ball_ball, ball_cushion, ball_pocket, ball_off_table,
                           ball_disturbed, shot_end, with exact times
    truth/shots.jsonl      one object per shot with the rules.md §4 facts
    synth.json             the settings that made the clip

Frame timing: frame k is the instant t = k / fps; an event carries its exact time and the
frame at or just after it (see `vision.synthetic.truth`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import BALL_CENTRE_HEIGHT_MM
from calibration.io import Calibration
from calibration.table import TableSpec
from vision.synthetic.cameras import preset_camera
from vision.synthetic.plan import RackPlan, check_kinds, plan_rack
from vision.synthetic.render import Renderer
from vision.synthetic.scene import FrameScene, Scene
from vision.synthetic.table_image import Lighting
from vision.synthetic.timeline import build_timeline
from vision.synthetic.truth import TrackRow, write_atomic, write_jsonl, write_tracks
from vision.synthetic.video import VideoWriter


@dataclass(frozen=True, slots=True)
class ClipConfig:
    """Everything that decides a clip.

    Attributes:
        shots: shot kind names in order (`shots.KINDS`, `scripts.SCRIPTED`).
        table: "9ft", "8ft" or "7ft".
        camera: camera preset ("top", "broadcast", "corner").
        fps: frame rate.
        size: (width, height) pixels.
        seed: seeds the rack, the shot search, the look and the noise.
        cloth: cloth colour ("green", "blue", "red", "grey").
        balls: ball set ("standard" or "tv").
        nuisances: any of "cue", "arm", "player" (`nuisances.NUISANCES`).
        brightness: lighting gain (1 nominal).
        noise_sigma: sensor noise, grey levels.
    """

    shots: tuple[str, ...] = ("break", "pot")
    table: str = "9ft"
    camera: str = "top"
    fps: float = 60.0
    size: tuple[int, int] = (1280, 720)
    seed: int = 0
    cloth: str = "green"
    balls: str = "standard"
    nuisances: tuple[str, ...] = ("cue",)
    brightness: float = 1.0
    noise_sigma: float = 2.0


@dataclass(slots=True)
class ClipResult:
    """What was written and how long it took."""

    out_dir: Path
    frames: int
    duration_s: float
    render_ms_per_frame: float
    codec: str
    shots: list[dict[str, Any]] = field(default_factory=list)


LAYOUT_ATTEMPTS = 40
"""Racks tried (seeded from the clip seed) until every listed shot is found from the layout
it meets; a rare kind (a combination on the 10) may need several racks."""


def build_scene(config: ClipConfig) -> Scene:
    """Plan and sample a clip without rendering it (truth only, fast).

    Raises:
        ValueError: an unknown shot kind, or no rack in `LAYOUT_ATTEMPTS` gave every shot.
    """
    table = TableSpec.from_name(config.table)
    check_kinds(list(config.shots))
    camera = preset_camera(config.camera, table, config.size)
    reasons: list[str] = []
    for attempt in range(LAYOUT_ATTEMPTS):
        rng = np.random.default_rng([config.seed, attempt])
        try:
            plan = plan_rack(table, list(config.shots), config.fps, rng)
        except ValueError as error:
            reasons.append(str(error))
            continue
        timeline = build_timeline(plan, rng)
        return Scene(plan, timeline, camera, config.nuisances, attempt)
    common = max(set(reasons), key=reasons.count)
    raise ValueError(
        f"no rack out of {LAYOUT_ATTEMPTS} gave the shots {','.join(config.shots)} "
        f"(most often: {common}); try another seed or order"
    )


def make_renderer(config: ClipConfig, scene: Scene) -> Renderer:
    lx, ly = scene.plan.table.length_mm, scene.plan.table.width_mm
    rng = np.random.default_rng(config.seed + 1)
    lighting = Lighting(
        brightness=config.brightness,
        light_xy_mm=(lx * float(rng.uniform(0.35, 0.65)), ly * float(rng.uniform(0.3, 0.7))),
        falloff_mm=float(rng.uniform(1800.0, 2800.0)),
        light_dir=(float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.3, 0.3)), 1.0),
        noise_sigma=config.noise_sigma,
    )
    return Renderer(
        scene.camera, scene.plan.table, config.cloth, config.balls, lighting, config.seed
    )


def make_clip(
    config: ClipConfig,
    out_dir: Path,
    progress: Callable[[int], None] | None = None,
    scene: Scene | None = None,
) -> ClipResult:
    """Render `config` into `out_dir` (created if needed) with its truth files.

    Args:
        config: the clip settings.
        out_dir: output directory.
        progress: called with the number of frames just rendered (for a progress bar).
        scene: the clip's scene when already built by `build_scene(config)`.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "truth").mkdir(exist_ok=True)
    scene = scene if scene is not None else build_scene(config)
    renderer = make_renderer(config, scene)
    rows: list[TrackRow] = []
    render_s = 0.0
    with VideoWriter(out_dir / "video.mp4", config.fps, config.size) as writer:
        for frame in _frames(scene):
            tick = time.perf_counter()
            image = renderer.render(frame.poses, frame.overlays, frame.index)
            render_s += time.perf_counter() - tick
            writer.write(image)
            rows.extend(frame.rows)
            if progress is not None:
                progress(1)
    write_truth(scene, config, out_dir, rows)
    count = scene.timeline.frame_count
    return ClipResult(
        out_dir,
        count,
        count / config.fps,
        1000.0 * render_s / max(count, 1),
        writer.codec,
        [s.record for s in scene.shot_records()],
    )


def _frames(scene: Scene) -> Iterator[FrameScene]:
    for index in range(scene.timeline.frame_count):
        yield scene.frame(index)


def write_truth(scene: Scene, config: ClipConfig, out_dir: Path, rows: list[TrackRow]) -> None:
    """Truth files, calibration, declarations and settings of a clip."""
    plan: RackPlan = scene.plan
    fps = config.fps
    write_tracks(out_dir / "truth" / "tracks.csv", rows)
    write_jsonl(out_dir / "truth" / "events.jsonl", (e.to_json(fps) for e in plan.events()))
    write_jsonl(out_dir / "truth" / "shots.jsonl", (s.record for s in scene.shot_records()))
    declarations: list[dict[str, Any]] = [
        {"type": "match", "players": {"A": "Player A", "B": "Player B"}, "breaker": "A"}
    ]
    declarations += [d for shot in plan.shots for d in shot.declarations]
    write_jsonl(out_dir / "declarations.jsonl", declarations)
    corners = scene.camera.project(np.array(list(plan.table.corners_xy_mm().values())), 0.0)
    names = list(plan.table.corners_xy_mm())
    calibration = Calibration(
        table=plan.table,
        camera=scene.camera,
        corners_px={n: (float(u), float(v)) for n, (u, v) in zip(names, corners, strict=True)},
        extra={"source": "synthetic", "ball_centre_height_mm": BALL_CENTRE_HEIGHT_MM},
    )
    calibration.save(out_dir / "calibration.json")
    settings = asdict(config)
    settings["frames"] = scene.timeline.frame_count
    settings["layout_attempt"] = scene.attempt
    write_atomic(out_dir / "synth.json", json.dumps(settings, indent=2) + "\n")
