"""`tenball calibrate` end to end on drawn images and a drawn video."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.io import CORNER_NAMES, load_calibration
from referee.cli import main
from tests.calibration.cameras import TABLE, corners_of, preset_cameras
from tests.calibration.drawn import draw_table


def _corner_error_px(path: Path, truth: dict[str, tuple[float, float]]) -> float:
    found = load_calibration(path).corners_px
    return max(float(np.hypot(*np.subtract(found[n], truth[n]))) for n in CORNER_NAMES)


def test_finds_the_table_in_an_image_and_writes_file_and_preview(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    camera = preset_cameras()["corner"]
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), draw_table(camera, TABLE, "blue"))
    out, preview = tmp_path / "calibration.json", tmp_path / "preview.png"
    code = main(["calibrate", str(image), "--out", str(out), "--preview", str(preview)])
    assert code == 0
    assert "reprojection error" in capsys.readouterr().out
    assert _corner_error_px(out, corners_of(camera)) < 1.0
    assert json.loads(out.read_text())["schema"] == "tenball-calibration/1"
    drawn = cv2.imread(str(preview))
    assert drawn is not None and drawn.shape == (720, 1280, 3)


def test_reads_the_first_frames_of_a_video(tmp_path: Path) -> None:
    camera = preset_cameras()["tilted"]
    video = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (1280, 720))
    for k in range(6):
        balls = np.array([[400.0 + 300 * k, 500.0], [1800.0 - 200 * k, 900.0]])
        writer.write(draw_table(camera, TABLE, "green", balls, seed=k))
    writer.release()
    out = tmp_path / "calibration.json"
    assert main(["calibrate", str(video), "--frames", "6", "--out", str(out)]) == 0
    assert _corner_error_px(out, corners_of(camera)) < 1.5


def test_given_corners_are_fitted_and_a_bad_set_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    camera = preset_cameras()["broadcast"]
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), draw_table(camera, TABLE, "red"))
    truth = corners_of(camera)
    values = ",".join(f"{v:.3f}" for name in CORNER_NAMES for v in truth[name])
    out = tmp_path / "calibration.json"
    assert main(["calibrate", str(image), "--corners", values, "--out", str(out)]) == 0
    fitted = load_calibration(out).camera
    np.testing.assert_allclose(fitted.centre_mm, camera.centre_mm, atol=2.0)
    crossed = ",".join(
        f"{v:.3f}"
        for name in ("head_left", "foot_right", "head_right", "foot_left")
        for v in truth[name]
    )
    assert main(["calibrate", str(image), "--corners", crossed, "--out", str(out)]) == 1
    assert "cross" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--table", "huge"], "unknown table size"),
        (["--corners", "1,2,3"], "8 numbers"),
        (["--distortion", "0.1"], "4 or 5"),
        (["--distortion=-0.2,0,0,0"], "--focal"),
    ],
    ids=["table", "corners", "distortion", "distortion-focal"],
)
def test_bad_arguments_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), np.zeros((72, 128, 3), np.uint8))
    assert main(["calibrate", str(image), "--out", str(tmp_path / "c.json"), *extra]) == 2
    assert message in capsys.readouterr().err


def test_no_table_exits_1_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image = tmp_path / "noise.png"
    rng = np.random.default_rng(1)
    cv2.imwrite(str(image), rng.integers(0, 255, (480, 640, 3), dtype=np.uint8))
    out = tmp_path / "c.json"
    assert main(["calibrate", str(image), "--out", str(out)]) == 1
    assert "no table found" in capsys.readouterr().err
    assert not out.exists()


def test_a_player_over_the_first_frames_is_waited_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A body hiding a corner for the whole first stretch: the table is found in frames
    spread over the first seconds, and the note says so."""
    camera = preset_cameras()["corner"]
    table = draw_table(camera, TABLE, "green")
    corner = np.array(corners_of(camera)["head_right"])
    body = table.copy()
    outline = corner + np.array([[-160, -200], [260, -260], [320, 300], [-120, 260]])
    cv2.fillPoly(body, [outline.round().astype(np.int32)], (60, 50, 45))
    video = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 5.0, (1280, 720))
    for k in range(60):
        writer.write(body if k < 15 else table)
    writer.release()
    out = tmp_path / "calibration.json"
    first = ["calibrate", str(video), "--frames", "10", "--table", "9ft"]
    assert main([*first, "--out", str(out)]) == 0
    assert "spread over the first" in capsys.readouterr().out
    assert _corner_error_px(out, corners_of(camera)) < 1.5


def test_a_table_seen_only_late_in_the_clip_is_found_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The camera shows a wall for the first 22 s, the table after: neither the first
    frames nor the first 20 s show it; the stretch of the clip that does is searched."""
    camera = preset_cameras()["broadcast"]
    table = draw_table(camera, TABLE, "blue")
    wall = np.full_like(table, 90)
    wall[:, ::9] = 150
    video = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 5.0, (1280, 720))
    for k in range(150):
        writer.write(wall if k < 110 else table)
    writer.release()
    out, preview = tmp_path / "calibration.json", tmp_path / "preview.png"
    args = ["calibrate", str(video), "--table", "9ft", "--out", str(out), "--preview", str(preview)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "nor in the first 20 s" in printed and "found in frames spread over" in printed
    assert _corner_error_px(out, corners_of(camera)) < 1.5
    assert preview.stat().st_size > 0
