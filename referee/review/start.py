"""Opening a review: the video, the calibration (given or found), the declarations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from calibration.io import Calibration, CalibrationError, load_calibration
from calibration.table import TableSpec
from referee.declarations import DeclarationLog, load_declarations
from referee.pipeline import Detector
from referee.review.prefetch import PrefetchSource
from referee.review.session import Review, ReviewInputError, ReviewOptions
from vision.sources import IMAGE_SUFFIXES, open_source
from vision.types import Frame

FIND_SAMPLE_FRAMES = 15
"""Frames spread over the first seconds that the table finder combines (a temporal median
removes balls and players)."""


def _sample_frames(video: str | Path, count: int) -> list[Frame]:
    source = open_source(video)
    try:
        frames: list[Frame] = []
        step = max(1, round(source.fps / 4))
        index = 0
        while len(frames) < count:
            frame = source.read()
            if frame is None:
                break
            if index % step == 0:
                frames.append(frame)
            index += 1
        return frames
    finally:
        source.close()


def find_calibration(
    video: str | Path, table: TableSpec | None
) -> tuple[Calibration, dict[str, Any]]:
    """Find the table (calibration/video.py): in a video file, in its first seconds, then
    further into the clip when they show none or a doubtful one; in a folder of images, in
    its first images. A `table` of None is measured from the balls (calibration/scale.py).

    Returns:
        The calibration, and what the finder said (confidence, notes) for the summary.

    Raises:
        ReviewInputError: no pool table was found.
    """
    from calibration.video import find_in_video, find_in_windows

    try:
        if Path(video).is_file() and Path(video).suffix.lower() not in IMAGE_SUFFIXES:
            found = find_in_video(video, table)
        else:
            frames = [f.image for f in _sample_frames(video, FIND_SAMPLE_FRAMES)]
            if not frames:
                raise ReviewInputError(f"no frame could be read from {video}")
            found = find_in_windows(lambda _: frames, [range(len(frames))], 4.0, table)
    except CalibrationError as error:
        raise ReviewInputError(
            f"no pool table found in {video}: {error}. If the table is there, calibrate it by "
            "hand (tenball calibrate) and pass --calibration"
        ) from None
    finding = found.finding
    info = {
        "source": "found automatically",
        "confidence": round(finding.confidence, 3),
        "window_s": [round(found.window_s[0], 2), round(found.window_s[1], 2)],
        "notes": list(finding.notes),
    }
    return finding.calibration, info


def truth_detector(clip_dir: str | Path, calibration: Calibration) -> Detector:
    """The synthetic truth detector of a clip (balls exactly where its truth says)."""
    from referee.review.truth_detector import TruthDetector

    tracks = Path(clip_dir) / "truth" / "tracks.csv"
    if not tracks.exists():
        raise ReviewInputError(f"--truth-detector needs {tracks}")
    return TruthDetector(tracks, calibration)


def open_review(
    video: str | Path,
    calibration_path: str | Path | None,
    declarations_path: str | Path | None,
    options: ReviewOptions,
    truth_clip: str | Path | None = None,
) -> Review:
    """Everything a review needs, checked before the first frame is processed.

    Raises:
        SourceError, CalibrationError, DeclarationsError, ReviewInputError: with a message
        naming the input and the problem.
    """
    declarations = load_declarations(declarations_path) if declarations_path else None
    source: Any = PrefetchSource(open_source(video))
    info: dict[str, Any]
    try:
        if calibration_path is not None:
            calibration = load_calibration(calibration_path)
            info = {"source": "file", "path": str(calibration_path)}
        else:
            calibration, info = find_calibration(video, options.table)
            options.out_dir.mkdir(parents=True, exist_ok=True)
            calibration.save(options.out_dir / "calibration.json")
        detector = truth_detector(truth_clip, calibration) if truth_clip else None
    except BaseException:
        source.close()
        raise
    review = Review(source, calibration, declarations or DeclarationLog(), options, detector)
    review.calibration_info = info
    return review
