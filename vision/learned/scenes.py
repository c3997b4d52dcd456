"""Random rendered table scenes with exact ball boxes, for training and testing a detector.

Each scene varies what a detector must not depend on: camera preset, cloth colour, ball set,
table size, lamp position, brightness, sensor noise and shadow strength; the balls are
scattered (some frozen to cushions, some moving fast enough to blur) or racked, and a hand,
a cue or a chalk cube may lie over the table. A ball whose centre is under one of those is
not labelled (it cannot be seen).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from calibration.io import Calibration
from calibration.table import TableSpec
from vision.synthetic.balls import random_orientation
from vision.synthetic.cameras import preset_camera
from vision.synthetic.render import BallPoses, Overlay, Renderer
from vision.synthetic.table_image import CLOTH_BGR, Lighting

PRESET_WEIGHTS = {"top": 0.5, "broadcast": 0.25, "corner": 0.25}
TABLES = ("9ft", "8ft", "7ft")
BLUR_SAMPLES = 7


@dataclass(frozen=True, slots=True, eq=False)
class LabelledImage:
    """One rendered frame and its truth.

    Attributes:
        image: (H, W, 3) uint8 BGR.
        ball: (N,) int64 classes of the visible balls (0 cue, 1..10).
        centre_px: (N, 2) float64 ball centres (mid-exposure), pixels.
        box_xyxy: (N, 4) float64 boxes around each ball's visible extent (blur included).
        calibration: the table and camera it was rendered with.
    """

    image: NDArray[np.uint8]
    ball: NDArray[np.int64]
    centre_px: NDArray[np.float64]
    box_xyxy: NDArray[np.float64]
    calibration: Calibration


def _lighting(rng: np.random.Generator, table: TableSpec) -> Lighting:
    return Lighting(
        brightness=float(rng.uniform(0.65, 1.3)),
        light_xy_mm=(
            float(rng.uniform(0.2, 0.8) * table.length_mm),
            float(rng.uniform(0.2, 0.8) * table.width_mm),
        ),
        falloff_mm=float(rng.uniform(1400.0, 4000.0)),
        light_dir=(float(rng.uniform(-0.4, 0.4)), float(rng.uniform(-0.4, 0.4)), 1.0),
        noise_sigma=float(rng.uniform(0.5, 5.0)),
        shadow_strength=float(rng.uniform(0.2, 0.75)),
    )


def scatter_mm(rng: np.random.Generator, count: int, table: TableSpec) -> NDArray[np.float64]:
    """(count, 2) random non-overlapping ball centres, a fifth frozen to a long cushion,
    none in a pocket's mouth."""
    radius = table.ball_radius_mm
    pockets = table.pockets_xy_mm()
    points: list[NDArray[np.float64]] = []
    for _ in range(200 * count):
        if len(points) == count:
            break
        p = rng.uniform([radius, radius], [table.length_mm - radius, table.width_mm - radius])
        if rng.random() < 0.2:
            p[1] = radius if rng.random() < 0.5 else table.width_mm - radius
        apart = all(np.hypot(*(p - q)) > 2.0 * radius + 0.5 for q in points)
        if apart and np.min(np.hypot(*(pockets - p).T)) > 2.5 * radius + 60.0:
            points.append(p)
    return np.array(points).reshape(-1, 2)


