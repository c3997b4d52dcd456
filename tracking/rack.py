"""The rack as identity evidence: where a racked ball stands says which balls it can be.

A ten-ball rack (rules S1-S4) puts the 1 at the apex on the foot spot, the 10 in the middle
of the three-ball row and the other eight anywhere in the remaining places; the cue ball is
never in the triangle. While a rack stands on the table (enough detections sit on its
places), each detection on a place has its class probabilities weighed by that place's
prior (`RackConfig`): the cue ball is all but ruled out, the 1 and the 10 are favoured at
their own places and disfavoured elsewhere. The frame's probabilities are then made
consistent again (one ball per class, `vision.assignment.exclusive_probabilities`), so a
racked 9 whose white caps read as the cue ball gives the cue to the lone white ball outside
the triangle. The prior is soft (a rack can be imperfect, a ball misplaced) and holds only
for an untouched rack (`RackPrior` follows it from frame to frame and turns it off at the
break); a clip that starts mid-rack never sees it.

Measured 2026-11-30 (real detector, live reviews, against 3bca641): fresh f2_broadcast 0/4 ->
4/4 calls (its racked 9, far and showing its white caps, had started the cue ball's track, so
the break's first contact was read as the 8), identity 98.1 -> 99.0 %, switches 9 -> 7; fresh
clips 13/20 -> 17/20, sample clips 23/26 both; truth detector 26/26 and 20/20. On the
recorded detections of /tmp/rec3 (replay) the prior is on from frame 0 until the cue ball
reaches the rack on 10 of the 15 clips, on 3 only on full-search frames (the hinted searches
return too few racked balls), on s1_broadcast and s2_corner never: on far-end corner views
(s2_corner, 9 ft corner renders at 50 fps) the detector finds 5 racked balls or fewer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from calibration.table import TableSpec
from vision.assignment import exclusive_probabilities
from vision.types import CUE, NUM_CLASSES, Detections

APEX, CENTRE = 0, 4
"""Indices of the apex (the 1's place) and the three-ball row's middle (the 10's) in
`rack_places`."""


@dataclass(frozen=True, slots=True)
class RackConfig:
    """How the rack weighs identities.

    Attributes:
        min_racked: fewest distinct rack places with a detection on them for a rack to be
            standing (of ten; the far end of a broadcast view may hide two or three). 0 or
            more than 10: the prior is off. Lowering it risks taking a cluster of balls
            after the break for a rack.
        tolerance_diameters: how far (ball diameters) a detection may lie from a place and
            still stand on it, after the rack's offset from the foot spot is fitted.
            Raising it tolerates looser racks and poorer calibration.
        max_shift_diameters: largest offset (ball diameters) of the whole rack from its
            nominal position on the foot spot (a rack placed by hand, a calibration error);
            below one place's spacing, so a rack is never read one place off.
        cue_prior: weight of the cue ball on a rack place (it is never in the triangle);
            lowering it rules the cue ball out more surely.
        misplaced_prior: weight of the 1 off the apex and the 10 off the centre (an
            imperfect rack); 1.0: the other places say nothing of the 1 and the 10.
        anchor_prior: weight of any other ball on the apex or the centre. Lowering it names
            the apex the 1 and the centre the 10 against their colour: a far end's racked
            ball is a few pixels wide and its pixels take in its neighbours' (a broadcast
            view's centre ball read as the red 3 beside it). 1.0: those places say nothing.
            0.2 -> 0.005 (recorded real detections replayed, live the same where checked):
            a fresh broadcast clip's identity 0.986 -> 1.000 (switches 10 -> 4, a false
            pocket gone), broadcast_scratch_red_tv 0.9984 -> 0.9987 (switches 8 -> 10), a
            corner clip 0.9805 -> 0.9803, the 12 other sample and fresh clips unchanged;
            calls 36/38 both. Also lowering `misplaced_prior` (0.005) or raising `floor`
            (0.05) cost a fresh corner clip its calls or switches (11 -> 20).
        floor: class probabilities are raised to at least this before the prior weighs
            them, so a saturated reading (1.0 cue, 0.0 for the rest) still leaves the
            prior something to choose between.
        least_lifted: a detection whose one-ball-per-class name is one its own reading
            (floored, under the place's prior) gives less than this share of its own
            likeliest class is left unnamed (its probabilities uniform) instead, and a
            detection that came unnamed stays so: with every ball of the set in view, the
            assignment must give each class to someone, and a ball the detector reads as
            none of them takes whatever class is left (broadcast_nudge with the rack's
            hidden 10 filled: the racked 8, read 8 at 0.94, named the 7 at 0.64 because
            the 7, read as the 4, took nothing; the tracks started swapped). 0: off.
        rearm_s: how long (s) the rack area must stand nearly empty after a break before
            a new rack is believed (`RackPrior`).
        moved_diameters: how far (diameters) a ball still on its place may move between
            frames before the rack counts as broken (detection jitter stays well below).
    """

    min_racked: int = 6
    tolerance_diameters: float = 0.5
    max_shift_diameters: float = 0.75
    cue_prior: float = 1.0e-3
    misplaced_prior: float = 0.2
    anchor_prior: float = 0.005
    floor: float = 0.01
    least_lifted: float = 0.25
    rearm_s: float = 2.0
    moved_diameters: float = 0.3

    def __post_init__(self) -> None:
        weights = (self.cue_prior, self.misplaced_prior, self.anchor_prior, self.floor)
        if not all(0.0 < w <= 1.0 for w in weights) or self.tolerance_diameters <= 0:
            raise ValueError(
                "RackConfig: cue_prior, misplaced_prior, anchor_prior and floor must be in "
                "(0, 1] and "
                f"tolerance_diameters positive, got {weights} and {self.tolerance_diameters}"
            )


def rack_places(table: TableSpec) -> NDArray[np.float64]:
    """(10, 2) centres of the rack's places, table mm: row by row from the apex, left to
    right (index `APEX` the 1's, `CENTRE` the 10's)."""
    positions = table.rack_positions_mm()
    order = [1, 2, 3, 4, 10, 5, 6, 7, 8, 9]  # the default order fills the free places 2..9
    return np.array([positions[ball] for ball in order], dtype=np.float64)


def place_priors(config: RackConfig) -> NDArray[np.float64]:
    """(10, 11) prior weight of each class on each rack place."""
    prior = np.ones((10, NUM_CLASSES))
    prior[:, [1, 10]] = config.misplaced_prior
    prior[APEX] = config.anchor_prior
    prior[APEX, 1] = 1.0
    prior[CENTRE] = config.anchor_prior
    prior[CENTRE, 10] = 1.0
    prior[:, CUE] = config.cue_prior
    return prior


def match_places(
    xy_mm: NDArray[np.floating],
    places: NDArray[np.float64],
    diameter_mm: float,
    config: RackConfig,
) -> NDArray[np.int64]:
    """(N,) the rack place each detection stands on (-1: none), one detection per place.

    The whole rack's offset from its nominal places is fitted first: none when enough
    detections (``min_racked``) stand on the nominal places, else, of the offsets that put
    one detection exactly on one place (at most ``max_shift_diameters``), the one that puts
    the most detections on places; then refined by the median of the matched offsets.

    Args:
        xy_mm: (N, 2) detection centres, mm.
        places: (10, 2) nominal rack places (`rack_places`), mm.
        diameter_mm: ball diameter, mm.
        config: the tolerances.
    """
    xy = np.asarray(xy_mm, np.float64)
    tolerance = config.tolerance_diameters * diameter_mm
    place, near = _nearest(xy, places, tolerance)
    shift = np.zeros(2)
    if np.count_nonzero(near) < config.min_racked:  # not on the nominal places: search
        shift = _best_shift(xy, places, tolerance, config.max_shift_diameters * diameter_mm)
        place, near = _nearest(xy - shift, places, tolerance)
    if np.count_nonzero(near) >= 3:
        shift = np.median(xy[near] - places[place[near]], axis=0)
        place, near = _nearest(xy - shift, places, tolerance)
    # One detection per place: the nearest keeps it.
    distance = np.hypot(*(xy - shift - places[place]).T)
    distance[~near] = np.inf
    order = np.argsort(distance, kind="stable")
    _, first = np.unique(place[order], return_index=True)
    matched = np.full(len(xy), -1, np.int64)
    keep = order[first]
    keep = keep[near[keep]]
    matched[keep] = place[keep]
    return matched.astype(np.int64)


def _best_shift(
    xy: NDArray[np.float64], places: NDArray[np.float64], tolerance_mm: float, largest_mm: float
) -> NDArray[np.float64]:
    """(2,) the offset, among those putting one detection on one place (and 0), that puts
    the most detections within ``tolerance_mm`` of a place; the smallest such on a tie."""
    offsets = (xy[:, None, :] - places[None, :, :]).reshape(-1, 2)
    offsets = np.vstack([np.zeros((1, 2)), offsets[np.hypot(*offsets.T) <= largest_mm]])
    moved = xy[None, :, None, :] - offsets[:, None, None, :] - places[None, None, :, :]
    distance = np.hypot(moved[..., 0], moved[..., 1]).min(axis=2)
    matches = np.count_nonzero(distance < tolerance_mm, axis=1)
    best = np.flatnonzero(matches == matches.max())
    result: NDArray[np.float64] = offsets[best[np.argmin(np.hypot(*offsets[best].T))]]
    return result


def _nearest(
    xy: NDArray[np.float64], places: NDArray[np.float64], tolerance_mm: float
) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """(N,) nearest place of each point and (N,) whether it is within ``tolerance_mm``."""
    distance = np.hypot(xy[:, None, 0] - places[None, :, 0], xy[:, None, 1] - places[None, :, 1])
    place = np.argmin(distance, axis=1) if len(xy) else np.zeros(0, np.int64)
    near = distance[np.arange(len(xy)), place] < tolerance_mm
    return place.astype(np.int64), near


class RackArea:
    """Whether the table's rack area stood nearly empty long enough for a new rack.

    A rack is believed once and, after its break, again only once the balls were collected
    and racked anew: the area (three diameters around the rack's places) held fewer than
    three detections for ``rearm_s``. Shared by `RackPrior` and
    `tracking.rack_fill.RackFiller`, which both re-arm on it.

    Args:
        places: (10, 2) rack places (`rack_places`), table mm.
        diameter_mm: ball diameter, mm.
        rearm_s: how long (s) the area must stand nearly empty; raising it waits longer
            before a new rack is believed.
        start_s: time (s) the area counts as last occupied before the first frame
            (``-inf``: a clip that starts with an empty area re-arms at once).
    """

    def __init__(
        self, places: NDArray[np.float64], diameter_mm: float, rearm_s: float, start_s: float
    ) -> None:
        self._middle = places.mean(axis=0)
        self._reach_mm = 3.0 * diameter_mm + float(np.max(np.ptp(places, axis=0)))
        self.rearm_s = rearm_s
        self.occupied_s = start_s

    def follow(self, xy_mm: NDArray[np.floating], time_s: float) -> bool:
        """Whether the area has now stood nearly empty for ``rearm_s`` (a new rack may be
        believed), given this frame's (N, 2) detections, mm, at ``time_s``."""
        xy = np.asarray(xy_mm, np.float64)
        if np.count_nonzero(np.hypot(*(xy - self._middle).T) < self._reach_mm) >= 3:
            self.occupied_s = time_s
            return False
        return time_s - self.occupied_s >= self.rearm_s


class RackPrior:
    """Weighs detections' class probabilities by the rack they stand in, until it breaks.

    The prior holds only for an untouched rack: once a ball on a place moves off it (more
    than ``tolerance_diameters`` between two frames: the break), it is off, so the cue ball
    that stops on the apex after a full hit is never named the 1. It comes back for a new
    rack only after the table's rack area has stood nearly empty (fewer than three balls
    within three diameters of the rack) for ``rearm_s``: the balls were collected and
    racked again. A frame whose detections are those of the last one (balls at rest, kept
    by the detector's memory) gets the last frame's answer without the work.

    Args:
        table: the table (foot spot, ball size).
        config: the prior's weights and tolerances.
    """

    def __init__(self, table: TableSpec, config: RackConfig | None = None) -> None:
        self.config = config or RackConfig()
        self.places = rack_places(table)
        self.priors = place_priors(self.config)
        self.diameter_mm = float(table.ball_diameter_mm)
        self._area = RackArea(self.places, self.diameter_mm, self.config.rearm_s, 0.0)
        self._last_xy = np.full((10, 2), np.nan)
        self._broken = False
        self._last: tuple[bytes, NDArray[np.float32] | None] | None = None

    @property
    def intact(self) -> bool:
        """Whether a rack has been seen standing and not broken since (it may hide balls
        the detector never found: `tracking.identity.SLOT_VACANT`)."""
        return not self._broken and bool(np.isfinite(self._last_xy).any())

    def apply(self, detections: Detections, time_s: float = 0.0) -> Detections:
        """``detections`` with the rack's prior on their class probabilities while an
        untouched rack stands (at least ``min_racked`` places taken), else unchanged.

        Args:
            detections: this frame's detections (``xy_mm`` set).
            time_s: frame time, s (increasing from call to call).
        """
        config = self.config
        if not 0 < config.min_racked <= 10:
            return detections
        if self._area.follow(detections.xy_mm, time_s):
            self._broken, self._last_xy[:] = False, np.nan
        if self._broken or self._area.occupied_s != time_s:
            return detections
        key = detections.xy_mm.tobytes() + detections.class_prob.tobytes()
        if self._last is None or self._last[0] != key:
            self._last = (key, self._weighed(detections))
        weighed = self._last[1]
        if weighed is None:
            return detections
        return replace(detections, class_prob=weighed)

    def _weighed(self, detections: Detections) -> NDArray[np.float32] | None:
        """(N, 11) the detections' class probabilities under the standing rack's prior, made
        one-ball-per-class again; None when no untouched rack stands."""
        config = self.config
        place = self._standing(detections)
        if place is None:
            return None
        on_place = place >= 0
        prob = np.maximum(detections.class_prob.astype(np.float64), config.floor)
        prob[on_place] *= self.priors[place[on_place]]
        prob /= prob.sum(axis=1, keepdims=True)
        unnamed = np.ptp(detections.class_prob, axis=1) < 1e-6
        if config.least_lifted <= 0.0:
            unnamed[:] = False
        exclusive = exclusive_probabilities(prob, left_out=unnamed)
        exclusive[unnamed] = 1.0 / NUM_CLASSES
        return unlifted(prob, exclusive, config.least_lifted)

    def _standing(self, detections: Detections) -> NDArray[np.int64] | None:
        """(N,) the place of each detection while an untouched rack stands, else None.

        Follows the rack from frame to frame: each place remembers where its ball last
        stood (through frames that miss it); a ball found off that spot breaks the rack.
        A rack area nearly empty for ``rearm_s`` (collected for a new rack) re-arms it."""
        config = self.config
        xy = detections.xy_mm.astype(np.float64)
        place = match_places(xy, self.places, self.diameter_mm, config)
        taken = int(np.count_nonzero(place >= 0))
        if taken == 0:
            return None
        current = np.full((10, 2), np.nan)
        current[place[place >= 0]] = xy[place >= 0]
        if self._moved(current, xy[place < 0]):
            self._broken = True
            return None
        # Each place remembers where its ball last stood, through frames that miss it.
        self._last_xy = np.where(np.isfinite(current), current, self._last_xy)
        if taken < config.min_racked:
            return None
        return place

    def _moved(self, current: NDArray[np.float64], loose: NDArray[np.float64]) -> bool:
        """Whether a racked ball moved: one still on its place lies more than
        ``moved_diameters`` from where it stood, or a place it left has a ball off any
        place within 1.5 diameters of it (the ball, or the cue ball that struck it).

        Args:
            current: (10, 2) the ball on each place now (NaN: none), mm.
            loose: (L, 2) detections on no place, mm.
        """
        last, diameter = self._last_xy, self.diameter_mm
        shift = np.hypot(*(current - last).T)
        if np.any(shift > self.config.moved_diameters * diameter):
            return True
        left = last[np.isfinite(last[:, 0]) & np.isnan(current[:, 0])]
        if len(left) == 0 or len(loose) == 0:
            return False
        apart = np.hypot(left[:, None, 0] - loose[None, :, 0], left[:, None, 1] - loose[None, :, 1])
        return bool(np.any(apart < 1.5 * diameter))


def unlifted(
    own: NDArray[np.floating], exclusive: NDArray[np.floating], least: float
) -> NDArray[np.float32]:
    """(N, 11) ``exclusive`` (one-ball-per-class probabilities) with each row whose top
    class its (N, 11) ``own`` reading gives less than ``least`` times its own top class's
    made uniform: a name the frame's other balls pushed onto a ball, not one it showed."""
    result = np.array(exclusive, np.float32)
    if len(result) == 0 or least <= 0.0:
        return result
    top = np.argmax(result, axis=1)
    own = np.asarray(own, np.float64)
    lifted = own[np.arange(len(result)), top] < least * own.max(axis=1)
    result[lifted] = 1.0 / NUM_CLASSES
    return result
