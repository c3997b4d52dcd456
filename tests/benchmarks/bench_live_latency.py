"""Benchmark: how late a club sees what happened, with `tenball serve` run as a club runs it.

A rendered clip (a `tenball synth` folder: video.mp4, calibration.json, declarations.jsonl,
truth/) is played by the real CLI at its own frame rate as a camera (`--realtime`), through
the real pipeline (the detector included), with the overlay open in headless chromium as an
OBS browser source would have it. Measured against the clip's truth:

- a ball's drop (its true pocket frame) to the `ball_pocket` event on a viewer's websocket,
  and to the ball leaving the overlay's table picture;
- a shot's true end to its call on the overlay, and the shot's last drop to that call;
- frames dropped and skipped by the service, and the CPU it used (cores).

The match is created first with no camera (`--source none`), then the service is restarted
on the clip with the same database, as a club that sets the match up before the break would.
Frame capture times come from the service's own messages (`captured_s`, CLOCK_MONOTONIC,
shared by processes); the overlay's times from the page's clock (epoch ms), converted.

`--truth-detector` feeds the clip's true ball positions instead of the detector (the rest of
the pipeline is real), for the service's own latency on a machine too busy for the detector.

`--frames-late` measures, without the service and whatever the machine's load, what the
pipeline itself waits for: every frame is processed in order (as a machine that keeps up
would), and each drop's `ball_pocket` event and each shot's end are timed by the frame they
become known on, after the frame they happened on. A live call can come no sooner.

Run: ``.venv/bin/python tests/benchmarks/bench_live_latency.py CLIP_DIR [--no-browser]
[--truth-detector] [--frames-late]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.referee.live.cdp import Browser, find_chromium  # noqa: E402

TOKEN = "bench-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
BALL_NAMES = ("cue", *(str(n) for n in range(1, 11)))

# Records, in the page, when a call is shown and when each ball leaves the table picture.
WATCH_JS = """
(() => {
  window.__seen = {calls: [], gone: {}};
  const now = () => performance.timeOrigin + performance.now();
  let present = new Set();
  new MutationObserver(() => {
    window.__seen.calls.push([now(), document.getElementById('call-headline').textContent]);
  }).observe(document.getElementById('call-headline'), {childList: true, characterData: true,
                                                        subtree: true});
  new MutationObserver(() => {
    const balls = new Set([...document.querySelectorAll('#table-wrap .ball')]
      .map(g => g.dataset.ball));
    for (const b of present) if (!balls.has(b) && !(b in window.__seen.gone))
      window.__seen.gone[b] = now();
    for (const b of balls) present.add(b);
  }).observe(document.getElementById('table-wrap'), {childList: true, subtree: true});
  return true;
})()
"""


def _serve(args: list[str], log: Path, truth: Path | None = None) -> tuple[Any, str]:
    """`tenball serve ARGS` in a child process (with `truth`: this file's truth-fed server of
    that clip); returns it and its base URL."""
    command = [sys.executable, "-c", "import sys; from referee.cli import main; sys.exit(main())",
               "serve", "--port", "0", "--token", TOKEN, *args]  # fmt: skip
    if truth is not None:
        command = [sys.executable, __file__, str(truth), "--child-db", args[-1]]
    handle = log.open("ab")
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=handle)
    assert process.stdout is not None
    for raw in process.stdout:
        line = raw.decode()
        if "overlay http" in line:
            url = line.split("overlay ", 1)[1].split()[0].rsplit("/", 1)[0]
            drain = threading.Thread(target=process.stdout.read, daemon=True)
            drain.start()
            return process, url
    raise RuntimeError(f"tenball serve did not start; see {log}")


def _wait_up(url: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/api/health", timeout=1).is_success:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the service did not answer /api/health")


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _listen(url: str, messages: list[tuple[float, dict[str, Any]]], stop: threading.Event) -> None:
    from websockets.sync.client import connect

    with connect(url.replace("http://", "ws://") + "/ws", max_queue=None) as ws:
        while not stop.is_set():
            try:
                text = ws.recv(timeout=0.5)
            except TimeoutError:
                continue
            messages.append((time.monotonic(), json.loads(text)))


def _truth(clip: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]], float]:
    events = [json.loads(x) for x in (clip / "truth" / "events.jsonl").read_text().splitlines()]
    shots = [json.loads(x) for x in (clip / "truth" / "shots.jsonl").read_text().splitlines()]
    fps = float(json.loads((clip / "synth.json").read_text())["fps"])
    return [e for e in events if e["kind"] == "ball_pocket"], shots, fps


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{1000 * value:.0f}"


def _report(clip: Path, messages: list[tuple[float, dict[str, Any]]], seen: Any) -> None:
    drops, shots, fps = _truth(clip)
    # the camera's clock: frame f exists at start + f / fps (the earliest capture of any frame)
    # (frame 0 is captured before the pipeline is built; the pace starts after it)
    stamps = [(m["frame"], m["captured_s"]) for _, m in messages
              if m.get("type") == "balls" and m["frame"] > 0]  # fmt: skip
    start_s = min(c - f / fps for f, c in stamps)
    epoch_minus_mono = time.time() - time.monotonic()
    pocket_msgs = [(t, m) for t, m in messages if m.get("type") == "event"
                   and m.get("kind") == "ball_pocket"]  # fmt: skip
    for drop in drops:
        ball = str(drop["balls"][0])
        at_s = start_s + drop["frame"] / fps
        heard = next((t for t, m in pocket_msgs if str(m["balls"][0]) == ball), None)
        gone = (seen or {}).get("gone", {}).get(ball)
        gone_s = None if gone is None else gone / 1000 - epoch_minus_mono
        print(f"drop of the {ball} (frame {drop['frame']}): event on websocket after "
              f"{_ms(None if heard is None else heard - at_s)} ms, off the overlay's table "
              f"after {_ms(None if gone_s is None else gone_s - at_s)} ms")  # fmt: skip
    shown = [(t / 1000 - epoch_minus_mono, text) for t, text in (seen or {}).get("calls", [])]
    calls = [(t, m) for t, m in messages if m.get("type") == "call"]
    for shot, (heard, call) in zip(shots, calls, strict=False):
        end_s = start_s + shot["frame_end"] / fps
        on_screen = next((t for t, _ in shown if t >= heard - 0.05), None)
        strike, end = shot["frame_strike"], shot["frame_end"]
        last_drop = max((d["frame"] for d in drops if strike <= d["frame"] <= end), default=None)
        since_drop = (None if on_screen is None or last_drop is None
                      else on_screen - (start_s + last_drop / fps))  # fmt: skip
        print(f"shot {shot['shot']} ({shot.get('synthetic_kind')}): call on websocket "
              f"{_ms(heard - end_s)} ms after the true end, on the overlay "
              f"{_ms(None if on_screen is None else on_screen - end_s)} ms; since its last "
              f"drop {_ms(since_drop)} ms; called {call['result'].get('summary')!r}")  # fmt: skip
    if len(calls) != len(shots):
        print(f"calls received {len(calls)}, shots in the truth {len(shots)}")


def _truth_server(clip: Path, db: Path) -> int:
    """Child process: the service on `clip` at camera pace, detections from its truth."""
    import uvicorn

    from calibration.io import load_calibration
    from referee.live.app import create_app
    from referee.live.listen import bound_port, listen
    from referee.live.settings import LiveSettings
    from referee.pipeline import Pipeline
    from tests.referee.live.helpers import CsvTruthDetector

    calibration = load_calibration(clip / "calibration.json")
    detector = CsvTruthDetector(clip / "truth" / "tracks.csv")
    sock = listen("127.0.0.1", 0)
    settings = LiveSettings(source=str(clip / "video.mp4"), db=db, realtime=True,
                            port=bound_port(sock), token=TOKEN)  # fmt: skip
    app = create_app(settings, make_pipeline=lambda frame: Pipeline(calibration, detector=detector))
    print(f"overlay http://127.0.0.1:{bound_port(sock)}/overlay", flush=True)
    config = uvicorn.Config(app, host="127.0.0.1", port=bound_port(sock), log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def _frames_late(clip: Path, truth_detector: bool) -> int:
    """Frames from each true drop and shot end to the frame the pipeline reports it on."""
    from calibration.io import load_calibration
    from referee.pipeline import Pipeline
    from tests.referee.live.helpers import CsvTruthDetector
    from vision.sources import open_source

    drops, shots, fps = _truth(clip)
    calibration = load_calibration(clip / "calibration.json")
    detector = CsvTruthDetector(clip / "truth" / "tracks.csv") if truth_detector else None
    pipeline = Pipeline(calibration, detector=detector)
    pockets: list[tuple[int, int, str]] = []  # (frame reported on, event frame, ball)
    ends: list[tuple[int, int]] = []  # (frame reported on, shot's end frame)
    source = open_source(str(clip / "video.mp4"))
    last = 0
    while (frame := source.read()) is not None:
        result, last = pipeline.process(frame), frame.index
        pockets += [(last, e.frame, BALL_NAMES[e.balls[0]]) for e in result.events
                    if e.kind.value == "ball_pocket"]  # fmt: skip
        ends += [(last, s.shot.frame_end) for s in result.shots]
    _, finished = pipeline.judge_end()
    ends += [(last, s.shot.frame_end) for s in finished]
    source.close()
    for drop in drops:
        ball = str(drop["balls"][0])
        seen = next(((on, at) for on, at, b in pockets if b == ball), None)
        late = "never" if seen is None else (
            f"{seen[0] - drop['frame']} frames ({1000 * (seen[0] - drop['frame']) / fps:.0f} ms) "
            f"after the true drop (frame {drop['frame']}; event dated {seen[1]})")  # fmt: skip
        print(f"drop of the {ball}: reported {late}")
    for shot, (on, end) in zip(shots, ends, strict=False):
        print(f"shot {shot['shot']}: its end (true {shot['frame_end']}, found {end}) known on "
              f"frame {on}: {on - shot['frame_end']} frames "
              f"({1000 * (on - shot['frame_end']) / fps:.0f} ms) after the true end")  # fmt: skip
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clip", type=Path)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--tail-s", type=float, default=8.0, help="wait after the file ends")
    parser.add_argument("--messages", type=Path, help="write the received messages here")
    parser.add_argument("--truth-detector", action="store_true", help="detections from truth")
    parser.add_argument("--frames-late", action="store_true", help="the pipeline's own wait")
    parser.add_argument("--child-db", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    clip = args.clip.resolve()
    if args.frames_late:
        return _frames_late(clip, args.truth_detector)
    if args.child_db is not None:
        return _truth_server(clip, args.child_db)
    work = Path(tempfile.mkdtemp(prefix="bench-live-latency-"))
    db, log = work / "match.sqlite3", work / "serve.log"
    match = next(json.loads(x) for x in (clip / "declarations.jsonl").read_text().splitlines()
                 if '"match"' in x)  # fmt: skip
    setup, url = _serve(["--source", "none", "--db", str(db)], log)
    _wait_up(url)
    body = {"players": match["players"], "breaker": match["breaker"]}
    httpx.post(f"{url}/api/match", json=body, headers=AUTH).raise_for_status()
    setup.terminate()
    setup.wait(10)

    source = ["--source", str(clip / "video.mp4"), "--calibration", str(clip / "calibration.json")]
    truth = clip if args.truth_detector else None
    process, url = _serve([*source, "--realtime", "--db", str(db)], log, truth)
    messages: list[tuple[float, dict[str, Any]]] = []
    stop = threading.Event()
    browser = None
    try:
        _wait_up(url)
        listener = threading.Thread(target=_listen, args=(url, messages, stop), daemon=True)
        listener.start()
        chromium = None if args.no_browser else find_chromium()
        if chromium is not None:
            browser = Browser(chromium, 1920, 1080)
            browser.navigate(f"{url}/overlay")
            browser.evaluate(WATCH_JS)
        cpu_start_s, wall_start_s = _cpu_s(process.pid), time.monotonic()
        while httpx.get(f"{url}/api/health").json()["source"]["state"] not in ("ended", "failed"):
            time.sleep(0.5)
        time.sleep(args.tail_s)
        cores = (_cpu_s(process.pid) - cpu_start_s) / (time.monotonic() - wall_start_s)
        health = httpx.get(f"{url}/api/health").json()
        seen = browser.evaluate("window.__seen") if browser is not None else None
    finally:
        stop.set()
        if browser is not None:
            browser.close()
        process.terminate()
        process.wait(15)
    if args.messages is not None:
        args.messages.write_text("\n".join(json.dumps([t, m]) for t, m in messages))
    print(f"clip {clip.name}")
    _report(clip, messages, seen)
    src = health["source"]
    print(f"frames {src['frames']} dropped {src['dropped']} skipped {src['skipped']}; "
          f"service CPU {cores:.2f} cores; latency_ms {health['latency_ms']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
