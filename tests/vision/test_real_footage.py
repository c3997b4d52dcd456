"""The detector and identifier on third-party real footage in ../shared/footage (skipped when
that folder is absent, as on a user's machine).

Measured, not tuned: these numbers are the baseline a change must not lower. The labelled
overhead set has no calibration, so each image gets an uncalibrated view: the cloth region
found by colour and the ball radius from that image's own labelled boxes (what a
calibration would give).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from vision.cloth import TableView
from vision.detector import BallDetector, DetectorConfig
from vision.identify import Identifier, IdentifierConfig
from vision.learned.evaluate import cloth_mask
from vision.types import Frame

FOOTAGE = Path(__file__).resolve().parents[2] / ".." / "shared" / "footage"
DATASET = FOOTAGE / "datasets" / "overhead-fisheye-balls"

pytestmark = [
    pytest.mark.footage,
    pytest.mark.skipif(not FOOTAGE.is_dir(), reason=f"real footage not present at {FOOTAGE}"),
]


def _boxes(image_path: Path) -> np.ndarray:
    """(N, 5) YOLO rows: class, centre x, centre y, width, height (fractions)."""
    label = image_path.parent.parent / "labels" / (image_path.stem + ".txt")
    rows = [line.split() for line in label.read_text().splitlines() if line.strip()]
    return np.array(rows, dtype=np.float64).reshape(-1, 5)


@pytest.mark.skipif(not DATASET.is_dir(), reason="labelled overhead data set not present")
def test_detection_on_the_labelled_overhead_test_split() -> None:
    hits = labelled = found = 0
    for path in sorted((DATASET / "test" / "images").glob("*.jpg")):
        image = cv2.imread(str(path))
        height, width = image.shape[:2]
        boxes = _boxes(path)
        if len(boxes) == 0:
            continue
        centres = boxes[:, 1:3] * [width, height]
        halves = boxes[:, 3:5] * [width, height] / 2.0
        radius = float(np.median(halves))
        view = TableView.uncalibrated(cloth_mask(image), radius)
        detector = BallDetector.from_view(view, DetectorConfig(separate_crowds=True))
        detections = detector.detect(Frame(image, 0, 0.0))
        inside = np.all(
            np.abs(detections.xy_px[None] - centres[:, None]) <= halves[:, None] + 1, axis=2
        )
        if len(detections):
            rows, cols = linear_sum_assignment(-inside.astype(np.float64))
            hits += int(inside[rows, cols].sum())
        labelled += len(boxes)
        found += len(detections)
    recall, precision = hits / labelled, hits / max(found, 1)
    print(f"overhead test split: {labelled} balls, recall {recall:.3f}, precision {precision:.3f}")
    # Measured 2026-11-30: recall 0.584, precision 0.544 (was 0.59 / 0.52: cushion ghosts
    # gone). Small, blurred balls in tight racks and clusters merge into blobs, and the
    # cloth model does not follow the lamps' falloff; see the issue 4 report.
    # With crowded blobs explained ball by ball (vision/separate.py): recall 0.617,
    # precision 0.922 (the same commit's base: 0.586 / 0.545). With an uncalibrated
    # view's border band (cushion tops of the cloth's colour) as static background:
    # recall 0.619, precision 0.935. With a crowd ball beside a large unexplained piece of
    # its blob dropped (a hand, an arm; vision.separate): recall 0.613, precision 0.965.
    assert recall >= 0.58
    assert precision >= 0.95


@pytest.mark.parametrize(
    ("folder", "minimum"), [("balls", 1.0), ("balls2", 0.8)], ids=["match1", "match2"]
)
def test_identification_of_broadcast_ball_crops(folder: str, minimum: float) -> None:
    """Crops of the cue ball and balls 1..9 from two televised matches, named as one frame
    (one ball per number). The second match's set has a purple 5 and a 9 whose stripe does
    not show in the crop, which no palette here describes."""
    pixels = []
    for ball in range(10):
        crop = cv2.imread(str(FOOTAGE / "ball-crops" / folder / f"{ball}.jpg"))
        height, width = crop.shape[:2]
        ys, xs = np.mgrid[:height, :width]
        disc = np.hypot(xs - (width - 1) / 2, ys - (height - 1) / 2) <= 0.4 * min(height, width)
        pixels.append(crop[disc])
    labels = np.argmax(Identifier(IdentifierConfig(palette="auto")).identify(pixels), axis=1)
    accuracy = float(np.mean(labels == np.arange(10)))
    print(f"{folder}: labels {labels.tolist()}, accuracy {accuracy:.2f}")
    assert accuracy >= minimum
