"""Side-by-side evaluation of ball detectors: rendered frames with exact truth and real
labelled images (boxes of cue and other balls, no numbers).

A rendered ball is found when a detection lies within half its radius of the true centre
(one detection per ball, matched by the Hungarian method on distance); a real labelled ball
when a detection's centre lies inside its box (the labels are boxes drawn by hand). Times
are process CPU time per `detect` call, the first call of each detector left out (the
classical detector learns the cloth then).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from calibration.io import Calibration
from vision.learned.scenes import render_labelled
from vision.types import Detections, Frame


class Detector(Protocol):
    def detect(
        self, frame: Frame, hint_xy_px: NDArray[np.floating] | None = None
    ) -> Detections: ...


@dataclass(slots=True)
class Tally:
    """Running counts of one detector on one evaluation set."""

    balls: int = 0
    found: int = 0
    hits: int = 0
    same_class: int = 0
    frames: int = 0
    errors_px: list[float] = field(default_factory=list)
    times_s: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, float | None]:
        """recall, precision, identity (share of hits with the right class, where the
        truth has classes), median centre error (px) and median CPU ms per frame (None
        when nothing was measured)."""
        return {
            "frames": self.frames,
            "balls": self.balls,
            "recall": round(self.hits / max(self.balls, 1), 4),
            "precision": round(self.hits / max(self.found, 1), 4),
            "identity": round(self.same_class / max(self.hits, 1), 4),
            "median_centre_error_px": round(float(np.median(self.errors_px)), 3)
            if self.errors_px
            else None,
            "ms_per_frame": round(1e3 * float(np.median(self.times_s)), 2)
            if self.times_s
            else None,
        }


def match_centres(
    truth_uv: NDArray[np.floating],
    truth_radius: NDArray[np.floating],
    found_uv: NDArray[np.floating],
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Truth rows and detection columns matched one to one within half a radius."""
    if len(truth_uv) == 0 or len(found_uv) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    cost = np.linalg.norm(np.asarray(truth_uv)[:, None] - np.asarray(found_uv)[None], axis=2)
    rows, cols = linear_sum_assignment(cost)
    close = cost[rows, cols] < 0.5 * np.asarray(truth_radius)[rows]
    return rows[close].astype(np.int64), cols[close].astype(np.int64)


