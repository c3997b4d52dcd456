"""vision.table_view: how far inside the cushion noses a ball's centre must lie
(`TableView.from_calibration`'s `centre_inset_radii`), on the sample clips' calibrations."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from calibration.camera import BALL_CENTRE_HEIGHT_MM
from calibration.io import load_calibration
from vision.table_view import TableView

SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"
CLIPS = ["top_break_green", "corner_lip_stay_8ft_green", "broadcast_nudge_safety_8ft_blue"]


def _valid_at(view: TableView, xy_mm: tuple[float, float]) -> bool:
    assert view.camera is not None
    u, v = view.camera.project(np.array([xy_mm]), BALL_CENTRE_HEIGHT_MM)[0]
    return bool(view.centre_valid[round(float(v)), round(float(u))])


@pytest.mark.parametrize("clip", CLIPS)
def test_a_wider_inset_refuses_centres_on_the_cushion_but_keeps_frozen_balls(clip: str) -> None:
    calibration = load_calibration(SAMPLES / clip / "calibration.json")
    table = calibration.table
    radius = table.ball_radius_mm
    narrow = TableView.from_calibration(calibration, lip_shelf_radii=1.5)
    wide = TableView.from_calibration(calibration, lip_shelf_radii=1.5, centre_inset_radii=0.75)
    middle = table.width_mm / 2.0
    for length_mm in (0.3 * table.length_mm, 0.7 * table.length_mm):
        # A centre 0.6 radii from the long cushion's nose: on the cushion, not a ball on the
        # cloth (a shadow or a hand on the rail); the narrow inset takes it, the wide one not.
        on_cushion = (length_mm, 0.6 * radius)
        assert _valid_at(narrow, on_cushion)
        assert not _valid_at(wide, on_cushion)
        # A ball frozen to that cushion (its centre one radius in) is kept by both.
        frozen = (length_mm, 1.05 * radius)
        assert _valid_at(narrow, frozen) and _valid_at(wide, frozen)
    # The end cushions alike.
    assert not _valid_at(wide, (table.length_mm - 0.6 * radius, middle))
    assert _valid_at(wide, (table.length_mm - 1.05 * radius, middle))
    # A ball hanging on a corner pocket's lip (past the jaw line) is kept by both: the cut
    # along the jaws does not move with the inset.
    lip = (22.3, 64.6)
    assert _valid_at(narrow, lip) and _valid_at(wide, lip)
