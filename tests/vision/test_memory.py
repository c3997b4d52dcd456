"""Detection memory: a window keeps its result while its pixels stay the same."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.scenes import render_scene, scatter
from vision.detector import BallDetector, DetectorConfig
from vision.memory import Remembered, changed, crop, recall, window_boxes
from vision.types import Frame


def _entries(image: np.ndarray, xy: np.ndarray, half: float = 12.0) -> Remembered:
    boxes = window_boxes(xy, np.full(len(xy), half), (0, 0, image.shape[1], image.shape[0]))
    count = len(xy)
    return Remembered(
        xy,
        np.ones(count),
        np.zeros((count, 5), np.float32),
        np.zeros(count),
        boxes,
        crop(image, boxes),
    )


def _disc_image(centre_u: float, noise: float, seed: int) -> np.ndarray:
    """A 100x100 green cloth with one anti-aliased white ball of radius 8 px."""
    rng = np.random.default_rng(seed)
    vs, us = np.mgrid[0:100, 0:100].astype(np.float64)
    inside = np.clip(8.5 - np.hypot(us - centre_u, vs - 50.0), 0.0, 1.0)[..., None]
    cloth = np.array([40.0, 120.0, 30.0])
    image = cloth * (1 - inside) + np.array([230.0, 230.0, 230.0]) * inside
    return np.clip(image + rng.normal(0, noise, image.shape), 0, 255).astype(np.uint8)


@pytest.mark.parametrize(
    ("shift_px", "noise", "expected"),
    [(0.0, 0.0, False), (0.0, 3.0, False), (0.3, 0.0, True), (1.0, 3.0, True)],
    ids=["same", "sensor-noise", "third-of-a-pixel", "pixel-with-noise"],
)
def test_noise_is_not_a_change_but_a_small_move_is(
    shift_px: float, noise: float, expected: bool
) -> None:
    before = _disc_image(50.0, noise, seed=1)
    after = _disc_image(50.0 + shift_px, noise, seed=2 if noise else 1)
    memory = _entries(before, np.array([[50.0, 50.0]]))
    assert changed(after, memory, pixel_change=8.0, max_changed_share=0.005).tolist() == [expected]


def test_hints_are_explained_only_by_a_near_still_entry() -> None:
    image = np.zeros((100, 100, 3), np.uint8)
    memory = _entries(image, np.array([[20.0, 20.0], [60.0, 60.0]]))
    hints = np.array([[21.0, 20.0], [60.0, 66.0], [90.0, 90.0]])
    explained, used = recall(memory, hints, np.full(3, 8.0), np.array([True, True]))
    assert explained.tolist() == [True, False, False]  # 6 px is more than half a radius
    assert used.tolist() == [True, False]
    explained, used = recall(memory, hints, np.full(3, 8.0), np.array([False, True]))
    assert not explained.any() and not used.any()


def test_empty_memory_and_no_hints() -> None:
    explained, used = recall(Remembered.empty(), np.zeros((2, 2)), np.ones(2), np.zeros(0, bool))
    assert explained.tolist() == [False, False] and len(used) == 0
    assert len(Remembered.empty().take(np.zeros(0, np.int64))) == 0


def test_shapes_are_checked() -> None:
    with pytest.raises(ValueError, match=r"xy_px must be \(K, 2\)"):
        Remembered(
            np.zeros((2, 3)),
            np.zeros(2),
            np.zeros((2, 5), np.float32),
            np.zeros(2),
            np.zeros((2, 4), np.int64),
            (),
        )


def test_detector_reuses_still_windows_and_follows_a_moved_ball() -> None:
    xy = scatter(np.random.default_rng(21), 11)
    scene = render_scene(xy, list(range(11)), seed=3)
    moved_xy = xy.copy()
    moved_xy[4] += (6.0, 0.0)  # about 1.5 px in this view
    moved = render_scene(moved_xy, list(range(11)), seed=3)
    remembering = BallDetector(scene.calibration)
    searching = BallDetector(scene.calibration, DetectorConfig(reuse_still_windows=False))
    for detector in (remembering, searching):
        detector.detect(scene.frame)
    hints = scene.uv_px
    first = remembering.detect(scene.frame, hint_xy_px=hints)
    assert remembering.detect(Frame(scene.frame.image, 1, 0.02), hint_xy_px=hints) is first
    later = Frame(moved.frame.image, 2, 0.04)
    kept, fresh = remembering.detect(later, hints), searching.detect(later, hints)
    assert len(kept) == len(fresh) == 11
    order = np.argmin(np.linalg.norm(fresh.xy_px[:, None] - kept.xy_px[None], axis=2), axis=1)
    assert np.allclose(kept.xy_px[order], fresh.xy_px, atol=0.05)
    assert np.array_equal(kept.label[order], fresh.label)
    near = np.argmin(np.linalg.norm(kept.xy_px - moved.uv_px[4], axis=1))
    assert np.linalg.norm(kept.xy_px[near] - moved.uv_px[4]) < 0.6
    # Too old to keep: searched again, same answer.
    stale = remembering.detect(Frame(moved.frame.image, 200, 4.0), hints)
    assert stale is not kept and len(stale) == len(kept)
    gaps = np.linalg.norm(stale.xy_px[:, None] - kept.xy_px[None], axis=2)
    assert np.all(gaps.min(axis=1) < 0.05)


def test_full_search_looks_only_where_the_table_changed() -> None:
    xy = scatter(np.random.default_rng(22), 11)
    scene = render_scene(xy, list(range(11)), seed=4)
    changed_xy = xy[:10].copy()  # the 10 is gone
    changed_xy[2] += (80.0, 40.0)  # the 2 rolled
    later = render_scene(changed_xy, list(range(10)), seed=4)
    remembering = BallDetector(scene.calibration)
    searching = BallDetector(scene.calibration, DetectorConfig(reuse_still_windows=False))
    for detector in (remembering, searching):
        detector.detect(scene.frame)
    again = remembering.detect(Frame(scene.frame.image, 1, 0.5))
    assert len(again) == 11
    frame = Frame(later.frame.image, 2, 1.0)
    kept, fresh = remembering.detect(frame), searching.detect(frame)
    assert len(kept) == len(fresh)
    assert np.min(np.linalg.norm(kept.xy_px - scene.uv_px[10], axis=1)) > 5.0
    gaps = np.linalg.norm(kept.xy_px[:, None] - fresh.xy_px[None], axis=2)
    assert np.all(gaps.min(axis=1) < 0.05)
    pairs = np.argmin(gaps, axis=1)
    assert np.array_equal(kept.label, fresh.label[pairs])
    assert np.min(np.linalg.norm(kept.xy_px - later.uv_px[2], axis=1)) < 0.6


def _changed_one_by_one(image: np.ndarray, memory: Remembered, pixel_change: float) -> list[bool]:
    """The definition of `changed`, window by window."""
    out = []
    for (u0, v0, u1, v1), patch in zip(memory.boxes.tolist(), memory.patches, strict=True):
        both = np.abs(image[v0:v1, u0:u1].astype(np.int16) - patch.astype(np.int16))
        smooth = cv2.blur(both.max(axis=2).astype(np.uint8), (3, 3))
        out.append(int(np.count_nonzero(smooth > pixel_change)) > 0.01 * smooth.size)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2], ids=["seed0", "seed1", "seed2"])
def test_windows_of_any_size_are_judged_each_on_its_own(seed: int) -> None:
    rng = np.random.default_rng(seed)
    before = rng.integers(0, 256, (60, 80, 3), dtype=np.uint8)
    after = before.copy()
    after[20:40, 30:50] = rng.integers(0, 256, (20, 20, 3), dtype=np.uint8)
    xy = rng.uniform(0.0, 80.0, (9, 2)) * [1.0, 0.75]
    half = rng.uniform(2.0, 15.0, 9)
    boxes = window_boxes(xy, half, (0, 0, 80, 60))
    memory = Remembered(
        xy, np.ones(9), np.zeros((9, 5), np.float32), np.zeros(9), boxes, crop(before, boxes)
    )
    found = changed(after, memory, pixel_change=10.0, max_changed_share=0.01).tolist()
    assert found == _changed_one_by_one(after, memory, 10.0)
    assert not any(changed(before, memory, pixel_change=10.0, max_changed_share=0.01))


@pytest.mark.parametrize(
    ("largest_step", "spots"),
    [(10, 0), (11, 0), (11, 3), (40, 1), (40, 30)],
    ids=["at-limit", "just-above", "few-above", "one-spot", "many-spots"],
)
def test_windows_within_the_limit_everywhere_and_beyond_it_in_places_agree_with_the_full_test(
    largest_step: int, spots: int
) -> None:
    """The change test's shortcut (no pixel beyond the limit: unchanged) answers what the
    3x3-averaged test answers, at the limit, just above it and with a few strong spots."""
    rng = np.random.default_rng(largest_step + spots)
    before = rng.integers(20, 236, (60, 80, 3), dtype=np.uint8)
    step = rng.integers(-10, 11, before.shape)
    step[rng.integers(0, 60, spots), rng.integers(0, 80, spots)] = largest_step
    if largest_step > 10 and spots == 0:
        step[30, 40, 1] = largest_step
    after = (before.astype(np.int64) + step).clip(0, 255).astype(np.uint8)
    xy = rng.uniform(0.0, 80.0, (12, 2)) * [1.0, 0.75]
    boxes = window_boxes(xy, rng.uniform(3.0, 15.0, 12), (0, 0, 80, 60))
    memory = Remembered(
        xy, np.ones(12), np.zeros((12, 5), np.float32), np.zeros(12), boxes, crop(before, boxes)
    )
    found = changed(after, memory, pixel_change=10.0, max_changed_share=0.01).tolist()
    assert found == _changed_one_by_one(after, memory, 10.0)
