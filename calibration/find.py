"""Automatic table finding in a frame or a short stretch of video.

1. A temporal median of the frames removes what moves (balls, players, cues).
2. The cloth is the region of the colour that covers the middle of the frame; a quadrilateral
   is fitted around it (`calibration.cloth`).
3. Along each side, straight edges are found to sub-pixel precision; the innermost
   well-supported one is the cushion nose (`calibration.lines`). The corners are where
   neighbouring noses meet. Optionally (`FindOptions.slanted_noses`), a cushion the fitted
   camera is well behind, which shows no face under its nose, has its nose taken again where
   its top meets the bed (`_behind_noses`).
4. Side pockets tell the long sides from the short ones; a rule (overridable) and the rack pick
   the head (`calibration.orientation`).
5. The camera is fitted to the corners (`calibration.corner_fit`, `calibration.fit`). Where
   the camera is outside a cushion's line (a broadcast camera behind the head rail), that
   cushion's visible edge is its nose, above the cloth: the line is moved down to the cloth
   plane and the camera refitted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel, FloatArray
from calibration.cloth import (
    ClothRegion,
    TableNotFoundError,
    find_cloth,
    intersect,
    lab_image,
    line_through,
    median_frame,
)
from calibration.corner_fit import fit_corners, nose_height_refit, rack_check, to_full
from calibration.fit import CameraFit, CameraPrior, check_fit, fit_camera_report
from calibration.io import CORNER_NAMES, Calibration, CalibrationError
from calibration.lines import EdgeLine, side_lines
from calibration.nose import nose_seen_from_behind, pick_nose
from calibration.orientation import head_side, pocket_darkness
from calibration.table import TableSpec

__all__ = ["FindOptions", "TableFinding", "TableNotFoundError", "find_table"]

WORKING_SIZE_PX = 1920
"""Frames larger than this (longest side) are searched at this size; corners are scaled back."""

CUSHION_BAND = 0.08
"""How deep inside the cloth boundary the cushion nose is looked for, as a share of the
distance to the opposite side (a cushion is about 4% of the width). Raising it reaches past
wider cushions, and toward markings on the bed."""

POCKET_EVIDENCE = 12.0
"""Lightness difference (Lab) between the long- and short-side middles above which side pockets
decide which sides are long; below it the camera fit decides."""

LENS_SEARCH_BELOW = 0.3
"""Tables found with less confidence than this are tried through candidate lenses (a bent
cushion fits a straight line poorly; calibration.lens). Kept low: the one real clip found
between 0.3 and 0.8 (broadcast-8ball game2, 0.45-0.69) takes a mild lens there that costs
detection (labelled frames 22 -> 20 of 24 found, one false ball)."""
MIN_CONFIDENCE = 0.01
"""Below this confidence the finder refuses rather than return a table: in practice one
cushion had no straight edge at all (a fisheye lens bends them; an arm hid one)."""

BEHIND_SLOPE = 0.1
"""A cushion counts as seen from behind (`_behind_noses`) when the fitted camera stands behind
its line by more than this share of its height (about 6 degrees from straight down). A
slanted view from behind a rail stands well past it (broadcast-8ball game2: 1.5); a camera
over the table fitted a little out of true must not (top-down-real 0028: 58 mm behind the
head at 8.6 m up, 0.007, where the faint line taken would be the nose seen from above)."""

SIDE_NAMES = ("head", "right", "foot", "left")
"""Sides in table order: head_left->head_right is the head, then right, foot, left."""


@dataclass(frozen=True, slots=True)
class FindOptions:
    """How to find the table.

    Attributes:
        head: "left", "right", "top" or "bottom": where the head (breaking end) is in the
            image; None for the default rule (left when the table lies across the frame,
            bottom when it runs up it), cross-checked with the rack.
        prior: what is known of the camera (focal, distortion, height).
        nose_height_mm: height of the cushion nose above the cloth (WPA: 63.5% of the ball
            diameter); 0 treats every found edge as lying on the cloth.
        lens_search: when no lens is given and the table is found with little confidence,
            try candidate barrel lenses (calibration.lens).
        slanted_noses: look for the noses a slanted view shows: edges as far outside the
            cloth as inside it (a far cushion's nose lies a shaded face's height outside
            the cloth region; `calibration.lines.SLANTED_OUTSIDE_SHARE`), and, for a
            cushion the fitted camera is well behind, the line where its top meets the bed
            (`calibration.nose.nose_seen_from_behind`; the rail's edge was taken, ~30 mm
            out). Off by default. Measured (by-eye visible noses, nose_height_mm=0):
            broadcast-8ball game2 corners 7-14 px off -> within 2.1 px; top-down-real,
            stills/empty_table, game1 and the 9 samples' automatic corners unchanged
            (< 0.15 px). But `tests/benchmarks/eval_real_review.py` (found mode) loses on
            game2, an eight-ball clip of 12 balls for ten-ball's 11 tracks: ball-frames
            69 -> 51 of 108, its first contact and pocket wrong (the far cushion alone:
            53), whichever balls get the eleven tracks changing with the calibration; the
            top-down clips are unchanged. Its near balls, against the cushion (28.6 mm
            off), measure 37-71 mm from it instead of 86-113.
    """

    head: str | None = None
    prior: CameraPrior = field(default_factory=CameraPrior)
    nose_height_mm: float = 36.3
    lens_search: bool = True
    slanted_noses: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class TableFinding:
    """A found table with its evidence.

    Attributes:
        calibration: corners, fitted camera and (in `extra`) the fit's figures.
        fit: the camera fit (reprojection error, assumptions).
        confidence: 0..1, how much to trust it (edge support, pockets, fit).
        cloth_px: (4, 2) float64 corners of the cloth region's quadrilateral, px.
        lines: per side in SIDE_NAMES order, the cushion nose line used (None: fell back to
            the cloth boundary).
        notes: what the finder decided and why, for a person to read.
    """

    calibration: Calibration
    fit: CameraFit
    confidence: float
    cloth_px: FloatArray
    lines: tuple[EdgeLine | None, ...]
    notes: tuple[str, ...]


def with_note(finding: TableFinding, note: str) -> TableFinding:
    """`finding` with `note` added to its notes and to its calibration file's finder notes."""
    extra = dict(finding.calibration.extra)
    finder = dict(extra.get("finder", {}))
    finder["notes"] = [*finder.get("notes", []), note]
    extra["finder"] = finder
    calibration = replace(finding.calibration, extra=extra)
    return replace(finding, calibration=calibration, notes=(*finding.notes, note))


