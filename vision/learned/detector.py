"""A learned ball detector: a small YOLO-style network exported to ONNX, run with onnxruntime.

Same interface as `vision.detector.BallDetector` (`detect(frame, hint_xy_px=None)`), so the
pipeline can use either. The network finds balls (and tells the cue ball from the others);
each ball's number comes from its pixels through `vision.identify`, as in the classical
detector, unless the network itself was trained on numbered classes (cue, 1..10).

Hints are not needed: the network looks at the whole frame each time (about 13 ms on one
core for a 640-pixel input), so a ball far from where the tracker expected it is still found.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.io import Calibration
from vision.discs import ball_pixels
from vision.identify import Identifier, IdentifierConfig, exclusive_probabilities
from vision.learned.postprocess import Boxes, decode, input_shape, letterbox, nms, to_frame
from vision.types import NUM_CLASSES, Detections, Frame

STRIDE = 32
CUE_PROBABILITY_RANGE = (0.02, 0.98)
"""The network's cue-or-not belief is clipped to this before it reweights the identifier's."""


class ModelError(ValueError):
    """The ONNX file is missing, unreadable or not a detector this module understands."""


@dataclass(frozen=True, slots=True)
class LearnedDetectorConfig:
    """Tunables of the learned detector.

    Attributes:
        long_side: model input along the frame's long side, pixels (a multiple of 32; the
            other side follows the frame's shape). Raising it finds smaller balls, slower.
        min_score: detections scoring below it are dropped (0..1).
        max_iou: boxes overlapping a better one by more than this are the same ball.
        threads: onnxruntime intra-op threads (1 leaves the other cores to the rest).
        table_margin_mm: with a calibration, detections further than this outside the
            playing surface (on the rails, the floor) are dropped.
        identifier: identification settings for networks that only tell cue from ball.
    """

    long_side: int = 640
    min_score: float = 0.25
    max_iou: float = 0.45
    threads: int = 1
    table_margin_mm: float = 30.0
    identifier: IdentifierConfig = field(default_factory=IdentifierConfig)


def _session(path: Path, threads: int) -> Any:
    import onnxruntime as ort

    if not path.is_file():
        raise ModelError(f"detector model {path} does not exist")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own exception types
        raise ModelError(f"cannot load detector model {path}: {error}") from None


def class_names(metadata: dict[str, str], count: int | None) -> list[str]:
    """Class names from an ultralytics export's metadata ("names": "{0: 'cue', ...}"), else
    by the output's class count (None: unknown, as in a dynamic export)."""
    text = metadata.get("names")
    if text is None:
        if count is None:
            raise ModelError("the model names no classes and its output size is not fixed")
        return ["cue", "ball"] if count == 2 else [str(k) for k in range(count)]
    names = ast.literal_eval(text)
    return [str(names[k]) for k in range(len(names))]


