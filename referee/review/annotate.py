"""`--annotate`: the video with balls labelled, their recent trails, and calls as captions.

Encoded as H.264 (plays in browsers and on phones) through the synthetic footage's writer
(imageio-ffmpeg's ffmpeg when installed, else OpenCV's mp4v), to a temporary name renamed
when complete, so a crash never leaves a half-written annotated.mp4 under its final name.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from tracking.types import BALL_NAMES, TrackSet, TrackStatus
from vision.palette import STANDARD_RGB
from vision.synthetic.video import VideoWriter
from vision.types import Frame

_FONT = cv2.FONT_HERSHEY_SIMPLEX


class AnnotatedVideo:
    """Writes annotated frames.

    Args:
        path: the final file (annotated.mp4).
        fps: frame rate of the output.
        size: (width, height) of the frames.
        trail_frames: how many past positions of each ball are drawn.
        caption_s: how long a call stays on screen, seconds.
    """

    def __init__(
        self,
        path: str | Path,
        fps: float,
        size: tuple[int, int],
        trail_frames: int = 45,
        caption_s: float = 4.0,
    ) -> None:
        self.path = Path(path)
        self._writer = VideoWriter(self.path, fps, size)
        self._trails: dict[int, deque[tuple[int, int]]] = {}
        self._trail_frames = trail_frames
        self._caption_frames = max(1, round(caption_s * fps))
        self._caption: list[str] = []
        self._caption_left = 0

    def caption(self, lines: list[str]) -> None:
        """Show these lines from now on for `caption_s`."""
        self._caption = lines
        self._caption_left = self._caption_frames

    def write(self, frame: Frame, tracks: TrackSet) -> None:
        image = frame.image.copy()
        self._draw_tracks(image, tracks)
        if self._caption_left > 0:
            self._draw_caption(image)
            self._caption_left -= 1
        self._writer.write(image)

    def _draw_tracks(self, image: NDArray[np.uint8], tracks: TrackSet) -> None:
        for i in range(len(tracks)):
            ball = int(tracks.ball[i])
            status = TrackStatus(tracks.status[i])
            trail = self._trails.setdefault(ball, deque(maxlen=self._trail_frames))
            if status not in (TrackStatus.ON_TABLE, TrackStatus.OCCLUDED):
                trail.clear()
                continue
            u, v = tracks.xy_px[i]
            if not (np.isfinite(u) and np.isfinite(v)):
                continue
            point = (round(float(u)), round(float(v)))
            trail.append(point)
            r, g, b = STANDARD_RGB[ball]
            colour = (b, g, r)
            if len(trail) > 1:
                cv2.polylines(
                    image,
                    [np.array(trail, np.int32).reshape(-1, 1, 2)],
                    False,
                    colour,
                    2,
                    cv2.LINE_AA,
                )
            thickness = 2 if status is TrackStatus.ON_TABLE else 1
            cv2.circle(image, point, 16, (255, 255, 255), thickness, cv2.LINE_AA)
            cv2.putText(
                image,
                BALL_NAMES[ball],
                (point[0] + 12, point[1] - 12),
                _FONT,
                0.5,
                (0, 0, 0),
                3,
                cv2.LINE_AA,
            )
            cv2.putText(
                image,
                BALL_NAMES[ball],
                (point[0] + 12, point[1] - 12),
                _FONT,
                0.5,
                (255, 255, 255),
                1,
                cv2.LINE_AA,
            )

    def _draw_caption(self, image: NDArray[np.uint8]) -> None:
        height = 28 * len(self._caption) + 12
        overlay = image[-height:].copy()
        overlay[:] = (overlay * 0.35).astype(np.uint8)
        image[-height:] = overlay
        for k, line in enumerate(self._caption):
            y = image.shape[0] - height + 28 * (k + 1)
            cv2.putText(image, line, (14, y), _FONT, 0.7, (255, 255, 255), 2, cv2.LINE_AA)

    def close(self) -> None:
        """Finish the file and give it its final name (also for a video that ended early)."""
        self._writer.close(keep=True)