def find_table(
    frames: Sequence[NDArray[np.uint8]],
    table: TableSpec,
    options: FindOptions | None = None,
) -> TableFinding:
    """Find the table in one or more BGR uint8 frames of a fixed camera.

    Args:
        frames: (H, W, 3) uint8 BGR frames, all the same size; several are combined by a
            temporal median (10-30 spread over a few seconds remove moving balls and people).
        table: the table's playing-surface size.
        options: head rule, camera prior, cushion nose height.

    Raises:
        TableNotFoundError: no cloth region with four straight sides, or no camera fits it.
    """
    options = options or FindOptions()
    full = median_frame(list(frames))
    if options.prior.distortion:
        return _find_through_lens(full, table, options)
    image, scale = _working_image(full)
    lab = lab_image(image)
    best: TableFinding | None = None
    failure: TableNotFoundError | None = None
    for region in find_cloth(image):
        try:
            finding = _find_in_region(full, (image, lab, scale), region, table, options)
        except TableNotFoundError as error:
            failure = error
            continue
        except CalibrationError as error:
            failure = TableNotFoundError(f"the quadrilateral found is not this table: {error}")
            continue
        if best is None or finding.confidence > best.confidence:
            best = finding
    if best is None:
        raise failure or TableNotFoundError("no table found")
    if options.lens_search and best.confidence < LENS_SEARCH_BELOW:
        from calibration.lens import search_lens

        best = search_lens(full, table, options, best)
    if best.confidence < MIN_CONFIDENCE:
        raise TableNotFoundError(
            f"only a doubtful table was found (confidence {best.confidence:.3f}): a cushion "
            "shows no straight edge (strong lens distortion, or the table hidden); give the "
            "corners by hand"
        )
    return best