def match_boxes(
    boxes_xyxy: NDArray[np.floating], found_uv: NDArray[np.floating], slack_px: float = 1.0
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Boxes and detections matched one to one, a detection's centre inside its box."""
    if len(boxes_xyxy) == 0 or len(found_uv) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    box = np.asarray(boxes_xyxy, np.float64)[:, None, :]
    uv = np.asarray(found_uv, np.float64)[None]
    inside = np.all(uv >= box[..., :2] - slack_px, axis=2) & np.all(
        uv <= box[..., 2:] + slack_px, axis=2
    )
    rows, cols = linear_sum_assignment(-inside.astype(np.float64))
    hit = inside[rows, cols]
    return rows[hit].astype(np.int64), cols[hit].astype(np.int64)


def _timed(detector: Detector, frame: Frame, tally: Tally, first: bool) -> Detections:
    started = time.process_time()
    found = detector.detect(frame)
    if not first:
        tally.times_s.append(time.process_time() - started)
    return found


def evaluate_rendered(
    detectors: dict[str, Callable[[Calibration], Detector]],
    seeds: Iterable[int],
    image_size: tuple[int, int] = (1280, 720),
    frames_per_scene: int = 3,
) -> dict[str, dict[str, float | None]]:
    """Each detector on the same rendered scenes (one new detector per scene).

    Args:
        detectors: name -> factory making a detector for a calibration.
        seeds: scene seeds (use seeds not trained on).
        image_size: (width, height) rendered.
        frames_per_scene: layouts per scene.
    """
    tallies = {name: Tally() for name in detectors}
    for seed in seeds:
        items = render_labelled(seed, image_size, frames_per_scene)
        calibration = items[0].calibration
        camera, table = calibration.camera, calibration.table
        for name, make in detectors.items():
            detector, tally = make(calibration), tallies[name]
            for index, item in enumerate(items):
                found = _timed(detector, Frame(item.image, index, 0.0), tally, index == 0)
                radius = camera.ball_radius_px(
                    camera.to_table(item.centre_px), table.ball_radius_mm
                )
                rows, cols = match_centres(item.centre_px, radius, found.xy_px)
                tally.frames += 1
                tally.balls += len(item.ball)
                tally.found += len(found)
                tally.hits += len(rows)
                tally.same_class += int(np.sum(found.label[cols] == item.ball[rows]))
                tally.errors_px += np.linalg.norm(
                    item.centre_px[rows] - found.xy_px[cols], axis=1
                ).tolist()
    return {name: tally.summary() for name, tally in tallies.items()}


def read_yolo_boxes(
    label: Path, width: int, height: int
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """(N,) classes and (N, 4) xyxy pixel boxes of a YOLO label file (empty if absent)."""
    if not label.is_file():
        return np.zeros(0, np.int64), np.zeros((0, 4))
    rows = [line.split() for line in label.read_text().splitlines() if line.strip()]
    values = np.array(rows, np.float64).reshape(-1, 5)
    centre = values[:, 1:3] * [width, height]
    half = values[:, 3:5] * [width, height] / 2.0
    return values[:, 0].astype(np.int64), np.column_stack([centre - half, centre + half])


def evaluate_real(
    detectors: dict[str, Callable[[NDArray[np.uint8], NDArray[np.float64]], Detector]],
    folder: Path,
) -> dict[str, dict[str, float | None]]:
    """Each detector on a real YOLO-format folder (`images/`, `labels/`; classes 0 cue,
    1 other ball). Identity is the share of hits whose cue-or-not is right.

    Args:
        detectors: name -> factory given the image and its (N, 4) labelled boxes (the
            classical detector takes its ball size from them, as a calibration would).
        folder: the split folder.
    """
    tallies = {name: Tally() for name in detectors}
    images = sorted((folder / "images").glob("*.jpg"))
    if not images:
        raise FileNotFoundError(f"no images in {folder / 'images'}")
    for path in images:
        loaded = cv2.imread(str(path))
        if loaded is None:
            raise OSError(f"cannot read {path}")
        image: NDArray[np.uint8] = np.asarray(loaded, np.uint8)
        height, width = image.shape[:2]
        classes, boxes = read_yolo_boxes(folder / "labels" / (path.stem + ".txt"), width, height)
        if len(boxes) == 0:
            continue
        for name, make in detectors.items():
            tally = tallies[name]
            detector = make(image, boxes)
            # Not timed: the classical detector learns the cloth on each new image here.
            found = detector.detect(Frame(image, 0, 0.0))
            rows, cols = match_boxes(boxes, found.xy_px)
            tally.frames += 1
            tally.balls += len(boxes)
            tally.found += len(found)
            tally.hits += len(rows)
            tally.same_class += int(np.sum((found.label[cols] == 0) == (classes[rows] == 0)))
            centres = (boxes[rows, :2] + boxes[rows, 2:]) / 2.0
            tally.errors_px += np.linalg.norm(centres - found.xy_px[cols], axis=1).tolist()
    return {name: tally.summary() for name, tally in tallies.items()}


def cloth_mask(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The largest region of the image centre's colour, holes (balls) filled: the table
    surface of an uncalibrated overhead image (the real footage tests use it for the
    classical detector too, so both detectors see the same table)."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32)
    height, width = image.shape[:2]
    middle = lab[height // 4 : 3 * height // 4, width // 4 : 3 * width // 4].reshape(-1, 3)
    reference = np.median(middle, 0)
    distance = np.sqrt(
        ((lab[..., 1:] - reference[1:]) ** 2).sum(-1) + (0.3 * (lab[..., 0] - reference[0])) ** 2
    )
    mask = cv2.morphologyEx(
        (distance < 25).astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8)
    )
    _count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    largest = (labels == 1 + np.argmax(stats[1:, cv2.CC_STAT_AREA])).astype(np.uint8)
    contours, _ = cv2.findContours(largest, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    filled = np.zeros_like(largest)
    cv2.drawContours(filled, contours, -1, 1, -1)
    return np.asarray(filled, np.uint8)
