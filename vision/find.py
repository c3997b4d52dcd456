"""The round search in one searched region (the whole table, or a mosaic of windows).

Candidates (distance-transform peaks, crowded blobs explained ball by ball, round outlines),
sub-pixel centres, confidence, and balls smeared by motion blur; used by
`vision.detector.BallDetector`, which decides where to search and keeps the results.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import BALL_CENTRE_HEIGHT_MM, CameraModel
from vision.candidates import (
    DIRECTIONS,
    SearchRegion,
    distance_peaks,
    map_at,
    merge_candidates,
    outline_peaks,
    outline_votes,
    sample,
)
from vision.centre_kernels import outline_centres
from vision.confidence import confidence, disc_coverage, fit_outlines, rim_shares
from vision.detector_config import DetectorConfig
from vision.discs import ball_pixels, refine_centres
from vision.mosaic import Mosaic
from vision.rim import fit_lit_arcs
from vision.separate import Crowds, TouchingPx, crowd_centres, crowd_votes, crowded

# HALF_LIT_RIM and LIT_WHOLE are read as find.X in docs and tests.
from vision.shaded_centres import HALF_LIT_RIM as HALF_LIT_RIM
from vision.shaded_centres import LIT_WHOLE as LIT_WHOLE
from vision.shaded_centres import shaded_centres
from vision.streaks import find_streaks, streaks

Found = tuple[NDArray[np.float64], NDArray[np.float64], list[NDArray[np.uint8]]]
"""(K, 2) centres (mosaic px), (K,) confidences and each ball's (K_i, 3) BGR pixels."""


def find_balls(
    region: SearchRegion,
    mosaic: Mosaic,
    config: DetectorConfig,
    camera: CameraModel | None,
    thorough: bool,
) -> Found:
    """Centres (mosaic px), confidences and pixels of the balls in a region; `thorough`
    adds outline (circle Hough) candidates and motion-blur streaks. `camera`: the view's
    camera when calibrated (places a streak's ball at its mid-exposure point)."""
    return _find(region, mosaic, config, camera, (thorough, None))


def find_seeded(
    region: SearchRegion,
    mosaic: Mosaic,
    config: DetectorConfig,
    camera: CameraModel | None,
    seeds_px: NDArray[np.float64],
) -> Found:
    """`find_balls`, thorough, with (S, 2) frame pixels where balls are expected (the
    tracker's hints that the fast pass left unexplained) tried as candidates too: a ball of
    the cloth's hue whose lit side is mottled foreground gives no distance-transform peak and
    too little outline, yet scores as a ball once placed (`_seeded_balls`)."""
    return _find(region, mosaic, config, camera, (True, seeds_px))


def _find(
    region: SearchRegion,
    mosaic: Mosaic,
    config: DetectorConfig,
    camera: CameraModel | None,
    search: tuple[bool, NDArray[np.float64] | None],
) -> Found:
    thorough, seeds_px = search
    streak_xy, streak_score, streak_pixels, region = _find_streaks(
        region, mosaic, config, camera, thorough
    )
    touching = _touching_px(camera, mosaic) if config.separate_crowds else None
    xy, radius, score = _round_balls(
        region, _candidates(region, config, thorough, touching), config, thorough
    )
    if seeds_px is not None and len(seeds_px):
        xy, radius, score = _seeded_balls(
            region, to_mosaic(mosaic, seeds_px), (xy, radius, score), config
        )
    tiles = mosaic.tile_of(xy)
    keep = (score >= config.min_confidence) & (mosaic.cut_distance(xy, tiles) >= 0.9 * radius)
    keep &= (tiles >= 0) & (map_at(region.centre_valid, xy) > 0)
    xy, radius, score = xy[keep], radius[keep], score[keep]
    pixels = ball_pixels(region.image, xy, radius)
    xy = np.vstack([xy, streak_xy])
    score = np.concatenate([score, streak_score])
    pixels += streak_pixels
    if config.find_streaks and thorough:
        cut = mosaic.cut_distance if config.whole_streaks else None
        blurred, blurred_score, blurred_pixels = streaks(region, xy, 0.5 * region.threshold, cut)
        usable = blurred_score >= config.min_confidence
        xy = np.vstack([xy, blurred[usable]])
        score = np.concatenate([score, blurred_score[usable]])
        pixels += [p for p, ok in zip(blurred_pixels, usable, strict=True) if ok]
    return xy, score, pixels


