"""`tenball bench VIDEO`: review throughput against decoding alone, and time per stage.

Wall-clock numbers depend on what else the machine runs, so the output also says which
machine it was and how loaded, gives per-frame medians and 95th percentiles, and the CPU time
per frame of the main thread (the pipeline) and of the rest (the decode-ahead thread), from
which it projects the rate two idle cores would reach.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="measure review throughput against decode-only on a video",
        description=(
            "Decode the video alone, then review it (outputs to a temporary folder); print "
            "frames per second of both, their ratio and milliseconds per frame per stage."
        ),
    )
    parser.add_argument("video", help="the video file")
    parser.add_argument("--calibration", help="calibration file (default: find the table)")
    parser.add_argument("--max-frames", type=int, help="frames to process (default: all)")
    parser.add_argument("--truth-detector", metavar="CLIP_DIR", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")


def decode_only(video: str, max_frames: int | None) -> tuple[int, float]:
    """(frames decoded, seconds) for reading the video with nothing else done."""
    from vision.sources import open_source

    source = open_source(video)
    frames = 0
    started = time.perf_counter()
    try:
        while max_frames is None or frames < max_frames:
            if source.read() is None:
                break
            frames += 1
    finally:
        source.close()
    return frames, time.perf_counter() - started


def machine() -> dict[str, Any]:
    """The CPU model, its core count and the load average (1, 5, 15 min)."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        names = [
            line.split(":", 1)[1].strip()
            for line in cpuinfo.read_text().splitlines()
            if line.startswith("model name")
        ]
        model = names[0] if names else model
    load = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    return {"cpu": model, "cores": os.cpu_count(), "load_average": load}


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"median": float("nan"), "p95": float("nan")}
    ordered = sorted(values)
    return {
        "median": round(ordered[len(ordered) // 2], 3),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
    }


def _review(args: argparse.Namespace, out_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The review's summary, and per-frame times and CPU use measured around it."""
    from referee.review.session import ReviewOptions
    from referee.review.start import open_review

    options = ReviewOptions(out_dir=out_dir, max_frames=args.max_frames, progress=False)
    review = open_review(args.video, args.calibration, None, options, args.truth_detector)
    frame_ms: list[float] = []
    detect_ms: dict[str, list[float]] = {"hinted": [], "full": []}
    detect_cpu_ms: dict[str, list[float]] = {"hinted": [], "full": []}
    quiet_cpu_ms: list[float] = []
    process = review.pipeline.perceive  # detection and tracking: the main thread's work
    detector = review.pipeline.detector
    detect = detector.detect
    last: list[Any] = [None]

    def timed_detect(frame: Any, hint_xy_px: Any = None) -> Any:
        started, cpu_started = time.perf_counter(), time.thread_time()
        found = detect(frame, hint_xy_px)
        kind = "full" if hint_xy_px is None else "hinted"
        detect_ms[kind].append(1000.0 * (time.perf_counter() - started))
        detect_cpu_ms[kind].append(1000.0 * (time.thread_time() - cpu_started))
        if kind == "hinted" and found is last[0]:
            # The detector's memory (`vision.memory`) found every window unchanged and
            # handed back the last frame's detections: a quiet frame, nothing searched.
            quiet_cpu_ms.append(detect_cpu_ms[kind][-1])
        last[0] = found
        return found

    def timed(frame: Any) -> Any:
        started = time.perf_counter()
        result = process(frame)
        frame_ms.append(1000.0 * (time.perf_counter() - started))
        return result

    review.pipeline.perceive = timed  # type: ignore[method-assign]
    detector.detect = timed_detect  # type: ignore[method-assign]
    thread_started, process_started = time.thread_time(), time.process_time()
    try:
        summary = review.execute()
    finally:
        review.source.close()
    main_s = time.thread_time() - thread_started
    # The judging process (events, shots, calls; `referee.review.judging`) counts as other.
    worker_s = float(getattr(review, "worker_cpu_s", 0.0))
    other_s = max(0.0, time.process_time() - process_started - main_s) + worker_s
    frames = max(1, int(summary["frames"]))
    cpu = {
        "main_thread_ms_per_frame": round(1000.0 * main_s / frames, 3),
        "other_threads_ms_per_frame": round(1000.0 * other_s / frames, 3),
        **_detect_cpu(detect_cpu_ms, frames),
    }
    quiet = _quiet_frames(quiet_cpu_ms, detect_cpu_ms["hinted"], frames)
    return summary, {
        "pipeline_ms": _percentiles(frame_ms),
        "detect_ms": _percentiles(detect_ms["hinted"] + detect_ms["full"]),
        "hinted_detect_ms": _percentiles(detect_ms["hinted"]),
        "full_search_ms": {
            **_percentiles(detect_ms["full"]),
            "count": len(detect_ms["full"]),
        },
        "cpu": cpu,
        "quiet_frames": quiet,
    }


def _quiet_frames(quiet_ms: list[float], hinted_ms: list[float], frames: int) -> dict[str, Any]:
    """How many frames the detector's memory skipped (every window unchanged since it was
    searched: the last detections handed back, nothing searched; `vision.memory`), their
    share of all frames, and the detector's mean CPU milliseconds on them and on the hinted
    frames it searched. A detector without that memory (the truth detector) skips none."""
    searched = len(hinted_ms) - len(quiet_ms)
    searched_ms = (sum(hinted_ms) - sum(quiet_ms)) / searched if searched > 0 else 0.0
    return {
        "count": len(quiet_ms),
        "share": round(len(quiet_ms) / frames, 3) if frames > 0 else 0.0,
        "detect_ms_mean": round(sum(quiet_ms) / len(quiet_ms), 3) if quiet_ms else 0.0,
        "searched_hinted_count": searched,
        "searched_hinted_detect_ms_mean": round(searched_ms, 3),
    }


def _detect_cpu(cpu_ms: dict[str, list[float]], frames: int) -> dict[str, float]:
    """CPU milliseconds of the detector (main thread only): per frame over the whole video,
    and per call of the hinted and the full search. Unlike wall-clock times they hardly
    change with what else a shared machine runs, so runs on a busy machine compare."""
    hinted, full = cpu_ms["hinted"], cpu_ms["full"]
    return {
        "detect_ms_per_frame": round((sum(hinted) + sum(full)) / max(1, frames), 3),
        "detect_hinted_ms_mean": round(sum(hinted) / len(hinted), 3) if hinted else 0.0,
        "detect_full_search_ms_mean": round(sum(full) / len(full), 3) if full else 0.0,
    }


def _projected_fps(cpu: dict[str, float]) -> float | None:
    """Frames per second on two idle cores: the busier thread, or both sharing two cores."""
    main, other = cpu["main_thread_ms_per_frame"], cpu["other_threads_ms_per_frame"]
    bound = max(main, other, (main + other) / 2.0)
    return round(1000.0 / bound, 1) if bound > 0 else None


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Decode-only and review numbers for one video."""
    before = machine()
    frames, decode_s = decode_only(args.video, args.max_frames)
    with tempfile.TemporaryDirectory(prefix="tenball-bench-") as folder:
        summary, per_frame = _review(args, Path(folder))
    decode_fps = frames / decode_s if decode_s > 0 else float("inf")
    review_fps = float(summary["frames_per_s"] or 0.0)
    stages = dict(summary["stage_ms_per_frame"])
    per_frame_ms = 1000.0 / review_fps if review_fps else float("nan")
    accounted = summary["decode_ms_per_frame"] + sum(stages.values())
    return {
        "video": args.video,
        "machine": {**before, "load_average_after": machine()["load_average"]},
        "image_size": summary["image_size"],
        "frames": summary["frames"],
        "decode_only_fps": round(decode_fps, 1),
        "review_fps": round(review_fps, 1),
        "ratio_review_to_decode": round(review_fps / decode_fps, 3) if decode_fps else None,
        "realtime_factor": summary["realtime_factor"],
        "per_frame_ms": {
            "pipeline": per_frame["pipeline_ms"],
            "detect": per_frame["detect_ms"],
            "detect_hinted": per_frame["hinted_detect_ms"],
            "detect_full_search": per_frame["full_search_ms"],
        },
        "cpu": per_frame["cpu"],
        "quiet_frames": per_frame["quiet_frames"],
        "compiled_kernels": _compiled_kernels(),
        "projected_two_idle_cores_fps": _projected_fps(per_frame["cpu"]),
        "ms_per_frame": {
            "decode": summary["decode_ms_per_frame"],
            **stages,
            "outputs_and_report": round(max(0.0, per_frame_ms - accounted), 3),
            "total": round(per_frame_ms, 3),
        },
    }


def _compiled_kernels() -> bool:
    """Whether the round search ran its compiled kernels (`vision.kernels`: numba
    installed) or its NumPy forms; a review's first search pays the kernels' loading
    (about 0.6 s CPU, once per process)."""
    from vision import kernels

    return kernels.compiled()


def run(args: argparse.Namespace) -> int:
    from calibration.io import CalibrationError
    from referee.review.session import ReviewInputError
    from vision.sources import SourceError

    try:
        numbers = measure(args)
    except (SourceError, CalibrationError, ReviewInputError) as error:
        print(f"tenball bench: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(numbers, indent=2))
        return 0
    _print(numbers)
    return 0


def _print(numbers: dict[str, Any]) -> None:
    host = numbers["machine"]
    print(f"{numbers['video']}: {numbers['frames']} frames {numbers['image_size']}")
    print(
        f"machine     : {host['cpu']}, {host['cores']} cores, load average "
        f"{host['load_average']} -> {host['load_average_after']} (1/5/15 min; above "
        f"{host['cores']} the wall-clock numbers are for a shared machine)"
    )
    print(f"decode only : {numbers['decode_only_fps']:8.1f} frames/s")
    print(f"review      : {numbers['review_fps']:8.1f} frames/s")
    print(f"ratio       : {numbers['ratio_review_to_decode']:8.3f} (review / decode)")
    print(f"real time   : {numbers['realtime_factor']}x")
    pipeline, detect = numbers["per_frame_ms"]["pipeline"], numbers["per_frame_ms"]["detect"]
    print(f"per frame   : pipeline median {pipeline['median']} ms, p95 {pipeline['p95']} ms")
    print(f"              detection median {detect['median']} ms, p95 {detect['p95']} ms")
    hinted = numbers["per_frame_ms"]["detect_hinted"]
    full = numbers["per_frame_ms"]["detect_full_search"]
    print(
        f"              hinted detection median {hinted['median']} ms, p95 {hinted['p95']} ms;"
        f" {full['count']} full searches median {full['median']} ms, p95 {full['p95']} ms"
    )
    cpu = numbers["cpu"]
    print(
        f"CPU/frame   : main thread {cpu['main_thread_ms_per_frame']} ms, decode and other "
        f"threads {cpu['other_threads_ms_per_frame']} ms -> "
        f"{numbers['projected_two_idle_cores_fps']} frames/s projected on two idle cores"
    )
    print(
        f"              detection {cpu['detect_ms_per_frame']} ms (hinted call mean "
        f"{cpu['detect_hinted_ms_mean']} ms, full search mean "
        f"{cpu['detect_full_search_ms_mean']} ms)"
    )
    quiet = numbers["quiet_frames"]
    print(
        f"quiet frames: {quiet['count']} of {numbers['frames']} ({100 * quiet['share']:.1f} %) "
        f"skipped by the detector's memory (every window unchanged), detection "
        f"{quiet['detect_ms_mean']} ms CPU each; {quiet['searched_hinted_count']} hinted "
        f"frames searched, {quiet['searched_hinted_detect_ms_mean']} ms CPU each"
    )
    compiled = "compiled (numba)" if numbers["compiled_kernels"] else "NumPy (numba absent)"
    print(f"kernels     : the round search's per-ball loops {compiled}")
    print("mean wall ms per frame by stage:")
    for stage, ms in numbers["ms_per_frame"].items():
        print(f"  {stage:<20} {ms:7.3f} ms/frame")
