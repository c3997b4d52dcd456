"""Rendered test scenes with exact truth (builders for the detector and identifier tests).

Uses the project's renderer (vision.synthetic.render) with random ball layouts: scattered
balls, a tight rack, balls frozen to cushions, motion-blurred balls and overlays (hand, cue,
chalk) drawn over the cloth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from calibration.io import Calibration
from calibration.table import TableSpec
from vision.synthetic.balls import random_orientation
from vision.synthetic.cameras import preset_camera
from vision.synthetic.render import BallPoses, Overlay, Renderer
from vision.synthetic.table_image import Lighting
from vision.types import Frame

TABLE = TableSpec()
R_MM = TABLE.ball_radius_mm


@dataclass(frozen=True)
class Scene:
    frame: Frame
    calibration: Calibration
    ball: NDArray[np.int64]
    xy_mm: NDArray[np.float64]
    uv_px: NDArray[np.float64]


def calibration_for(camera: CameraModel, table: TableSpec = TABLE) -> Calibration:
    corners = {
        name: tuple(float(v) for v in camera.project(np.array([xy]), 0.0)[0])
        for name, xy in table.corners_xy_mm().items()
    }
    return Calibration(table=table, camera=camera, corners_px=corners)  # type: ignore[arg-type]


def scatter(rng: np.random.Generator, count: int, table: TableSpec = TABLE) -> NDArray[np.float64]:
    """(count, 2) random non-overlapping ball centres on the surface, some frozen to cushions."""
    points: list[NDArray[np.float64]] = []
    gap = 2.0 * R_MM + 3.0
    while len(points) < count:
        p = rng.uniform([R_MM, R_MM], [table.length_mm - R_MM, table.width_mm - R_MM])
        if rng.random() < 0.2:  # frozen to a long cushion
            p[1] = R_MM if rng.random() < 0.5 else table.width_mm - R_MM
        if (
            all(np.hypot(*(p - q)) > gap for q in points)
            and min(
                np.hypot(*(p - table.pocket_xy_mm(k)))
                for k in (
                    "head_left",
                    "side_left",
                    "foot_left",
                    "head_right",
                    "side_right",
                    "foot_right",
                )
            )
            > 150.0
        ):
            points.append(p)
    return np.array(points)


def render_scene(
    xy_mm: NDArray[np.float64],
    balls: NDArray[np.int64] | list[int],
    seed: int = 0,
    preset: str = "top",
    cloth: str = "green",
    ball_set: str = "standard",
    blur_mm: NDArray[np.float64] | None = None,
    overlays: tuple[Overlay, ...] = (),
    lighting: Lighting | None = None,
    image_size: tuple[int, int] = (1280, 720),
) -> Scene:
    """Render balls at `xy_mm`; `blur_mm` (N, 2) is each ball's travel during the exposure."""
    rng = np.random.default_rng(seed)
    camera = preset_camera(preset, TABLE, image_size)
    renderer = Renderer(
        camera, TABLE, cloth=cloth, ball_set=ball_set, lighting=lighting or Lighting(), seed=seed
    )
    n = len(xy_mm)
    samples = 9 if blur_mm is not None else 1
    steps = np.linspace(-0.5, 0.5, samples) if samples > 1 else np.zeros(1)
    travel = blur_mm if blur_mm is not None else np.zeros((n, 2))
    centres = np.zeros((n, samples, 3))
    centres[:, :, :2] = xy_mm[:, None, :] + steps[None, :, None] * travel[:, None, :]
    centres[:, :, 2] = R_MM
    orientation = np.zeros((n, samples, 3, 3))
    for index in range(n):
        orientation[index] = random_orientation(rng)
    poses = BallPoses(np.asarray(balls, np.int64), centres, orientation, np.ones(n), np.ones(n))
    image = renderer.render(poses, overlays)
    uv = camera.project(xy_mm, R_MM)
    return Scene(
        Frame(image, 0, 0.0), calibration_for(camera), np.asarray(balls, np.int64), xy_mm, uv
    )


def rack_xy(table: TableSpec = TABLE, seed: int = 0) -> tuple[NDArray[np.float64], list[int]]:
    rng = np.random.default_rng(seed)
    order = [int(b) for b in rng.permutation(np.arange(2, 10))]
    positions = table.rack_positions_mm(order)
    balls = sorted(positions)
    return np.array([positions[b] for b in balls]), balls


def hand_overlay(x_mm: float, y_mm: float) -> Overlay:
    """A flat hand about 90 x 180 mm with the fingers spread, 60 mm above the cloth."""
    outline = [
        (-45, -90),
        (45, -90),
        (50, 20),
        (40, 95),
        (20, 60),
        (5, 100),
        (-10, 60),
        (-25, 95),
        (-35, 55),
        (-50, 20),
    ]
    points = np.array([(x_mm + a, y_mm + b, 60.0) for a, b in outline], np.float64)
    return Overlay(points, (120, 150, 200))


def cue_overlay(x_mm: float, y_mm: float, length_mm: float = 900.0) -> Overlay:
    """A cue lying toward -x from its tip at (x, y): 13 mm at the tip, 29 mm at the butt."""
    points = np.array(
        [
            (x_mm, y_mm - 6.5, 30.0),
            (x_mm, y_mm + 6.5, 30.0),
            (x_mm - length_mm, y_mm + 14.5, 45.0),
            (x_mm - length_mm, y_mm - 14.5, 45.0),
        ]
    )
    return Overlay(points, (90, 170, 215))


def chalk_overlay(x_mm: float, y_mm: float) -> Overlay:
    """A chalk cube, 22 mm a side, blue."""
    points = np.array(
        [
            (x_mm - 11, y_mm - 11, 22.0),
            (x_mm + 11, y_mm - 11, 22.0),
            (x_mm + 11, y_mm + 11, 22.0),
            (x_mm - 11, y_mm + 11, 22.0),
        ]
    )
    return Overlay(points, (160, 90, 30))
