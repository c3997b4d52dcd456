"""`tenball calibrate SOURCE --out calibration.json [--preview preview.png]`.

Finds the table in an image or the first frames of a video (or fits the corners given with
`--corners`); when the first frames show no table (a player over a rail the whole time), it
looks again in frames spread over the first `SPREAD_S` seconds, then through the whole clip
(`calibration.video`: a camera that starts on something else). Fits the camera, writes the
calibration file (design.md §4, plus the camera and the fit's figures) and a preview image
to check it by eye. Prints the reprojection error and every assumption made.

Exit status: 0 on success, 1 when no table is found or the corners do not fit, 2 when the
arguments or the source are unusable.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
MEDIAN_FRAMES = 15
"""Frames combined by the temporal median (evenly spread over what is read)."""
SPREAD_S = 20.0
"""When the table is not found in the first frames (a player leaning over a rail, standing in
front of a corner for the whole first second), it is looked for again in `MEDIAN_FRAMES`
frames spread over this many seconds of the video, whose median drops whoever moves."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "calibrate",
        help="find the table (or fit given corners) and write a calibration file",
        description=(
            "Find the table in an image or the first frames of a video, fit the camera and "
            "write a calibration file and a preview to check it by eye."
        ),
    )
    parser.add_argument("source", type=Path, metavar="SOURCE", help="image or video file")
    parser.add_argument(
        "--corners",
        metavar="HL_U,HL_V,HR_U,HR_V,FR_U,FR_V,FL_U,FL_V",
        help="the four playing-surface corners in pixels (head_left, head_right, foot_right, "
        "foot_left) instead of finding them",
    )
    parser.add_argument(
        "--head",
        choices=["left", "right", "top", "bottom"],
        help="where the head (breaking end) is in the image (default: left when the table lies "
        "across the frame, bottom when it runs up it; a visible rack marks the foot)",
    )
    parser.add_argument(
        "--table",
        default="auto",
        help="auto (measured from the balls at rest; default), 9ft, 8ft, 7ft or LxW in mm, "
        "e.g. 2540x1270",
    )
    parser.add_argument(
        "--frames", type=int, default=60, help="video frames to combine (default 60)"
    )
    parser.add_argument("--focal", type=float, metavar="PX", help="focal length in pixels")
    parser.add_argument(
        "--camera-height", type=float, metavar="MM", help="lens height above the cloth, mm"
    )
    parser.add_argument(
        "--distortion",
        metavar="K1,K2,P1,P2[,K3]",
        help="OpenCV lens distortion coefficients (write --distortion=-0.2,... when the first "
        "is negative); finding the table through them needs --focal",
    )
    parser.add_argument(
        "--nose-height",
        type=float,
        default=36.3,
        metavar="MM",
        help="cushion nose height above the cloth (default 36.3; 0 for flat renderings)",
    )
    parser.add_argument("--out", type=Path, required=True, help="calibration file to write")
    parser.add_argument("--preview", type=Path, help="preview image to write (PNG or JPEG)")


def run(args: argparse.Namespace) -> int:
    from calibration.io import CalibrationError

    try:
        request = _request(args)
        frames = _read_frames(args.source, args.frames)
    except (ValueError, OSError) as error:
        print(f"tenball calibrate: {error}", file=sys.stderr)
        return 2
    try:
        calibration, notes = _calibrate(frames, request)
    except CalibrationError as error:
        retried = _retry_spread(args, request, error)
        if retried is not None:
            frames, calibration, notes = retried
            return _finish(args, frames, calibration, notes)
        what = "the corners do not fit" if args.corners else "no table found"
        print(f"tenball calibrate: {what}: {error}", file=sys.stderr)
        return 1
    return _finish(args, frames, calibration, notes)


def _finish(args: argparse.Namespace, frames: list[Any], calibration: Any, notes: list[str]) -> int:
    """Write the calibration (and preview) and print the report; exit status 0."""
    calibration.save(args.out)
    _report(calibration, notes, args.out)
    if args.preview is not None:
        _write_preview(frames[0], calibration, args.preview)
        print(f"preview: {args.preview}")
    return 0


def _request(args: argparse.Namespace) -> dict[str, Any]:
    from calibration.fit import CameraPrior
    from calibration.scale import table_choice

    if args.frames < 1:
        raise ValueError(f"--frames must be at least 1, got {args.frames}")
    distortion = _numbers(args.distortion, "--distortion") if args.distortion else ()
    if distortion and len(distortion) not in (4, 5):
        raise ValueError(f"--distortion needs 4 or 5 numbers, got {len(distortion)}")
    if distortion and args.focal is None and not args.corners:
        raise ValueError(
            "finding the table through --distortion needs --focal (the focal "
            "length the coefficients were measured with)"
        )
    prior = CameraPrior(
        focal_px=args.focal, distortion=tuple(distortion), camera_height_mm=args.camera_height
    )
    corners = None
    if args.corners:
        values = _numbers(args.corners, "--corners")
        if len(values) != 8:
            raise ValueError(f"--corners needs 8 numbers (4 corners u,v), got {len(values)}")
        names = ("head_left", "head_right", "foot_right", "foot_left")
        corners = {n: (values[2 * i], values[2 * i + 1]) for i, n in enumerate(names)}
    return {
        "table": table_choice(args.table),
        "prior": prior,
        "corners": corners,
        "head": args.head,
        "nose_height_mm": args.nose_height,
    }


