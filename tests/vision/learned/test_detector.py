"""The learned detector's frame path (letterbox -> network -> boxes -> Detections) with a
stand-in network that returns hand-built output tensors, and the shipped model if any."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vision.learned.detector import (
    LearnedBallDetector,
    LearnedDetectorConfig,
    ModelError,
    class_names,
    fuse_cue,
)
from vision.learned.scenes import LabelledImage, render_labelled
from vision.types import Frame


@dataclass
class _Node:
    name: str
    shape: list[Any]


@dataclass
class _Meta:
    custom_metadata_map: dict[str, str]


@dataclass
class FakeSession:
    """Answers every frame with the same raw output; records the inputs it was given."""

    output: np.ndarray
    names: str = "{0: 'cue', 1: 'ball'}"
    seen: list[np.ndarray] = field(default_factory=list)

    def get_inputs(self) -> list[_Node]:
        return [_Node("images", [1, 3, "height", "width"])]

    def get_outputs(self) -> list[_Node]:
        return [_Node("output0", [1, self.output.shape[1], "anchors"])]

    def get_modelmeta(self) -> _Meta:
        return _Meta({"names": self.names})

    def run(self, _outputs: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        self.seen.append(feeds["images"])
        return [self.output]


@pytest.fixture(scope="module")
def scene() -> LabelledImage:
    for seed in range(100):
        item = render_labelled(seed, (1280, 720))[0]
        if len(item.ball) >= 3 and 0 in item.ball:
            return item
    raise AssertionError("no scene with the cue ball and two others")


def _output_for(item: LabelledImage, extra: list[tuple[float, float, float, float]]) -> np.ndarray:
    """Boxes at the scene's balls (input pixels of a 1280x720 frame: scale 0.5, 12 px pad
    above), the cue ball scored as cue, then `extra` boxes scored as balls."""
    rows = []
    for ball, (u, v) in zip(item.ball, item.centre_px, strict=True):
        cue = 0.9 if ball == 0 else 0.05
        rows.append((u / 2, v / 2 + 12, 11.0, 11.0, cue, 0.95 - cue))
    rows += [(*box, 0.05, 0.8) for box in extra]
    output = np.zeros((1, 6, 100), np.float32)
    output[0, :, : len(rows)] = np.array(rows, np.float32).T
    return output


def test_boxes_become_balls_at_their_centres_on_the_table(scene: LabelledImage) -> None:
    calibration = scene.calibration
    camera, table = calibration.camera, calibration.table
    floor = camera.project(np.array([[-400.0, -400.0]]), 0.0)[0]  # off the table
    first = scene.centre_px[0]
    duplicate = (first[0] / 2 + 1.0, first[1] / 2 + 12.5, 11.0, 11.0)
    session = FakeSession(
        _output_for(scene, [(floor[0] / 2, floor[1] / 2 + 12, 11, 11), duplicate])
    )
    detector = LearnedBallDetector.from_session(session, calibration)
    found = detector.detect(Frame(scene.image, 0, 0.0), hint_xy_px=scene.centre_px)
    assert session.seen[0].shape == (1, 3, 384, 640)
    assert len(found) == len(scene.ball)  # the floor box and the duplicate are gone
    order = np.argsort(found.xy_px[:, 0])
    truth = np.argsort(scene.centre_px[:, 0])
    assert found.xy_px[order] == pytest.approx(scene.centre_px[truth], abs=0.01)
    expected_mm = camera.to_table(scene.centre_px[truth])
    assert found.xy_mm[order] == pytest.approx(expected_mm, abs=0.5)
    radius = camera.ball_radius_px(expected_mm, table.ball_radius_mm)
    assert found.radius_px[order] == pytest.approx(radius, rel=1e-4)
    assert found.class_prob.sum(axis=1) == pytest.approx(np.ones(len(found)), abs=1e-5)
    assert found.label[order][scene.ball[truth] == 0].tolist() == [0]
    assert 0 not in found.label[order][scene.ball[truth] != 0]


def test_without_calibration_positions_are_nan_and_radii_come_from_the_boxes(
    scene: LabelledImage,
) -> None:
    detector = LearnedBallDetector.from_session(FakeSession(_output_for(scene, [])), None)
    found = detector.detect(Frame(scene.image, 0, 0.0))
    assert len(found) == len(scene.ball)
    assert np.isnan(found.xy_mm).all()
    assert found.radius_px == pytest.approx(np.full(len(found), 11.0))  # 11 input px / 2 * 2


def test_nothing_above_the_score_is_no_detection(scene: LabelledImage) -> None:
    output = np.zeros((1, 6, 100), np.float32)
    output[0, 4:] = 0.1
    detector = LearnedBallDetector.from_session(FakeSession(output), scene.calibration)
    assert len(detector.detect(Frame(scene.image, 0, 0.0))) == 0


def test_a_numbered_model_names_balls_from_its_own_scores(scene: LabelledImage) -> None:
    output = np.zeros((1, 15, 100), np.float32)
    output[0, :4, 0] = (320, 192, 11, 11)
    output[0, 4 + 7, 0] = 0.8
    names = (
        "{" + ", ".join(f"{k}: '{n}'" for k, n in enumerate(["cue", *map(str, range(1, 11))])) + "}"
    )
    detector = LearnedBallDetector.from_session(FakeSession(output, names), None)
    found = detector.detect(Frame(scene.image, 0, 0.0))
    assert found.label.tolist() == [7]


def test_a_model_with_other_classes_is_refused() -> None:
    session = FakeSession(np.zeros((1, 7, 10), np.float32), "{0: 'person', 1: 'car', 2: 'dog'}")
    with pytest.raises(ModelError, match="person"):
        LearnedBallDetector.from_session(session)


def test_a_missing_model_file_says_which(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    with pytest.raises(ModelError, match="does not exist"):
        LearnedBallDetector(tmp_path / "nope.onnx")


@pytest.mark.parametrize(
    ("metadata", "count", "expected"),
    [
        ({"names": "{0: 'cue', 1: 'ball'}"}, 2, ["cue", "ball"]),
        ({}, 2, ["cue", "ball"]),
        ({}, 3, ["0", "1", "2"]),
    ],
    ids=["ultralytics", "no-metadata", "unknown"],
)
def test_class_names(metadata: dict[str, str], count: int, expected: list[str]) -> None:
    assert class_names(metadata, count) == expected


def test_fuse_cue_moves_an_uncertain_ball_to_the_cue_when_the_network_says_cue() -> None:
    prob = np.full((2, 11), 1 / 11)
    fused = fuse_cue(prob, np.array([[0.9, 0.05], [0.02, 0.9]]), exclusive=False)
    assert fused.sum(axis=1) == pytest.approx([1.0, 1.0])
    assert np.argmax(fused[0]) == 0
    assert fused[1, 0] < 1 / 11


def test_fuse_cue_exclusive_gives_the_cue_to_one_ball_only() -> None:
    prob = np.full((3, 11), 1 / 11)
    fused = fuse_cue(prob, np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9]]), exclusive=True)
    assert int(np.sum(np.argmax(fused, axis=1) == 0)) == 1


SHIPPED = (
    Path(__file__).resolve().parents[3] / "vision" / "learned" / "models" / "ball-detector.onnx"
)


@pytest.mark.skipif(not SHIPPED.is_file(), reason="no trained model is shipped")
def test_the_shipped_model_finds_rendered_balls_it_never_saw() -> None:
    pytest.importorskip("onnxruntime")
    hits = balls = found_total = 0
    for seed in range(7_000_000, 7_000_004):
        for item in render_labelled(seed, (1280, 720), frames=2):
            detector = LearnedBallDetector(SHIPPED, item.calibration, LearnedDetectorConfig())
            found = detector.detect(Frame(item.image, 0, 0.0))
            camera = item.calibration.camera
            radius = camera.ball_radius_px(camera.to_table(item.centre_px), 28.575)
            gaps = np.linalg.norm(item.centre_px[:, None] - found.xy_px[None], axis=2)
            hits += int(np.sum(gaps.min(axis=1, initial=np.inf) < 0.5 * radius))
            balls += len(item.ball)
            found_total += len(found)
    assert hits / balls >= 0.8
    assert hits / max(found_total, 1) >= 0.8
