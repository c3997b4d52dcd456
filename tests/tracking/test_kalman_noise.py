"""The process noise written out in `tracking.kalman` is filterpy's, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from filterpy.common import Q_discrete_white_noise

from tracking import kalman


@pytest.mark.parametrize(
    ("dt_s", "acceleration_std_mm_s2"),
    [(1 / 25, 3000.0), (1 / 30, 1234.5), (1 / 60, 3000.0), (1 / 240, 17.0), (2 / 60, 0.0)],
    ids=["25fps", "30fps", "60fps", "240fps", "gap-no-noise"],
)
def test_process_noise_is_filterpys(dt_s: float, acceleration_std_mm_s2: float) -> None:
    expected = Q_discrete_white_noise(
        dim=2,
        dt=round(dt_s, 9),
        var=acceleration_std_mm_s2**2,
        block_size=2,
        order_by_dim=False,
    )
    got = kalman.process_noise(dt_s, acceleration_std_mm_s2)
    assert got.shape == (4, 4)
    assert np.array_equal(got, expected)
    assert not got.flags.writeable
