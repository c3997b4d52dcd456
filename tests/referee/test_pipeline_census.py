"""The ball census: a video with more balls at rest than ten-ball has is reported, not
silently reviewed as ten-ball (referee.pipeline_census)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from referee.pipeline import Pipeline, PipelineConfig
from referee.pipeline_census import TEN_BALL_SET, BallCensus
from vision.types import NUM_CLASSES, Detections

FOOTAGE = Path(__file__).resolve().parents[2].parent / "shared" / "footage"


def _balls(xy_px: np.ndarray) -> Detections:
    n = len(xy_px)
    return Detections(
        xy_px=xy_px,
        xy_mm=np.full((n, 2), np.nan),
        radius_px=np.full(n, 10.0),
        confidence=np.full(n, 0.9),
        class_prob=np.full((n, NUM_CLASSES), 1.0 / NUM_CLASSES),
    )


def _rack(count: int) -> np.ndarray:
    """`count` ball centres 30 px apart on a grid, px."""
    return np.array([[100.0 + 30.0 * (k % 5), 100.0 + 30.0 * (k // 5)] for k in range(count)])


def test_fifteen_balls_at_rest_warn_after_three_searches() -> None:
    census = BallCensus(searches=3)
    for _ in range(3):
        census.add(_balls(_rack(15)))
        assert census.warning is None  # the first search has nothing to compare with
    census.add(_balls(_rack(15)))
    assert census.warning is not None
    assert "15 balls seen at rest" in census.warning
    assert "not a ten-ball set" in census.warning


def test_a_ten_ball_set_and_moving_extras_do_not_warn() -> None:
    census = BallCensus(searches=3)
    rng = np.random.default_rng(1)
    for _ in range(10):
        # Eleven balls at rest and four blobs (a hand, a cue, moving balls) elsewhere each time.
        extras = rng.uniform(400.0, 900.0, size=(4, 2))
        census.add(_balls(np.vstack([_rack(TEN_BALL_SET), extras])))
    assert census.warning is None


def test_the_census_can_be_turned_off() -> None:
    census = BallCensus(searches=0)
    for _ in range(5):
        census.add(_balls(_rack(15)))
    assert census.warning is None


@pytest.mark.slow
@pytest.mark.footage
@pytest.mark.skipif(not FOOTAGE.is_dir(), reason=f"no third-party footage at {FOOTAGE}")
def test_an_eight_ball_broadcast_is_reported_as_not_ten_ball() -> None:
    """broadcast-8ball game1: fifteen balls on the table (the cue ball and 14), overhead view.
    Measured: 13-14 balls at rest on 6 of its 7 whole-table searches."""
    from referee.review.start import find_calibration
    from vision.sources import open_source

    video = FOOTAGE / "broadcast-8ball" / "game1_clip1" / "game1_clip1.mp4"
    if not video.exists():
        pytest.skip(f"{video} is absent")
    calibration, _ = find_calibration(video, None)
    pipeline = Pipeline(calibration, PipelineConfig())
    source = open_source(video)
    try:
        while (frame := source.read()) is not None:
            pipeline.perceive(frame)
    finally:
        source.close()
    assert len(pipeline.warnings) == 1
    assert "not a ten-ball set" in pipeline.warnings[0]
