"""Top-down plot of one shot: trajectories on a table diagram, contacts, cushions, pockets.

Drawn with OpenCV onto a diagram of the playing surface (head on the left, foot on the right,
y down the image so the left cushion is at the top, as a player at the head end sees it from
above). Ball colours follow the standard set; stripes are drawn with a white ring.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.table import Pocket, TableSpec
from tracking.types import Event, EventKind
from vision.palette import STANDARD_RGB, STRIPED

CLOTH_BGR = (70, 120, 35)
RAIL_BGR = (40, 60, 95)
POCKET_BGR = (20, 20, 20)
FIRST_CONTACT_BGR = (0, 255, 255)
CUSHION_BGR = (255, 255, 255)
POCKETED_BGR = (60, 60, 255)


@dataclass(frozen=True, slots=True)
class PlotStyle:
    """Sizes of the diagram.

    Attributes:
        width_px: image width; the height follows the table's aspect ratio.
        rail_px: width of the wooden rail drawn around the cloth.
    """

    width_px: int = 720
    rail_px: int = 24


def _ball_bgr(ball: int) -> tuple[int, int, int]:
    r, g, b = STANDARD_RGB[ball]
    return (b, g, r)


class _Canvas:
    """Maps table mm to diagram pixels."""

    def __init__(self, table: TableSpec, style: PlotStyle) -> None:
        self.table = table
        self.rail = style.rail_px
        self.scale = (style.width_px - 2 * style.rail_px) / table.length_mm
        height = round(table.width_mm * self.scale) + 2 * style.rail_px
        self.image = np.zeros((height, style.width_px, 3), np.uint8)

    def px(self, xy_mm: NDArray[np.floating]) -> NDArray[np.int32]:
        xy = np.asarray(xy_mm, np.float64).reshape(-1, 2)
        return np.round(xy * self.scale + self.rail).astype(np.int32)

    def radius(self) -> int:
        return max(3, round(self.table.ball_radius_mm * self.scale))


def _draw_table(canvas: _Canvas) -> None:
    image, table = canvas.image, canvas.table
    image[:] = RAIL_BGR
    corner_a = canvas.px(np.array([0.0, 0.0]))[0]
    corner_b = canvas.px(np.array([table.length_mm, table.width_mm]))[0]
    cv2.rectangle(image, tuple(corner_a), tuple(corner_b), CLOTH_BGR, -1)
    head = canvas.px(
        np.array([[table.head_string_x_mm, 0.0], [table.head_string_x_mm, table.width_mm]])
    )
    cv2.line(image, tuple(head[0]), tuple(head[1]), (110, 160, 80), 1, cv2.LINE_AA)
    for spot in (table.head_spot_mm, table.foot_spot_mm):
        cv2.circle(image, tuple(canvas.px(np.array(spot))[0]), 2, (200, 220, 200), -1)
    for k in range(1, 8):
        for y in (-canvas.rail / 2 / canvas.scale, table.width_mm + canvas.rail / 2 / canvas.scale):
            if k != 4:
                x = table.length_mm * k / 8
                cv2.circle(image, tuple(canvas.px(np.array([x, y]))[0]), 2, (200, 230, 240), -1)
    for k in range(1, 4):
        for x in (
            -canvas.rail / 2 / canvas.scale,
            table.length_mm + canvas.rail / 2 / canvas.scale,
        ):
            y = table.width_mm * k / 4
            cv2.circle(image, tuple(canvas.px(np.array([x, y]))[0]), 2, (200, 230, 240), -1)
    pocket_r = max(6, round(table.corner_mouth_mm / 2 * canvas.scale))
    for pocket in Pocket:
        centre = canvas.px(np.array(table.pocket_xy_mm(pocket)))[0]
        cv2.circle(image, tuple(centre), pocket_r, POCKET_BGR, -1, cv2.LINE_AA)


def _draw_ball(canvas: _Canvas, ball: int, xy_mm: NDArray[np.floating], filled: bool) -> None:
    centre = tuple(canvas.px(xy_mm)[0])
    r = canvas.radius()
    colour = _ball_bgr(ball)
    if filled:
        cv2.circle(canvas.image, centre, r, colour, -1, cv2.LINE_AA)
        if ball in STRIPED:
            cv2.circle(canvas.image, centre, r, (255, 255, 255), 2, cv2.LINE_AA)
        label = "c" if ball == 0 else str(ball)
        text_colour = (0, 0, 0) if ball in (0, 1, 5, 9) else (255, 255, 255)
        scale = 0.3 + 0.02 * r
        (w, h), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        origin = (centre[0] - w // 2, centre[1] + h // 2)
        cv2.putText(
            canvas.image,
            label,
            origin,
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            text_colour,
            1,
            cv2.LINE_AA,
        )
    else:
        cv2.circle(canvas.image, centre, r, colour, 1, cv2.LINE_AA)


def _event_xy(
    event: Event, paths: Mapping[int, NDArray[np.float64]], frames: Mapping[int, NDArray[np.int64]]
) -> NDArray[np.float64] | None:
    """Where the first ball of an event was at the event's frame (nearest recorded frame)."""
    if not event.balls or event.balls[0] not in paths:
        return None
    ball = event.balls[0]
    index = int(np.argmin(np.abs(frames[ball] - event.frame)))
    point: NDArray[np.float64] = paths[ball][index]
    return point