def to_mosaic(mosaic: Mosaic, xy_px: NDArray[np.float64]) -> NDArray[np.float64]:
    """(K', 2) mosaic pixels of the (K, 2) frame pixels that lie inside a tile (the first
    tile holding each; the others are dropped)."""
    xy_px = np.asarray(xy_px, np.float64).reshape(-1, 2)
    low = mosaic.frame_boxes[None, :, :2]
    high = mosaic.frame_boxes[None, :, 2:]
    inside = np.all((xy_px[:, None, :] >= low) & (xy_px[:, None, :] < high - 1), axis=2)
    found = inside.any(axis=1)
    tiles = np.argmax(inside[found], axis=1)
    shift = (mosaic.origins[tiles] - mosaic.frame_boxes[tiles, :2]).astype(np.float64)
    mosaic_xy: NDArray[np.float64] = xy_px[found] + shift
    return mosaic_xy


SEED_CLEAR_RADII = 2.5
"""A seed is tried only this many ball radii clear of every ball found (in a cluster the
found balls' outlines and shadows pull a seeded centre onto a neighbour)."""
SEED_INSIDE_RADII = 2.0
"""A seed is tried only where ball centres may lie all round it this many radii out (not at
a pocket's mouth or against a cushion)."""
SEED_MOVE_RADII = 0.5
"""A seeded ball whose centre moved further than this from its seed while being placed is
dropped: the picture there is not a ball where the tracker expects one."""
SEED_HUE_RADII = 0.7
"""Radius, in ball radii, of the circle on which a seeded ball's share of the cloth's hue is
read (`DetectorConfig.seed_min_hued`): inside its rim's mix with the cloth."""


def _seeded_balls(
    region: SearchRegion,
    seeds: NDArray[np.float64],
    balls: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]],
    config: DetectorConfig,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """`balls` (centres, radii, confidences) plus a ball at each seed clear of them,
    centred over its foreground and shaded side and scored with all of them.

    A ball of the cloth's hue shows a mottled lit side (foreground just over the threshold,
    broken by its highlight and number) and a shaded side like a shadow: no distance peak or
    outline proposes it, and the lit side's centroid alone lies toward the light, where the
    disc overlaps cloth and scores nothing; counting its shade in places it.
    """
    xy, radius, score = balls
    seed_radius = map_at(region.radius, seeds)
    # Only well inside the surface: at a pocket's mouth the dark hole and its shade score as
    # a ball, and a seed there keeps a dropped ball alive.
    around = seeds[:, None, :] + (SEED_INSIDE_RADII * seed_radius)[:, None, None] * DIRECTIONS
    inside = np.all(sample(region.centre_valid, around) > 0, axis=1)
    inside &= map_at(region.centre_valid, seeds) > 0
    seeds, seed_radius = seeds[inside], seed_radius[inside]
    found = xy[score >= config.min_confidence]
    if len(found) and len(seeds):
        gaps = np.linalg.norm(seeds[:, None, :] - found[None, :, :], axis=2)
        clear = gaps.min(axis=1) >= SEED_CLEAR_RADII * seed_radius
        seeds, seed_radius = seeds[clear], seed_radius[clear]
    if len(seeds) == 0:
        return balls
    lit = np.clip((region.distance - 0.5 * region.threshold) / region.threshold, 0.0, 1.0)
    weight = lit if region.shade is None else np.maximum(lit, region.shade)
    placed = refine_centres(weight.astype(np.float32), seeds, seed_radius, config.refine_iterations)
    ball = weight.astype(np.float32)
    fitted, held = outline_centres(region, placed, seed_radius, lit.astype(np.float32), ball)
    placed = np.where(held[:, None], fitted, placed)
    near = np.linalg.norm(placed - seeds, axis=1) < SEED_MOVE_RADII * seed_radius
    if config.seed_min_hued > 0.0 and region.hued is not None:
        # A seed is for a ball of the cloth's hue: placed where the disc shows none of it
        # (a bridge hand over a ball the tracker follows), it is not the ball.
        disc = placed[:, None, :] + (SEED_HUE_RADII * seed_radius)[:, None, None] * DIRECTIONS
        near &= sample(region.hued, disc).mean(axis=1) >= config.seed_min_hued
    placed, seed_radius = placed[near], seed_radius[near]
    xy = np.vstack([xy, placed])
    radius = np.concatenate([radius, seed_radius])
    fresh = confidence(region, xy, radius, config.edge_gradient, config.min_free_ring)[0]
    return xy, radius, np.concatenate([score, fresh[len(score) :]])


