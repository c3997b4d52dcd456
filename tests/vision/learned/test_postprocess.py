"""Letterbox, decode, NMS and the way back to frame pixels, on hand-built tensors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.learned.postprocess import (
    PAD_VALUE,
    Boxes,
    Letterbox,
    decode,
    input_shape,
    iou,
    letterbox,
    nms,
    to_frame,
)


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        ((1280, 720), (640, 384)),
        ((640, 640), (640, 640)),
        ((1920, 1080), (640, 384)),
        ((720, 1280), (384, 640)),
        ((640, 480), (640, 480)),
    ],
    ids=["720p", "square", "1080p", "portrait", "4:3"],
)
def test_input_shape_keeps_the_long_side_and_pads_the_short_to_the_stride(
    frame: tuple[int, int], expected: tuple[int, int]
) -> None:
    assert input_shape(frame, 640, 32) == expected


def test_input_shape_rejects_a_long_side_off_the_stride() -> None:
    with pytest.raises(ValueError, match="multiple of 32"):
        input_shape((1280, 720), 630, 32)


def test_letterbox_scales_centres_and_pads_grey() -> None:
    image = np.zeros((720, 1280, 3), np.uint8)
    image[:, :, 2] = 200  # red in BGR
    tensor, box = letterbox(image, (640, 384))
    assert tensor.shape == (1, 3, 384, 640)
    assert tensor.dtype == np.float32
    assert (box.scale, box.pad_x, box.pad_y) == (0.5, 0, 12)
    # RGB order: channel 0 is the red of the frame; the border rows are the pad grey.
    assert tensor[0, 0, 12:372].min() == pytest.approx(200 / 255)
    assert tensor[0, 2, 12:372].max() == 0.0
    assert np.allclose(tensor[0, :, :12], PAD_VALUE / 255)
    assert np.allclose(tensor[0, :, 372:], PAD_VALUE / 255)


def test_letterbox_puts_a_frame_pixel_where_to_frame_finds_it() -> None:
    image = np.zeros((640, 640, 3), np.uint8)
    image[300:310, 100:110] = 255  # a white square centred at (104.5, 304.5)
    tensor, box = letterbox(image, (384, 384))
    rows, cols = np.nonzero(tensor[0, 0] > 0.5)
    centre_input = np.array([[cols.mean(), rows.mean()]])
    assert box.to_frame(centre_input)[0] == pytest.approx([104.5, 304.5], abs=1.0)


def _raw(
    boxes: list[tuple[float, float, float, float]], scores: list[list[float]], anchors: int
) -> np.ndarray:
    """A (1, 4 + C, anchors) output with the given boxes first and zero scores after."""
    classes = len(scores[0])
    raw = np.zeros((1, 4 + classes, anchors), np.float32)
    for k, (box, score) in enumerate(zip(boxes, scores, strict=True)):
        raw[0, :4, k] = box
        raw[0, 4:, k] = score
    return raw


def test_decode_keeps_anchors_above_the_score_with_their_class_scores() -> None:
    raw = _raw(
        [(100, 50, 10, 12), (200, 80, 11, 11), (300, 90, 9, 9)],
        [[0.9, 0.05], [0.1, 0.6], [0.2, 0.1]],
        50,
    )
    found = decode(raw, 0.3)
    assert len(found) == 2
    assert found.xywh.tolist() == [[100, 50, 10, 12], [200, 80, 11, 11]]
    assert found.score == pytest.approx([0.9, 0.6])
    assert found.class_score[1] == pytest.approx([0.1, 0.6])


@pytest.mark.parametrize(
    "shape", [(4, 50), (1, 4, 50), (2, 6, 50)], ids=["2d", "no-class", "batch"]
)
def test_decode_rejects_other_layouts(shape: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="model output"):
        decode(np.zeros(shape, np.float32), 0.3)


def test_nms_drops_the_weaker_of_two_overlapping_boxes_and_keeps_touching_balls() -> None:
    boxes = Boxes(
        np.array([[100, 100, 20, 20], [102, 101, 20, 20], [120, 100, 20, 20]], np.float64),
        np.array([0.6, 0.9, 0.8]),
        np.array([[0.6, 0.1], [0.9, 0.1], [0.1, 0.8]]),
    )
    kept = nms(boxes, 0.45)
    # The duplicate at 100 goes; the ball touching at 120 (one diameter away) stays.
    assert kept.score.tolist() == [0.9, 0.8]
    assert kept.xywh[:, 0].tolist() == [102, 120]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0, 600),
            st.floats(0, 400),
            st.floats(4, 40),
            st.floats(4, 40),
            st.floats(0.01, 1),
        ),
        min_size=1,
        max_size=30,
    ),
    st.floats(0.1, 0.9),
)
def test_nms_keeps_the_best_box_and_no_two_kept_boxes_overlap_more_than_allowed(
    rows: list[tuple[float, ...]], max_iou: float
) -> None:
    values = np.array(rows, np.float64)
    boxes = Boxes(values[:, :4], values[:, 4], values[:, 4:5])
    kept = nms(boxes, max_iou)
    assert kept.score[0] == values[:, 4].max()
    for k in range(len(kept)):
        others = np.delete(kept.xywh, k, axis=0)
        if len(others):
            assert iou(kept.xywh[k], others).max() <= max_iou + 1e-9


def test_to_frame_undoes_the_letterbox() -> None:
    box = Letterbox(scale=0.5, pad_x=0, pad_y=12)
    boxes = Boxes(np.array([[320.0, 192.0, 12.0, 10.0]]), np.array([0.9]), np.array([[0.1, 0.9]]))
    frame = to_frame(boxes, box)
    assert frame.xywh.tolist() == [[640.0, 360.0, 24.0, 20.0]]
