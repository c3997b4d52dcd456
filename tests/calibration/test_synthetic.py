"""The table finder and the camera fit on frames of the project's own renderer
(vision/synthetic) and on the sample clips in sample_videos/.

The renderer paints the cloth over the cushions, so its cushion edge lies on the cloth plane:
the finder runs with nose_height_mm=0 here (a real table's edge is the raised nose).
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import BALL_CENTRE_HEIGHT_MM
from calibration.find import FindOptions, find_table
from calibration.fit import CameraPrior, fit_camera_report
from calibration.io import CORNER_NAMES, table_from_json
from calibration.table import TableSpec

cameras = pytest.importorskip("vision.synthetic.cameras")
table_image = pytest.importorskip("vision.synthetic.table_image")

ROOT = Path(__file__).resolve().parents[2]
TABLE = TableSpec()
SIZE = (1280, 720)
HEADS = {"top": None, "broadcast": "right", "corner": "bottom"}
"""Where each preset puts the head in the image (None: the default rule finds it)."""
CASES = [
    ("top", "green"),
    ("top", "grey"),
    ("broadcast", "blue"),
    ("corner", "green"),
    ("corner", "red"),
]


def _truth_corners(camera: object) -> np.ndarray:
    xy = np.array([TABLE.corners_xy_mm()[name] for name in CORNER_NAMES])
    return np.asarray(camera.project(xy))  # type: ignore[attr-defined]


@pytest.mark.parametrize(("preset", "cloth"), CASES, ids=[f"{p}-{c}" for p, c in CASES])
def test_rendered_corners_within_3_px(preset: str, cloth: str) -> None:
    camera = cameras.preset_camera(preset, TABLE, SIZE)
    frame = table_image.render_table(
        camera, TABLE, cloth, table_image.Lighting(), np.random.default_rng(0)
    )
    options = FindOptions(head=HEADS[preset], nose_height_mm=0.0)
    finding = find_table([frame], TABLE, options)
    found = np.array([finding.calibration.corners_px[name] for name in CORNER_NAMES])
    errors = np.linalg.norm(found - _truth_corners(camera), axis=1)
    assert errors.max() < 3.0, errors


@pytest.mark.parametrize("preset", list(HEADS), ids=list(HEADS))
def test_ball_centres_from_true_pixels_within_2_mm(preset: str) -> None:
    truth = cameras.preset_camera(preset, TABLE, SIZE)
    corners = dict(zip(CORNER_NAMES, map(tuple, _truth_corners(truth)), strict=True))
    # The presets crop the frame around the table, moving the principal point off the
    # image centre; a user with such a camera gives it (it cannot be measured from 4 corners).
    centre = (float(truth.camera_matrix[0, 2]), float(truth.camera_matrix[1, 2]))
    fit = fit_camera_report(corners, TABLE, SIZE, CameraPrior(principal_point=centre))
    rng = np.random.default_rng(5)
    xy = rng.uniform([0.0, 0.0], [TABLE.length_mm, TABLE.width_mm], size=(500, 2))
    found = fit.camera.to_table(truth.project(xy, BALL_CENTRE_HEIGHT_MM))
    assert np.linalg.norm(found - xy, axis=1).max() < 2.0


def _sample_clips() -> list[Path]:
    return sorted(p for p in (ROOT / "sample_videos").glob("*") if (p / "video.mp4").exists())


@pytest.mark.slow
@pytest.mark.parametrize("clip", _sample_clips(), ids=lambda p: p.name)
def test_sample_clip_corners_within_3_px(clip: Path) -> None:
    truth = json.loads((clip / "calibration.json").read_text())
    capture = cv2.VideoCapture(str(clip / "video.mp4"))
    count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    frames: list[np.ndarray] = []
    for index in np.linspace(0, max(count - 1, 0), 15).astype(int):
        capture.set(cv2.CAP_PROP_POS_FRAMES, int(index))  # spread over the clip: arms move
        ok, frame = capture.read()
        if ok:
            frames.append(np.asarray(frame, dtype=np.uint8))
    capture.release()
    synth = json.loads((clip / "synth.json").read_text()) if (clip / "synth.json").exists() else {}
    options = FindOptions(head=HEADS.get(synth.get("camera", "top")), nose_height_mm=0.0)
    finding = find_table(frames, table_from_json(truth), options)
    for name in CORNER_NAMES:
        error = np.hypot(
            *np.subtract(finding.calibration.corners_px[name], truth["corners_px"][name])
        )
        assert error < 3.0, (name, error)
