"""The table finder on real footage from ../shared/footage, against corners labelled by hand.

The labels are the visible cushion noses (the inner edge of the lit cushion top), read by eye
from 8x crops of the median frame (the temporal median of 15 frames over each clip) and
intersected per corner; the finder is run with nose_height_mm=0 so that it reports the same
visible lines. Measured on 2026-11-29 (max corner error, px): top-down-real (4 clips, one
fixed camera; two are tested) 9.6 (the head cushion's top is a darker green than the bed, so
the finder takes the foot of the cushion face, 9.5 px inside the nose; the other three sides
within 1 px); stills/empty_table 2.0; broadcast-8ball game1 within 1. broadcast-8ball game2
(a slanted view from behind the near rail) is labelled the same way from lightness profiles
across each cushion, 3-4 per side (the near nose, seen from behind, is where the cushion top
meets the bed; the far one where the lit top meets the shaded face): by default the finder
is 7-14 px off (the near rail's edge and a shade line down the far face taken for noses),
with `FindOptions.slanted_noses` within 2.1 px. The table's size
measured from the balls (calibration.scale) is held against top-down-real's documented size.
The third-party footage is never copied into the repository; without it these tests skip.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.cloth import median_frame
from calibration.find import FindOptions, find_table
from calibration.io import CORNER_NAMES
from calibration.scale import measure_table
from calibration.table import TableSpec

FOOTAGE = Path(__file__).resolve().parents[2].parent / "shared" / "footage"
TOP_DOWN_NOSES = [[58.3, 78.0], [65.2, 648.5], [1181.9, 635.2], [1182.9, 81.4]]
LABELS: dict[str, tuple[list[list[float]], float]] = {
    # source: (hand-labelled corners hl, hr, fr, fl in px, largest accepted error in px)
    "top-down-real/gleitreibungskoeffizient_0000_0005.mp4": (TOP_DOWN_NOSES, 11.0),
    "top-down-real/simulation_vs_reality_1_0028_0032.mp4": (TOP_DOWN_NOSES, 11.0),
    "stills/empty_table.jpg": ([[60.2, 61.2], [81.1, 620.3], [1196.2, 622.9], [1214.4, 52.1]], 3.0),
    "broadcast-8ball/game1_clip1/game1_clip1.mp4": (
        [[165.2, 116.6], [167.3, 464.4], [860.4, 464.2], [861.7, 116.3]],
        1.5,
    ),
    "broadcast-8ball/game2_clip1/game2_clip1.mp4": (
        [[145.1, 494.7], [949.6, 486.9], [707.9, 89.1], [344.2, 91.2]],
        3.0,
    ),
}
SLANTED = {"broadcast-8ball/game2_clip1/game2_clip1.mp4"}
"""Sources found with `FindOptions.slanted_noses` (off by default: see its measurements)."""

pytestmark = [
    pytest.mark.footage,
    pytest.mark.skipif(not FOOTAGE.is_dir(), reason=f"no third-party footage at {FOOTAGE}"),
]


def _frames(path: Path) -> list[np.ndarray]:
    if path.suffix == ".jpg":
        return [np.asarray(cv2.imread(str(path)), dtype=np.uint8)]
    capture = cv2.VideoCapture(str(path))
    count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    frames = []
    for index in np.linspace(0, count - 1, 15).astype(int):
        capture.set(cv2.CAP_PROP_POS_FRAMES, int(index))
        ok, frame = capture.read()
        if ok:
            frames.append(np.asarray(frame, dtype=np.uint8))
    capture.release()
    return frames


@pytest.mark.slow
@pytest.mark.parametrize("source", list(LABELS), ids=[Path(s).stem for s in LABELS])
def test_found_noses_match_hand_labels(source: str) -> None:
    path = FOOTAGE / source
    if not path.exists():
        pytest.skip(f"{path} is absent")
    labels, tolerance = LABELS[source]
    options = FindOptions(nose_height_mm=0.0, slanted_noses=source in SLANTED)
    finding = find_table(_frames(path), TableSpec(), options)
    found = np.array([finding.calibration.corners_px[name] for name in CORNER_NAMES])
    errors = np.linalg.norm(found - np.array(labels), axis=1)
    assert errors.max() < tolerance, errors


# The top-down-real table, as its authors' code describes it (LukasSeglias/billiard-ai,
# test/billiard_detection config: innerTableLength 1881 mm, innerTableWidth 943 mm,
# ballDiameter 52.3 mm): small balls on a small table. Fitted as a 9ft table, its balls look
# (52.3 / 1881) / (57.15 / 2540) = 1.236 times a pool ball there: the "balls read 16-20 % too
# large" seen on this footage is the table, not the measurement.
TOP_DOWN_SCALE = (52.3 / 1881.0) / (57.15 / 2540.0)


@pytest.mark.slow
@pytest.mark.parametrize(
    "clip",
    [
        "null_grad_stoss_1_0003_0009",
        "simulation_vs_reality_1_0008_0011",
        "simulation_vs_reality_1_0028_0032",
    ],
)
def test_the_balls_measure_the_real_table_they_lie_on(clip: str) -> None:
    path = FOOTAGE / "top-down-real" / f"{clip}.mp4"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    frames = _frames(path)
    found = find_table([median_frame(frames)], TableSpec.from_name("9ft"))
    measured = measure_table(frames, found.calibration)
    print(
        f"{clip}: {measured.balls} balls, scale {measured.scale:.3f} (truth {TOP_DOWN_SCALE:.3f})"
    )
    # Measured 2026-11-30 over 15 frames spread over each clip: 1.166, 1.202 and 1.172
    # (29, 14 and 5 balls), 3-6 % below the truth: real balls read a little small (a glossy
    # ball's rim mirrors the cloth around it), never large. The nearest standard size, 8ft
    # (1.14), is 8 % off: the bound tells the truth from it.
    assert measured.balls >= 5
    assert abs(measured.scale / TOP_DOWN_SCALE - 1.0) < 0.07
