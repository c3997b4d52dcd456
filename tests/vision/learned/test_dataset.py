"""Rendered scenes with exact boxes and the YOLO-format data set written from them."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.learned.dataset import DatasetSpec, build_dataset, label_lines
from vision.learned.scenes import LabelledImage, render_labelled


def test_rendering_is_repeatable_and_boxes_hold_their_balls() -> None:
    first = render_labelled(11, (640, 360), frames=2)
    again = render_labelled(11, (640, 360), frames=2)
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a.image, b.image)
        assert np.array_equal(a.ball, b.ball)
    for item in first:
        assert item.image.shape == (360, 640, 3)
        assert len(item.ball) == len(item.centre_px) == len(item.box_xyxy)
        assert len(set(item.ball.tolist())) == len(item.ball)  # each ball once
        inside = np.all(item.centre_px >= item.box_xyxy[:, :2], axis=1) & np.all(
            item.centre_px <= item.box_xyxy[:, 2:], axis=1
        )
        assert inside.all()
        size = item.box_xyxy[:, 2:] - item.box_xyxy[:, :2]
        assert (size > 2).all()


def test_a_sharp_ball_box_is_centred_on_it_and_two_radii_wide() -> None:
    for seed in range(40):
        for item in render_labelled(seed, (640, 360), frames=3):
            camera = item.calibration.camera
            radius = camera.ball_radius_px(camera.to_table(item.centre_px), 28.575)
            middle = (item.box_xyxy[:, :2] + item.box_xyxy[:, 2:]) / 2
            size = item.box_xyxy[:, 2:] - item.box_xyxy[:, :2]
            sharp = np.all(size < 2 * radius[:, None] + 0.5, axis=1)
            if sharp.any():
                assert middle[sharp] == pytest.approx(item.centre_px[sharp], abs=0.6)
                return
    raise AssertionError("no sharp ball in 120 frames")


@pytest.fixture(scope="module")
def frames() -> list[LabelledImage]:
    return [item for seed in range(6) for item in render_labelled(seed, (640, 360), frames=3)]


@pytest.mark.parametrize(("numbers", "top"), [(False, 1), (True, 10)], ids=["balls", "numbers"])
def test_label_lines_name_classes_by_scheme(
    frames: list[LabelledImage], numbers: bool, top: int
) -> None:
    labels: set[int] = set()
    for item in frames:
        for line in label_lines(item, numbers):
            fields = line.split()
            assert len(fields) == 5
            values = [float(v) for v in fields[1:]]
            assert all(0.0 <= v <= 1.0 for v in values)
            labels.add(int(fields[0]))
    assert labels <= set(range(top + 1))
    assert 0 in labels
    assert len(labels) >= (2 if top == 1 else 8)  # 18 frames show most numbers


def _real_folder(root: Path) -> Path:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    for name in ("a", "b"):
        cv2.imwrite(str(root / "images" / f"{name}.jpg"), np.zeros((64, 64, 3), np.uint8))
        (root / "labels" / f"{name}.txt").write_text("0 0.5 0.5 0.1 0.1\n1 0.2 0.2 0.1 0.1\n")
    return root


def test_build_dataset_writes_images_labels_truth_and_data_yaml(tmp_path: Path) -> None:
    real = _real_folder(tmp_path / "real" / "train")
    spec = DatasetSpec(rendered_train=3, rendered_val=3, real=(real,), real_splits=("train",))
    done: list[int] = []
    data = build_dataset(tmp_path / "out", spec, done.append)
    root = tmp_path / "out"
    assert data == root / "data.yaml"
    assert not (tmp_path / "out.partial").exists()
    train = sorted(p.name for p in (root / "images" / "train").iterdir())
    assert len(train) == 5 and sum(n.startswith("real_") for n in train) == 2
    assert len(list((root / "images" / "val").iterdir())) == 3
    for image in (root / "images" / "train").iterdir():
        assert (root / "labels" / "train" / (image.stem + ".txt")).is_file()
    assert (
        root / "images" / "train" / next(n for n in train if n.startswith("real_"))
    ).is_symlink()
    text = data.read_text()
    assert "train: images/train" in text and "0: 'cue'" in text and "1: 'ball'" in text
    header = (root / "truth_train.csv").read_text().splitlines()[0]
    assert header == "image,ball,u_px,v_px"
    assert sum(done) == 3 + 3 + 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"real": (Path("x"),)}, "same length"),
        ({"real": (Path("x"),), "real_splits": ("test",)}, "train or val"),
        ({"real": (Path("x"),), "real_splits": ("train",), "numbers": True}, "no ball numbers"),
        ({"rendered_train": -1}, ">= 0"),
    ],
    ids=["lengths", "split", "numbers", "negative"],
)
def test_dataset_spec_rejects_bad_settings(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DatasetSpec(**kwargs)  # type: ignore[arg-type]
