"""The table's size from the balls on it: a ball is 57.15 mm on every table.

Every standard table has a 2:1 playing surface, so its four corners cannot tell a 7ft table
from a 9ft one: the same picture fits both, with the camera nearer or farther. The balls can.
Fitted as a 9ft table, a 7ft table's balls look 2540 / 1981 = 1.28 times too big. So when the
size is not given, the table is found as a 9ft one, the isolated balls at rest are measured
against the size a ball would have there, and the table is found again at the nearest
standard size that the measurement supports.

A ball is measured from a mask of what differs from the cloth in colour (chroma) or is much
brighter than it: a shadow is darker cloth of the same hue, so it does not widen the ball. Only
round, isolated blobs are measured (a rack or a ball against a cushion is not round).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.cloth import median_frame
from calibration.find import FindOptions, TableFinding, find_table, with_note
from calibration.fit import CameraPrior, fit_camera_report
from calibration.io import Calibration
from calibration.table import TABLE_SIZES_MM, TableSpec

DEFAULT_TABLE = "9ft"
"""The size assumed while measuring, and kept when no ball can be measured."""

MIN_ROUNDNESS = 0.7
"""Smallest share of its enclosing circle a blob must fill to be measured as one ball; two
touching balls fill half of theirs."""

SCALE_RANGE = (0.6, 2.0)
"""Blobs whose size, against a ball's under the assumed table, lies outside this range are
not balls of any table from a bar box (about 1.8 m) to 12 ft (about 3.6 m) long."""

RAYS = 48
"""Rays along which a blob's edge is found."""

SNAP_TOLERANCE = 0.07
"""Largest relative difference between the measured length and a standard size for the
measurement to pick that size; the standard sizes are 12-14% apart."""

NOISE_MADS = 6.0
"""How many median absolute deviations of the cloth's own spread a pixel must differ by to
count as ball; the cloth's texture, noise and light fall-off set the spread."""

MIN_ANGLE_DEG = 6.0
MIN_LIGHTER = 1.5
"""Floors on what marks a ball's pixel whatever the cloth's measured spread: the angle
between its colour and the cloth's (degrees), and its brightness over the cloth's nearby."""


@dataclass(frozen=True, slots=True)
class SizeMeasurement:
    """What the balls say about the table's size.

    Attributes:
        scale: median ratio of the balls' radius in pixels to a ball's under the assumed
            table (1.0: the assumed size; above 1: a smaller table).
        balls: how many measurements of isolated balls were pooled (a ball at rest counts
            once per image).
        length_mm: the playing length the balls imply.
        table: the standard table within `SNAP_TOLERANCE` of that length, or None.
    """

    scale: float
    balls: int
    length_mm: float
    table: TableSpec | None


