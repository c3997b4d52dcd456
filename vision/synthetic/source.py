"""`SyntheticSource`: a frame source that renders a synthetic clip on the fly.

It implements the frame-source protocol of docs/architecture.md (`read() -> Frame | None`,
`fps`, `frame_count`, `close()`); frame k carries `time_s = k / fps`, the instant the truth
describes. The planned scene (truth events, shots, sampled motion) is available as `scene`.
"""

from __future__ import annotations

from vision.synthetic.clip import ClipConfig, build_scene, make_renderer
from vision.synthetic.scene import Scene
from vision.types import Frame


class SyntheticSource:
    """Frames of a synthetic clip, rendered as they are read.

    Args:
        config: the clip settings (the same as `tenball synth`'s).
        scene: an already built scene for `config` (skips planning).
    """

    def __init__(self, config: ClipConfig, scene: Scene | None = None) -> None:
        self.config = config
        self.scene = scene if scene is not None else build_scene(config)
        self._renderer = make_renderer(config, self.scene)
        self._next = 0
        self._closed = False

    @property
    def fps(self) -> float:
        return self.config.fps

    @property
    def frame_count(self) -> int:
        return self.scene.timeline.frame_count

    def read(self) -> Frame | None:
        """The next frame, or None at the end (or after `close`)."""
        if self._closed or self._next >= self.frame_count:
            return None
        frame = self.scene.frame(self._next)
        image = self._renderer.render(frame.poses, frame.overlays, frame.index)
        self._next += 1
        return Frame(image=image, index=frame.index, time_s=frame.time_s)

    def close(self) -> None:
        self._closed = True

    def __enter__(self) -> SyntheticSource:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