def _find_through_lens(
    image: NDArray[np.uint8], table: TableSpec, options: FindOptions
) -> TableFinding:
    """Find the table in the undistorted image, then carry the corners back through the lens.

    Undistorting needs the focal length the coefficients were measured with, so it must be
    given with them.
    """
    prior = options.prior
    if prior.focal_px is None:
        raise CalibrationError("lens distortion needs the focal length it was measured with")
    height, width = image.shape[:2]
    centre = prior.principal_point or ((width - 1) / 2.0, (height - 1) / 2.0)
    matrix = np.array([[prior.focal_px, 0, centre[0]], [0, prior.focal_px, centre[1]], [0, 0, 1]])
    coefficients = np.asarray(prior.distortion, dtype=np.float64)
    ideal = np.asarray(cv2.undistort(image, matrix, coefficients, None, matrix), dtype=np.uint8)
    pinhole = replace(options, prior=replace(prior, distortion=()), lens_search=False)
    found = find_table([ideal], table, pinhole)
    lens = CameraModel(matrix, np.eye(3), np.zeros(3), (width, height), coefficients)
    names = list(found.calibration.corners_px)
    rays = (np.array([found.calibration.corners_px[n] for n in names]) - centre) / prior.focal_px
    seen = lens.project(rays, -1.0)  # camera-frame rays at depth 1 (world z down = -height)
    corners = {n: (float(u), float(v)) for n, (u, v) in zip(names, seen, strict=True)}
    fit = fit_camera_report(corners, table, (width, height), prior)
    extra = {**found.calibration.extra, **fit.as_json()}
    calibration = Calibration(table=table, camera=fit.camera, corners_px=corners, extra=extra)
    notes = (*found.notes, "found in the undistorted image, corners carried back through the lens")
    return TableFinding(calibration, fit, found.confidence, found.cloth_px, found.lines, notes)


def _find_in_region(
    full: NDArray[np.uint8],
    working: tuple[NDArray[np.uint8], NDArray[np.float32], float],
    region: ClothRegion,
    table: TableSpec,
    options: FindOptions,
) -> TableFinding:
    """The table whose cloth is `region` (working image, its Lab and scale in `working`)."""
    _, lab, scale = working
    reach = 2.0 * max(lab.shape[:2])
    low, high = -reach, reach + np.array(lab.shape[1::-1], np.float64)
    if not np.all((region.outer_px >= low) & (region.outer_px <= high)):
        # A near-degenerate quadrilateral (two sides almost parallel): nothing to profile.
        raise TableNotFoundError("the cloth region's quadrilateral runs far out of the picture")
    nose, found, raised, candidates = _nose_lines(
        lab, region.outer_px, region.colour_lab, options.slanted_noses
    )
    corners = np.array([intersect(nose[k - 1], nose[k]) for k in range(4)])
    long_first, pocket_note = _long_sides(lab, region.outer_px, corners, table, options)
    notes = [pocket_note]
    order, head_note = _table_order(corners, long_first, options.head)
    notes.append(head_note)
    fit, corners_full = fit_corners(corners[order], scale, full.shape, table, options.prior)
    if options.head is None:
        fit, corners_full, order, note = rack_check(
            full, fit, corners, order, (scale, table, options.prior)
        )
        notes += [note] if note else []
    behind = (
        _behind_noses(lab, region.colour_lab, (candidates, found, raised), fit, (order, table))
        if options.slanted_noses
        else {}
    )
    if behind:
        for side, edge in behind.items():
            nose[side], found[side] = edge.line, edge
        corners = np.array([intersect(nose[k - 1], nose[k]) for k in range(4)])
        fit, corners_full = fit_corners(corners[order], scale, full.shape, table, options.prior)
        notes.append(f"{len(behind)} cushion(s) seen from behind: nose taken where top meets bed")
    lines = tuple(found[(int(order[0]) + k) % 4] for k in range(4))
    noses = tuple(raised[(int(order[0]) + k) % 4] for k in range(4))
    fit, corners_full, note = nose_height_refit(
        fit, corners_full, noses, table, (options.nose_height_mm, options.prior)
    )
    notes += [note] if note else []
    try:
        check_fit(fit, corners_full, table)
    except CalibrationError as error:
        raise TableNotFoundError(f"the quadrilateral found is not this table: {error}") from None
    confidence = _confidence(lines, fit)
    named = {n: (float(u), float(v)) for n, (u, v) in zip(CORNER_NAMES, corners_full, strict=True)}
    extra = {**fit.as_json(), "finder": {"confidence": round(confidence, 3), "notes": notes}}
    calibration = Calibration(table=table, camera=fit.camera, corners_px=named, extra=extra)
    cloth_full = to_full(region.outer_px, scale)
    return TableFinding(calibration, fit, confidence, cloth_full, lines, tuple(notes))


def _working_image(image: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], float]:
    longest = max(image.shape[:2])
    if longest <= WORKING_SIZE_PX:
        return image, 1.0
    scale = WORKING_SIZE_PX / longest
    size = (round(image.shape[1] * scale), round(image.shape[0] * scale))
    small = np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)
    return small, image.shape[1] / size[0]


