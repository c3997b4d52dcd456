"""Training with ultralytics (skipped without the train extra) and its offline setup."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from vision.learned.train import prepare_offline

HAVE_TRAINING = all(importlib.util.find_spec(n) is not None for n in ("torch", "ultralytics"))


def test_prepare_offline_sets_the_environment_and_a_font(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("YOLO_OFFLINE", "YOLO_AUTOINSTALL", "YOLO_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    prepare_offline(tmp_path)
    assert os.environ["YOLO_OFFLINE"] == "1"
    assert os.environ["YOLO_AUTOINSTALL"] == "false"
    assert os.environ["YOLO_CONFIG_DIR"] == str(tmp_path)
    font = tmp_path / "Ultralytics" / "Arial.ttf"
    if importlib.util.find_spec("matplotlib") is not None:
        assert font.is_file() and font.stat().st_size > 10_000


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_TRAINING, reason="the train extra (ultralytics, torch) is absent")
def test_one_tiny_epoch_trains_exports_and_runs(tmp_path: Path) -> None:
    from vision.learned.dataset import DatasetSpec, build_dataset
    from vision.learned.detector import LearnedBallDetector
    from vision.learned.scenes import render_labelled
    from vision.learned.train import TrainSpec, train_detector
    from vision.types import Frame

    data = build_dataset(tmp_path / "data", DatasetSpec(rendered_train=3, rendered_val=3))
    result = train_detector(
        data, tmp_path / "out", TrainSpec(epochs=1, imgsz=128, batch=3, threads=1)
    )
    model = tmp_path / "out" / "detector.onnx"
    assert model.is_file() and (tmp_path / "out" / "detector.pt").is_file()
    assert result["onnx_bytes"] < 5_000_000
    item = render_labelled(3, (640, 360))[0]
    found = LearnedBallDetector(model, item.calibration).detect(Frame(item.image, 0, 0.0))
    assert found.class_prob.shape == (len(found), 11)  # untrained: any count, right shapes
