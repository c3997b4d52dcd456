"""find_table on frames drawn under known cameras: corners to sub-pixel, any cloth colour."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.find import FindOptions, TableNotFoundError, find_table
from calibration.fit import CameraPrior
from calibration.io import CORNER_NAMES, CalibrationError
from tests.calibration.cameras import IMAGE_SIZE, TABLE, corners_of, preset_cameras
from tests.calibration.drawn import draw_table

BALLS_MM = np.array([[600.0, 600.0], [1900.0, 600.0], [1920.0, 640.0], [300.0, 100.0]])
KNOWN_HEIGHT = CameraPrior(camera_height_mm=2800.0)
CASES = [
    ("top", "green"),
    ("top", "grey"),
    ("tilted", "blue"),
    ("broadcast", "red"),
    ("broadcast", "green"),
    ("corner", "grey"),
    ("corner", "blue"),
]


def _corner_errors_px(found: dict[str, tuple[float, float]], camera: CameraModel) -> list[float]:
    truth = corners_of(camera)
    return [float(np.hypot(*np.subtract(found[n], truth[n]))) for n in CORNER_NAMES]


@pytest.mark.parametrize(("preset", "cloth"), CASES, ids=[f"{p}-{c}" for p, c in CASES])
def test_corners_are_found_within_a_pixel(preset: str, cloth: str) -> None:
    camera = preset_cameras()[preset]
    frame = draw_table(camera, TABLE, cloth, BALLS_MM)
    # Straight down, the camera height is unobservable; the noses are lowered to the cloth
    # by an amount that depends on it, so give it as a user would.
    prior = CameraPrior(camera_height_mm=float(camera.centre_mm[2]) if preset == "top" else None)
    finding = find_table([frame], TABLE, FindOptions(prior=prior))
    assert max(_corner_errors_px(finding.calibration.corners_px, camera)) < 1.0
    assert finding.confidence > 0.5
    assert finding.fit.reprojection_error_px < 1.0


def test_straight_down_with_the_default_height_stays_within_two_pixels() -> None:
    camera = preset_cameras()["top"]  # 2.8 m up; the default assumes 2.5 m
    finding = find_table([draw_table(camera, TABLE, "red")], TABLE)
    assert max(_corner_errors_px(finding.calibration.corners_px, camera)) < 2.0
    assert finding.fit.focal_source == "assumed"


def test_median_of_a_clip_removes_a_player_leaning_over_the_rail() -> None:
    camera = preset_cameras()["tilted"]
    frames = []
    for k in range(7):
        frame = draw_table(camera, TABLE, "green", BALLS_MM + 150.0 * k, seed=k)
        u = 150 + 160 * k
        frame[0:260, u : u + 120] = (40, 50, 60)  # a dark sleeve across the far rail
        frames.append(frame)
    finding = find_table(frames, TABLE)
    assert max(_corner_errors_px(finding.calibration.corners_px, camera)) < 1.0


@pytest.mark.parametrize("head", ["left", "right"], ids=["left", "right"])
def test_head_rule_names_the_corners(head: str) -> None:
    hint = (1.0, 0.0, 0.0) if head == "left" else (-1.0, 0.0, 0.0)
    middle = (TABLE.length_mm / 2, TABLE.width_mm / 2, 0.0)
    camera = CameraModel.look_at((middle[0], middle[1], 2800.0), middle, IMAGE_SIZE, 1100.0, hint)
    frame = draw_table(camera, TABLE, "blue")
    finding = find_table([frame], TABLE, FindOptions(head=head, prior=KNOWN_HEIGHT))
    assert max(_corner_errors_px(finding.calibration.corners_px, camera)) < 1.0


def test_rack_at_the_left_puts_the_head_on_the_right() -> None:
    middle = (TABLE.length_mm / 2, TABLE.width_mm / 2, 0.0)
    camera = CameraModel.look_at(
        (middle[0], middle[1], 2800.0), middle, IMAGE_SIZE, 1100.0, (-1.0, 0.0, 0.0)
    )
    rack = np.array(list(TABLE.rack_positions_mm().values()))
    frame = draw_table(camera, TABLE, "green", rack)
    finding = find_table([frame], TABLE, FindOptions(prior=KNOWN_HEIGHT))
    assert max(_corner_errors_px(finding.calibration.corners_px, camera)) < 1.0
    assert any("rack" in note for note in finding.notes)


def test_a_frame_without_a_table_is_refused() -> None:
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 255, size=(720, 1280, 3), dtype=np.uint8)
    with pytest.raises(TableNotFoundError):
        find_table([noise], TABLE)


def test_a_table_cut_off_by_the_frame_is_refused() -> None:
    middle = (TABLE.length_mm / 2, TABLE.width_mm / 2, 0.0)
    camera = CameraModel.look_at((middle[0], middle[1], 1500.0), middle, IMAGE_SIZE, 1100.0)
    with pytest.raises(TableNotFoundError):
        find_table([draw_table(camera, TABLE, "green")], TABLE)


def test_a_distorted_lens_is_undone_when_its_coefficients_are_given() -> None:
    base = preset_cameras()["tilted"]
    coefficients = np.array([-0.22, 0.05, 0.0, 0.0, 0.0])
    camera = CameraModel(
        base.camera_matrix, base.rotation, base.translation_mm, base.image_size, coefficients
    )
    frame = draw_table(camera, TABLE, "green", BALLS_MM)
    prior = CameraPrior(focal_px=1000.0, distortion=tuple(coefficients))
    finding = find_table([frame], TABLE, FindOptions(prior=prior))
    assert max(_corner_errors_px(finding.calibration.corners_px, camera)) < 1.0
    assert np.allclose(finding.calibration.camera.distortion, coefficients)
    with pytest.raises(CalibrationError, match="focal"):
        find_table([frame], TABLE, FindOptions(prior=CameraPrior(distortion=(-0.2, 0, 0, 0))))


@pytest.mark.parametrize("k1", [-0.22, -0.4], ids=["wide", "fisheye"])
def test_an_unknown_barrel_lens_is_found_from_the_bent_cushions(k1: float) -> None:
    """No lens given: the pinhole table's bent cushions fit straight lines poorly (corners
    10 / 42 px off, confidence 0.24 / 0.04); the lens search (calibration.lens) straightens
    them. Measured: corners within 1.1 / 0.4 px, confidence 1.0, k1 -0.23 / -0.39."""
    base = preset_cameras()["tilted"]
    coefficients = np.array([k1, 0.05, 0.0, 0.0, 0.0])
    camera = CameraModel(
        base.camera_matrix, base.rotation, base.translation_mm, base.image_size, coefficients
    )
    frame = draw_table(camera, TABLE, "green", BALLS_MM)
    pinhole = find_table([frame], TABLE, FindOptions(lens_search=False))
    finding = find_table([frame], TABLE)
    assert max(_corner_errors_px(pinhole.calibration.corners_px, camera)) > 3.0
    assert max(_corner_errors_px(finding.calibration.corners_px, camera)) < 1.5
    assert finding.confidence > pinhole.confidence + 0.3
    assert finding.calibration.camera.distortion[0] == pytest.approx(k1, abs=0.05)
    assert any("bent by the lens" in note for note in finding.notes)
    inside = np.array([[300.0, 200.0], [TABLE.length_mm / 2, TABLE.width_mm / 2]])
    error = finding.calibration.camera.project(inside) - camera.project(inside)
    assert np.max(np.hypot(*error.T)) < 1.5


def test_a_straight_lens_is_left_alone() -> None:
    """Searched whatever its confidence, a pinhole camera's table keeps no lens: the
    climb's first steps bend straight cushions and lose confidence."""
    from calibration.lens import search_lens

    camera = preset_cameras()["broadcast"]
    frame = draw_table(camera, TABLE, "red", BALLS_MM)
    pinhole = find_table([frame], TABLE, FindOptions(lens_search=False))
    assert search_lens(frame, TABLE, FindOptions(), pinhole) is pinhole
