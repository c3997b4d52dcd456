"""The `player` nuisance: bodies between camera and table, their shadow, and the truth marks."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.table import TableSpec
from vision.synthetic.cameras import PRESETS, preset_camera
from vision.synthetic.clip import ClipConfig, build_scene, make_renderer
from vision.synthetic.players import (
    HEAD_RADIUS_MM,
    LEAN_FROM_S,
    SHOULDER_MM,
    WALKER_CAMERA_MM,
    _walker,
    player_overlays,
)
from vision.synthetic.render import BallPoses, Overlay, Renderer
from vision.synthetic.scene import Scene
from vision.synthetic.table_image import Lighting

SIZE = (640, 360)


@pytest.fixture(scope="module")
def scenes() -> dict[str, Scene]:
    """The same broadcast clip with and without people."""
    out = {}
    for name, nuisances in (("plain", ("cue",)), ("player", ("cue", "player"))):
        config = ClipConfig(
            shots=("break", "pot"), camera="broadcast", size=SIZE, seed=12, nuisances=nuisances
        )
        out[name] = build_scene(config)
    return out


def test_without_player_the_overlays_are_unchanged(scenes: dict[str, Scene]) -> None:
    plain, player = scenes["plain"], scenes["player"]
    times = plain.timeline.motion.time_s[:: max(1, len(plain.timeline.motion.time_s) // 60)]
    extra = 0
    for time_s in times:
        before, after = plain.overlays(float(time_s)), player.overlays(float(time_s))
        assert all(o.shade == 0 for o in before)
        kept = [o for o in after if any(o is b or _same(o, b) for b in before)]
        assert len(kept) == len(before), "the cue and arm must still be drawn"
        extra += len(after) - len(before)
    assert extra > 0, "the player never appeared"


def _same(a: Overlay, b: Overlay) -> bool:
    return a.colour == b.colour and np.array_equal(a.points_mm, b.points_mm)


def test_occluded_truth_rows_are_hidden_in_the_frame(scenes: dict[str, Scene]) -> None:
    """A ball the truth marks occluded has its centre pixel covered by a body."""
    scene = scenes["player"]
    config = ClipConfig(shots=("break", "pot"), camera="broadcast", size=SIZE, seed=12)
    renderer = make_renderer(config, scene)
    checked = 0
    for index in range(0, scene.timeline.frame_count, 3):
        frame = scene.frame(index)
        hidden = [r for r in frame.rows if r.status == "occluded"]
        if not hidden:
            continue
        with_people = renderer.render(frame.poses, frame.overlays, 0).astype(np.int32)
        without = renderer.render(frame.poses, (), 0).astype(np.int32)
        for row in hidden:
            u, v = round(row.u_px), round(row.v_px)
            if 0 <= u < SIZE[0] and 0 <= v < SIZE[1]:
                assert np.abs(with_people[v, u] - without[v, u]).sum() > 30
                checked += 1
        if checked >= 5:
            break
    assert checked >= 1, "no ball was ever hidden behind a body on the broadcast view"


def test_the_shooter_darkens_the_cloth_under_them() -> None:
    table = TableSpec()
    camera = preset_camera("top", table, SIZE)
    renderer = Renderer(camera, table, lighting=Lighting(noise_sigma=0, shadow_strength=0))
    square = np.array([[800.0, 400.0, 0.0], [1400.0, 400.0, 0.0], [1400.0, 800.0, 0.0]])
    square = np.vstack([square, [[800.0, 800.0, 0.0]]])
    image = renderer.render(BallPoses.empty(), (Overlay(square, (0, 0, 0), shade=0.5),), 0).astype(
        np.float64
    )
    background = renderer.background.astype(np.float64)
    inside = camera.project(np.array([[1100.0, 600.0]]), 0.0)[0].round().astype(int)
    outside = camera.project(np.array([[300.0, 200.0]]), 0.0)[0].round().astype(int)
    ratio = image[inside[1], inside[0]].sum() / background[inside[1], inside[0]].sum()
    assert 0.45 < ratio < 0.6, f"the shadow kept {ratio:.2f} of the light"
    assert np.array_equal(image[outside[1], outside[0]], background[outside[1], outside[0]])


@pytest.mark.parametrize("preset", PRESETS, ids=PRESETS)
@pytest.mark.parametrize("start", [0.0, 0.3, 0.49, 0.5, 0.8, 0.99], ids=lambda s: f"start{s}")
def test_the_walker_keeps_away_from_the_lens(preset: str, start: float) -> None:
    table = TableSpec.from_name("7ft")
    camera = preset_camera(preset, table, SIZE)
    head = _walker(0.0, start, camera, table).head
    distance = float(np.linalg.norm(head - camera.centre_mm))
    assert distance >= WALKER_CAMERA_MM - 1.0
    assert head[2] == pytest.approx(SHOULDER_MM + 60.0 + HEAD_RADIUS_MM)


def test_bodies_are_convex_outlines_in_the_image(scenes: dict[str, Scene]) -> None:
    scene = scenes["player"]
    camera = scene.camera
    shot = scene.plan.shots[1]
    for dt in np.linspace(LEAN_FROM_S, 3.0, 12):
        for overlay in player_overlays(shot, shot.strike_s + dt, camera, scene.plan.table):
            points = overlay.points_mm
            uv = camera.project(points[:, :2], points[:, 2]).astype(np.float32)
            if overlay.shade == 0:
                assert cv2.isContourConvex(uv.reshape(-1, 1, 2))
            else:
                assert np.all(points[:, 2] == 0.0), "a shadow lies on the cloth"


def test_people_are_the_same_every_render(scenes: dict[str, Scene]) -> None:
    scene = scenes["player"]
    shot = scene.plan.shots[1]
    for dt in (-0.5, 0.6, 1.8):
        first = player_overlays(shot, shot.strike_s + dt, scene.camera, scene.plan.table)
        again = player_overlays(shot, shot.strike_s + dt, scene.camera, scene.plan.table)
        assert len(first) == len(again) > 0
        assert all(_same(a, b) for a, b in zip(first, again, strict=True))
