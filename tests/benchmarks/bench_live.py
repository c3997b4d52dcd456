"""Benchmark: the live service at 60 fps 1280x720 with 20 websocket viewers (targets: no
frame dropped by the capture; p99 event latency, frame capture to websocket message on the
viewer's side, <= 100 ms).

The service runs in this process on uvicorn (loopback); the viewers run in a child process
(as browsers would) and time each message against the frame's capture time (CLOCK_MONOTONIC
is shared by processes). The source is a simulated camera: it makes a frame every 1/60 s on
its own clock and, like a V4L2 driver, keeps only the last 4; a frame the capture was too
late for is lost and counted as dropped. The pipeline is scripted (ball positions every
frame, an event every 6 frames, a shot every 5 s, `--work-ms` of busy work per frame), so
what is measured is the service (capture, hand-off, store, broadcast), not the detector;
`--video FILE --calibration FILE` runs the real pipeline on a file played in real time.

Run: ``.venv/bin/python tests/benchmarks/bench_live.py [--seconds 20] [--viewers 20]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from referee.live.settings import LiveSettings  # noqa: E402
from tests.referee.live.helpers import BREAK_FACTS, ScriptedShot, serve  # noqa: E402
from tracking.types import Event, EventKind, TrackSet, TrackStatus  # noqa: E402
from vision.types import Frame  # noqa: E402

MISS_FACTS = {**BREAK_FACTS, "first_object_ball_contacted": None, "pocketed": [],
              "cushion_after_first_contact": []}  # fmt: skip


class SimulatedCamera:
    """A 1280x720 camera at `fps` with a driver queue of `buffers` frames."""

    def __init__(self, fps: float = 60.0, size: tuple[int, int] = (1280, 720), buffers: int = 4):
        self.fps = fps
        self.frame_count = None
        self.buffers = buffers
        rng = np.random.default_rng(0)
        self._images = [rng.integers(0, 255, (size[1], size[0], 3), np.uint8) for _ in range(4)]
        self._start_s: float | None = None  # the camera starts with the first read
        self._next = 0
        self.lost = 0

    def read(self) -> Frame:
        now_s = time.monotonic()
        if self._start_s is None:
            self._start_s = now_s
        newest = int((now_s - self._start_s) * self.fps)
        if newest - self._next >= self.buffers:  # the queue overflowed: older frames are gone
            self.lost += newest - self.buffers + 1 - self._next
            self._next = newest - self.buffers + 1
        due_s = self._start_s + self._next / self.fps
        if due_s > now_s:
            time.sleep(due_s - now_s)
        index = self._next
        self._next += 1
        return Frame(self._images[index % 4], index, index / self.fps)

    @property
    def started_s(self) -> float | None:
        return self._start_s

    def close(self) -> None:
        return None


class BenchPipeline:
    """Ball positions every frame, an event every 6 frames, a missed shot every 5 s."""

    def __init__(self, fps: float, work_ms: float) -> None:
        self.fps = fps
        self.work_s = work_ms / 1000.0
        self.status = np.array([TrackStatus.ON_TABLE] * 11, dtype=object)

    def process(self, frame: Frame) -> Any:
        end = time.perf_counter() + self.work_s
        while time.perf_counter() < end:  # busy work holding the GIL, like numpy-light code
            pass
        i = frame.index
        events = (
            (Event(i, frame.time_s, EventKind.BALL_CUSHION, (i % 11,), cushion="foot"),)
            if i % 6 == 0
            else ()
        )
        shot_every = int(5 * self.fps)
        shots = (
            (ScriptedShot(dict(MISS_FACTS), i - 60, i),) if i % shot_every == shot_every - 1 else ()
        )
        xy = np.stack([np.linspace(100, 2400, 11) + i % 50, np.full(11, 635.0)], axis=1)
        tracks = TrackSet(
            i, frame.time_s, np.arange(11), xy, np.zeros((11, 2)), xy / 2, self.status
        )
        return type("Result", (), {"events": events, "shots": shots, "tracks": tracks})()


def viewers_main(url: str, count: int, seconds: float, out: Any) -> None:
    """Child process: `count` websocket viewers; sends back latencies by message type."""
    from websockets.asyncio.client import connect

    async def viewer(latency: dict[str, list[float]]) -> int:
        received = 0
        async with connect(url, max_queue=None) as ws:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                try:
                    text = await asyncio.wait_for(ws.recv(), timeout=end - time.monotonic())
                except TimeoutError:
                    break
                now = time.monotonic()
                received += 1
                message = json.loads(text)
                if "captured_s" in message:
                    latency.setdefault(message["type"], []).append(now - message["captured_s"])
        return received

    async def run() -> None:
        latency: dict[str, list[float]] = {}
        if count == 0:  # a baseline run: the same duration with nobody watching
            await asyncio.sleep(seconds)
        counts = await asyncio.gather(*(viewer(latency) for _ in range(count)))
        out.send({"latency": latency, "messages": sum(counts)})

    asyncio.run(run())


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000.0 * ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--viewers", type=int, default=20)
    parser.add_argument("--fps", type=float, default=60.0)
    parser.add_argument("--work-ms", type=float, default=3.0, help="pipeline work per frame")
    parser.add_argument("--mjpeg", action="store_true", help="also watch /stream.mjpg")
    args = parser.parse_args()

    camera = SimulatedCamera(args.fps)
    pipeline = BenchPipeline(args.fps, args.work_ms)
    folder = Path(tempfile.mkdtemp(prefix="bench-live-"))
    settings = LiveSettings(source="camera", db=folder / "bench.sqlite3", realtime=True)
    with serve(settings, pipeline, open_source=lambda: camera) as server:
        import httpx

        body = {"players": {"A": "A", "B": "B"}, "breaker": "A"}
        httpx.post(f"{server.url}/api/match", json=body, headers=server.auth()).raise_for_status()
        receiver, sender = mp.Pipe(duplex=False)
        child = mp.get_context("spawn").Process(
            target=viewers_main, args=(server.ws_url, args.viewers, args.seconds, sender)
        )
        child.start()
        cpu_start_s, wall_start_s = time.process_time(), time.monotonic()
        mjpeg_bytes = 0
        if args.mjpeg:
            with httpx.stream("GET", f"{server.url}/stream.mjpg", timeout=args.seconds + 5) as r:
                end = time.monotonic() + args.seconds
                for chunk in r.iter_bytes():
                    mjpeg_bytes += len(chunk)
                    if time.monotonic() > end:
                        break
        result = receiver.recv()
        cpu_share = (time.process_time() - cpu_start_s) / (time.monotonic() - wall_start_s)
        child.join(10)
        health = httpx.get(f"{server.url}/api/health").json()
    source = health["source"]
    ran_s = time.monotonic() - (camera.started_s or time.monotonic())
    print(f"capture: {source['frames']} frames in {ran_s:.1f} s "
          f"({source['frames'] / max(ran_s, 1e-9):.1f} fps; camera {args.fps:.0f} fps 1280x720); "
          f"dropped by capture {source['dropped']} (camera queue overflows {camera.lost}); "
          f"skipped by a busy pipeline {source['skipped']}")  # fmt: skip
    print(f"viewers: {args.viewers}, messages received {result['messages']}, "
          f"dropped slow viewers {health['viewers']['dropped_slow']}")  # fmt: skip
    for kind, values in sorted(result["latency"].items()):
        print(f"{kind} latency capture->viewer ms: n={len(values)} p50={_ms(values, .5):.1f} "
              f"p99={_ms(values, .99):.1f} max={max(values) * 1000:.1f} "
              f"mean={statistics.fmean(values) * 1000:.1f}")  # fmt: skip
    print(f"server-side (capture->broadcast) ms: {health['latency_ms']}")
    print(f"capture rate over the last second: {source['measured_fps']} fps")
    print(f"service CPU (capture, pipeline work, store, broadcast): {cpu_share:.2f} cores")
    print(
        f"pipeline busy fraction {health['pipeline']['busy_fraction']}, mjpeg bytes {mjpeg_bytes}"
    )
    ok = source["dropped"] == 0 and camera.lost == 0
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
