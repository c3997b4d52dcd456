"""A YOLO-format training set: rendered frames with exact boxes, plus real labelled images.

Layout (what ultralytics reads):

    OUT/images/{train,val}/NAME.jpg   OUT/labels/{train,val}/NAME.txt   OUT/data.yaml
    OUT/truth_{train,val}.csv          exact ball classes and centres of the rendered frames

A label line is `class cx cy w h` with fractions of the image size. Classes are "cue" and
"ball" (the scheme of the real overhead set, whose balls carry no numbers), or with
`numbers=True` "cue", "1".."10" (rendered frames only).
"""

from __future__ import annotations

import csv
import os
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.learned.scenes import LabelledImage, render_labelled
from vision.types import BALL_NAMES, ball_name

BALL_CLASSES = ("cue", "ball")
FRAMES_PER_SCENE = 3
"""Layouts rendered per random table, camera and light (the static table is drawn once)."""
JPEG_QUALITY = 92


@dataclass(frozen=True, slots=True)
class DatasetSpec:
    """What to put in a training set.

    Attributes:
        rendered_train: rendered frames for training.
        rendered_val: rendered frames for validation (other seeds).
        image_size: (width, height) of the rendered frames, pixels.
        seed: first seed; validation frames use seeds from `seed + 1_000_000`.
        real: folders of real YOLO-format images (`images/` and `labels/` inside, classes
            0 cue and 1 other ball), each added to the split named by `real_splits`.
        real_splits: "train" or "val" for each folder of `real`.
        numbers: label the rendered balls "cue", "1".."10" instead of "cue", "ball"
            (then no real images can be added).
    """

    rendered_train: int = 450
    rendered_val: int = 60
    image_size: tuple[int, int] = (640, 360)
    seed: int = 0
    real: tuple[Path, ...] = ()
    real_splits: tuple[str, ...] = ()
    numbers: bool = False

    def __post_init__(self) -> None:
        if len(self.real) != len(self.real_splits):
            raise ValueError("DatasetSpec.real and real_splits must have the same length")
        if any(split not in ("train", "val") for split in self.real_splits):
            raise ValueError(f"DatasetSpec.real_splits must be train or val: {self.real_splits}")
        if self.numbers and self.real:
            raise ValueError("real images have no ball numbers: numbers=True takes none")
        if self.rendered_train < 0 or self.rendered_val < 0:
            raise ValueError("DatasetSpec.rendered_train and rendered_val must be >= 0")

    @property
    def names(self) -> tuple[str, ...]:
        return BALL_NAMES if self.numbers else BALL_CLASSES


def label_lines(item: LabelledImage, numbers: bool) -> list[str]:
    """YOLO label lines of one rendered frame (boxes clipped to the image; balls whose box
    is mostly outside the image are left out)."""
    height, width = item.image.shape[:2]
    box = item.box_xyxy.copy()
    area = np.prod(box[:, 2:] - box[:, :2], axis=1)
    box[:, [0, 2]] = np.clip(box[:, [0, 2]], 0, width)
    box[:, [1, 3]] = np.clip(box[:, [1, 3]], 0, height)
    inside = np.prod(np.clip(box[:, 2:] - box[:, :2], 0, None), axis=1) / np.maximum(area, 1e-9)
    lines = []
    for ball, (x0, y0, x1, y1), share in zip(item.ball, box, inside, strict=True):
        if share < 0.5:
            continue
        label = int(ball) if numbers else min(int(ball), 1)
        cx, cy = (x0 + x1) / 2 / width, (y0 + y1) / 2 / height
        lines.append(f"{label} {cx:.6f} {cy:.6f} {(x1 - x0) / width:.6f} {(y1 - y0) / height:.6f}")
    return lines


def _write_image(path: Path, image: NDArray[np.uint8]) -> None:
    temporary = path.with_name(path.stem + ".tmp" + path.suffix)
    if not cv2.imwrite(str(temporary), image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]):
        raise OSError(f"cannot write {path}")
    temporary.replace(path)


def write_rendered(
    root: Path, split: str, seeds: Iterable[int], spec: DatasetSpec, step: Callable[[int], None]
) -> list[tuple[str, int, float, float]]:
    """Render scenes of the given seeds into `root`'s split; `step(n)` after each scene.

    Returns:
        (image name, ball class, u px, v px) of every labelled ball, for evaluation.
    """
    truth: list[tuple[str, int, float, float]] = []
    for seed in seeds:
        for k, item in enumerate(render_labelled(seed, spec.image_size, FRAMES_PER_SCENE)):
            name = f"render_{seed:07d}_{k}"
            _write_image(root / "images" / split / f"{name}.jpg", item.image)
            lines = label_lines(item, spec.numbers)
            (root / "labels" / split / f"{name}.txt").write_text("".join(f"{x}\n" for x in lines))
            truth += [
                (name, int(b), float(u), float(v))
                for b, (u, v) in zip(item.ball, item.centre_px, strict=True)
            ]
        step(FRAMES_PER_SCENE)
    return truth


def link_real(root: Path, split: str, source: Path) -> int:
    """Link a real YOLO-format folder's images and labels into `root`'s split (no copy:
    third-party images stay where they are). Returns how many images were linked."""
    images = sorted((source / "images").glob("*.jpg")) + sorted((source / "images").glob("*.png"))
    if not images:
        raise FileNotFoundError(f"no images in {source / 'images'}")
    tag = source.resolve().parent.name + "_" + source.name
    for image in images:
        label = source / "labels" / (image.stem + ".txt")
        name = f"real_{tag}_{image.stem}"
        os.symlink(image.resolve(), root / "images" / split / (name + image.suffix))
        if label.is_file():
            os.symlink(label.resolve(), root / "labels" / split / (name + ".txt"))
    return len(images)


def write_truth(path: Path, rows: list[tuple[str, int, float, float]]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["image", "ball", "u_px", "v_px"])
        writer.writerows([(n, ball_name(b), f"{u:.3f}", f"{v:.3f}") for n, b, u, v in rows])


def build_dataset(
    out: Path, spec: DatasetSpec, progress: Callable[[int], None] | None = None
) -> Path:
    """Write a complete training set into `out` (replaced if it exists) and return its
    data.yaml. Built in a temporary sibling folder and renamed, so `out` is never half
    written. `progress(n)` is called as frames are done."""
    step = progress or (lambda _n: None)
    temporary = out.with_name(out.name + ".partial")
    shutil.rmtree(temporary, ignore_errors=True)
    for kind in ("images", "labels"):
        for split in ("train", "val"):
            (temporary / kind / split).mkdir(parents=True)
    scenes_train = -(-spec.rendered_train // FRAMES_PER_SCENE)
    scenes_val = -(-spec.rendered_val // FRAMES_PER_SCENE)
    for split, first, scenes in (
        ("train", spec.seed, scenes_train),
        ("val", spec.seed + 1_000_000, scenes_val),
    ):
        rows = write_rendered(temporary, split, range(first, first + scenes), spec, step)
        write_truth(temporary / f"truth_{split}.csv", rows)
    for source, split in zip(spec.real, spec.real_splits, strict=True):
        step(link_real(temporary, split, source))
    names = "".join(f"  {k}: {name!r}\n" for k, name in enumerate(spec.names))
    (temporary / "data.yaml").write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n{names}"
    )
    shutil.rmtree(out, ignore_errors=True)
    temporary.replace(out)
    return out / "data.yaml"
