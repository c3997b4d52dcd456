"""Fast masks of `TrackSet.status` values.

``status == TrackStatus.ON_TABLE`` on an object array makes numpy probe the enum member for
its array protocols (each probe a failed attribute lookup through ``EnumType.__getattr__``),
tens of microseconds a call; against a 0-d object array holding the member it compares the
elements directly, the same result several times faster. The tracking hot path asks a few
of these every frame.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from tracking.types import TrackStatus

_MEMBERS = {status: np.array(status, dtype=object) for status in TrackStatus}


def status_is(status: NDArray[np.object_], value: TrackStatus) -> NDArray[np.bool_]:
    """(N,) bool: which entries of a (N,) ``TrackSet.status`` array equal ``value``."""
    result: NDArray[np.bool_] = np.equal(status, _MEMBERS[value])
    return result
