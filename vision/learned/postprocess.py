"""Pre- and post-processing of a YOLO-style detector, in numpy only (no torch).

The model sees a letterboxed image: the frame scaled so its long side is `long_side` pixels,
padded with grey to a multiple of the model's stride. It returns, per anchor, a box
(centre x, centre y, width, height in input pixels) and one sigmoid score per class
(the layout of an ultralytics YOLOv8/YOLO11 ONNX export: (1, 4 + C, A)). Boxes above a
score threshold go through non-maximum suppression and back to frame pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

PAD_VALUE = 114
"""Grey of the letterbox border (as ultralytics trains with)."""


@dataclass(frozen=True, slots=True)
class Letterbox:
    """How a frame was fitted into the model's input.

    Attributes:
        scale: input pixels per frame pixel.
        pad_x: columns of padding left of the scaled frame.
        pad_y: rows of padding above it.
    """

    scale: float
    pad_x: int
    pad_y: int

    def to_frame(self, xy_input: NDArray[np.floating]) -> NDArray[np.float64]:
        """(N, 2) frame pixels of (N, 2) input pixels."""
        xy = np.asarray(xy_input, np.float64).reshape(-1, 2)
        result: NDArray[np.float64] = (xy - np.array([self.pad_x, self.pad_y])) / self.scale
        return result


def input_shape(frame_size: tuple[int, int], long_side: int, stride: int) -> tuple[int, int]:
    """(width, height) of the model input for a frame of (width, height): the long side is
    `long_side`, the short one the scaled side rounded up to a multiple of `stride`."""
    if long_side <= 0 or long_side % stride:
        raise ValueError(f"long_side must be a positive multiple of {stride}, got {long_side}")
    width, height = frame_size
    scale = long_side / max(width, height)
    short = int(np.ceil(round(min(width, height) * scale, 6) / stride) * stride)
    return (long_side, short) if width >= height else (short, long_side)


def letterbox(
    image: NDArray[np.uint8], size: tuple[int, int]
) -> tuple[NDArray[np.float32], Letterbox]:
    """The model input of a BGR frame: scaled to fit `size`, centred, grey around.

    Args:
        image: (H, W, 3) uint8 BGR frame.
        size: (width, height) of the model input, pixels (see `input_shape`).

    Returns:
        (1, 3, height, width) float32 RGB in 0..1, and the mapping back to the frame.
    """
    height, width = image.shape[:2]
    in_w, in_h = size
    scale = min(in_w / width, in_h / height)
    new_w, new_h = round(width * scale), round(height * scale)
    pad_x, pad_y = (in_w - new_w) // 2, (in_h - new_h) // 2
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(image, (new_w, new_h), interpolation=interpolation)
    canvas = np.full((in_h, in_w, 3), PAD_VALUE, np.uint8)
    canvas[pad_y : pad_y + new_h, pad_x : pad_x + new_w] = resized
    tensor = canvas[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / np.float32(255.0)
    return np.ascontiguousarray(tensor), Letterbox(scale, pad_x, pad_y)


@dataclass(frozen=True, slots=True, eq=False)
class Boxes:
    """Kept boxes in frame pixels, columnar.

    Attributes:
        xywh: (N, 4) float64 centre x, centre y, width, height, frame pixels.
        score: (N,) float64 best class score, 0..1.
        class_score: (N, C) float64 every class's score, 0..1.
    """

    xywh: NDArray[np.float64]
    score: NDArray[np.float64]
    class_score: NDArray[np.float64]

    def __len__(self) -> int:
        return len(self.score)


def decode(output: NDArray[np.floating], min_score: float) -> Boxes:
    """Boxes above `min_score` from a raw (1, 4 + C, A) output (input pixels, no NMS)."""
    raw = np.asarray(output, np.float64)
    if raw.ndim != 3 or raw.shape[0] != 1 or raw.shape[1] < 5:
        raise ValueError(f"model output must be (1, 4 + classes, anchors), got {raw.shape}")
    rows = raw[0].T
    class_score = rows[:, 4:]
    score = class_score.max(axis=1)
    keep = score >= min_score
    return Boxes(rows[keep, :4], score[keep], class_score[keep])


def iou(box: NDArray[np.float64], others: NDArray[np.float64]) -> NDArray[np.float64]:
    """(M,) intersection over union of one (4,) xywh box with (M, 4) xywh boxes."""
    low = np.maximum(box[:2] - box[2:] / 2, others[:, :2] - others[:, 2:] / 2)
    high = np.minimum(box[:2] + box[2:] / 2, others[:, :2] + others[:, 2:] / 2)
    inter = np.prod(np.clip(high - low, 0.0, None), axis=1)
    union = box[2] * box[3] + others[:, 2] * others[:, 3] - inter
    result: NDArray[np.float64] = inter / np.maximum(union, 1e-12)
    return result


def nms(boxes: Boxes, max_iou: float) -> Boxes:
    """Greedy non-maximum suppression over all classes (a ball has one class); highest
    score first, dropping boxes overlapping a kept one by more than `max_iou`."""
    order = np.argsort(-boxes.score, kind="stable")
    kept: list[int] = []
    while len(order):
        best = int(order[0])
        kept.append(best)
        rest = order[1:]
        order = rest[iou(boxes.xywh[best], boxes.xywh[rest]) <= max_iou]
    index = np.array(kept, np.int64)
    return Boxes(boxes.xywh[index], boxes.score[index], boxes.class_score[index])


def to_frame(boxes: Boxes, box: Letterbox) -> Boxes:
    """The same boxes in frame pixels."""
    xywh = boxes.xywh.copy()
    xywh[:, :2] = box.to_frame(xywh[:, :2])
    xywh[:, 2:] /= box.scale
    return Boxes(xywh, boxes.score, boxes.class_score)
