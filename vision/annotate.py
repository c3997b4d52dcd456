"""Drawing detections on a frame for a person to check."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.types import Detections, ball_name

_TEXT_BGR = (255, 255, 255)
_OUTLINE_BGR = (0, 0, 0)


def _colour(confidence: float) -> tuple[int, int, int]:
    """Green for sure detections, through yellow, to red for doubtful ones (BGR)."""
    level = float(np.clip(confidence, 0.0, 1.0))
    return (0, int(255 * level), int(255 * (1.0 - level)))


def annotate(
    image: NDArray[np.uint8],
    detections: Detections,
    outline_px: NDArray[np.floating] | None = None,
) -> NDArray[np.uint8]:
    """A copy of a BGR frame with each ball circled and labelled "name p% c%".

    The circle's colour shows the detection confidence (green sure, red doubtful); the
    label gives the most probable ball, its probability and the confidence.

    Args:
        image: (H, W, 3) uint8 BGR frame.
        detections: the balls found in it.
        outline_px: (K, 2) optional polygon (e.g. the table's cloth outline) drawn in blue.
    """
    out = image.copy()
    if outline_px is not None and len(outline_px):
        points = np.round(np.asarray(outline_px) * 4).astype(np.int32)
        cv2.polylines(out, [points], True, (255, 128, 0), 1, cv2.LINE_AA, shift=2)
    scale = max(0.35, min(0.6, image.shape[0] / 1600.0))
    for k in range(len(detections)):
        u, v = (float(x) for x in detections.xy_px[k])
        radius = float(detections.radius_px[k])
        colour = _colour(float(detections.confidence[k]))
        centre = (round(u * 4), round(v * 4))
        cv2.circle(out, centre, round(radius * 4), colour, 1, cv2.LINE_AA, shift=2)
        cv2.circle(out, centre, 4, colour, -1, cv2.LINE_AA, shift=2)
        label = int(detections.label[k])
        text = (
            f"{ball_name(label)} {100 * detections.class_prob[k, label]:.0f}% "
            f"c{100 * detections.confidence[k]:.0f}"
        )
        origin = (round(u + radius + 2), round(v - radius))
        cv2.putText(
            out, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, _OUTLINE_BGR, 3, cv2.LINE_AA
        )
        cv2.putText(out, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, _TEXT_BGR, 1, cv2.LINE_AA)
    return out
