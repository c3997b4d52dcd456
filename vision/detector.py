"""The default ball detector: no trained weights, only the calibration and the cloth.

Per region of the frame (the whole table, or windows around where the tracker expects balls):
1. colour distance of every pixel from the learned cloth (Lab; shadows count for less);
2. the foreground's distance transform divided by the expected ball radius at each pixel:
   ball centres are its local maxima near 1, also inside a rack, where touching balls meet
   only at points; thin things (cue, fingers, chalk) peak far below 1, a hand far above;
3. non-maximum suppression at 1.7 radii (touching balls are 2 radii apart);
4. sub-pixel centres: the soft foreground's centroid in a disc of one radius, each pixel
   given to its nearest candidate, iterated;
5. confidence: disc coverage times the share of a ring just outside the ball that is cloth or
   another ball (a ball in a hand, or the middle of a hand, has foreground all round);
6. identification of each kept ball from its pixels (vision.identify).

With hints, a window whose pixels have not changed since it was last searched keeps that
search's result (vision.memory): a still table costs one comparison per ball.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from calibration.io import Calibration
from vision.candidates import SearchRegion, map_at, outline_peaks
from vision.cloth import ClothModel, TableView, with_static_edges
from vision.detector_config import DetectorConfig as DetectorConfig
from vision.duplicates import dedupe_on_table, duplicate_pairs
from vision.find import find_balls, find_seeded
from vision.identify import Identifier, white_balance_gains
from vision.memory import (
    Remembered,
    TableMemory,
    cell_boxes,
    changed,
    changed_cells,
    crop,
    grow,
    in_mask,
    recall,
    table_cells,
    window_boxes,
)
from vision.mosaic import Box, Mosaic, merge_boxes, pack
from vision.plain import plain_windows
from vision.region import RegionMaps
from vision.types import NUM_CLASSES, Detections, Frame
from vision.windows import (
    Found,
    check_size,
    cleared,
    hint_boxes,
    joined,
    unexplained,
    whole,
    window_half,
)


class BallDetector:
    """Finds and names the balls on a calibrated table.

    Args:
        calibration: the table seen by this camera.
        config: tunables; the defaults suit any calibrated view.
    """

    def __init__(self, calibration: Calibration, config: DetectorConfig | None = None) -> None:
        self.config = config or DetectorConfig()
        self._setup(
            TableView.from_calibration(
                calibration,
                self.config.surface_margin_mm,
                self.config.lip_shelf_radii,
                pocket_holes=self.config.pocket_holes,
                centre_inset_radii=self.config.centre_inset_radii,
                side_lip_radii=self.config.side_lip_radii,
            )
        )

    @classmethod
    def from_view(cls, view: TableView, config: DetectorConfig | None = None) -> BallDetector:
        """A detector over a prepared view (e.g. an uncalibrated mask and one ball size)."""
        detector = cls.__new__(cls)
        detector.config = config or DetectorConfig()
        detector._setup(view)
        return detector

    def _setup(self, view: TableView) -> None:
        self.view = view
        self._regions = RegionMaps(view, self.config)
        self._bounds = view.bounds()
        self.identifier = Identifier(self.config.identifier)
        self.cloth: ClothModel | None = None
        inside = view.radius_px[view.valid > 0]
        self._largest_radius = float(inside.max()) if inside.size else 1.0
        self._forget()

    def _forget(self) -> None:
        """Drop what earlier frames showed (the cloth model changed, or a full search)."""
        self._memory = Remembered.empty()
        self._last = Detections.empty()
        self._gains: NDArray[np.float32] | None = None
        self._table: TableMemory | None = None

    def learn_cloth(self, frame: Frame) -> ClothModel:
        """Learn (or relearn, after the light changed) the cloth colour from a frame.

        The cloth's colour is smoothed over the surface; near the cushions the frame itself
        is taken as background except around the balls found in it, so static things an
        angled camera sees there (cushion faces, pocket jaws) are not taken for balls. A ball
        missed in this frame near a cushion stays invisible until the cloth is relearned.
        """
        check_size(frame, self.view.size)
        self.cloth = ClothModel.learn(frame.image, self.view, self.config.dark_ratio)
        balls = self.detect(frame).xy_px.astype(np.float64)
        # Round outlines too: a ball of the cloth's colour frozen to a cushion may not be
        # detected, and taking it for background would leave a ghost when it moves.
        mosaic = pack(self._boxes(None), self._bounds)
        region = self._search_region(frame.image, mosaic)
        rings = outline_peaks(region, self.config.edge_gradient, self.config.min_ring_votes)[0]
        if len(rings):
            balls = np.vstack([balls, mosaic.to_frame(rings)])
        static = cleared(self.view.edge_band, balls, self._radius_at(balls))
        self.cloth = with_static_edges(self.cloth, frame.image, static > 0)
        self._forget()
        return self.cloth

    @property
    def threshold(self) -> float:
        """The foreground distance in use (Lab units)."""
        noise = self.cloth.noise if self.cloth is not None else 0.0
        return max(self.config.foreground_distance, self.config.noise_factor * noise)

    def detect(self, frame: Frame, hint_xy_px: NDArray[np.floating] | None = None) -> Detections:
        """Balls in one frame.

        Args:
            frame: the image; the cloth is learned from the first frame seen.
            hint_xy_px: (M, 2) pixels where the tracker expects balls; only windows around
                them are searched (balls elsewhere are missed: search the whole frame now
                and then for new ones).

        Returns:
            Detections with sub-pixel centres, table positions (NaN when uncalibrated),
            expected radii, confidences and class probabilities.
        """
        return self.detect_reaching(frame, hint_xy_px, np.zeros((0, 2)))

    def detect_reaching(
        self,
        frame: Frame,
        hint_xy_px: NDArray[np.floating] | None,
        reach_xy_px: NDArray[np.floating],
    ) -> Detections:
        """`detect`, and the windows around (R, 2) pixels ``reach_xy_px`` searched as well,
        thoroughly: where an unseen ball that may be moving may have gone
        (`referee.pipeline_search.reach_centres`). No ball is expected at any one of them,
        so they neither seed candidates nor are remembered as empty."""
        check_size(frame, self.view.size)
        if self.cloth is None:
            self.learn_cloth(frame)
        if hint_xy_px is None:
            return self._search_table(frame)
        hints = np.asarray(hint_xy_px, np.float64).reshape(-1, 2)
        hints = hints[np.all(np.isfinite(hints), axis=1)]
        reach = np.asarray(reach_xy_px, np.float64).reshape(-1, 2)
        reach = reach[np.all(np.isfinite(reach), axis=1)]
        kept, explained = self._recall(frame, hints)
        if explained.all() and len(kept) == len(self._memory) and len(reach) == 0:
            return self._last  # every window as it was: the same balls
        searched = hints[~explained]
        found = self._search_hinted(frame.image, searched)
        if len(reach):
            found = joined(found, self._search(frame.image, reach, True))
        fresh = self._remember(frame, *found)
        return self._output(frame, kept, fresh, searched)

    def plain_cloth(self, frame: Frame, xy_px: NDArray[np.floating]) -> NDArray[np.bool_]:
        """(K,) bool: which search windows around (K, 2) frame pixels ``xy_px`` show plain
        cloth (`vision.plain`): where a ball the tracker no longer sees is gone, not hidden
        under an arm or a body. False everywhere before the cloth is learned."""
        xy = np.asarray(xy_px, np.float64).reshape(-1, 2)
        if self.cloth is None:
            return np.zeros(len(xy), bool)
        where = (self.view, self.cloth, self._bounds)
        return plain_windows(frame.image, where, xy, self.config, self.threshold)

    def _search_table(self, frame: Frame) -> Detections:
        """Every ball on the table. With a memory, only the parts that changed since the
        last full search are searched (grown by a search window); elsewhere that search's
        balls stay."""
        cells = table_cells(frame.image, self._bounds)
        table = self._table
        age_s = frame.time_s - table.complete_time_s if table is not None else np.inf
        if (
            table is None
            or not self.config.reuse_still_windows
            or not 0.0 <= age_s <= self.config.full_refresh_s
        ):
            xy, confidence, pixels = self._search(frame.image, None, thorough=True)
            self._gains = None
            found = self._output(
                frame,
                Remembered.empty(),
                self._remember(frame, xy, confidence, pixels),
                np.zeros((0, 2)),
            )
            self._table = TableMemory(cells, self._bounds, frame.time_s, self._memory)
            return found
        moved = changed_cells(cells, table.cells, self.config.still_change_ratio * self.threshold)
        searched = grow(moved, (self.config.hint_window_radii + 1.0) * self._largest_radius)
        disturbed = in_mask(
            table.balls.xy_px, grow(moved, 1.5 * self._largest_radius), self._bounds
        )
        boxes = merge_boxes(cell_boxes(searched, self._bounds))
        xy, confidence, pixels = self._search_boxes(frame.image, boxes, thorough=True)
        fresh = self._remember(frame, xy, confidence, pixels)
        found = self._output(frame, table.balls.take(~disturbed), fresh, np.zeros((0, 2)))
        newer = np.where(searched[..., None] > 0, cells, table.cells)
        self._table = TableMemory(newer, self._bounds, table.complete_time_s, self._memory)
        return found

    def _search_hinted(self, image: NDArray[np.uint8], hints: NDArray[np.float64]) -> Found:
        """Fast pass over the hints' windows (foreground blobs only), then a thorough pass
        over the windows of hints it left unexplained (a ball of the cloth's colour, a
        blurred one)."""
        found = self._search(image, hints, thorough=False)
        lone = unexplained(hints, self._radius_at(hints), found[0])
        if lone.any():
            seeds = hints[lone] if self.config.seed_hints else None
            found = joined(found, self._search_boxes(image, self._boxes(hints[lone]), True, seeds))
        return found

    def _recall(
        self, frame: Frame, hints: NDArray[np.float64]
    ) -> tuple[Remembered, NDArray[np.bool_]]:
        """Remembered entries whose windows are unchanged and that explain a hint, and
        (M,) which hints they explain."""
        memory = self._memory
        if not self.config.reuse_still_windows or len(memory) == 0:
            return Remembered.empty(), np.zeros(len(hints), bool)
        age_s = frame.time_s - memory.time_s
        young = (age_s >= 0.0) & (age_s <= self.config.still_max_age_s)
        pixel_change = self.config.still_change_ratio * self.threshold
        still = young & ~changed(frame.image, memory, pixel_change, self.config.still_changed_share)
        explained, used = recall(memory, hints, self._radius_at(hints), still)
        return memory.take(used), explained

    def _remember(
        self,
        frame: Frame,
        xy: NDArray[np.float64],
        confidence: NDArray[np.float64],
        pixels: list[NDArray[np.uint8]],
    ) -> Remembered:
        """Freshly found balls (duplicates dropped) with their features and windows."""
        if len(xy) == 0:
            return Remembered.empty()
        keep = dedupe_on_table(xy, confidence, self._radius_at(xy), self._plane())
        xy, confidence = xy[keep], confidence[keep]
        pixels = [pixels[i] for i in np.flatnonzero(keep)]
        if self._gains is None:
            # White balance from every ball at once, kept until the next full search.
            self._gains = white_balance_gains(np.concatenate(pixels, axis=0))
        # Radii and the cloth under each ball let the identifier tell streaks (their colour
        # mixed with the cloth's) from round balls.
        cloth = map_at(self.cloth.bgr, xy).astype(np.float32) if self.cloth is not None else None
        features = self.identifier.features(pixels, self._gains, self._radius_at(xy), cloth)
        return self._entries(frame, xy, confidence, features)

    def _entries(
        self,
        frame: Frame,
        xy: NDArray[np.float64],
        confidence: NDArray[np.float64],
        features: NDArray[np.float32],
    ) -> Remembered:
        boxes = window_boxes(xy, self._half_window(xy), self._bounds)
        times = np.full(len(xy), frame.time_s)
        return Remembered(xy, confidence, features, times, boxes, crop(frame.image, boxes))

    def _output(
        self, frame: Frame, kept: Remembered, fresh: Remembered, searched: NDArray[np.float64]
    ) -> Detections:
        """The detections of kept and fresh balls; remembers them and the searched hints
        that found nothing."""
        if len(kept) and len(fresh):
            # A fresh search of the same ball wins over the kept result.
            radius = self._radius_at(kept.xy_px)
            seen_twice = duplicate_pairs(kept.xy_px, fresh.xy_px, radius, self._plane())
            kept = kept.take(~np.any(seen_twice, axis=1))
        balls = Remembered.concat(kept.take(kept.is_ball), fresh)
        self._memory = Remembered.concat(balls, kept.take(~kept.is_ball))
        if len(searched):
            lone = unexplained(searched, self._radius_at(searched), balls.xy_px)
            nothing = np.full(int(lone.sum()), np.nan)
            features = np.zeros((len(nothing), balls.features.shape[1]), np.float32)
            empty = self._entries(frame, searched[lone], nothing, features)
            self._memory = Remembered.concat(self._memory, empty)
        self._last = self._assemble(balls)
        return self._last

    def _search(
        self, image: NDArray[np.uint8], hints: NDArray[np.float64] | None, thorough: bool
    ) -> Found:
        """Centres (frame px), confidences and pixels of the balls in the windows around
        the hints (None: the whole table)."""
        return self._search_boxes(image, self._boxes(hints), thorough)

    def _search_boxes(
        self,
        image: NDArray[np.uint8],
        boxes: list[Box],
        thorough: bool,
        seeds_px: NDArray[np.float64] | None = None,
    ) -> Found:
        """Centres (frame px), confidences and pixels of the balls in frame boxes
        (`seeds_px`: where balls are expected, tried as candidates too)."""
        if not boxes:
            return np.zeros((0, 2)), np.zeros(0), []
        mosaic = pack(boxes, self._bounds)
        region = self._search_region(image, mosaic)
        if seeds_px is None:
            xy, confidence, pixels = find_balls(
                region, mosaic, self.config, self.view.camera, thorough
            )
        else:
            xy, confidence, pixels = find_seeded(
                region, mosaic, self.config, self.view.camera, seeds_px
            )
        return (mosaic.to_frame(xy) if len(xy) else xy), confidence, pixels

    def _boxes(self, hints: NDArray[np.float64] | None) -> list[Box]:
        if hints is None:
            return whole(self._bounds)
        return hint_boxes(hints, self._half_window(hints), self._bounds)

    def _half_window(self, xy: NDArray[np.float64]) -> NDArray[np.float64]:
        return window_half(self._radius_at(xy), self.config.hint_window_radii)

    def _search_region(self, image: NDArray[np.uint8], mosaic: Mosaic) -> SearchRegion:
        """The per-pixel maps of the ``mosaic``'s boxes (`vision.region.RegionMaps`)."""
        assert self.cloth is not None
        return self._regions.region(image, mosaic, self.cloth, self.threshold)

    def _assemble(self, balls: Remembered) -> Detections:
        if len(balls) == 0:
            return Detections.empty()
        xy = balls.xy_px
        class_prob = self.identifier.probabilities(balls.features)
        camera = self.view.camera
        xy_mm = camera.to_table(xy) if camera is not None else np.full((len(xy), 2), np.nan)
        return Detections(
            xy_px=xy.astype(np.float32),
            xy_mm=xy_mm.astype(np.float32),
            radius_px=self._radius_at(xy).astype(np.float32),
            confidence=balls.confidence.astype(np.float32),
            class_prob=class_prob.reshape(-1, NUM_CLASSES),
        )

    def _plane(self) -> CameraModel | None:
        """The camera that judges duplicates on the table, or None (pixels only)."""
        return self.view.camera if self.config.duplicates_on_table else None

    def _radius_at(self, xy: NDArray[np.float64]) -> NDArray[np.float64]:
        return map_at(self.view.radius_px, xy)