class LearnedBallDetector:
    """Finds balls with an ONNX network.

    Args:
        model: path of the .onnx file (an ultralytics YOLO export, classes "cue" and "ball",
            or "cue" and "1".."10").
        calibration: the table seen by this camera; None for an uncalibrated image (table
            positions are then NaN and the radius is the box's).
        config: tunables.

    Raises:
        ModelError: the model is missing, unreadable or has unexpected classes.
    """

    def __init__(
        self,
        model: str | Path,
        calibration: Calibration | None = None,
        config: LearnedDetectorConfig | None = None,
    ) -> None:
        config = config or LearnedDetectorConfig()
        self._setup(_session(Path(model), config.threads), calibration, config, str(model))

    @classmethod
    def from_session(
        cls,
        session: Any,
        calibration: Calibration | None = None,
        config: LearnedDetectorConfig | None = None,
    ) -> LearnedBallDetector:
        """A detector over an open session (anything with onnxruntime's `run`,
        `get_inputs`, `get_outputs` and `get_modelmeta`)."""
        detector = cls.__new__(cls)
        detector._setup(session, calibration, config or LearnedDetectorConfig(), "session")
        return detector

    def _setup(
        self,
        session: Any,
        calibration: Calibration | None,
        config: LearnedDetectorConfig,
        name: str,
    ) -> None:
        self.config = config
        self.calibration = calibration
        self._session = session
        meta = dict(session.get_modelmeta().custom_metadata_map)
        channels = session.get_outputs()[0].shape[1]
        count = int(channels) - 4 if isinstance(channels, int) else None
        self.names = class_names(meta, count)
        if self.names[:1] != ["cue"] or len(self.names) not in (2, NUM_CLASSES):
            raise ModelError(
                f"detector model {name} has classes {self.names}; expected cue and ball, "
                "or cue and 1..10"
            )
        self._input = session.get_inputs()[0]
        self.identifier = Identifier(self.config.identifier)

    def boxes(self, image: NDArray[np.uint8]) -> Boxes:
        """Kept boxes (frame pixels) of one BGR image, after NMS."""
        height, width = image.shape[:2]
        shape = self._input.shape
        if isinstance(shape[2], int) and isinstance(shape[3], int):
            size = (int(shape[3]), int(shape[2]))  # a fixed-size export
        else:
            size = input_shape((width, height), self.config.long_side, STRIDE)
        tensor, box = letterbox(image, size)
        (output,) = self._session.run(None, {self._input.name: tensor})
        found = nms(decode(output, self.config.min_score), self.config.max_iou)
        return to_frame(found, box)

    def detect(self, frame: Frame, hint_xy_px: NDArray[np.floating] | None = None) -> Detections:
        """Balls in one frame (the hints are not needed: the whole frame is searched).

        Args:
            frame: the image.
            hint_xy_px: (M, 2) where the tracker expects balls; ignored.

        Returns:
            Detections: box centres, table positions (NaN when uncalibrated), radii,
            network scores as confidences and class probabilities.
        """
        del hint_xy_px
        found = self.boxes(frame.image)
        xy = found.xywh[:, :2]
        radius = found.xywh[:, 2:].mean(axis=1) / 2.0
        xy_mm = np.full((len(xy), 2), np.nan)
        if self.calibration is not None and len(xy):
            camera, table = self.calibration.camera, self.calibration.table
            xy_mm = camera.to_table(xy)
            on_table = table.contains(xy_mm, self.config.table_margin_mm)
            found, xy, xy_mm = found_subset(found, on_table), xy[on_table], xy_mm[on_table]
            radius = camera.ball_radius_px(xy_mm, table.ball_radius_mm)
        if len(xy) == 0:
            return Detections.empty()
        return Detections(
            xy_px=xy.astype(np.float32),
            xy_mm=xy_mm.astype(np.float32),
            radius_px=radius.astype(np.float32),
            confidence=found.score.astype(np.float32),
            class_prob=self._class_prob(frame.image, found, xy, radius),
        )

    def _class_prob(
        self,
        image: NDArray[np.uint8],
        found: Boxes,
        xy: NDArray[np.float64],
        radius: NDArray[np.float64],
    ) -> NDArray[np.float32]:
        if len(self.names) == NUM_CLASSES:
            scores: NDArray[np.float64] = np.clip(found.class_score, 1e-6, None)
            normalised: NDArray[np.float32] = (scores / scores.sum(1, keepdims=True)).astype(
                np.float32
            )
            return normalised
        identifier = self.identifier
        prob = identifier.independent(identifier.features(ball_pixels(image, xy, radius)))
        return fuse_cue(prob, found.class_score, identifier.config.exclusive)


def found_subset(found: Boxes, keep: NDArray[np.bool_]) -> Boxes:
    """The boxes where `keep` is true."""
    return Boxes(found.xywh[keep], found.score[keep], found.class_score[keep])


def fuse_cue(
    prob: NDArray[np.floating], class_score: NDArray[np.floating], exclusive: bool
) -> NDArray[np.float32]:
    """(N, 11) identifier probabilities reweighted by the network's cue-or-ball scores.

    Args:
        prob: (N, 11) per-ball probabilities from the pixels (cue, 1..10).
        class_score: (N, 2) network scores of "cue" and "ball".
        exclusive: make the result consistent across the frame (each class once).
    """
    scores = np.asarray(class_score, np.float64)
    cue = scores[:, 0] / np.maximum(scores.sum(axis=1), 1e-9)
    cue = np.clip(cue, *CUE_PROBABILITY_RANGE)
    fused: NDArray[np.float64] = np.array(prob, np.float64)
    fused[:, 0] *= cue
    fused[:, 1:] *= (1.0 - cue)[:, None]
    fused /= np.maximum(fused.sum(axis=1, keepdims=True), 1e-12)
    if exclusive:
        return exclusive_probabilities(fused)
    result: NDArray[np.float32] = fused.astype(np.float32)
    return result


DETECTOR_CHOICE_HELP = (
    "ball detector: 'classical' (default, no weights) or 'onnx:PATH' (a learned model, "
    "docs/learned-detector.md)"
)


def model_from_choice(choice: str) -> str | None:
    """The model path of a `--detector` value: None for "classical", PATH for "onnx:PATH".

    Raises:
        ModelError: another value, or a model file that does not exist.
    """
    if choice == "classical":
        return None
    if choice.startswith("onnx:") and len(choice) > len("onnx:"):
        path = choice[len("onnx:") :]
        if not Path(path).is_file():
            raise ModelError(f"--detector {choice}: {path} does not exist")
        return path
    raise ModelError(f"--detector must be 'classical' or 'onnx:PATH', got {choice!r}")
