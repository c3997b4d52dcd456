"""`tenball detect` end to end on a rendered still and a rendered video."""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np

from referee.cli import main
from tests.vision.scenes import rack_xy, render_scene, scatter


def test_detect_writes_annotated_frames_and_csv(tmp_path: Path) -> None:
    xy, balls = rack_xy(seed=2)
    scene = render_scene(xy, balls, seed=2)
    image = tmp_path / "rack.png"
    cv2.imwrite(str(image), scene.frame.image)
    scene.calibration.save(tmp_path / "calibration.json")
    out = tmp_path / "out"
    status = main(
        [
            "detect",
            str(image),
            "--calibration",
            str(tmp_path / "calibration.json"),
            "--out",
            str(out),
        ]
    )
    assert status == 0
    assert (out / "frame_000000.png").is_file()
    rows = list(csv.DictReader((out / "detections.csv").open()))
    assert sorted(row["ball"] for row in rows) == sorted(str(b) for b in balls)
    assert not list(out.glob("*.tmp*"))


def test_detect_reads_a_video_up_to_max_frames(tmp_path: Path) -> None:
    scene = render_scene(scatter(np.random.default_rng(3), 4), [0, 1, 2, 3], seed=3)
    video = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 30.0, (1280, 720))
    for _ in range(4):
        writer.write(scene.frame.image)
    writer.release()
    scene.calibration.save(tmp_path / "calibration.json")
    out = tmp_path / "out"
    status = main(
        [
            "detect",
            str(video),
            "--calibration",
            str(tmp_path / "calibration.json"),
            "--out",
            str(out),
            "--max-frames",
            "2",
        ]
    )
    assert status == 0
    assert sorted(p.name for p in out.glob("frame_*.png")) == [
        "frame_000000.png",
        "frame_000001.png",
    ]
    rows = list(csv.DictReader((out / "detections.csv").open()))
    assert len(rows) == 8


def test_detect_reports_a_missing_source(tmp_path: Path, capsys: object) -> None:
    assert main(["detect", str(tmp_path / "nothing.mp4"), "--out", str(tmp_path / "o")]) == 2