def ball_blobs(
    image: NDArray[np.uint8], calibration: Calibration
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Isolated balls in an image, measured in pixels.

    A blob is found where pixels differ from the cloth beyond the cloth's own spread; a round
    one is measured where its difference from the cloth falls fastest (`_edge_radius`), which
    is the ball's edge whatever the contrast: a threshold would put it inside a low-contrast
    ball and outside a high-contrast one.

    Args:
        image: (H, W, 3) uint8 BGR frame.
        calibration: the table as assumed (its corners and camera).

    Returns:
        (K, 2) float64 blob centres (px) and (K,) float64 radii (px).
    """
    differences = _differences(image, calibration)
    mask = np.where(np.maximum(*differences) > 1.0, 255, 0).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    centres: list[tuple[float, float]] = []
    radii: list[float] = []
    for contour in contours:
        edge = _measured_ball(differences, np.asarray(contour, dtype=np.int32))
        if edge is None:
            continue
        centre, radius = edge
        centres.append(centre)
        radii.append(radius)
    return np.array(centres, dtype=np.float64).reshape(-1, 2), np.array(radii, dtype=np.float64)


def _measured_ball(
    differences: tuple[NDArray[np.float32], NDArray[np.float32]], contour: NDArray[np.int32]
) -> tuple[tuple[float, float], float] | None:
    """Centre (px) and radius (px) of a round blob (`_edge_radius`); None when it is too
    small or not round."""
    if cv2.contourArea(contour) < 12.0 or not _round(contour):
        return None
    x, y, w, h = cv2.boundingRect(contour)
    pad = max(w, h) // 4 + 2
    top, left = max(0, y - pad), max(0, x - pad)
    windows = [d[top : y + h + pad, left : x + w + pad] for d in differences]
    moments = cv2.moments(contour)
    u = float(moments["m10"] / moments["m00"]) - left
    v = float(moments["m01"] / moments["m00"]) - top
    radius = _edge_radius((windows[0], windows[1]), (u, v), _minor_radius(contour))
    return (u + left, v + top), radius


def _edge_radius(
    differences: tuple[NDArray[np.float32], NDArray[np.float32]],
    centre: tuple[float, float],
    guess: float,
) -> float:
    """A round blob's radius (px): along each of `RAYS` rays from its centre, where its
    difference from the cloth falls fastest between half and one and a half times `guess`,
    in colour or in lightness, whichever falls more on that ray (a white band on grey cloth
    differs in lightness, a blue one in colour; a shadow is never lighter than the cloth);
    the median over the rays ignores a shadow or a neighbour on a few of them."""
    angles = np.linspace(0.0, 2.0 * np.pi, RAYS, endpoint=False)
    radii = np.arange(0.5 * guess, 1.5 * guess + 2.0, 0.25)
    map_u = (centre[0] + np.outer(np.cos(angles), radii)).astype(np.float32)
    map_v = (centre[1] + np.outer(np.sin(angles), radii)).astype(np.float32)
    falls = []
    for difference in differences:
        smooth = cv2.GaussianBlur(difference, (3, 3), 0)
        profiles = cv2.remap(
            smooth, map_u, map_v, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        falls.append(profiles[:, :-1] - profiles[:, 1:])
    fall = np.where((falls[0].max(axis=1) >= falls[1].max(axis=1))[:, None], falls[0], falls[1])
    edges = radii[np.argmax(fall, axis=1)] + 0.125
    return float(np.median(edges))


def _round(contour: NDArray[np.int32]) -> bool:
    """Whether a blob fills at least `MIN_ROUNDNESS` of its enclosing circle."""
    _, enclosing = cv2.minEnclosingCircle(contour)
    return bool(cv2.contourArea(contour) >= MIN_ROUNDNESS * np.pi * enclosing**2)


def _minor_radius(contour: NDArray[np.int32]) -> float:
    """Half the minor axis of a blob's outline, px: a disc of radius R has second moments
    R^2 / 4 in every direction, and a shadow or a blur streak on one side lengthens only the
    major axis. The outline runs through the border pixels' centres, half a pixel inside."""
    moments = cv2.moments(contour)
    covariance = np.array([[moments["mu20"], moments["mu11"]], [moments["mu11"], moments["mu02"]]])
    smallest = float(np.linalg.eigvalsh(covariance / moments["m00"])[0])
    return 2.0 * float(np.sqrt(max(smallest, 0.0)))


def measure_table(images: Sequence[NDArray[np.uint8]], calibration: Calibration) -> SizeMeasurement:
    """The table size the balls in `images` imply, given a calibration made for another size.

    Each image is measured on its own (a temporal median would blur the balls that moved) and
    the balls' ratios are pooled: a ball at rest counts once per image, a moving one is
    smeared out of round and is not measured.

    Args:
        images: (H, W, 3) uint8 BGR frames of the same camera.
        calibration: the table found under an assumed size.
    """
    camera = calibration.camera
    assumed = calibration.table
    pooled: list[NDArray[np.float64]] = []
    for image in images:
        centres, radii = ball_blobs(image, calibration)
        if len(radii):
            expected = camera.ball_radius_px(camera.to_table(centres), assumed.ball_radius_mm)
            pooled.append(radii / expected)
    ratios = np.concatenate(pooled) if pooled else np.zeros(0)
    ratios = ratios[(ratios >= SCALE_RANGE[0]) & (ratios <= SCALE_RANGE[1])]
    if len(ratios) == 0:
        return SizeMeasurement(float("nan"), 0, float("nan"), None)
    scale = float(np.median(ratios))
    length = assumed.length_mm / scale
    return SizeMeasurement(scale, len(ratios), length, nearest_standard(length))


def nearest_standard(length_mm: float) -> TableSpec | None:
    """The standard table whose playing length is within `SNAP_TOLERANCE` of `length_mm`."""
    name, (length, _) = min(
        TABLE_SIZES_MM.items(), key=lambda item: abs(np.log(length_mm / item[1][0]))
    )
    return TableSpec.from_name(name) if abs(length_mm / length - 1.0) <= SNAP_TOLERANCE else None


def find_sized_table(
    frames: Sequence[NDArray[np.uint8]],
    table: TableSpec | None,
    options: FindOptions | None = None,
) -> TableFinding:
    """`calibration.find.find_table`, measuring the table's size from its balls when `table`
    is None (see the module docstring); a given `table` is used as it is.

    Raises:
        TableNotFoundError: as `find_table`.
    """
    if table is not None:
        return find_table(frames, table, options)
    still = median_frame(list(frames))
    assumed = TableSpec.from_name(DEFAULT_TABLE)
    found = find_table([still], assumed, options)
    sized, note = _decide(measure_table(frames, found.calibration))
    if sized != assumed:
        found = find_table([still], sized, options)
    return with_note(found, note)


def fit_sized_corners(
    frames: Sequence[NDArray[np.uint8]],
    corners: dict[str, tuple[float, float]],
    table: TableSpec | None,
    prior: CameraPrior | None = None,
) -> tuple[Calibration, list[str]]:
    """The calibration for corners given by hand, the table's size measured from the balls
    in `frames` when `table` is None.

    Returns:
        The calibration and what was decided about the size (empty when it was given).

    Raises:
        CalibrationError: the corners do not fit the table.
    """
    height, width = frames[0].shape[:2]
    sized = table or TableSpec.from_name(DEFAULT_TABLE)
    fit = fit_camera_report(corners, sized, (width, height), prior)
    calibration = Calibration(sized, fit.camera, corners, fit.as_json())
    if table is not None:
        return calibration, []
    measured, note = _decide(measure_table(frames, calibration))
    if measured != sized:
        fit = fit_camera_report(corners, measured, (width, height), prior)
        calibration = Calibration(measured, fit.camera, corners, fit.as_json())
    return calibration, [note]


def _decide(measured: SizeMeasurement) -> tuple[TableSpec, str]:
    """The table to use after a measurement, and a note saying why for a person."""
    if measured.table is None:
        return TableSpec.from_name(DEFAULT_TABLE), _unmeasured_note(measured)
    return measured.table, (
        f"table size {_name(measured.table)}: {measured.balls} measurement(s) of balls "
        f"give {measured.scale:.2f} times a ball on a {DEFAULT_TABLE} table (a playing "
        f"length of {measured.length_mm:.0f} mm); give --table to override"
    )


def table_choice(text: str) -> TableSpec | None:
    """A table size as a user writes it: "auto" (None: measured from the balls), "9ft",
    "8ft", "7ft", or "LxW" in mm (e.g. "2540x1270").

    Raises:
        ValueError: naming the text and what is accepted.
    """
    cleaned = text.strip().lower().replace(" ", "")
    if cleaned == "auto":
        return None
    if "x" in cleaned:
        try:
            length, width = (float(part) for part in cleaned.split("x"))
        except ValueError:
            raise ValueError(
                f"table size {text!r}: LxW must be two numbers in mm, e.g. 2540x1270"
            ) from None
        return TableSpec(length_mm=max(length, width), width_mm=min(length, width))
    try:
        return TableSpec.from_name(cleaned)
    except ValueError:
        raise ValueError(
            f"unknown table size {text!r}: give auto, {', '.join(TABLE_SIZES_MM)} or LxW in mm"
        ) from None


def _differences(
    image: NDArray[np.uint8], calibration: Calibration
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """(H, W) float32 differences from the cloth in colour and in lightness, each in units
    of the threshold that marks a ball (above 1: ball-like); 0 off the playing surface.

    A shadow or a lamp's fall-off scales the cloth's colour: its BGR vector keeps its
    direction. So a pixel differs in colour by the angle between its colour and the cloth's,
    and in lightness by how much lighter it is than the cloth nearby (a white ball on grey
    cloth), each against its threshold (`_threshold` of the cloth's own spread).
    """
    inside = _surface_mask(calibration, image.shape[:2]) > 0
    pixels = image.astype(np.float32) + 1.0
    cloth = np.median(pixels[inside], axis=0)
    cosine = (pixels @ cloth) / (np.linalg.norm(pixels, axis=2) * float(np.linalg.norm(cloth)))
    angle = np.degrees(np.arccos(np.clip(cosine, -1.0, 1.0))).astype(np.float32)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    kernel = 2 * int(min(127, max(7, 4 * _ball_radius_px(calibration)))) + 1
    local = cv2.medianBlur(grey, kernel).astype(np.float32) + 1.0
    lighter = (grey.astype(np.float32) / local - 1.0).astype(np.float32)
    colour = angle / _threshold(angle[inside], MIN_ANGLE_DEG)
    light = lighter / _threshold(lighter[inside], MIN_LIGHTER - 1.0)
    return np.where(inside, colour, 0.0).astype(np.float32), np.where(inside, light, 0.0).astype(
        np.float32
    )


def _surface_mask(calibration: Calibration, shape: tuple[int, ...]) -> NDArray[np.uint8]:
    """(H, W) uint8 mask of the playing surface less half a ball at the cushions."""
    table = calibration.table
    margin = table.ball_radius_mm
    xs = np.linspace(margin, table.length_mm - margin, 33)
    ys = np.linspace(margin, table.width_mm - margin, 17)
    outline = np.vstack(
        [
            np.column_stack([xs, np.full_like(xs, ys[0])]),
            np.column_stack([np.full_like(ys, xs[-1]), ys]),
            np.column_stack([xs[::-1], np.full_like(xs, ys[-1])]),
            np.column_stack([np.full_like(ys, xs[0]), ys[::-1]]),
        ]
    )
    pixels = calibration.camera.project(outline)
    mask = np.zeros(shape[:2], dtype=np.uint8)
    cv2.fillPoly(mask, [np.round(pixels).astype(np.int32)], 255)
    return mask


def _ball_radius_px(calibration: Calibration) -> float:
    """A ball's radius in pixels at the table's centre under the calibration's size."""
    table = calibration.table
    centre = np.array([[table.length_mm / 2.0, table.width_mm / 2.0]])
    return float(calibration.camera.ball_radius_px(centre, table.ball_radius_mm)[0])


def _threshold(values: NDArray[np.floating], floor: float) -> float:
    """`NOISE_MADS` robust deviations above the median of the cloth's values, at least
    `floor`."""
    median = float(np.median(values))
    spread = float(np.median(np.abs(values - median)))
    return max(floor, median + NOISE_MADS * 1.4826 * spread)


def _name(table: TableSpec) -> str:
    for name, (length, width) in TABLE_SIZES_MM.items():
        if (length, width) == (table.length_mm, table.width_mm):
            return name
    return f"{table.length_mm:.0f}x{table.width_mm:.0f} mm"


def _unmeasured_note(measured: SizeMeasurement) -> str:
    if measured.balls == 0:
        return (
            f"table size {DEFAULT_TABLE} assumed: no isolated ball at rest to measure it "
            "(give --table if it is another size)"
        )
    return (
        f"table size {DEFAULT_TABLE} assumed: {measured.balls} ball(s) measure a playing "
        f"length of {measured.length_mm:.0f} mm, no standard size (give --table)"
    )
