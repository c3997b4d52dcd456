"""Finding the table in a video: windows further into the clip, the rack's votes for the foot."""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from calibration.camera import CameraModel
from calibration.find import FindOptions, TableNotFoundError
from calibration.io import CORNER_NAMES, CalibrationError
from calibration.scale import find_sized_table
from calibration.video import (
    FIRST_WINDOW_S,
    STRETCHES,
    WINDOW_FRAMES,
    find_in_video,
    find_in_windows,
    rack_checked,
    rack_votes,
    windows,
)
from tests.calibration.cameras import IMAGE_SIZE, TABLE, corners_of, preset_cameras
from tests.calibration.drawn import draw_table

Image = NDArray[np.uint8]
SCATTERED_MM = (
    np.array([[700.0, 300.0], [1500.0, 900.0], [2100.0, 200.0], [1200.0, 640.0]]),
    np.array([[400.0, 1000.0], [1800.0, 500.0], [900.0, 150.0], [2300.0, 1100.0]]),
)


def _foot_camera() -> CameraModel:
    """The preset corner camera's mirror image: behind the foot-right corner."""
    length, width = TABLE.length_mm, TABLE.width_mm
    middle = (length / 2.0, width / 2.0, 0.0)
    return CameraModel.look_at(
        (1.3 * length, 1.7 * width, 2200.0), middle, IMAGE_SIZE, 800.0, right_hint=(-1, 0.7, 0)
    )


@functools.cache
def _frames(view: str, racked: int) -> tuple[Image, ...]:
    """Fifteen frames of a corner view: `racked` with the rack at the foot spot (before the
    break), the rest with balls scattered (after it), so the median has no rack."""
    camera = _camera(view)
    rack = np.array(list(TABLE.rack_positions_mm().values()))
    drawn = [draw_table(camera, TABLE, "blue", balls, seed=1) for balls in SCATTERED_MM]
    before = draw_table(camera, TABLE, "blue", rack, seed=2)
    return tuple([before] * racked + [drawn[k % 2] for k in range(WINDOW_FRAMES - racked)])


def _camera(view: str) -> CameraModel:
    return _foot_camera() if view == "foot" else preset_cameras()["corner"]


def _worst_corner_px(found: dict[str, tuple[float, float]], camera: CameraModel) -> float:
    truth = corners_of(camera)
    return max(float(np.hypot(*np.subtract(found[n], truth[n]))) for n in CORNER_NAMES)


@pytest.mark.parametrize(
    ("fps", "count", "windows_expected"),
    [(30.0, 9000, 2 + STRETCHES), (60.0, 1080, 2 + 4), (50.0, 893, 2 + 4), (30.0, 60, 1)],
    ids=["30fps-5min", "60fps-18s", "50fps-18s", "30fps-2s"],
)
def test_windows_start_with_the_first_seconds_then_spread_over_the_clip(
    fps: float, count: int, windows_expected: int
) -> None:
    plan = windows(fps, count)
    assert len(plan) == windows_expected
    first = plan[0]
    assert first[0] == 0 and all(i < count for i in first)
    if count > fps * FIRST_WINDOW_S:
        assert 0.8 * FIRST_WINDOW_S <= first[-1] / fps <= 1.1 * FIRST_WINDOW_S
    for window in plan[1:]:
        assert list(window) == sorted(window) and window[-1] < count
    if len(plan) > 1:
        assert plan[1][0] == 0 and plan[1][-1] == count - 1
        stretches = plan[2:]
        assert stretches[0][0] == 0 and stretches[-1][-1] == count - 1


def test_unknown_length_searches_the_first_seconds_only() -> None:
    assert windows(25.0, 0) == [tuple(range(0, 6 * WINDOW_FRAMES, 6))]


