"""vision.cloth: where a ball's centre may lie, the band along the cushions, the cloth model."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.table import TableSpec
from vision.cloth import ClothModel, TableView, centre_outline_mm, surface_outline_mm

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


def test_the_cloth_model_knows_its_brightest_channel() -> None:
    bgr = np.empty((10, 10, 3), np.float32)
    bgr[:] = (40, 35, 135)
    assert ClothModel(bgr=bgr, noise=1.0).channel == 2
