"""What the report needs from the past: ball paths by frame, and evidence frames.

Events reach the review a few frames after they happen (the event detector waits until it is
sure), so the last frames are kept in a short ring buffer and an evidence picture is cut
from the frame the event names, downscaled and JPEG-encoded at once; nothing else of the
video is kept.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from tracking.status_masks import status_is
from tracking.types import BALL_NAMES, Event, EventKind, TrackSet, TrackStatus
from vision.types import Frame


class TrackHistory:
    """Ball centres per frame (table mm), for the shot plots.

    Args:
        keep_frames: frames kept; older ones are dropped (a shot longer than this is plotted
            from its last `keep_frames` frames).
    """

    def __init__(self, keep_frames: int = 60 * 120) -> None:
        self._rows: deque[tuple[int, NDArray[np.int64], NDArray[np.float64]]] = deque(
            maxlen=keep_frames
        )

    def add(self, tracks: TrackSet) -> None:
        keep = ~status_is(tracks.status, TrackStatus.OFF_TABLE)
        self._rows.append((tracks.frame, tracks.ball[keep].copy(), tracks.xy_mm[keep].copy()))

    def paths(
        self, first_frame: int, last_frame: int
    ) -> tuple[dict[int, NDArray[np.float64]], dict[int, NDArray[np.int64]]]:
        """(ball -> (K, 2) centres mm, ball -> (K,) frames) for frames in [first, last]."""
        xy: dict[int, list[NDArray[np.float64]]] = {}
        frames: dict[int, list[int]] = {}
        for frame, balls, centres in self._rows:
            if not first_frame <= frame <= last_frame:
                continue
            for ball, centre in zip(balls.tolist(), centres, strict=True):
                xy.setdefault(ball, []).append(centre)
                frames.setdefault(ball, []).append(frame)
        return (
            {b: np.asarray(v, np.float64).reshape(-1, 2) for b, v in xy.items()},
            {b: np.asarray(v, np.int64) for b, v in frames.items()},
        )


@dataclass(frozen=True, slots=True)
class Evidence:
    """One picture for the report.

    Attributes:
        frame: the frame it shows.
        kind: "strike", "first_contact", "pocket" or "off_table".
        caption: what it shows, in words.
        jpeg: the JPEG bytes.
    """

    frame: int
    kind: str
    caption: str
    jpeg: bytes


def _caption(event: Event, kind: str) -> str:
    names = [BALL_NAMES[b] for b in event.balls]
    if kind == "first_contact":
        return f"first contact: {' on '.join(names)} (frame {event.frame})"
    if kind == "pocket":
        return f"{', '.join(names)} into {event.pocket or 'a pocket'} (frame {event.frame})"
    if kind == "off_table":
        return f"{', '.join(names)} off the table (frame {event.frame})"
    return f"strike (frame {event.frame})"


def table_region_px(
    corners_px: dict[str, tuple[float, float]], image_size: tuple[int, int], margin: float = 0.12
) -> tuple[int, int, int, int]:
    """(u0, v0, u1, v1): the box around the table's corners grown by `margin` of its size,
    inside the image (the evidence pictures show the table, not the room)."""
    uv = np.array(list(corners_px.values()), np.float64).reshape(-1, 2)
    low, high = uv.min(axis=0), uv.max(axis=0)
    grow = (high - low) * margin
    width, height = image_size
    u0, v0 = np.maximum(np.floor(low - grow), 0).astype(int)
    u1, v1 = np.minimum(np.ceil(high + grow), (width, height)).astype(int)
    if u1 - u0 < 16 or v1 - v0 < 16:
        return (0, 0, width, height)
    return (int(u0), int(v0), int(u1), int(v1))


class EvidenceCollector:
    """Keeps the last frames and cuts evidence pictures for strikes, first contacts, pockets.

    Args:
        keep_frames: frames kept in the ring buffer; must exceed the event detector's delay
            (measured at most 7 frames on the sample clips). Each kept frame costs one image.
        width_px: width of the evidence pictures.
        jpeg_quality: 0..100; raising it makes the report larger.
        region_px: (u0, v0, u1, v1) part of the image the pictures show (the table and a
            margin), None for the whole frame.
    """

    def __init__(
        self,
        keep_frames: int = 30,
        width_px: int = 480,
        jpeg_quality: int = 70,
        region_px: tuple[int, int, int, int] | None = None,
    ) -> None:
        self._region = region_px
        self._frames: deque[Frame] = deque(maxlen=keep_frames)
        self._tracks: deque[TrackSet] = deque(maxlen=keep_frames)
        self._width = width_px
        self._quality = jpeg_quality
        self._after_strike = False
        self.items: list[Evidence] = []

    def add(self, frame: Frame, tracks: TrackSet) -> None:
        self._frames.append(frame)
        self._tracks.append(tracks)

    def on_events(self, events: list[Event] | tuple[Event, ...]) -> None:
        for event in events:
            kind = self._kind(event)
            if kind is not None:
                self._capture(event, kind)

    def _kind(self, event: Event) -> str | None:
        if event.kind is EventKind.STRIKE:
            self._after_strike = True
            return "strike"
        if event.kind is EventKind.BALL_BALL and self._after_strike and 0 in event.balls:
            self._after_strike = False
            return "first_contact"
        if event.kind is EventKind.BALL_POCKET:
            return "pocket"
        if event.kind is EventKind.BALL_OFF_TABLE:
            return "off_table"
        return None

    def _nearest(self, frame_index: int) -> tuple[Frame, TrackSet] | None:
        if not self._frames:
            return None
        best = min(range(len(self._frames)), key=lambda i: abs(self._frames[i].index - frame_index))
        return self._frames[best], self._tracks[best]

    def _capture(self, event: Event, kind: str) -> None:
        found = self._nearest(event.frame)
        if found is None:
            return
        frame, tracks = found
        height, width = frame.image.shape[:2]
        u0, v0, u1, v1 = self._region or (0, 0, width, height)
        scale = self._width / max(1, u1 - u0)
        size = (self._width, max(1, round((v1 - v0) * scale)))
        image = cv2.resize(frame.image[v0:v1, u0:u1], size, interpolation=cv2.INTER_AREA)
        for ball in event.balls:
            hit = np.flatnonzero(tracks.ball == ball)
            if len(hit) and np.all(np.isfinite(tracks.xy_px[hit[0]])):
                u, v = (tracks.xy_px[hit[0]] - (u0, v0)) * scale
                cv2.circle(image, (round(u), round(v)), 14, (0, 255, 255), 2, cv2.LINE_AA)
        ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self._quality])
        if ok:
            self.items.append(Evidence(frame.index, kind, _caption(event, kind), buffer.tobytes()))

    def between(self, first_frame: int, last_frame: int) -> list[Evidence]:
        """Evidence whose frame lies in [first_frame, last_frame]."""
        return [e for e in self.items if first_frame <= e.frame <= last_frame]
