"""The renderer draws ball centres where CameraModel.project says (both ways, same maths)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import BALL_CENTRE_HEIGHT_MM
from calibration.table import TableSpec
from vision.synthetic.balls import random_orientation
from vision.synthetic.cameras import PRESETS, preset_camera
from vision.synthetic.render import BallPoses, Overlay, Renderer
from vision.synthetic.table_image import Lighting

PLACES = [(0.5, 0.5), (0.08, 0.1), (0.93, 0.88), (0.3, 0.85), (0.75, 0.12)]
"""Ball positions as fractions of (length, width)."""


def _poses(ball: int, xy_mm: tuple[float, float], seed: int = 0) -> BallPoses:
    centre = np.array([[[*xy_mm, BALL_CENTRE_HEIGHT_MM]]])
    orientation = random_orientation(np.random.default_rng(seed))[None, None]
    return BallPoses(np.array([ball]), centre, orientation, np.ones(1), np.ones(1))


FLAT = Lighting(noise_sigma=0, shadow_strength=0)


def _silhouette(renderer: Renderer, poses: BallPoses) -> np.ndarray:
    """(H, W) bool: pixels the ball changed (shadows off, no noise)."""
    image = renderer.render(poses).astype(np.int32)
    difference: np.ndarray = np.abs(image - renderer.background.astype(np.int32)).sum(axis=2)
    return difference > 40


def _measured_centre(renderer: Renderer, poses: BallPoses) -> np.ndarray:
    """Centroid of the ball's silhouette in the rendered image."""
    rows, cols = np.nonzero(_silhouette(renderer, poses))
    assert rows.size > 20, "the ball was not drawn"
    return np.array([cols.mean(), rows.mean()])


@pytest.mark.parametrize("preset", PRESETS, ids=PRESETS)
@pytest.mark.parametrize("place", PLACES, ids=[f"{x:.2f}-{y:.2f}" for x, y in PLACES])
def test_rendered_centre_is_the_projected_truth(preset: str, place: tuple[float, float]) -> None:
    table = TableSpec()
    camera = preset_camera(preset, table, (1280, 720))
    xy = (place[0] * table.length_mm, place[1] * table.width_mm)
    renderer = Renderer(camera, table, "green", "standard", FLAT)
    truth = camera.project(np.array([xy]), BALL_CENTRE_HEIGHT_MM)[0]
    error = np.linalg.norm(_measured_centre(renderer, _poses(0, xy)) - truth)
    assert error < 0.5, f"rendered centre {error:.3f} px from the projection"


def test_ball_radius_matches_the_camera_model() -> None:
    table = TableSpec()
    camera = preset_camera("top", table, (1280, 720))
    renderer = Renderer(camera, table, lighting=FLAT)
    xy = (1270.0, 635.0)
    area = float(_silhouette(renderer, _poses(0, xy)).sum())
    expected = float(camera.ball_radius_px(np.array([xy]), table.ball_radius_mm)[0])
    assert np.sqrt(area / np.pi) == pytest.approx(expected, rel=0.08)


def test_balls_have_their_colours_and_the_tv_set_differs() -> None:
    table = TableSpec()
    camera = preset_camera("top", table, (640, 360))
    standard = Renderer(camera, table, ball_set="standard", lighting=Lighting(noise_sigma=0))
    tv = Renderer(camera, table, ball_set="tv", lighting=Lighting(noise_sigma=0))
    xy = (1000.0, 600.0)
    for ball, same in ((3, True), (4, False), (7, False)):
        a, b = standard.render(_poses(ball, xy)), tv.render(_poses(ball, xy))
        assert np.array_equal(a, b) == same, f"ball {ball}"


def test_motion_blur_spreads_a_fast_ball() -> None:
    table = TableSpec()
    camera = preset_camera("top", table, (640, 360))
    renderer = Renderer(camera, table, lighting=FLAT)
    samples = np.array([[[1000.0 + 10 * k, 600.0, BALL_CENTRE_HEIGHT_MM] for k in range(8)]])
    orientation = np.repeat(np.eye(3)[None, None], 8, axis=1)
    blurred = BallPoses(np.array([0]), samples, orientation, np.ones(1), np.ones(1))
    sharp = _poses(0, (1035.0, 600.0))
    areas = [int(_silhouette(renderer, p).sum()) for p in (sharp, blurred)]
    assert areas[1] > areas[0] * 1.3
    centre = camera.project(np.array([[1035.0, 600.0]]), BALL_CENTRE_HEIGHT_MM)[0]
    assert np.linalg.norm(_measured_centre(renderer, blurred) - centre) < 0.5


def test_noise_is_seeded_and_overlays_cover_balls() -> None:
    table = TableSpec()
    camera = preset_camera("top", table, (320, 180))
    one = Renderer(camera, table, seed=4).render(BallPoses.empty(), frame_index=2)
    two = Renderer(camera, table, seed=4).render(BallPoses.empty(), frame_index=2)
    assert np.array_equal(one, two)
    renderer = Renderer(camera, table, lighting=Lighting(noise_sigma=0))
    square = np.array([[900, 500, 200], [1100, 500, 200], [1100, 700, 200], [900, 700, 200]], float)
    image = renderer.render(_poses(0, (1000.0, 600.0)), (Overlay(square, (0, 0, 255)),))
    u, v = camera.project(np.array([[1000.0, 600.0]]), BALL_CENTRE_HEIGHT_MM)[0].round().astype(int)
    assert tuple(image[v, u]) == (0, 0, 255)


def test_distorted_cameras_are_refused() -> None:
    table = TableSpec()
    camera = preset_camera("top", table, (320, 180))
    from calibration.camera import CameraModel

    bent = CameraModel(
        camera.camera_matrix,
        camera.rotation,
        camera.translation_mm,
        camera.image_size,
        np.array([0.1, 0, 0, 0]),
    )
    with pytest.raises(ValueError, match="pinhole"):
        Renderer(bent, table)
