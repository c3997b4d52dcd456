"""Racked balls the detector cannot tell apart, placed where the rack says they stand.

Seen from a corner or the side of the table, a standing rack at the far end is a few pixels
per ball, and its touching balls merge into one blob: a ball behind two nearer ones shows
half its disc or less, too little to be placed and named apart from them
(`vision.separate.MIN_SEPARATION`). The detector then returns the two to five balls it can
tell apart, the tracker never has the rest, and the break starts them as newborn tracks at
several metres a second, named from blurred pixels: the break's first contact, its pocketed
balls and its count of balls to a cushion go wrong (rendered corner views at 1280x720 to
1600x900, 30 and 60 fps: 2 and 4 of 10 racked balls tracked before the break).

A ten-ball rack has known places (rules S1-S4: the 1 on the foot spot at the apex, the 10 in
the middle of the three-ball row). Where a few detections stand on places (locating the rack,
`tracking.rack.match_places`) and most places that show enough of themselves are not cloth,
`RackFiller` adds a detection on each place no detection stands on: at the place, named from
the pixels only that ball shows (each pixel goes to the nearest ball covering it, by camera
depth), then made one-ball-per-class with the frame's other detections. Detections between
places (the centroid of an unsplit blob) are dropped while it fills. It fills until the rack
breaks (a detection on a place moves off it, or a ball arrives beside it) and again only
after the rack area stood nearly empty (a new rack), as `tracking.rack.RackPrior` does.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from calibration.camera import BALL_CENTRE_HEIGHT_MM
from calibration.table import TableSpec
from tracking.rack import RackArea, RackConfig, match_places, place_priors, rack_places, unlifted
from tracking.rack_watch import PlaceWatch
from vision.assignment import exclusive_probabilities
from vision.cloth import cloth_distance
from vision.types import CUE, NUM_CLASSES, Detections, Frame


@dataclass(frozen=True, slots=True)
class RackFillConfig:
    """When the rack's hidden balls are filled in.

    Attributes:
        enabled: whether to fill at all. Off by default: on the lead's held-out clips
            (eighth and ninth sets, 44 shots, real detector, at 002b7c6) fill on called 28
            shots right against 30 with it off: a corner 7 ft 50 fps break gained a call
            (3/4 -> 4/4) but a corner 8 ft 30 fps clip with a player lost all three (3/3 ->
            0/3, identity 0.986 -> 0.793: the filled rack's names were wrong at the break,
            its first contact read as the 10, a pocketed 2 as the 7); the nine samples
            kept 26/26 either way. Before, measured by the rack engineers:
            with the rack prior leaving a ball read as no class unnamed
            (`tracking.rack.RackConfig.least_lifted`):
            before, with every ball in view the one-ball-per-class assignment gave the
            class nobody showed to a neighbour's trace of it (broadcast_nudge: the filled
            10 made the racked 8 the 7, identity 1.000 -> 0.988). Off -> on, real
            detector: at 182d826 six fresh clips 5/8 -> 7/8 calls; at 751ae04 seven pool
            racks 9/15 -> 11/15 calls, racked balls tracked before the break 40 -> 68 of
            70, recall up on all seven (0.863-0.973 -> 0.939-0.998). With ``least_lifted``
            (6118834 + it, on): the nine samples 26/26, each at or above its baseline
            (broadcast_nudge recall 0.974 -> 0.992, identity 1.000; corner_offtable recall
            0.971 -> 0.998; corner_lip_stay 0.971 -> 0.993); seven pool clips (five
            corner, a top and a broadcast break) against 6118834 off: calls 10/15 ->
            11/15 (corner 8 ft 1080p 30 fps 0/1 -> 1/1), recall up on all seven
            (0.902-0.973 -> 0.939-0.998), identity up on four (corner 0.954 -> 0.992,
            0.988 -> 0.999, 0.973 -> 0.982), equal on one, down on two (corner 9 ft 0.993
            -> 0.987, corner 7 ft 0.991 -> 0.989).
        min_found: fewest detections standing on rack places to locate the rack.
        min_shown: fewest places showing enough of themselves (`shown_fraction`) to judge
            whether a rack stands.
        shown_fraction: share of a place's disc that must be its own (not behind a nearer
            ball) for the place to be judged.
        taken_fraction: share of a judged place's own pixels unlike the cloth for it to be
            taken by a ball.
        min_taken: share of the judged places that must be taken for the rack to stand.
        confidence: confidence given to a filled detection.
        between_diameters: a detection off every place but within this many diameters of
            one is a blob's centroid while the rack stands, and is dropped.
        moved_diameters: the rack is broken when the detections on two places or more lie
            this many diameters from where they stood.
        arrive_diameters: the rack is broken when a detection named the cue ball comes
            within this many diameters of a place (the break).
        rearm_s: how long the rack area must stand nearly empty before a new rack is
            filled.
        changed_fraction: the rack is broken when this share of any place's disc has
            changed since the rack was located (`tracking.rack_watch.PlaceWatch`): a struck
            rack changes its places' pixels on the frame its balls start to move, before the
            detections on places move off them, and filled balls held on emptied places
            would keep the tracks of balls scattered by the break. Raising it waits for
            larger changes; 1 or more: never.
        rack_weight: share of a filled ball's class probabilities given to the name the
            rack's law gives its place (`rack_names` over the whole rack: ten balls, 1 to
            10, once each, the 1 on the apex and the 10 in the middle); the rest is its own
            pixels' reading. At 0.6 every filled ball is sure enough of its name for its
            track to start (the tracker's ``init_min_probability``, 0.5, of probability
            times confidence; pixels alone left some at 0.27-0.42). 0 (default): pixels
            only, made one-ball-per-class with the frame's other balls. Measured with
            ``snap``, 0.6 -> 0: corner_offtable_grey identity 0.973 -> 0.986 (racked balls
            named at the break 6 -> 8 of 10); corner_lip_stay and a fresh 7 ft corner clip
            the same with either. Holding the law's names on the detected racked balls too
            made a fresh corner clip's identity 0.983 -> 0.969.
        snap: while it fills, a detected ball on a place is put on the place's centre (the
            rack located once) too: a racked ball's track then stands still, where it moved
            between the detector's centre (an unsplit blob's, up to half a diameter off)
            and the filled centre as frames found or missed it, and was called disturbed
            before the break (corner_offtable_grey, filled on: its 5 moved 14 mm on frames
            0-2, a foul on the break).
        fill_all: fill every place of a standing rack that no detection stands on, even
            one whose pixels look like the cloth (a ten-ball rack holds all ten balls; the
            green 6 on green cloth reads as cloth, and with every other name taken at the
            break the cue ball's blurred arrival was named the 6: a fresh broadcast break's
            first contact misread).
    """

    enabled: bool = False
    min_found: int = 2
    min_shown: int = 4
    shown_fraction: float = 0.3
    taken_fraction: float = 0.5
    min_taken: float = 0.8
    confidence: float = 0.95
    between_diameters: float = 0.8
    moved_diameters: float = 0.5
    arrive_diameters: float = 1.5
    rearm_s: float = 2.0
    changed_fraction: float = 0.3
    rack_weight: float = 0.0
    snap: bool = True
    fill_all: bool = True


class RackFiller:
    """A detector whose output gains the standing rack's hidden balls.

    Wraps the classical detector (`vision.detector.BallDetector`: its ``view``, ``cloth``,
    ``identifier``, ``threshold`` and ``config.dark_ratio``); everything else is the wrapped
    detector's.

    Args:
        detector: the detector to wrap.
        table: the table (rack places, ball size).
        config: when to fill.
    """

    def __init__(self, detector: Any, table: TableSpec, config: RackFillConfig | None = None):
        self.inner = detector
        self.config = config or RackFillConfig()
        self.places = rack_places(table)
        self.diameter_mm = float(table.ball_diameter_mm)
        self._rack = RackConfig(min_racked=10, tolerance_diameters=0.5)
        self._area = RackArea(self.places, self.diameter_mm, self.config.rearm_s, -np.inf)
        self._stood = np.full((10, 2), np.nan)
        self._shift: NDArray[np.float64] | None = None
        self._watch = PlaceWatch(self.diameter_mm, self.config.changed_fraction)
        self._priors = place_priors(RackConfig())
        self._least_lifted = RackConfig().least_lifted
        self._broken = False
        self.filled_frames = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def detect(self, frame: Frame, hint_xy_px: NDArray[np.floating] | None = None) -> Detections:
        """The wrapped detector's `detect`, with the standing rack's hidden balls."""
        return self.fill(frame, self.inner.detect(frame, hint_xy_px))

    def detect_reaching(
        self,
        frame: Frame,
        hint_xy_px: NDArray[np.floating] | None,
        reach_xy_px: NDArray[np.floating],
    ) -> Detections:
        """The wrapped detector's `detect_reaching`, with the standing rack's hidden balls."""
        return self.fill(frame, self.inner.detect_reaching(frame, hint_xy_px, reach_xy_px))

    def fill(self, frame: Frame, detections: Detections) -> Detections:
        """``detections`` with a detection on each place of a standing, untouched rack that
        none stands on; unchanged when no such rack stands."""
        view = getattr(self.inner, "view", None)
        camera = getattr(view, "camera", None)
        if camera is None or getattr(self.inner, "cloth", None) is None:
            return detections
        xy = detections.xy_mm.astype(np.float64)
        if self._area.follow(xy, frame.time_s):  # a new rack
            self._broken, self._stood[:], self._shift = False, np.nan, None
            self._watch.reset()
        if self._broken or len(xy) == 0:
            return detections
        place = match_places(xy, self.places, self.diameter_mm, self._rack)
        on_place = place >= 0
        if np.count_nonzero(on_place) < self.config.min_found:
            return detections
        if self._shift is None:  # located once per rack: filled balls must not jitter
            self._shift = np.median(xy[on_place] - self.places[place[on_place]], axis=0)
        centres = self.places + self._shift
        threshold = (float(self.inner.threshold), float(self.inner.config.dark_ratio))
        if self._broke(detections, place, centres) or self._watch.changed(
            frame.image, camera, centres, threshold
        ):
            self._broken = True
            return detections
        missing = np.setdiff1d(np.arange(10), place[on_place])
        if len(missing) == 0:
            return detections
        pixels, shown = self._place_pixels(frame, camera, centres)
        fill = self._hidden(frame, pixels, shown, missing)
        if len(fill) == 0:
            return detections
        self.filled_frames += 1
        named = self._named(fill, pixels, frame.image).astype(np.float64)
        prob = self._by_rack(detections, place, fill, named)
        return self._joined(self._kept(detections, place, centres), centres, fill, prob)

    def _hidden(
        self,
        frame: Frame,
        pixels: list[NDArray[np.int64]],
        shown: NDArray[np.float64],
        missing: NDArray[np.int64],
    ) -> NDArray[np.int64]:
        """The ``missing`` places (no detection on them) to fill: taken by a ball or showing
        too little of themselves to judge, while most judged places are taken (a rack
        stands); none when too few places can be judged or too few are taken."""
        none = np.zeros(0, np.int64)
        taken = self._taken(frame, pixels, shown)
        judged = shown >= self.config.shown_fraction
        if np.count_nonzero(judged) < self.config.min_shown:
            return none
        if np.count_nonzero(taken & judged) < self.config.min_taken * np.count_nonzero(judged):
            return none
        if self.config.fill_all:
            return missing
        fill: NDArray[np.int64] = missing[taken[missing] | ~judged[missing]]
        return fill

    def _by_rack(
        self,
        detections: Detections,
        place: NDArray[np.int64],
        fill: NDArray[np.int64],
        named: NDArray[np.float64],
    ) -> NDArray[np.float32]:
        """(F, 11) class probabilities of the filled places: their own pixels' (F, 11)
        ``named`` under the places' priors, blended (``rack_weight``) with the name the
        rack's law gives each (`rack_names`: the whole rack's likeliest labelling by the
        detected balls' and the filled places' readings under the places' priors)."""
        prob = named * self._priors[fill]
        prob /= prob.sum(axis=1, keepdims=True)
        weight = self.config.rack_weight
        if weight <= 0.0:
            return prob.astype(np.float32)
        on_place = place >= 0
        rows = np.full((10, NUM_CLASSES), 1.0 / NUM_CLASSES)
        rows[place[on_place]] = np.maximum(detections.class_prob[on_place], 0.01)
        rows[fill] = np.maximum(named, 0.01)
        law = np.zeros_like(prob)
        law[np.arange(len(fill)), rack_names(rows * self._priors)[fill]] = 1.0
        blended: NDArray[np.float32] = ((1.0 - weight) * prob + weight * law).astype(np.float32)
        return blended

    def _broke(
        self, detections: Detections, place: NDArray[np.int64], centres: NDArray[np.float64]
    ) -> bool:
        """Whether the rack broke: balls on two places or more moved off where they stood
        (one may be an unsplit blob's centroid shifting), or the cue ball came beside it."""
        xy = detections.xy_mm.astype(np.float64)
        on_place = place >= 0
        current = np.full((10, 2), np.nan)
        current[place[on_place]] = xy[on_place]
        moved = (
            np.hypot(*(current - self._stood).T) > self.config.moved_diameters * self.diameter_mm
        )
        if np.count_nonzero(moved) >= 2:
            return True
        self._stood = np.where(np.isfinite(current) & ~moved[:, None], current, self._stood)
        cue = xy[detections.class_prob[:, CUE] > 0.5]
        if len(cue) == 0:
            return False
        apart = np.hypot(
            cue[:, None, 0] - centres[None, :, 0], cue[:, None, 1] - centres[None, :, 1]
        )
        return bool(np.any(apart < self.config.arrive_diameters * self.diameter_mm))

    def _place_pixels(
        self, frame: Frame, camera: Any, centres: NDArray[np.float64]
    ) -> tuple[list[NDArray[np.int64]], NDArray[np.float64]]:
        """Each place's own pixels (flat indices into the frame: those of its disc no nearer
        ball covers) and (10,) the share of its disc they are."""
        uv = camera.project(centres, BALL_CENTRE_HEIGHT_MM)
        radius = camera.ball_radius_px(centres, self.diameter_mm / 2.0)
        depth = camera.depth_mm(centres, BALL_CENTRE_HEIGHT_MM)
        height, width = frame.image.shape[:2]
        top = np.floor(uv - radius[:, None]).astype(np.int64)
        bottom = np.ceil(uv + radius[:, None]).astype(np.int64) + 1
        u0, v0 = max(int(top[:, 0].min()), 0), max(int(top[:, 1].min()), 0)
        u1, v1 = min(int(bottom[:, 0].max()), width), min(int(bottom[:, 1].max()), height)
        if u1 <= u0 or v1 <= v0:
            return [np.zeros(0, np.int64)] * 10, np.zeros(10)
        vv, uu = np.mgrid[v0:v1, u0:u1]
        owner = np.full(vv.shape, -1, np.int64)
        area = np.zeros(10)
        for i in np.argsort(-depth):  # far first: nearer balls paint over them
            inside = (uu - uv[i, 0]) ** 2 + (vv - uv[i, 1]) ** 2 <= (0.85 * radius[i]) ** 2
            owner[inside] = i
            area[i] = np.count_nonzero(inside)
        flat = vv * width + uu
        pixels = [flat[owner == i] for i in range(10)]
        shown = np.array([len(p) for p in pixels], np.float64) / np.maximum(area, 1.0)
        return pixels, shown

    def _taken(
        self, frame: Frame, pixels: list[NDArray[np.int64]], shown: NDArray[np.float64]
    ) -> NDArray[np.bool_]:
        """(10,) whether each place's own pixels are mostly unlike the cloth."""
        cloth = self.inner.cloth
        flat_image = frame.image.reshape(-1, 3)
        flat_cloth = cloth.bgr.reshape(-1, 3)
        threshold = float(self.inner.threshold)
        dark_ratio = float(self.inner.config.dark_ratio)
        taken = np.zeros(10, bool)
        for i, own in enumerate(pixels):
            if len(own) == 0 or shown[i] <= 0:
                continue
            distance = cloth_distance(
                flat_image[own][None], flat_cloth[own][None], dark_ratio
            ).ravel()
            taken[i] = np.mean(distance > threshold) >= self.config.taken_fraction
        return taken

    def _kept(
        self, detections: Detections, place: NDArray[np.int64], centres: NDArray[np.float64]
    ) -> Detections:
        """The detections on places and off the rack (not between places: an unsplit blob's
        centroid); with ``snap``, those on places moved onto their places' centres."""
        xy = detections.xy_mm.astype(np.float64)
        apart = np.hypot(
            xy[:, None, 0] - centres[None, :, 0], xy[:, None, 1] - centres[None, :, 1]
        ).min(axis=1)
        keep = (place >= 0) | (apart > self.config.between_diameters * self.diameter_mm)
        kept: Detections = detections[keep]
        if not self.config.snap:
            return kept
        on = np.flatnonzero(place[keep] >= 0)
        xy_mm, xy_px = kept.xy_mm.copy(), kept.xy_px.copy()
        xy_mm[on] = centres[place[keep][on]]
        xy_px[on] = self.inner.view.camera.project(
            xy_mm[on].astype(np.float64), BALL_CENTRE_HEIGHT_MM
        )
        return replace(kept, xy_mm=xy_mm, xy_px=xy_px)

    def _joined(
        self,
        kept: Detections,
        centres: NDArray[np.float64],
        fill: NDArray[np.int64],
        prob: NDArray[np.float32],
    ) -> Detections:
        """The ``kept`` detections and the filled places with their (F, 11) class
        probabilities ``prob``, all made one-ball-per-class together."""
        camera = self.inner.view.camera
        uv = camera.project(centres[fill], BALL_CENTRE_HEIGHT_MM)
        radius = camera.ball_radius_px(centres[fill], self.diameter_mm / 2.0)
        own = np.vstack([kept.class_prob, prob])
        both = unlifted(own, exclusive_probabilities(own), self._least_lifted)
        return Detections(
            xy_px=np.vstack([kept.xy_px, uv.astype(np.float32)]),
            xy_mm=np.vstack([kept.xy_mm, centres[fill].astype(np.float32)]),
            radius_px=np.concatenate([kept.radius_px, radius.astype(np.float32)]),
            confidence=np.concatenate(
                [kept.confidence, np.full(len(fill), self.config.confidence, np.float32)]
            ),
            class_prob=both,
        )

    def _named(
        self,
        fill: NDArray[np.int64],
        pixels: list[NDArray[np.int64]],
        image: NDArray[np.uint8],
    ) -> NDArray[np.float32]:
        """(F, 11) class probabilities of the filled places from their own pixels, white
        balanced with the whole rack's (uniform where a place shows too little)."""
        prob = np.full((len(fill), NUM_CLASSES), 1.0 / NUM_CLASSES, np.float32)
        flat = image.reshape(-1, 3)
        shown = [i for i in range(10) if len(pixels[i]) >= 3]
        if not shown:
            return prob
        identifier = self.inner.identifier
        named = identifier.independent(identifier.features([flat[pixels[i]] for i in shown]))
        row = {place: k for k, place in enumerate(shown)}
        for k, place in enumerate(fill):
            if place in row:
                prob[k] = named[row[place]]
        return prob


def rack_names(prob: NDArray[np.float64]) -> NDArray[np.int64]:
    """(P,) a different ball for each of P rack places, in the likeliest labelling by their
    (P, 11) class weights: only the balls 1 to 10 are racked (never the cue ball)."""
    cost = -np.log(np.maximum(prob[:, 1:NUM_CLASSES], 1e-12))
    rows, cols = linear_sum_assignment(cost)
    label = np.zeros(len(prob), np.int64)
    label[rows] = cols + 1
    return label
