"""Motion-blur streaks found before round balls (vision.streaks), on constructed search
regions and on rendered frames through the detector."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.scenes import R_MM, render_scene
from tests.vision.test_detector import match
from vision.candidates import SearchRegion
from vision.detector import BallDetector
from vision.mosaic import pack
from vision.streaks import find_streaks, streaks

RADIUS = 10.0
THRESHOLD = 16.0
CENTRE = np.array([150.0, 100.0])


def _region(lightness: np.ndarray) -> SearchRegion:
    """A region whose distance from the (black) cloth is the lightness itself."""
    height, width = lightness.shape
    grey = np.clip(lightness, 0, 255).astype(np.uint8)
    scaled = lightness.astype(np.float32) * np.float32(100.0 / 255.0)
    gradient = np.dstack(
        [
            cv2.Sobel(scaled, cv2.CV_32F, 1, 0, ksize=3, scale=0.125),
            cv2.Sobel(scaled, cv2.CV_32F, 0, 1, ksize=3, scale=0.125),
        ]
    )
    return SearchRegion(
        image=np.asarray(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), np.uint8),
        distance=lightness.astype(np.float32),
        foreground=(lightness > THRESHOLD).astype(np.uint8),
        radius=np.full((height, width), RADIUS, np.float32),
        gradient=gradient.astype(np.float32),
        centre_valid=np.ones((height, width), np.uint8),
        threshold=THRESHOLD,
    )


def _discs(centres: list[tuple[float, float]], levels: list[float]) -> np.ndarray:
    """(200, 300) image of sharp discs of one radius (anti-aliased), each shaded as a lit
    sphere (Lambert, lamps overhead a little to the upper left, as vision.synthetic draws
    balls)."""
    ys, xs = np.mgrid[:200, :300].astype(np.float64)
    image = np.zeros((200, 300))
    light = np.array([-0.15, -0.1, -1.0]) / np.sqrt(1.0325)
    for (u, v), level in zip(centres, levels, strict=True):
        cover = np.clip(RADIUS - np.hypot(xs - u, ys - v) + 0.5, 0.0, 1.0)
        x, y = (xs - u) / RADIUS, (ys - v) / RADIUS
        z = -np.sqrt(np.clip(1.0 - x * x - y * y, 0.0, 1.0))
        lambert = np.clip(x * light[0] + y * light[1] + z * light[2], 0.0, 1.0)
        shade = 0.3 + 0.8 * lambert
        image = np.where(cover > 0, image * (1 - cover) + cover * level * shade, image)
    return image


def _smear(travel_radii: float, angle_deg: float, level: float = 96.0) -> np.ndarray:
    """The shaded ball of `_discs` averaged over 41 instants of a straight exposure
    `travel_radii` long centred on CENTRE."""
    direction = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))])
    steps = np.linspace(-0.5, 0.5, 41)[:, None] * travel_radii * RADIUS * direction
    frames = [_discs([tuple(CENTRE + step)], [level]) for step in steps]
    smeared: np.ndarray = np.mean(frames, axis=0)
    return smeared


@pytest.mark.parametrize("travel", [3.0, 6.0], ids=["3r", "6r"])
@pytest.mark.parametrize("angle", [0.0, 35.0, 90.0], ids=["0deg", "35deg", "90deg"])
def test_a_smeared_ball_is_one_streak_at_its_middle(travel: float, angle: float) -> None:
    found = find_streaks(_region(_smear(travel, angle)), 0.5 * THRESHOLD, 10.0)
    assert len(found.xy) == 1 and found.score[0] >= 0.5, found.score
    # The shaded side of a dim streak falls under the threshold first: a little bias.
    assert np.hypot(*(found.xy[0] - CENTRE)) < 0.75
    direction = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
    assert abs(float(found.axis[0] @ direction)) > 0.99
    assert len(found.pixels[0]) > 0.5 * np.pi * RADIUS**2
    claimed = found.pixels_of(found.score >= 0.5)
    assert claimed[round(CENTRE[1]), round(CENTRE[0])]


def _shadowed_smear(travel_radii: float, width_radii: float) -> np.ndarray:
    """A horizontal streak `travel_radii` long whose lower side carries its contact shadow
    (a faint band just over half the threshold), making it `width_radii` wide at half the
    threshold, as a corner view shows a fast ball."""
    image = _smear(travel_radii, 0.0)
    half = 0.5 * travel_radii * RADIUS
    u0, u1 = round(CENTRE[0] - half), round(CENTRE[0] + half)
    v0 = round(CENTRE[1] + RADIUS - 1)
    v1 = round(CENTRE[1] - RADIUS + width_radii * RADIUS)
    band = image[v0:v1, u0:u1]
    image[v0:v1, u0:u1] = np.maximum(band, 0.7 * THRESHOLD)
    return image


@pytest.mark.parametrize("width", [2.2, 2.4], ids=["1.1d", "1.2d"])
def test_a_long_streak_widened_by_its_shadow_is_one_streak(width: float) -> None:
    """Measured in rendered corner-view breaks: a cue ball's streak 4.7-5.6 radii long was
    1.12-1.21 diameters wide with its shadow and was split into two round balls."""
    found = find_streaks(_region(_shadowed_smear(4.0, width)), 0.5 * THRESHOLD, 10.0)
    assert len(found.xy) == 1 and found.score[0] >= 0.5, found.score
    assert abs(found.xy[0, 0] - CENTRE[0]) < 1.0
    # The shadow pulls the centroid toward it by well under a quarter of a radius.
    assert abs(found.xy[0, 1] - CENTRE[1]) < 0.25 * width * RADIUS


def test_a_sharp_ball_with_a_long_shadow_is_no_streak() -> None:
    """A ball at rest whose shadow trails it (a low lamp) makes a blob as long and wide as a
    short streak with its shadow, but its round outline is sharp all round."""
    image = _discs([tuple(CENTRE)], [96.0])
    v0, v1 = round(CENTRE[1] - 0.6 * RADIUS), round(CENTRE[1] + 1.4 * RADIUS)
    u0, u1 = round(CENTRE[0]), round(CENTRE[0] + 2.2 * RADIUS)
    image[v0:v1, u0:u1] = np.maximum(image[v0:v1, u0:u1], 0.7 * THRESHOLD)
    found = find_streaks(_region(image), 0.5 * THRESHOLD, 10.0)
    assert not np.any(found.score >= 0.5), found.score


def test_a_round_ball_a_cue_and_a_long_band_are_no_streaks() -> None:
    image = _discs([(60.0, 60.0)], [120.0])
    image[150:156, 20:280] = 120.0  # a cue: far narrower than a ball
    image[20:40, 150:300] = 0.8 * THRESHOLD  # a faint band along a cushion
    found = find_streaks(_region(image), 0.5 * THRESHOLD, 10.0)
    assert len(found.xy) == 0


def _moving_scene(preset: str, seed: int):  # type: ignore[no-untyped-def]
    """Four balls at rest and four smeared over 2-6 radii, far apart."""
    xy = np.array(
        [
            [400.0, 300.0],
            [400.0, 900.0],
            [1100.0, 300.0],
            [1100.0, 900.0],
            [1800.0, 300.0],
            [1800.0, 900.0],
            [700.0, 600.0],
            [1500.0, 600.0],
        ]
    )
    angles = np.radians([20.0, 100.0, 160.0, 250.0])
    travel = np.array([2.0, 3.5, 5.0, 6.0])[:, None] * R_MM
    blur = np.zeros((8, 2))
    blur[4:] = np.column_stack([np.cos(angles), np.sin(angles)]) * travel
    return render_scene(xy, [1, 2, 3, 4, 0, 5, 7, 9], seed=seed, preset=preset, blur_mm=blur)


@pytest.mark.parametrize(
    "preset", ["top", "broadcast", "corner"], ids=["top", "broadcast", "corner"]
)
def test_blurred_balls_are_found_once_each(preset: str) -> None:
    """Before streaks were looked for first (the old streak search ran after the round
    one): top 5 of 8 found with 7 extra detections, broadcast 8 of 8, corner 7 of 8 with 2
    extra."""
    scene = _moving_scene(preset, seed=21)
    found = BallDetector(scene.calibration).detect(scene.frame)
    rows, cols = match(scene, found)
    assert len(rows) == 8, f"{len(rows)} of 8 found"
    assert len(found) == 8, f"{len(found) - len(rows)} extra detections"
    errors = np.linalg.norm(scene.uv_px[rows] - found.xy_px[cols], axis=1)
    assert np.median(errors) < 1.0, errors


def test_balls_frozen_one_behind_the_other_stay_two_balls() -> None:
    """Touching balls along the view direction of an angled camera make one elongated blob
    (before the edge-direction test, such pairs in broadcast_nudge_safety_8ft_blue were
    taken for one streak)."""
    y = 600.0
    xy = np.array([[900.0, y], [900.0, y + 2.0 * R_MM + 0.1], [1500.0, y], [1500.0, y - 58.0]])
    scene = render_scene(xy, [8, 6, 7, 0], seed=5, preset="broadcast", cloth="blue")
    found = BallDetector(scene.calibration).detect(scene.frame)
    rows, _ = match(scene, found)
    assert len(rows) == len(found) == 4


def test_a_window_filled_along_its_cut_sides_is_no_blurred_ball() -> None:
    """A narrow window (two radii wide, clipped by the table's bounds on one side) over
    foreground that fills it (fresh clip t2: a corner pocket's cushion face whose background
    was learned under a player's arm) is one blob of a streak's shape, lying along the cut
    sides: no ball. A ball smeared out of its window through a side, or across it, touching
    the sides only with its width, stays a streak."""
    image = np.full((200, 300), 96.0)
    image[:, 160:] = 0.0  # cloth (a pocket's hole) beyond two radii
    box = (140, 60, 164, 120)  # the right side is the bounds' edge
    u0, v0, u1, v1 = box
    mosaic = pack([box], (0, 0, u1, 1000))
    filled = _region(image[v0:v1, u0:u1])
    assert len(streaks(filled, np.zeros((0, 2)), 0.5 * THRESHOLD)[0]) == 1
    assert len(streaks(filled, np.zeros((0, 2)), 0.5 * THRESHOLD, mosaic.cut_distance)[0]) == 0
    leaving = _smear(4.0, 0.0)
    window = (round(CENTRE[0]) - 5, 50, 300, 150)  # cuts the streak's left end
    around = pack([window], (0, 0, 1000, 1000))
    part = _region(leaving[window[1] : window[3], window[0] : window[2]])
    found = streaks(part, np.zeros((0, 2)), 0.5 * THRESHOLD, around.cut_distance)[0]
    assert len(found) == 1
    # A break's cue ball streaks across a whole window, in at one side and out at the
    # other (a sample clip's break was split in two when such a streak was dropped).
    across = _smear(6.0, 20.0)
    middle = (round(CENTRE[0]) - 16, 50, round(CENTRE[0]) + 16, 150)
    crossed = pack([middle], (0, 0, 1000, 1000))
    part = _region(across[middle[1] : middle[3], middle[0] : middle[2]])
    assert len(streaks(part, np.zeros((0, 2)), 0.5 * THRESHOLD, crossed.cut_distance)[0]) == 1