def _round_balls(
    region: SearchRegion, candidates: NDArray[np.float64], config: DetectorConfig, thorough: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(K, 2) sub-pixel centres, (K,) radii and (K,) confidences of the candidates that may
    be ball centres."""
    radius = map_at(region.radius, candidates)
    plausible = map_at(region.centre_valid, candidates) > 0
    candidates, radius = candidates[plausible], radius[plausible]
    if thorough:
        faint = disc_coverage(region, candidates, radius) < 0.5
    else:
        faint = np.zeros(len(candidates), bool)
    if len(candidates) == 0:
        return np.zeros((0, 2)), np.zeros(0), np.zeros(0)
    weight = np.clip(
        (region.distance - 0.5 * region.threshold) / region.threshold, 0.0, 1.0
    ).astype(np.float32)
    xy = refine_centres(weight, candidates, radius, config.refine_iterations)
    placed = np.zeros(len(xy), bool)
    if config.fit_lit_arcs:
        # Where enough of its outline ends on clean cloth, that places the ball: the
        # outline and shading fits below are for balls that show too little of it.
        fitted, placed = fit_lit_arcs(region, xy, radius)
        # A ball whose rim is foreground all round has an unbiased centroid, more
        # precise than the fit's few edge points (a white ball seen from above).
        held = np.flatnonzero(placed)
        moved = held[rim_shares(region, xy[held], radius[held])[0] < WHOLE_RIM]
        xy[moved] = fitted[moved]
    faint &= ~placed
    if faint.any():
        # A ball of the cloth's colour shows only its rim, highlight and number: its
        # foreground centroid is meaningless, its outline is not.
        outline_xy = fit_outlines(region, candidates[faint], radius[faint])
        xy[faint] = fit_outlines(region, outline_xy, radius[faint])
    score = confidence(region, xy, radius, config.edge_gradient, config.min_free_ring)[0]
    if thorough:
        refit, rescored = _try_outlines(region, xy, radius, score, config)
        xy = np.where(placed[:, None], xy, refit)
        score = np.where(placed, score, rescored)
    return shaded_centres(region, (xy, radius, score), weight, config, placed)


WHOLE_RIM = 0.95
"""Share of a ball's rim, foreground, from which its foreground centroid is kept rather than
the circle fitted to its lit arc (`vision.rim`): the shading and shadow that pull a centroid
show as a rim that is not foreground all round."""


def _find_streaks(
    region: SearchRegion,
    mosaic: Mosaic,
    config: DetectorConfig,
    camera: CameraModel | None,
    thorough: bool,
) -> tuple[NDArray[np.float64], NDArray[np.float64], list[NDArray[np.uint8]], SearchRegion]:
    """Balls smeared by motion blur (vision.streaks), found before round balls (the
    round search splits a streak into several), and the region without their pixels.
    A streak cut by a window's side is left to the round search."""
    empty: tuple[NDArray[np.float64], NDArray[np.float64], list[NDArray[np.uint8]]]
    empty = (np.zeros((0, 2)), np.zeros(0), [])
    if not config.find_streaks or not (thorough or config.fast_streaks):
        return (*empty, region)
    found = find_streaks(region, 0.5 * region.threshold, config.max_streak_radii)
    if len(found.xy) == 0:
        return (*empty, region)
    keep = found.score >= config.min_confidence
    keep &= (mosaic.tile_of(found.xy) >= 0) & (
        mosaic.cut_distance(found.xy) >= found.half_length + 2.0
    )
    if not keep.any():
        return (*empty, region)
    xy = found.xy[keep]
    if camera is not None:
        frame_xy = mosaic.to_frame(xy)
        half_path = np.maximum(found.half_length[keep] - map_at(region.radius, xy), 0.0)
        xy = xy + _mid_path(camera, frame_xy, found.axis[keep], half_path) - frame_xy
    claimed = found.pixels_of(keep)
    # The streak's outline too: its edges would vote for round outlines along it.
    outline = cv2.dilate(claimed.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    region = replace(
        region,
        distance=np.where(claimed, np.float32(0.0), region.distance),
        foreground=np.where(claimed, np.uint8(0), region.foreground),
        gradient=np.where(outline[..., None], np.float32(0.0), region.gradient),
    )
    pixels = [p for p, ok in zip(found.pixels, keep, strict=True) if ok]
    return xy, found.score[keep], pixels, region


def _try_outlines(
    region: SearchRegion,
    xy: NDArray[np.float64],
    radius: NDArray[np.float64],
    score: NDArray[np.float64],
    config: DetectorConfig,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """For doubtful balls, the outline's centre where it scores better than the
    foreground centroid (a ball half the cloth's colour in side light)."""
    # Only a lone ball: in a cluster the neighbours' outlines pull the fit.
    apart = np.linalg.norm(xy[:, None, :] - xy[None, :, :], axis=2)
    np.fill_diagonal(apart, np.inf)
    doubtful = (score < 0.9) & (apart.min(axis=1, initial=np.inf) > 2.5 * radius)
    if not doubtful.any():
        return xy, score
    refit = xy.copy()
    refit[doubtful] = fit_outlines(
        region, fit_outlines(region, xy[doubtful], radius[doubtful]), radius[doubtful]
    )
    refit_score, _ = confidence(region, refit, radius, config.edge_gradient, config.min_free_ring)
    moved = np.linalg.norm(refit - xy, axis=1)
    better = doubtful & (refit_score > score + 0.1) & (moved < 0.5 * radius)
    return np.where(better[:, None], refit, xy), np.where(better, refit_score, score)


def _candidates(
    region: SearchRegion, config: DetectorConfig, thorough: bool, touching: TouchingPx | None
) -> NDArray[np.float64]:
    """(K, 2) candidate centres: distance-transform peaks of lone balls, crowded blobs
    explained ball by ball (vision.separate; `touching`: the view's touching distances)
    and, when `thorough`, round outlines."""
    blobs = distance_peaks(region, config.min_peak_ratio, config.max_peak_ratio)
    # A peak where no centre may lie (a ball merged with a pocket's dark hole) is dropped
    # later anyway: it must not hide a round outline beside it.
    blobs = blobs[map_at(region.centre_valid, blobs) > 0]
    crowd, boxes = (
        crowded(region, config.crowd_min_separation)
        if config.separate_crowds
        else (None, np.zeros((0, 4), np.int64))
    )
    votes = outline_votes(region, config.edge_gradient) if thorough else None
    if crowd is not None and len(boxes):
        if votes is None:
            votes = crowd_votes(region, boxes, config.edge_gradient)
        # Crowded blobs (racks, clusters, a ball by an arm, a sleeve) are explained ball
        # by ball from round outlines; their distance peaks are only seeds.
        in_crowd = map_at(crowd.astype(np.uint8), blobs) > 0
        crowds = Crowds(crowd, votes, touching)
        placed = crowd_centres(
            region, crowds, blobs[in_crowd], config.edge_gradient, config.crowd_smear_peaks
        )
        blobs = np.vstack([blobs[~in_crowd], placed])
    rings = (
        outline_peaks(region, config.edge_gradient, config.min_ring_votes, votes)[0]
        if thorough
        else np.zeros((0, 2))
    )
    return merge_candidates(region, blobs, rings)


def _touching_px(camera: CameraModel | None, mosaic: Mosaic) -> TouchingPx | None:
    """Image distance at which balls touch in a direction (`vision.separate.TouchingPx`),
    from the calibrated camera (None without one)."""
    if camera is None:
        return None
    view = camera

    def touching_px(xy: NDArray[np.float64], towards: NDArray[np.float64]) -> NDArray[np.float64]:
        frame_xy = mosaic.to_frame(xy)
        table = view.to_table(frame_xy)
        away = view.to_table(mosaic.to_frame(towards)) - table
        length = np.maximum(np.linalg.norm(away, axis=1, keepdims=True), 1e-9)
        other = table + (2.0 * BALL_CENTRE_HEIGHT_MM) * away / length
        gap: NDArray[np.float64] = np.linalg.norm(
            view.project(other, BALL_CENTRE_HEIGHT_MM) - frame_xy, axis=1
        )
        return gap

    return touching_px


def _mid_path(
    camera: CameraModel,
    xy_px: NDArray[np.float64],
    axis: NDArray[np.float64],
    half_path_px: NDArray[np.float64],
) -> NDArray[np.float64]:
    """(K, 2) pixel of the table midpoint of each streak's path: the path runs `half_path_px`
    either side of its image middle `xy_px` along `axis` (K, 2). Perspective squeezes the far
    half of a path in the image, so the image middle lies beyond the ball's mid-exposure
    position (by a few tenths of a pixel for a fast ball seen from the side)."""
    ends = np.vstack([xy_px - axis * half_path_px[:, None], xy_px + axis * half_path_px[:, None]])
    table = camera.to_table(ends)
    middle = 0.5 * (table[: len(xy_px)] + table[len(xy_px) :])
    return camera.project(middle, BALL_CENTRE_HEIGHT_MM)
