"""Cheap equivalents of numpy helpers the tracking hot path calls every frame.

``np.flatnonzero`` ravels its argument through two Python-level wrappers before asking
``nonzero``; on the (11,) masks tracking works with that wrapping costs more than the search
itself. For a 1-D mask ``mask.nonzero()[0]`` is the same array, a few times faster.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def true_indices(mask: NDArray[np.bool_]) -> NDArray[np.intp]:
    """(K,) indices of the true entries of a 1-D ``mask``, ascending (``np.flatnonzero``).

    Raises:
        ValueError: ``mask`` is not 1-D.
    """
    if mask.ndim != 1:
        raise ValueError(f"true_indices needs a 1-D mask, got shape {mask.shape}")
    result: NDArray[np.intp] = mask.nonzero()[0]
    return result


def row_norms(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """(N,) Euclidean norm of each row of a (N, D) array: ``np.linalg.norm(x, axis=1)``.

    The same operations numpy runs for that call (``sqrt(add.reduce(x * x, axis=1))``, so the
    same bits), without its argument checks and dispatch.

    Raises:
        ValueError: ``x`` is not 2-D.
    """
    if x.ndim != 2:
        raise ValueError(f"row_norms needs a (N, D) array, got shape {x.shape}")
    result: NDArray[np.float64] = np.sqrt(np.add.reduce(x * x, axis=1))
    return result
