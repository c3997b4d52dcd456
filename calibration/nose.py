"""Which straight edge along a side is the cushion nose.

Going inward from the rail, the lit cushion top ends at the nose, where the cloth darkens into
the shadow (or the face) under it. Real tables, renderings and lights differ, so the rules
here look at the edge's light step, its colour step and what lies outside it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray
from calibration.lines import EdgeLine

MIN_DARKENING = 3.0
"""Lightness gradient (Lab units per px, inward) below minus this marks a darkening edge; an
edge whose whole Lab step is under it is too faint to be a cushion at all."""

SAME_COLOUR = 0.65
"""An edge whose chroma change is below this share of its lightness change is light and shade
on one cloth, not a change of material."""

CLOTH_CHROMA = 12.0
"""Below this Lab chroma a cloth counts as grey, and the cushion top outside a nose must then
be within this chroma distance of it."""

OUTSIDE_SAMPLE_PX = 4.0
"""How far outside a nose candidate its outer side is sampled (clear of the edge's blur)."""

MIN_CUSHION_LIGHTNESS = 0.45
"""Least lightness, as a share of the cloth's, of a cushion top outside a nose."""

MIN_TOP_STEP = 1.5
"""Least lightness gradient (Lab units per px) of the line where a cushion top seen from
behind its rail meets the bed: the top is the bed's cloth, only turned a little, so the
step is faint (broadcast-8ball game2's near cushion: 2.0, the rail's edge outside it 8.9)."""

MAX_HUE_TURN_DEG = 25.0
"""Largest hue difference between the cloth and the cushion top outside a nose; raising it
lets a rail of a similar colour pass for a cushion."""


def pick_nose(
    candidates: list[EdgeLine], lab: NDArray[np.float32], cloth_lab: FloatArray
) -> tuple[EdgeLine | None, bool]:
    """The cushion line among the straight edges along a side, and whether it is the nose.

    Going inward from the rail, the lit cushion top ends at the nose, where the cloth darkens
    into the shadow (or the face) under it; the shadow's inner edge (brightening) is not a
    cushion feature. So the nose is the outermost edge that darkens without changing colour
    and has cloth on its outer side; failing that, the innermost clear edge (where the flat
    bed starts, at the foot of the cushion's face; faint lines such as a cue's shadow or the
    weave do not count); failing that, the cloth boundary itself. A side the camera is
    behind is picked again by `nose_seen_from_behind`.
    """
    noses = [
        edge
        for edge in candidates
        if edge.lightness_step < -MIN_DARKENING
        and edge.chroma_step < SAME_COLOUR * abs(edge.lightness_step)
        and _cloth_outside(edge, lab, cloth_lab)
    ]
    if noses:
        return min(noses, key=lambda edge: edge.inset_px), True
    clear = [e for e in candidates if np.hypot(e.lightness_step, e.chroma_step) >= MIN_DARKENING]
    if clear:
        return max(clear, key=lambda edge: edge.inset_px), False
    return None, False


def _cloth_outside(edge: EdgeLine, lab: NDArray[np.float32], cloth_lab: FloatArray) -> bool:
    """Whether the pixels just outside the edge have the cloth's hue (a cushion top)."""
    normal = edge.line[:2]
    inward_sign = np.sign(np.mean(edge.points_px @ normal + edge.line[2]) - 0.0) or 1.0
    centre = np.array([lab.shape[1] / 2.0, lab.shape[0] / 2.0])
    toward_centre = np.sign(centre @ normal + edge.line[2]) or inward_sign
    outside = edge.points_px - OUTSIDE_SAMPLE_PX * toward_centre * normal
    u = np.clip(np.round(outside[:, 0]).astype(int), 0, lab.shape[1] - 1)
    v = np.clip(np.round(outside[:, 1]).astype(int), 0, lab.shape[0] - 1)
    outside_lab = np.median(lab[v, u], axis=0)
    if outside_lab[0] < MIN_CUSHION_LIGHTNESS * cloth_lab[0]:
        return False  # too dark for a cushion top: a pocket, a black rail or the floor
    chroma = outside_lab[1:] - 128.0
    reference = cloth_lab[1:] - 128.0
    if np.hypot(*reference) < CLOTH_CHROMA:  # a grey cloth: the outside must be grey too
        return bool(np.hypot(*(chroma - reference)) < CLOTH_CHROMA)
    cosine = chroma @ reference / (np.linalg.norm(chroma) * np.linalg.norm(reference) + 1e-9)
    return bool(cosine > np.cos(np.radians(MAX_HUE_TURN_DEG)))


def nose_seen_from_behind(
    candidates: list[EdgeLine], lab: NDArray[np.float32], cloth_lab: FloatArray
) -> EdgeLine | None:
    """The nose of a cushion the camera is behind (a slanted view from behind a rail).

    Such a camera sees no face under the nose, only the cushion's top running into the bed:
    no edge darkens, and `pick_nose` falls back to the cloth's edge, where the rail meets the
    top, a cushion's width too far out (broadcast-8ball game2: 13 px, about 30 mm). The nose
    is then the innermost edge of one colour with cloth outside it, however faint (the top is
    the bed's cloth, only turned a little). None when no edge qualifies.
    """
    tops = [
        edge
        for edge in candidates
        if abs(edge.lightness_step) >= MIN_TOP_STEP
        and edge.chroma_step < SAME_COLOUR * abs(edge.lightness_step)
        and _cloth_outside(edge, lab, cloth_lab)
    ]
    return max(tops, key=lambda edge: edge.inset_px) if tops else None