def _layout(
    rng: np.random.Generator, table: TableSpec
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Classes and centres of the balls of one scene (a rack plus the cue ball, or a
    scatter of a random subset, sometimes in tight clusters)."""
    if rng.random() < 0.2:
        order = [int(b) for b in rng.permutation(np.arange(2, 10))]
        positions = table.rack_positions_mm(order)
        gap = rng.uniform(0.0, 1.5, (len(positions), 2))  # a loose rack
        balls = np.array(sorted(positions), np.int64)
        xy = np.array([positions[int(b)] for b in balls]) + gap * np.array([1.0, 0.3])
        cue = scatter_mm(rng, 1, table)
        return np.concatenate([[0], balls]), np.vstack([cue, xy])
    count = int(rng.integers(1, 12))
    balls = np.sort(rng.choice(11, size=count, replace=False)).astype(np.int64)
    return balls, scatter_mm(rng, count, table)[: len(balls)]


OVERLAYS: dict[str, tuple[tuple[tuple[float, float], ...], float, tuple[int, int, int]]] = {
    "hand": (((-90, -45), (90, -45), (100, 45), (-90, 50)), 60.0, (120, 150, 200)),
    "cue": (((0, -6.5), (0, 6.5), (-900, 14.5), (-900, -14.5)), 40.0, (90, 170, 215)),
    "chalk": (((-11, -11), (11, -11), (11, 11), (-11, 11)), 22.0, (160, 90, 30)),
}
"""Things over the table: outline (mm, around its own centre), height above the cloth, BGR."""


def _overlays(rng: np.random.Generator, table: TableSpec) -> tuple[Overlay, ...]:
    """Zero to two of: a hand, a cue stick, a chalk cube, at random places and angles."""
    result = []
    for _ in range(int(rng.integers(0, 3))):
        centre = rng.uniform([0.0, 0.0], [table.length_mm, table.width_mm])
        angle = rng.uniform(0.0, np.pi)
        outline, height, colour = OVERLAYS[str(rng.choice(sorted(OVERLAYS)))]
        rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        xy = np.asarray(outline, np.float64) @ rotation.T + centre
        result.append(Overlay(np.column_stack([xy, np.full(len(xy), height)]), colour))
    return tuple(result)


def _poses(
    rng: np.random.Generator, ball: NDArray[np.int64], xy_mm: NDArray[np.float64], radius: float
) -> BallPoses:
    """Poses with a random orientation; about a quarter of the balls move during the
    exposure (up to eight radii), drawn with `BLUR_SAMPLES` sub-frame samples."""
    n = len(ball)
    moving = rng.random(n) < 0.25
    travel = rng.normal(0.0, 1.0, (n, 2))
    travel *= (rng.uniform(0.5, 8.0, n) * radius / np.maximum(np.hypot(*travel.T), 1e-9))[:, None]
    travel[~moving] = 0.0
    steps = np.linspace(-0.5, 0.5, BLUR_SAMPLES)
    centres = np.zeros((n, BLUR_SAMPLES, 3))
    centres[:, :, :2] = xy_mm[:, None, :] + steps[None, :, None] * travel[:, None, :]
    centres[:, :, 2] = radius
    orientation = np.stack([random_orientation(rng) for _ in range(n)]).reshape(n, 1, 3, 3)
    orientation = np.repeat(orientation, BLUR_SAMPLES, axis=1)
    return BallPoses(ball, centres, orientation, np.ones(n), np.ones(n))


def _boxes(camera: CameraModel, poses: BallPoses, radius_mm: float) -> NDArray[np.float64]:
    """(N, 4) xyxy pixel boxes around every sub-frame sample's disc."""
    n, samples = poses.centre_mm.shape[:2]
    flat = poses.centre_mm[:, :, :2].reshape(-1, 2)
    uv = camera.project(flat, radius_mm).reshape(n, samples, 2)
    radius = camera.ball_radius_px(flat, radius_mm).reshape(n, samples, 1)
    return np.column_stack([(uv - radius).min(axis=1), (uv + radius).max(axis=1)])


def _hidden(
    camera: CameraModel, overlays: tuple[Overlay, ...], uv: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """(N,) whether each pixel lies under one of the overlays."""
    hidden = np.zeros(len(uv), bool)
    for overlay in overlays:
        points = overlay.points_mm
        polygon = camera.project(points[:, :2], points[:, 2]).astype(np.float32).reshape(-1, 1, 2)
        for k, (u, v) in enumerate(uv):
            hidden[k] |= cv2.pointPolygonTest(polygon, (float(u), float(v)), False) >= 0
    return hidden


def calibration_for(camera: CameraModel, table: TableSpec) -> Calibration:
    """The exact calibration of a rendered view (corners projected by its own camera)."""
    corners = {
        name: (float(uv[0]), float(uv[1]))
        for name, uv in zip(
            table.corners_xy_mm(),
            camera.project(np.array(list(table.corners_xy_mm().values())), 0.0),
            strict=True,
        )
    }
    return Calibration(table=table, camera=camera, corners_px=corners)


def render_labelled(
    seed: int, image_size: tuple[int, int] = (640, 360), frames: int = 1
) -> list[LabelledImage]:
    """`frames` random layouts on one random table, camera and light, rendered at
    `image_size` (width, height), with their truth. The same arguments give the same images.
    """
    rng = np.random.default_rng(seed)
    table = TableSpec.from_name(str(rng.choice(TABLES)))
    presets = sorted(PRESET_WEIGHTS)
    preset = str(rng.choice(presets, p=[PRESET_WEIGHTS[p] for p in presets]))
    camera = preset_camera(preset, table, image_size)
    renderer = Renderer(
        camera,
        table,
        cloth=str(rng.choice(sorted(CLOTH_BGR))),
        ball_set=str(rng.choice(["standard", "tv"])),
        lighting=_lighting(rng, table),
        seed=seed,
    )
    radius = table.ball_radius_mm
    calibration = calibration_for(camera, table)
    result = []
    for index in range(frames):
        ball, xy_mm = _layout(rng, table)
        poses = _poses(rng, ball, xy_mm, radius)
        overlays = _overlays(rng, table)
        image = renderer.render(poses, overlays, frame_index=index)
        centre = camera.project(xy_mm, radius)
        visible = ~_hidden(camera, overlays, centre)
        box = _boxes(camera, poses, radius)
        result.append(
            LabelledImage(image, ball[visible], centre[visible], box[visible], calibration)
        )
    return result
