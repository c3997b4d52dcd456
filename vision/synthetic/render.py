"""Renders synthetic frames: the static table once, then per-frame ball sprites and overlays.

A ball's centre is drawn exactly at `CameraModel.project(xy_mm, height)` with the apparent
radius `CameraModel.ball_radius_px`; its edge is anti-aliased by analytic pixel coverage, so
the coverage-weighted centroid of an unshaded ball is its projected centre. Shading uses a
per-ball orthographic view (the sphere's outline is drawn as a circle): the body normal of
each pixel is rotated by the ball's orientation to look up stripes and numbers.

Motion blur: a ball given several sub-frame samples is drawn at each and the coverage and
colour are averaged. Sensor noise comes from a small bank of pre-drawn noise images so that
a 1280x720 frame costs a few milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from calibration.table import TableSpec
from vision.synthetic.balls import BallAlbedo
from vision.synthetic.table_image import Lighting, render_table

FloatArray = NDArray[np.float64]
NOISE_BANK = 6
CACHE_LIMIT = 512
"""Rendered ball and shadow patches kept (balls at rest are drawn once and reused)."""
Box = tuple[tuple[int, int], tuple[int, int]]
Patch = tuple[Box | None, NDArray[np.float32], NDArray[np.float32]]


@dataclass(frozen=True, slots=True, eq=False)
class BallPoses:
    """The balls to draw in one frame, columnar.

    Attributes:
        ball: (N,) int64 ball classes.
        centre_mm: (N, S, 3) float64 sub-frame samples of the centre: table x, y and height
            above the cloth, mm (S = 1 draws a sharp ball; more samples blur it).
        orientation: (N, S, 3, 3) float64 body -> table-axes rotations per sample.
        scale: (N,) float64 radius factor (1 on the table; below 1 while dropping in a pocket).
        shade: (N,) float64 brightness factor (1 on the table; darker inside a pocket).
    """

    ball: NDArray[np.int64]
    centre_mm: FloatArray
    orientation: FloatArray
    scale: FloatArray
    shade: FloatArray

    def __post_init__(self) -> None:
        n = len(self.ball)
        samples = self.centre_mm.shape[1] if self.centre_mm.ndim == 3 else 0
        expected = {
            "centre_mm": (n, samples, 3),
            "orientation": (n, samples, 3, 3),
            "scale": (n,),
            "shade": (n,),
        }
        for name, shape in expected.items():
            if np.shape(getattr(self, name)) != shape:
                raise ValueError(
                    f"BallPoses.{name} must have shape {shape}, got {np.shape(getattr(self, name))}"
                )

    def __len__(self) -> int:
        return len(self.ball)

    @classmethod
    def empty(cls) -> BallPoses:
        return cls(
            np.zeros(0, np.int64),
            np.zeros((0, 1, 3)),
            np.zeros((0, 1, 3, 3)),
            np.zeros(0),
            np.zeros(0),
        )


@dataclass(frozen=True, slots=True, eq=False)
class Overlay:
    """Something above the table drawn over the balls (cue stick, arm, hand).

    Attributes:
        points_mm: (K, 3) polygon vertices: table x, y and height above the cloth, mm.
        colour: BGR fill colour.
        shade: 0 for a solid; above 0, a soft shadow on the cloth instead: the light lost
            inside the polygon (0..1), its edge blurred over about a ball radius.
    """

    points_mm: FloatArray
    colour: tuple[int, int, int]
    shade: float = 0.0


@dataclass(slots=True)
class Renderer:
    """Draws frames of one table seen by one camera.

    Args:
        camera: the camera (pinhole, no distortion).
        table: the table.
        cloth: cloth colour name (`table_image.CLOTH_BGR`).
        ball_set: "standard" or "tv".
        lighting: lamp, gain and sensor noise.
        seed: seeds the cloth weave and the noise bank.
    """

    camera: CameraModel
    table: TableSpec
    cloth: str = "green"
    ball_set: str = "standard"
    lighting: Lighting = field(default_factory=Lighting)
    seed: int = 0
    background: NDArray[np.uint8] = field(init=False)
    _albedo: BallAlbedo = field(init=False)
    _noise: list[tuple[NDArray[np.uint8], NDArray[np.uint8]]] = field(init=False)
    _cache: dict[bytes, Patch] = field(init=False, default_factory=dict)
    _light_cam: FloatArray = field(init=False)
    _rng: np.random.Generator = field(init=False)

    def __post_init__(self) -> None:
        self._rng = np.random.default_rng(self.seed)
        self.background = render_table(
            self.camera, self.table, self.cloth, self.lighting, self._rng
        )
        self._albedo = BallAlbedo.create(self.ball_set)
        width, height = self.camera.image_size
        sigma = self.lighting.noise_sigma
        self._noise = []
        for _ in range(NOISE_BANK if sigma > 0 else 0):
            noise = np.round(self._rng.normal(0.0, sigma, (height, width, 3)))
            positive = np.clip(noise, 0, 255).astype(np.uint8)
            negative = np.clip(-noise, 0, 255).astype(np.uint8)
            self._noise.append((positive, negative))
        x, y, up = self.lighting.light_dir
        direction = np.array([x, y, -up], dtype=np.float64)  # table axes, z down
        self._light_cam = self.camera.rotation @ (direction / np.linalg.norm(direction))

    def render(
        self, poses: BallPoses, overlays: tuple[Overlay, ...] = (), frame_index: int = 0
    ) -> NDArray[np.uint8]:
        """(H, W, 3) uint8 BGR frame with the balls, overlays and sensor noise."""
        image = self.background.copy()
        order: list[int] = []
        if len(poses):
            order = [int(i) for i in np.argsort(-self.camera.depth_mm(poses.centre_mm[:, 0, :2]))]
        if self.lighting.shadow_strength > 0:
            for index in order:
                self._draw_shadow(image, poses.centre_mm[index])
        for index in order:
            self._draw_ball(image, poses, int(index))
        for overlay in overlays:
            self._draw_overlay(image, overlay)
        if self._noise:
            positive, negative = self._noise[frame_index % len(self._noise)]
            image = np.asarray(cv2.subtract(cv2.add(image, positive), negative), np.uint8)
        if len(self._cache) > CACHE_LIMIT:
            self._cache.clear()
        return image

    def _draw_overlay(self, image: NDArray[np.uint8], overlay: Overlay) -> None:
        points = overlay.points_mm
        uv = self.camera.project(points[:, :2], points[:, 2])
        if np.any(self.camera.depth_mm(points[:, :2], points[:, 2]) <= 0):
            return
        if overlay.shade > 0:
            self._draw_shade(image, uv, overlay.shade)
            return
        cv2.fillPoly(
            image, [np.round(uv * 16).astype(np.int32)], overlay.colour, cv2.LINE_AA, shift=4
        )

    def _draw_shade(self, image: NDArray[np.uint8], uv: FloatArray, shade: float) -> None:
        """Darken the polygon `uv` (K, 2) px by `shade`, its edge blurred by a ball radius."""
        middle = uv.mean(axis=0)
        table_xy = self.camera.to_table(middle[None], 0.0)
        blur = max(1.0, float(self.camera.ball_radius_px(table_xy, self.table.ball_radius_mm)[0]))
        reach = float(np.max(np.linalg.norm(uv - middle, axis=1))) + 3.0 * blur
        box = _box(middle, reach, image.shape)
        if box is None:
            return
        (u0, u1), (v0, v1) = box
        mask = np.zeros((v1 - v0, u1 - u0), np.float32)
        corners = np.round((uv - [u0, v0]) * 16).astype(np.int32)
        cv2.fillPoly(mask, [corners], 1.0, cv2.LINE_AA, shift=4)
        soft = np.asarray(cv2.GaussianBlur(mask, (0, 0), blur), np.float32)
        gain = (1.0 - shade * soft)[..., None]
        patch = image[v0:v1, u0:u1].astype(np.float32) * gain
        image[v0:v1, u0:u1] = np.clip(patch, 0, 255).astype(np.uint8)

    def _draw_shadow(self, image: NDArray[np.uint8], centre_mm: FloatArray) -> None:
        key = b"s" + centre_mm.tobytes()
        cached = self._cache.get(key)
        if cached is None:
            cached = self._shadow_patch(centre_mm, image.shape)
            self._cache[key] = cached
        box, gain, _ = cached
        if box is None:
            return
        (u0, u1), (v0, v1) = box
        patch = image[v0:v1, u0:u1].astype(np.float32) * gain
        image[v0:v1, u0:u1] = np.clip(patch, 0, 255).astype(np.uint8)

    def _shadow_patch(self, centre_mm: FloatArray, shape: tuple[int, ...]) -> Patch:
        """Box and (h, w, 1) light gain of the soft shadow a ball casts on the cloth."""
        radius_mm = self.table.ball_radius_mm
        x, y, up = self.lighting.light_dir
        offset = -np.array([x, y]) / max(up, 1e-6) * (centre_mm[0, 2] + radius_mm * 0.3)
        xy = centre_mm[:, :2].mean(axis=0, keepdims=True) + offset
        uv = self.camera.project(xy, 0.0)[0]
        radius = float(self.camera.ball_radius_px(xy, radius_mm)[0]) * 1.05
        box = _box(uv, radius * 1.6, shape)
        if box is None:
            return None, np.zeros(0, np.float32), np.zeros(0, np.float32)
        (u0, u1), (v0, v1) = box
        gu, gv = np.meshgrid(np.arange(u0, u1), np.arange(v0, v1))
        distance2 = ((gu - uv[0]) ** 2 + (gv - uv[1]) ** 2) / (radius * radius)
        strength = self.lighting.shadow_strength
        gain = (1.0 - strength * np.exp(-1.6 * distance2**2)).astype(np.float32)[..., None]
        return box, gain, np.zeros(0, np.float32)

    def _draw_ball(self, image: NDArray[np.uint8], poses: BallPoses, index: int) -> None:
        centres = poses.centre_mm[index]
        count = 1 if np.all(centres == centres[0]) else len(centres)  # sharp: draw once
        key = b"b" + b"".join(
            np.ascontiguousarray(a).tobytes()
            for a in (
                poses.ball[index],
                centres[:count],
                poses.orientation[index, :count],
                poses.scale[index],
                poses.shade[index],
            )
        )
        cached = self._cache.get(key)
        if cached is None:
            cached = self._ball_patch(poses, index, count, image.shape)
            self._cache[key] = cached
        box, colour, alpha = cached
        if box is None:
            return
        (u0, u1), (v0, v1) = box
        patch = image[v0:v1, u0:u1].astype(np.float32)
        blended = patch * (1.0 - alpha) + colour
        image[v0:v1, u0:u1] = np.clip(blended, 0, 255).astype(np.uint8)

    def _ball_patch(
        self, poses: BallPoses, index: int, count: int, shape: tuple[int, ...]
    ) -> Patch:
        """Box, premultiplied colour (h, w, 3) and coverage (h, w, 1) of one ball, blurred
        over its `count` sub-frame samples."""
        centres = poses.centre_mm[index, :count]
        uvs = self.camera.project(centres[:, :2], centres[:, 2])
        radii = self.camera.ball_radius_px(centres[:, :2], self.table.ball_radius_mm)
        radii = radii * poses.scale[index]
        reach = float(np.max(np.linalg.norm(uvs - uvs.mean(axis=0), axis=1))) + radii.max()
        box = _box(uvs.mean(axis=0), reach, shape)
        if box is None:
            return None, np.zeros(0, np.float32), np.zeros(0, np.float32)
        (u0, u1), (v0, v1) = box
        gu, gv = np.meshgrid(
            np.arange(u0, u1, dtype=np.float64), np.arange(v0, v1, dtype=np.float64)
        )
        colour_sum = np.zeros((*gu.shape, 3))
        alpha_sum = np.zeros(gu.shape)
        for sample in range(count):
            colour, alpha = self._sprite(
                int(poses.ball[index]),
                gu - uvs[sample, 0],
                gv - uvs[sample, 1],
                float(radii[sample]),
                poses.orientation[index, sample],
            )
            colour_sum += colour * alpha[..., None]
            alpha_sum += alpha
        premultiplied = colour_sum / count * 255.0 * poses.shade[index]
        coverage = (alpha_sum / count)[..., None]
        return box, premultiplied.astype(np.float32), coverage.astype(np.float32)

    def _sprite(
        self, ball: int, du: FloatArray, dv: FloatArray, radius: float, orientation: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """Shaded colour (h, w, 3) 0..1 and analytic coverage (h, w) of one sharp ball."""
        distance = np.sqrt(du * du + dv * dv)
        alpha = np.clip(radius - distance + 0.5, 0.0, 1.0)
        colour = np.zeros((*du.shape, 3))
        inside = alpha > 0
        if not inside.any():
            return colour, alpha
        x = du[inside] / radius
        y = dv[inside] / radius
        z = -np.sqrt(np.clip(1.0 - x * x - y * y, 0.0, 1.0))
        normal_cam = np.column_stack([x, y, z])
        normal_cam /= np.linalg.norm(normal_cam, axis=1, keepdims=True)
        normal_body = normal_cam @ self.camera.rotation @ orientation  # O^T R^T n
        albedo = self._albedo.sample(ball, normal_body)
        lambert = np.clip(normal_cam @ self._light_cam, 0.0, 1.0)
        half = self._light_cam + np.array([0.0, 0.0, -1.0])
        half /= np.linalg.norm(half)
        specular = np.clip(normal_cam @ half, 0.0, 1.0) ** 60 * 0.9
        gain = self.lighting.brightness * (0.3 + 0.8 * lambert)
        colour[inside] = albedo * gain[:, None] + specular[:, None]
        return colour, alpha


def _box(
    centre_uv: FloatArray, reach_px: float, shape: tuple[int, ...]
) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Integer pixel ranges [u0, u1) x [v0, v1) covering a disc, clipped to the image."""
    height, width = shape[:2]
    u0 = max(0, int(np.floor(centre_uv[0] - reach_px - 1)))
    u1 = min(width, int(np.ceil(centre_uv[0] + reach_px + 2)))
    v0 = max(0, int(np.floor(centre_uv[1] - reach_px - 1)))
    v1 = min(height, int(np.ceil(centre_uv[1] + reach_px + 2)))
    if u0 >= u1 or v0 >= v1:
        return None
    return (u0, u1), (v0, v1)
