"""The unseen striker of a ball that left the table (tracking.blind_hits), on the sightings of
a real review: fresh broadcast 7 ft 30 fps clip (seed 1073), shot 2. The cue ball, struck at
some 8 m/s, was lost in its blur from the stroke until it was found beside the 3, which it hit
after the 1; the 1 was seen once leaving its spot toward the side pocket and dropped."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import TableSpec
from tracking.events import EventDetector

TABLE_7FT = TableSpec(length_mm=1981.0, width_mm=991.0)
DT = 1.0 / 30.0
CUE_REST = (1918.9, 318.3)
CUE_FOUND = (885.9, 797.7)
ONE_REST = np.array([1053.0, 869.7])
ONE_OFF = np.array([1029.0, 934.0])
THREE_REST = (897.7, 713.6)


def _striker(
    cue_found: tuple[float, float] = CUE_FOUND,
    one_off: np.ndarray = ONE_OFF,
    blocker: tuple[float, float] | None = None,
) -> tuple[int, float] | None:
    """`BlindHits._unseen_striker` for the 1 on frames 281-286 (9.3667-9.5333 s): the cue
    ball seen at rest on 281, unseen 282-285, found on 286; the 1 at rest to 284, off its
    spot on 285; the 3 at rest (and ``blocker``, the 5, at rest) throughout."""
    detector = EventDetector(TABLE_7FT)
    detector._dt = DT
    times = 9.3667 + DT * np.arange(6, dtype=np.float64)
    xy = np.full((6, 11, 2), np.nan, dtype=np.float64)
    xy[0, 0] = CUE_REST
    xy[5, 0] = cue_found
    xy[:4, 1] = ONE_REST
    xy[4, 1] = one_off
    xy[:, 3] = THREE_REST
    detector._alive[:] = False
    detector._alive[[0, 1, 3]] = True
    detector._anchor[3] = THREE_REST
    if blocker is not None:
        xy[:, 5] = blocker
        detector._alive[5] = True
        detector._anchor[5] = blocker
    way = one_off - ONE_REST
    step = float(np.linalg.norm(way))
    leaving = (way / step, step, (float(times[3]), float(times[4])))
    return detector._unseen_striker(1, ONE_REST, leaving, (times, xy))


def test_the_blurred_cue_ball_hit_the_one_between_its_sightings() -> None:
    found = _striker()
    assert found is not None
    striker, t_contact = found
    assert striker == 0
    # The 1 was last at rest at 9.4667 s and first seen off it at 9.5 s (truth: 9.4866 s).
    assert 9.4667 < t_contact < 9.5


@pytest.mark.parametrize(
    "case",
    ["found-too-far", "left-away-from-the-cue", "a-ball-in-the-way"],
)
def test_no_striker_when_the_paths_do_not_allow_the_contact(case: str) -> None:
    if case == "found-too-far":
        # Found 600 mm further on two frames after the contact: faster out than in.
        assert _striker(cue_found=(285.9, 797.7)) is None
    elif case == "left-away-from-the-cue":
        # The 1 left toward the cue ball's side: no contact from there sends it that way.
        assert _striker(one_off=ONE_REST - (ONE_OFF - ONE_REST)) is None
    else:
        # The 5 at rest on the cue ball's way to the contact: the cue ball would hit it first.
        assert _striker(blocker=(1500.0, 565.0)) is None
