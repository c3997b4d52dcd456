"""vision.cloth: where a ball's centre may lie, the band along the cushions, the cloth model."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.table import TableSpec
from tests.vision.scenes import calibration_for, hand_overlay, render_scene
from vision.cloth import (
    ClothModel,
    TableView,
    centre_outline_mm,
    surface_outline_mm,
    with_static_edges,
)
from vision.detector import BallDetector
from vision.synthetic.cameras import preset_camera

TABLE = TableSpec()
R = TABLE.ball_radius_mm


def _inside(outline: np.ndarray, point: tuple[float, float]) -> bool:
    contour = outline.astype(np.float32).reshape(-1, 1, 2)
    # Signed distance: points on the outline itself (within rounding) count as inside.
    return cv2.pointPolygonTest(contour, point, measureDist=True) >= -1e-3


@pytest.mark.parametrize(
    ("point", "expected"),
    [
        ((22.3, 64.6), True),  # hanging on the head-left corner's lip (a rendered clip's 10)
        ((TABLE.length_mm - 64.6, TABLE.width_mm - 22.3), True),  # the same at foot-right
        ((0.6 * R, 0.6 * R), False),  # over the pocket hole
        ((0.3 * R, TABLE.width_mm / 2), False),  # inside the side cushion's nose
        ((TABLE.length_mm / 2, TABLE.width_mm / 2), True),
    ],
    ids=["lip-head-left", "lip-foot-right", "hole", "cushion", "middle"],
)
def test_a_centre_may_lie_on_a_corner_pocket_lip_but_not_over_the_hole(
    point: tuple[float, float], expected: bool
) -> None:
    outline = centre_outline_mm(TABLE, 0.5 * R, 0.25 * R)
    assert _inside(outline, point) is expected


def test_without_a_shelf_the_centre_outline_stops_at_the_jaw_line() -> None:
    outline = centre_outline_mm(TABLE, 0.5 * R, 0.0)
    jaw = TABLE.corner_mouth_mm / np.sqrt(2.0)
    # The head-left cut runs along u + v = jaw, the line between the two jaw points.
    np.testing.assert_allclose(outline[0].sum(), jaw)
    np.testing.assert_allclose(outline[-1].sum(), jaw)
    # It reaches no farther than the playing surface anywhere.
    surface = surface_outline_mm(TABLE, 0.0)
    assert all(_inside(surface, (float(u), float(v))) for u, v in outline)


def test_an_uncalibrated_view_has_a_band_along_its_border() -> None:
    mask = np.zeros((200, 300), np.uint8)
    mask[20:180, 30:270] = 1
    view = TableView.uncalibrated(mask, radius_px=5.0)
    band = view.edge_band > 0
    assert not band[100, 150]  # the middle
    assert band[22, 150] and band[100, 32] and band[100, 268]
    # About two ball diameters (4 radii) wide, and only on the region.
    assert band[100, 30:60].sum() == pytest.approx(20, abs=2)
    assert not np.any(band & (mask == 0))


@pytest.mark.parametrize(
    ("notch", "closed"),
    [
        ("ball", True),  # a ball half a radius into the region, left out by colour
        ("pocket", False),  # a pocket's mouth, five radii wide
        ("off_the_frame", False),  # a marker on a rail where the region runs off the picture
    ],
    ids=["ball", "pocket", "off_the_frame"],
)
def test_an_uncalibrated_region_is_closed_over_notches_a_ball_wide(
    notch: str, closed: bool
) -> None:
    radius = 8
    mask = np.zeros((200, 300), np.uint8)
    mask[20:180, 30:270] = 1
    probe = (175, 150)
    if notch == "off_the_frame":
        mask[:, :30] = 1
        cv2.rectangle(mask, (0, 92), (11, 107), 0, -1)
        probe = (100, 5)
    elif notch == "ball":
        cv2.circle(mask, (150, 175), radius, 0, -1)
    else:
        cv2.circle(mask, (150, 179), int(2.5 * radius), 0, -1)
    view = TableView.uncalibrated(mask, radius_px=float(radius))
    assert bool(view.valid[probe]) is closed
    # The rest of the region is what it was.
    assert view.valid[100, 150] and not view.valid[10, 150] and not view.valid[185, 150]


def test_the_cloth_model_knows_its_brightest_channel() -> None:
    bgr = np.empty((10, 10, 3), np.float32)
    bgr[:] = (40, 35, 135)
    assert ClothModel(bgr=bgr, noise=1.0).channel == 2


def test_a_dark_sleeve_does_not_darken_the_cloth_model_around_it() -> None:
    # Lit cloth with a dark navy sleeve across it: a shadow-tolerant distance keeps the
    # sleeve close to the cloth, but it must not be averaged into the cloth's colour.
    image = np.empty((240, 400, 3), np.uint8)
    image[:] = (104, 110, 113)
    cv2.line(image, (120, 240), (400, 60), (60, 40, 38), 24)
    view = TableView.uncalibrated(np.ones((240, 400), np.uint8), radius_px=10.0)
    cloth = ClothModel.learn(image, view, dark_ratio=0.35)
    sleeve = cv2.line(np.zeros((240, 400), np.uint8), (120, 240), (400, 60), 1, 24) > 0
    beside = cv2.dilate(sleeve.astype(np.uint8), np.ones((31, 31), np.uint8)) > 0
    lit = beside & ~sleeve
    error = np.abs(cloth.bgr[lit] - np.array([104, 110, 113], np.float32)).max()
    assert error < 3.0


@pytest.mark.parametrize(
    ("colour", "kept"),
    [((40, 40, 200), True), ((220, 225, 230), True), ((20, 45, 30), False)],
    ids=["red_ball", "white_ball", "dark_cloth_coloured"],
)
def test_a_ball_against_the_cushion_is_never_taken_for_static_background(
    colour: tuple[int, int, int], kept: bool
) -> None:
    # Green cloth with a darker cushion face along the top border, and a ball-sized disc
    # against it that the detector might have missed: a ball of another hue must stay out of
    # the static background, a dark cloth-coloured thing (a jaw, a shadow) need not.
    image = np.empty((200, 300, 3), np.uint8)
    image[:] = (60, 140, 40)
    image[:12] = (40, 95, 27)
    cv2.circle(image, (150, 20), 8, colour, -1)
    region = np.zeros((200, 300), np.uint8)
    region[1:-1, 1:-1] = 1
    view = TableView.uncalibrated(region, radius_px=8.0)
    cloth = with_static_edges(
        ClothModel.learn(image, view, dark_ratio=0.35), image, view.edge_band > 0
    )
    # The cushion face far from the ball is background now; the ball is not, when kept.
    assert np.abs(cloth.bgr[5, 60] - (40, 95, 27)).max() < 2.0
    at_ball = np.abs(cloth.bgr[20, 150] - np.array(colour, np.float32)).max()
    assert bool(at_ball > 40.0) is kept


@pytest.mark.parametrize("preset", ["corner", "broadcast", "top"])
def test_the_band_of_static_things_leaves_out_the_cloth_the_camera_sees(preset: str) -> None:
    camera = preset_camera(preset, TABLE, (1280, 720))
    view = TableView.from_calibration(calibration_for(camera))
    band = view.edge_band > 0

    def at(x_mm: float, y_mm: float, height_mm: float = 0.0) -> bool:
        u, v = np.round(camera.project(np.array([[x_mm, y_mm]]), height_mm)[0]).astype(int)
        return bool(band[v, u])

    # Cloth a ball's radius inside each cushion is seen, in every view: not in the band.
    middle = (TABLE.length_mm / 2, TABLE.width_mm / 2)
    for x, y in ((middle[0] / 2, 2 * R), (middle[0] / 2, TABLE.width_mm - 2 * R)):
        assert not at(x, y)
    # The cushion's nose, seen from anywhere, is not cloth a ball can lie on: in the band.
    assert at(middle[0] / 2, -0.3 * R, 36.0)
    assert at(middle[0] / 2, TABLE.width_mm + 0.3 * R, 36.0)


@pytest.mark.parametrize("preset", ["corner", "broadcast"])
def test_a_hand_on_the_rail_when_the_cloth_is_learned_leaves_no_ghosts(preset: str) -> None:
    # The first frame has the shooter's hands by both long cushions; when they are lifted,
    # the cloth they covered must read as cloth, not as balls.
    xy = np.array([[500.0, 300.0], [1500.0, 600.0], [1000.0, 2.0 * R]])
    hands = (hand_overlay(700.0, 60.0), hand_overlay(1300.0, TABLE.width_mm - 60.0))
    first = render_scene(xy, [0, 1, 2], seed=3, preset=preset, overlays=hands)
    later = render_scene(xy, [0, 1, 2], seed=3, preset=preset)
    detector = BallDetector(first.calibration)
    detector.learn_cloth(first.frame)
    found = detector.detect(later.frame)
    gaps = np.linalg.norm(found.xy_px[:, None, :] - later.uv_px[None, :, :], axis=2)
    assert np.all(gaps.min(axis=1) < 0.5 * found.radius_px), found.xy_px
    assert len(found) == len(xy)


@pytest.mark.parametrize(
    ("point", "expected"),
    [((22.3, 64.6), True), ((0.6 * R, 0.6 * R), False), ((TABLE.length_mm / 2, 0.2 * R), False)],
    ids=["at-the-jaw-line", "hole", "side-cushion"],
)
def test_by_default_a_centre_may_reach_a_corner_jaw_line(
    point: tuple[float, float], expected: bool
) -> None:
    camera = preset_camera("top", TABLE, (1280, 720))
    view = TableView.from_calibration(calibration_for(camera))
    u, v = np.round(camera.project(np.array([point]), R)[0]).astype(int)
    assert bool(view.centre_valid[v, u]) is expected