def _nose_lines(
    lab: NDArray[np.float32], outer: FloatArray, cloth_lab: FloatArray, slanted: bool
) -> tuple[list[FloatArray], list[EdgeLine | None], list[bool], list[list[EdgeLine]]]:
    """Per side of the cloth quad (side k runs corner k -> k+1): the cushion line, its edge,
    whether that edge is the raised nose itself (else the bed's edge, on the cloth), and the
    straight edges it was picked from (`FindOptions.slanted_noses`: `slanted`)."""
    lines: list[FloatArray] = []
    found: list[EdgeLine | None] = []
    raised: list[bool] = []
    candidates: list[list[EdgeLine]] = []
    for k in range(4):
        start, end = outer[k], outer[(k + 1) % 4]
        opposite = line_through(outer[(k + 2) % 4], outer[(k + 3) % 4])
        middle = 0.5 * (start + end)
        depth = CUSHION_BAND * abs(float(opposite @ np.array([middle[0], middle[1], 1.0])))
        edges = side_lines(lab, start, end, depth, slanted)
        best, is_nose = pick_nose(edges, lab, cloth_lab)
        lines.append(line_through(start, end) if best is None else best.line)
        found.append(best)
        raised.append(is_nose)
        candidates.append(edges)
    return lines, found, raised, candidates


def _behind_noses(
    lab: NDArray[np.float32],
    cloth_lab: FloatArray,
    picked: tuple[list[list[EdgeLine]], list[EdgeLine | None], list[bool]],
    fit: CameraFit,
    placed: tuple[NDArray[np.int64], TableSpec],
) -> dict[int, EdgeLine]:
    """Quad sides (by index) whose cushion the fitted camera is behind and where no darkening
    nose was found, with the nose `nose_seen_from_behind` finds there instead. `picked` holds
    each quad side's candidate edges, the one picked and whether it was a nose; `placed` the
    corner order (quad corner of each table corner) and the table."""
    candidates, found, raised = picked
    order, table = placed
    behind: dict[int, EdgeLine] = {}
    x, y, height = fit.camera.centre_mm
    back = (-x, y - table.width_mm, x - table.length_mm, -y)  # head, right, foot, left
    for k, distance in enumerate(back):
        side = int(order[k])
        if distance > BEHIND_SLOPE * height and not raised[side]:
            edge = nose_seen_from_behind(candidates[side], lab, cloth_lab)
            if edge is not None and edge is not found[side]:
                behind[side] = edge
    return behind


def _long_sides(
    lab: NDArray[np.float32],
    outer: FloatArray,
    corners: FloatArray,
    table: TableSpec,
    options: FindOptions,
) -> tuple[bool, str]:
    """Whether sides 0 and 2 of the quad are the long ones (else 1 and 3), and why."""
    darkness = [pocket_darkness(lab, outer[k], outer[(k + 1) % 4]) for k in range(4)]
    evidence = (darkness[0] + darkness[2]) - (darkness[1] + darkness[3])
    if abs(evidence) >= POCKET_EVIDENCE:
        which = "first" if evidence > 0 else "second"
        return evidence > 0, f"side pockets ({abs(evidence):.0f} darker) mark the {which} pair"
    errors = []
    for long_first in (True, False):
        order, _ = _table_order(corners, long_first, None)
        try:
            shape = (lab.shape[0], lab.shape[1], 3)
            fit = fit_corners(corners[order], 1.0, shape, table, options.prior)[0]
            errors.append(fit.reprojection_error_px)
        except CalibrationError:
            errors.append(np.inf)
    if not np.isfinite(min(errors)):
        raise TableNotFoundError("the quadrilateral found fits no camera view of this table")
    return bool(errors[0] <= errors[1]), (
        f"no clear side pockets; the table shape fits best with that pair long "
        f"(reprojection {min(errors):.2f} px against {max(errors):.2f} px)"
    )


def _table_order(
    corners: FloatArray, long_first: bool, head: str | None
) -> tuple[NDArray[np.int64], str]:
    """Corner indices in CORNER_NAMES order and the head rule used.

    The quad's corners already turn the way the table's corner names do, so naming is a
    rotation: the head side k (corners k, k+1) gives head_left = k, head_right = k + 1.
    """
    short = (1, 3) if long_first else (0, 2)
    midpoints = np.array([0.5 * (corners[k] + corners[(k + 1) % 4]) for k in short])
    index, rule = head_side(midpoints, head)
    start = short[index]
    return np.array([(start + k) % 4 for k in range(4)], dtype=np.int64), rule


def _confidence(lines: tuple[EdgeLine | None, ...], fit: CameraFit) -> float:
    support = min((line.support if line is not None else 0.0) for line in lines)
    return float(np.clip(support / 0.8, 0.0, 1.0) * np.exp(-fit.reprojection_error_px / 3.0))
