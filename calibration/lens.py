"""An unknown lens's barrel distortion, found from the table's own straight cushions.

A wide or fisheye club camera bends the cushions into arcs. Found through a pinhole model,
such a table's sides fit straight lines poorly: the finder's confidence (edge support) falls
and the corners land 10-40 px off. Undistorting the image with the right coefficient makes
the cushions straight again, and the edge support and confidence peak sharply there (drawn
tables at k1 -0.22 and -0.4: confidence 0.24 -> 0.97 and 0.04 -> 0.94, corners within a
pixel). So when a table
is found with less than `calibration.find.LENS_SEARCH_BELOW` confidence and no lens was
given, the finder tries one-term radial lenses (climbing in k1 while the confidence rises,
then halving steps around the best) and keeps the best only when it is clearly more
confident than the pinhole table.

A one-term radial lens depends only on k1 / f**2 in pixels, so the search needs no focal
length: it runs at an assumed one (`ASSUMED_FOCAL_DIAGONALS` of the image diagonal) and the
coefficient is rescaled to the focal the table's fit then measures.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from calibration.find import FindOptions, TableFinding, find_table, with_note
from calibration.fit import fit_camera_report
from calibration.io import Calibration, CalibrationError
from calibration.table import TableSpec

STRAIGHT = 0.8
"""Least edge support (the share of a side's profiles on its line) of every side for the
cushions to count as straight already: no lens is searched for."""
GAIN = 0.1
"""How much more edge support (of its worst side) a lensed table must have to replace the
pinhole one; it must also be at least as confident (its camera fit as good)."""
ASSUMED_FOCAL_DIAGONALS = 0.6
"""Focal length the candidate lenses are expressed at, in image diagonals (only k1 / f**2
matters; see the module docstring)."""
STEP_K1 = -0.1
"""Step of the climb in k1 at the assumed focal, from the pinhole (0) towards fisheye."""
MAX_K1 = -0.6
"""Strongest barrel tried at the assumed focal."""
REFINE_STEPS = (0.05, 0.025)
"""Steps of the refinement either side of the best candidate."""
ZOOM = 0.7
"""Scale of the undistorted working image's focal: barrel undistortion pushes the image's
edges outwards, and a table filling the frame would leave it at full scale."""


def search_lens(
    image: NDArray[np.uint8], table: TableSpec, options: FindOptions, pinhole: TableFinding
) -> TableFinding:
    """The table through the most confident candidate lens, or ``pinhole`` unless that one
    has `GAIN` more edge support (on its worst side) and at least its confidence: the
    confidence also weighs the camera fit's corner error, which a wrong lens can lower by
    chance, so the cushions must also be straighter.

    Args:
        image: (H, W, 3) uint8 BGR frame (a median of several).
        table: the table's playing-surface size.
        options: as given to the finder (no distortion in its prior).
        pinhole: the table found without a lens.
    """
    if _straightness(pinhole) >= STRAIGHT:
        return pinhole
    height, width = image.shape[:2]
    assumed = ASSUMED_FOCAL_DIAGONALS * float(np.hypot(width, height))
    tried: dict[float, TableFinding | None] = {0.0: pinhole}
    k1, falls = STEP_K1, 0
    # Climb while the cushions straighten (the confidence peaks at the lens), until it has
    # fallen twice in a row: two extra finds for a camera without distortion. (A strong
    # fisheye's confidence can dip at the first step before it rises.)
    while k1 >= MAX_K1 and falls < 2:
        tried[k1] = _through(image, table, options, k1, assumed)
        before = _confidence(tried[round(k1 - STEP_K1, 4)])
        falls = falls + 1 if _confidence(tried[k1]) <= before else 0
        k1 = round(k1 + STEP_K1, 4)
    if max(tried, key=lambda k: _confidence(tried[k])) == 0.0:
        return pinhole
    for step in REFINE_STEPS:
        best = max(tried, key=lambda k: _confidence(tried[k]))
        for k1 in (round(best - step, 4), round(best + step, 4)):
            if k1 < 0 and k1 not in tried:
                tried[k1] = _through(image, table, options, k1, assumed)
    best = max(tried, key=lambda k: _confidence(tried[k]))
    found = tried[best]
    if (
        found is None
        or _straightness(found) < _straightness(pinhole) + GAIN
        or found.confidence < pinhole.confidence
    ):
        return pinhole
    k1 = float(found.calibration.camera.distortion[0])
    note = (
        f"the cushions are bent by the lens: undistorted with k1 {k1:.3f} (found, confidence "
        f"{pinhole.confidence:.2f} -> {found.confidence:.2f}; give the lens to override)"
    )
    return with_note(found, note)


def _straightness(finding: TableFinding | None) -> float:
    """Edge support of the worst side (-1: not found)."""
    if finding is None:
        return -1.0
    return min((line.support if line is not None else 0.0) for line in finding.lines)


def _confidence(finding: TableFinding | None) -> float:
    return -1.0 if finding is None else finding.confidence


def _through(
    image: NDArray[np.uint8], table: TableSpec, options: FindOptions, k1: float, assumed: float
) -> TableFinding | None:
    """The table through a one-term lens of `k1` at focal `assumed` (None: not found)."""
    from calibration.find import TableNotFoundError

    try:
        return through_unknown_lens(image, table, options, k1, assumed)
    except (TableNotFoundError, CalibrationError):
        return None


def through_unknown_lens(
    image: NDArray[np.uint8], table: TableSpec, options: FindOptions, k1: float, assumed: float
) -> TableFinding:
    """Find the table in the image undistorted by a one-term radial lens (k1 at focal
    `assumed`, px), then carry the corners back through that lens.

    The pinhole finder measures the focal in the undistorted image (or assumes one, camera
    straight down); the lens is rescaled to it (k1 * (f / assumed)**2 is the same lens).

    Raises:
        TableNotFoundError: no table in the undistorted image.
        CalibrationError: the corners carried back fit no camera of this table.
    """
    height, width = image.shape[:2]
    centre = options.prior.principal_point or ((width - 1) / 2.0, (height - 1) / 2.0)
    lens = _matrix(assumed, centre)
    working = _matrix(assumed * ZOOM, centre)
    coefficients = np.array([k1, 0.0, 0.0, 0.0])
    ideal = np.asarray(cv2.undistort(image, lens, coefficients, None, working), np.uint8)
    inner = replace(options, prior=replace(options.prior, focal_px=None), lens_search=True)
    found = find_table([ideal], table, replace(inner, lens_search=False))
    focal = float(found.calibration.camera.camera_matrix[0, 0]) / ZOOM
    if options.prior.focal_px is not None:
        focal = options.prior.focal_px
    rescaled = (k1 * (focal / assumed) ** 2, 0.0, 0.0, 0.0)
    camera = CameraModel(
        _matrix(focal, centre), np.eye(3), np.zeros(3), (width, height), np.array(rescaled)
    )
    names = list(found.calibration.corners_px)
    ideal_px = np.array([found.calibration.corners_px[n] for n in names])
    rays = (ideal_px - centre) / (assumed * ZOOM) * (assumed / focal)
    seen = camera.project(rays, -1.0)  # camera-frame rays at depth 1 (world z down)
    corners = {n: (float(u), float(v)) for n, (u, v) in zip(names, seen, strict=True)}
    prior = replace(options.prior, focal_px=focal, distortion=rescaled)
    fit = fit_camera_report(corners, table, (width, height), prior)
    extra = {**found.calibration.extra, **fit.as_json()}
    calibration = Calibration(table=table, camera=fit.camera, corners_px=corners, extra=extra)
    notes = (*found.notes, "found in the undistorted image, corners carried back through the lens")
    return TableFinding(calibration, fit, found.confidence, found.cloth_px, found.lines, notes)


def _matrix(focal: float, centre: tuple[float, float]) -> NDArray[np.float64]:
    return np.array([[focal, 0.0, centre[0]], [0.0, focal, centre[1]], [0.0, 0.0, 1.0]])