def test_table_hidden_at_the_start_is_found_further_into_the_clip() -> None:
    camera = preset_cameras()["broadcast"]
    table_frame = draw_table(camera, TABLE, "green", SCATTERED_MM[0])
    wall = np.full_like(table_frame, 90)
    wall[:, ::7] = 140  # the camera points at a panelled wall for the first seconds
    read_log: list[int] = []

    def read(k: int) -> list[Image]:
        read_log.append(k)
        return [wall] * WINDOW_FRAMES if k == 0 else [table_frame] * WINDOW_FRAMES

    found = find_in_windows(read, windows(30.0, 3000), 30.0, TABLE)
    assert read_log == [0, 1]
    assert _worst_corner_px(found.finding.calibration.corners_px, camera) < 2.0
    assert found.window_s[0] == 0.0
    assert found.window_s[1] == pytest.approx(2999 / 30.0)
    assert any("in the first 3.75 s: no table" in n for n in found.finding.notes)
    finder_notes = found.finding.calibration.extra["finder"]["notes"]
    assert any("found in frames spread over" in n for n in finder_notes)


def test_no_table_anywhere_says_what_was_searched() -> None:
    wall = np.full((*IMAGE_SIZE[::-1], 3), 90, dtype=np.uint8)
    plan = windows(30.0, 3000)
    with pytest.raises(TableNotFoundError, match=r"any of the 8 stretch"):
        find_in_windows(lambda _: [wall] * 3, plan, 30.0, TABLE)


@pytest.mark.parametrize("view", ["head", "foot"], ids=["from-head-corner", "from-foot-corner"])
def test_rack_in_the_first_frames_marks_the_foot_when_the_median_lost_it(view: str) -> None:
    frames = list(_frames(view, racked=4))
    found = find_in_windows(lambda _: frames, [range(WINDOW_FRAMES)], 4.0, TABLE)
    assert _worst_corner_px(found.finding.calibration.corners_px, _camera(view)) < 3.0


def test_rack_votes_count_the_frames_showing_the_rack_at_each_end() -> None:
    frames = list(_frames("head", racked=4))
    finding = find_sized_table(frames, TABLE)
    head, foot = rack_votes(frames, finding.calibration)
    named_foot_is_foot = _worst_corner_px(finding.calibration.corners_px, _camera("head")) < 3.0
    assert (head, foot) == ((0, 4) if named_foot_is_foot else (4, 0))
    checked = rack_checked(finding, frames, FindOptions())
    assert _worst_corner_px(checked.calibration.corners_px, _camera("head")) < 3.0
    assert rack_votes(frames, checked.calibration) == (0, 4)


def test_one_frame_showing_a_rack_does_not_swap_the_ends() -> None:
    frames = list(_frames("head", racked=1))
    finding = find_sized_table(frames, TABLE)
    assert rack_checked(finding, frames, FindOptions()) is finding


def test_video_file_is_searched_and_unreadable_file_is_refused(tmp_path: Path) -> None:
    camera = preset_cameras()["tilted"]
    frame = draw_table(camera, TABLE, "red", SCATTERED_MM[1])
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, IMAGE_SIZE)
    for _ in range(20):
        writer.write(frame)
    writer.release()
    found = find_in_video(path, TABLE)
    assert found.attempts == 1
    assert _worst_corner_px(found.finding.calibration.corners_px, camera) < 3.0
    text = tmp_path / "notes.mp4"
    text.write_text("not a video")
    with pytest.raises(CalibrationError, match=r"notes\.mp4"):
        find_in_video(text, TABLE)


def test_a_body_over_the_head_end_does_not_swap_the_ends() -> None:
    """No rack anywhere, a person's dark body over the head spot in most frames: the frames
    are full there but show no rack's pattern, so the rule's head stays."""
    camera = preset_cameras()["broadcast"]
    clear = draw_table(camera, TABLE, "green", SCATTERED_MM[0])
    finding = find_sized_table([clear], TABLE)
    spot = finding.calibration.camera.project(np.array([[TABLE.length_mm / 4, 635.0]]), 0.0)[0]
    body = clear.copy()
    cv2.circle(body, (round(spot[0]), round(spot[1])), 70, (50, 45, 40), -1)
    frames = [body] * 10 + [clear] * 5
    assert rack_votes(frames, finding.calibration) == (0, 0)
    assert rack_checked(finding, frames, FindOptions()) is finding
