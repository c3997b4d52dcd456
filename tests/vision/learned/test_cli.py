"""`tenball train-detector` and the `--detector` option of review and detect."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from referee.cli import main
from vision.learned.detector import ModelError, model_from_choice

HAVE_TRAINING = all(importlib.util.find_spec(n) is not None for n in ("torch", "ultralytics"))


def test_model_from_choice(tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes(b"")
    assert model_from_choice("classical") is None
    assert model_from_choice(f"onnx:{model}") == str(model)


@pytest.mark.parametrize(
    ("choice", "message"),
    [
        ("yolo", "classical' or 'onnx:PATH"),
        ("onnx:", "classical' or 'onnx:PATH"),
        ("onnx:/no/such.onnx", "does not exist"),
    ],
    ids=["unknown", "no-path", "missing"],
)
def test_model_from_choice_rejects(choice: str, message: str) -> None:
    with pytest.raises(ModelError, match=message):
        model_from_choice(choice)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--epochs", "0"], "--epochs must be at least 1"),
        (["--model", "/no/such.onnx"], "does not exist"),
        (["--real", "/no/such"], "no train/images"),
    ],
    ids=["epochs", "model", "real"],
)
def test_train_detector_rejects_bad_arguments(
    tmp_path: Path, extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train-detector", "--out", str(tmp_path), *extra]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.skipif(HAVE_TRAINING, reason="the train extra is installed here")
def test_train_detector_without_the_train_extra_says_how_to_get_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train-detector", "--out", str(tmp_path), "--rendered", "0"]) == 3
    assert ".[train]" in capsys.readouterr().err


def test_review_with_a_missing_model_fails_before_reading_the_video(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "review",
            str(tmp_path / "v.mp4"),
            "--out",
            str(tmp_path / "o"),
            "--detector",
            "onnx:/no/such.onnx",
        ]
    )
    assert code == 2
    assert "/no/such.onnx does not exist" in capsys.readouterr().err