def _draw_events(
    canvas: _Canvas,
    events: Sequence[Event],
    paths: Mapping[int, NDArray[np.float64]],
    frames: Mapping[int, NDArray[np.int64]],
) -> None:
    first_contact_done = False
    for event in events:
        xy = _event_xy(event, paths, frames)
        if event.kind is EventKind.BALL_POCKET and event.pocket is not None:
            centre = tuple(canvas.px(np.array(canvas.table.pocket_xy_mm(event.pocket)))[0])
            cv2.circle(canvas.image, centre, canvas.radius() + 5, POCKETED_BGR, 2, cv2.LINE_AA)
        elif xy is None:
            continue
        elif event.kind is EventKind.BALL_BALL and not first_contact_done:
            first_contact_done = True
            centre = tuple(canvas.px(xy)[0])
            cv2.drawMarker(canvas.image, centre, FIRST_CONTACT_BGR, cv2.MARKER_STAR, 18, 2)
        elif event.kind is EventKind.BALL_CUSHION:
            centre = tuple(canvas.px(xy)[0])
            cv2.drawMarker(canvas.image, centre, CUSHION_BGR, cv2.MARKER_TRIANGLE_UP, 10, 1)


def plot_shot(
    table: TableSpec,
    paths: Mapping[int, NDArray[np.float64]],
    frames: Mapping[int, NDArray[np.int64]],
    events: Sequence[Event],
    style: PlotStyle | None = None,
) -> NDArray[np.uint8]:
    """Draw one shot.

    Args:
        table: the table's dimensions.
        paths: ball -> (K, 2) centres in table mm, in frame order, strike to end of shot.
        frames: ball -> (K,) frame index of each centre.
        events: the shot's events (first ball_ball marked as the first contact, cushions,
            pockets).
        style: sizes.

    Returns:
        (H, W, 3) uint8 BGR diagram. Start positions are drawn hollow, end positions filled.
    """
    canvas = _Canvas(table, style or PlotStyle())
    _draw_table(canvas)
    for ball, path in paths.items():
        if len(path) == 0:
            continue
        points = canvas.px(path)
        if len(points) > 1:
            cv2.polylines(
                canvas.image, [points.reshape(-1, 1, 2)], False, _ball_bgr(ball), 2, cv2.LINE_AA
            )
        _draw_ball(canvas, ball, path[0], filled=False)
    _draw_events(canvas, events, paths, frames)
    for ball, path in paths.items():
        if len(path):
            _draw_ball(canvas, ball, path[-1], filled=True)
    return canvas.image


def encode_png(image: NDArray[np.uint8]) -> bytes:
    """PNG bytes of a BGR image."""
    ok, buffer = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 6])
    if not ok:
        raise ValueError("PNG encoding failed")
    return bytes(buffer.tobytes())
