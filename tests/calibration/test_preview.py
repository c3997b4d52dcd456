"""draw_preview puts each drawn feature where the camera sees it."""

from __future__ import annotations

import numpy as np

from calibration.io import Calibration
from calibration.preview import CUSHION_BGR, SPOT_BGR, STRING_BGR, draw_preview
from calibration.table import Cushion
from tests.calibration.cameras import TABLE, corners_of, preset_cameras


def _colour_near(image: np.ndarray, uv: np.ndarray, colour: tuple[int, int, int]) -> bool:
    u, v = (round(float(c)) for c in uv)
    window = image[v - 2 : v + 3, u - 2 : u + 3].reshape(-1, 3).astype(float)
    target = np.array(colour, dtype=float)
    norms = np.linalg.norm(window, axis=1) * np.linalg.norm(target) + 1e-9
    # Anti-aliased thin lines are dimmer than their colour: compare the hue, not the level.
    similar = (window @ target) / norms > 0.97
    return bool(np.any(similar & (np.linalg.norm(window, axis=1) > 80)))


def test_cushions_string_and_spots_are_drawn_where_the_camera_sees_them() -> None:
    camera = preset_cameras()["corner"]
    calibration = Calibration(TABLE, camera, corners_of(camera))
    blank = np.zeros((720, 1280, 3), np.uint8)
    drawn = draw_preview(blank, calibration)
    assert drawn.shape == blank.shape and not np.shares_memory(drawn, blank)
    for cushion in Cushion:
        start, end = TABLE.cushion_segment_mm(cushion)
        middle = np.array([[(start[0] + end[0]) / 2, (start[1] + end[1]) / 2]])
        assert _colour_near(drawn, camera.project(middle, 36.3)[0], CUSHION_BGR), cushion
    string = np.array([[TABLE.head_string_x_mm, TABLE.width_mm / 3]])
    assert _colour_near(drawn, camera.project(string)[0], STRING_BGR)
    spot = np.array([[TABLE.foot_spot_mm[0] + 15.0, TABLE.foot_spot_mm[1]]])
    assert _colour_near(drawn, camera.project(spot)[0], SPOT_BGR)
    # Nothing is drawn far outside the table.
    assert not drawn[0:20, 0:20].any()