def _numbers(text: str, flag: str) -> list[float]:
    try:
        return [float(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"{flag} must be numbers separated by commas, got {text!r}") from None


def _read_frames(source: Path, count: int) -> list[Any]:
    """The image, or the first `count` frames of the video (at most `MEDIAN_FRAMES` of them,
    evenly spread)."""
    import cv2

    if not source.exists():
        raise ValueError(f"{source}: no such file")
    if source.suffix.lower() in IMAGE_SUFFIXES:
        image = cv2.imread(str(source), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{source}: not a readable image")
        return [image]
    capture = cv2.VideoCapture(str(source))
    frames = []
    try:
        keep = max(1, count // MEDIAN_FRAMES)
        for index in range(count):
            ok, frame = capture.read()
            if not ok:
                break
            if index % keep == 0:
                frames.append(frame)
    finally:
        capture.release()
    if not frames:
        raise ValueError(f"{source}: no frames could be read (not an image or a video?)")
    return frames


def _retry_spread(
    args: argparse.Namespace, request: dict[str, Any], first: Exception
) -> tuple[list[Any], Any, list[str]] | None:
    """Look again in frames spread over `SPREAD_S` s of a video, then through the whole
    clip (`calibration.video`); None: an image, given corners, or no table anywhere."""
    from calibration.io import CalibrationError

    if args.corners or args.source.suffix.lower() in IMAGE_SUFFIXES:
        return None
    frames = _read_spread(args.source, SPREAD_S)
    try:
        if len(frames) < 2:
            raise CalibrationError("too short to spread")
        calibration, notes = _calibrate(frames, request)
    except CalibrationError:
        return _whole_clip(args, request, first)
    note = (
        f"not found in the first {args.frames} frames ({first}); found in {len(frames)} "
        f"frames spread over the first {SPREAD_S:.0f} s (someone in view at the start?)"
    )
    return frames, calibration, [*notes, note]


def _whole_clip(
    args: argparse.Namespace, request: dict[str, Any], first: Exception
) -> tuple[list[Any], Any, list[str]] | None:
    """The table in stretches of the whole clip (a camera that starts on something else);
    the frames returned are the first of the stretch it was found in, for the preview."""
    import cv2

    from calibration.find import FindOptions
    from calibration.io import CalibrationError
    from calibration.video import find_in_video, read_window

    options = FindOptions(
        head=request["head"], prior=request["prior"], nose_height_mm=request["nose_height_mm"]
    )
    try:
        found = find_in_video(args.source, request["table"], options)
    except CalibrationError:
        return None
    capture = cv2.VideoCapture(str(args.source))
    try:
        fps = capture.get(cv2.CAP_PROP_FPS) or 30.0
        frames = read_window(capture, [round(found.window_s[0] * fps)]) or read_window(capture, [0])
    finally:
        capture.release()
    finding = found.finding
    notes = [f"confidence {finding.confidence:.2f}", *finding.notes]
    note = (
        f"not found in the first {args.frames} frames ({first}) nor in the first {SPREAD_S:.0f} s"
    )
    return frames, finding.calibration, [*notes, note]


def _read_spread(source: Path, seconds: float) -> list[Any]:
    """`MEDIAN_FRAMES` frames evenly spread over the first `seconds` of a video (fewer when
    it is shorter); frames in between are skipped without decoding."""
    import cv2

    capture = cv2.VideoCapture(str(source))
    frames: list[Any] = []
    try:
        fps = capture.get(cv2.CAP_PROP_FPS) or 30.0
        total = int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) or int(seconds * fps)
        last = max(0, min(total, round(seconds * fps)) - 1)
        wanted = {round(last * k / (MEDIAN_FRAMES - 1)) for k in range(MEDIAN_FRAMES)}
        for index in range(last + 1):
            if not capture.grab():
                break
            if index in wanted:
                ok, frame = capture.retrieve()
                if ok:
                    frames.append(frame)
    finally:
        capture.release()
    return frames


def _calibrate(frames: list[Any], request: dict[str, Any]) -> tuple[Any, list[str]]:
    from calibration.find import FindOptions
    from calibration.scale import find_sized_table, fit_sized_corners
    from calibration.video import rack_checked

    table = request["table"]
    if request["corners"] is not None:
        return fit_sized_corners(frames, request["corners"], table, request["prior"])
    options = FindOptions(
        head=request["head"], prior=request["prior"], nose_height_mm=request["nose_height_mm"]
    )
    finding = find_sized_table(frames, table, options)
    if request["head"] is None:
        finding = rack_checked(finding, frames, options)
    notes = [f"confidence {finding.confidence:.2f}", *finding.notes]
    return finding.calibration, notes


def _report(calibration: Any, notes: list[str], out: Path) -> None:
    extra = calibration.extra
    print(f"reprojection error: {extra['reprojection_error_px']:.2f} px")
    print(
        f"focal length: {calibration.camera.camera_matrix[0, 0]:.0f} px ({extra['focal_source']})"
    )
    x, y, height = calibration.camera.centre_mm
    print(f"camera at x={x:.0f} y={y:.0f} mm, {height:.0f} mm above the cloth")
    for name, (u, v) in calibration.corners_px.items():
        print(f"  {name}: ({u:.1f}, {v:.1f})")
    for assumption in extra.get("assumptions", []):
        print(f"assumed: {assumption}")
    for note in notes:
        print(f"note: {note}")
    print(f"calibration: {out}")


def _write_preview(frame: Any, calibration: Any, path: Path) -> None:
    import cv2

    from calibration.preview import draw_preview

    suffix = path.suffix.lower() if path.suffix else ".png"
    ok, encoded = cv2.imencode(suffix, draw_preview(frame, calibration))
    if not ok:
        raise ValueError(f"{path}: cannot encode an image of type {suffix}")
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(encoded.tobytes())
    temporary.replace(path)
