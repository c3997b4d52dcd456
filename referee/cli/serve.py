"""`tenball serve --source SRC`: the live referee service (design.md §7).

Reads a camera, a stream or a file, referees the match live and serves the operator page
(/operator), the OBS overlay (/overlay), the annotated video (/stream.mjpg), the websocket
(/ws) and the API (/api/...). Operator actions need the token printed at startup.
"""

from __future__ import annotations

import argparse
import logging
import sqlite3
import sys
from pathlib import Path
from typing import Any

GRACEFUL_SHUTDOWN_S = 3
"""Seconds open requests get to finish when the service stops (Ctrl-C, SIGTERM)."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="the live referee service (camera in, calls out, operator page, overlay)",
        description=(
            "Referee a match live from a camera, RTSP/HTTP stream or video file. Serves "
            "/operator, /overlay, /stream.mjpg, /ws and /api/... ."
        ),
    )
    parser.add_argument(
        "--source",
        required=True,
        help="camera index (0), video file, image folder, or rtsp:// / http:// URL; "
        "'none' serves the API and pages without a camera",
    )
    parser.add_argument("--calibration", type=Path, help="calibration file (design.md §4)")
    parser.add_argument(
        "--table",
        default="auto",
        help="table size when finding the table: auto (measured from the balls; default), "
        "9ft, 8ft, 7ft or LxW in mm",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port (0: any free port)")
    parser.add_argument(
        "--token",
        default="",
        help="operator token (default: the database's, made at its first start and kept "
        "across restarts; printed at startup)",
    )
    parser.add_argument(
        "--db",
        type=Path,
        default=Path("tenball-live.sqlite3"),
        help="SQLite file of the matches; a restart resumes the match in it",
    )
    parser.add_argument(
        "--realtime",
        action="store_true",
        help="play a file at its own frame rate, dropping frames the pipeline cannot keep "
        "up with (as a camera would); without it every frame of a file is processed",
    )


def run(args: argparse.Namespace) -> int:
    import uvicorn
    from pydantic import ValidationError

    from referee.live.app import create_app
    from referee.live.listen import ListenError, bound_port, listen
    from referee.live.settings import LiveSettings
    from referee.live.store import StoreInUseError

    try:
        settings = LiveSettings(
            source=args.source,
            calibration=args.calibration,
            table=args.table,
            host=args.host,
            port=args.port,
            token=args.token,
            db=args.db,
            realtime=args.realtime,
        )
    except ValidationError as error:
        print(f"tenball serve: {error}", file=sys.stderr)
        return 2
    problem = _check_inputs(args)
    if problem:
        print(f"tenball serve: {problem}", file=sys.stderr)
        return 2
    try:  # bound first: --port 0 prints the port it got, a taken port fails here, clearly
        sock = listen(settings.host, settings.port)
    except ListenError as error:
        print(f"tenball serve: --port: {error.strerror}", file=sys.stderr)
        return 2
    settings = settings.model_copy(update={"port": bound_port(sock)})
    try:
        app = create_app(settings)
    except StoreInUseError as error:  # another table's service has this database
        sock.close()
        print(f"tenball serve: --db: {error}", file=sys.stderr)
        return 2
    except (OSError, sqlite3.Error) as error:  # a folder that cannot be made, a bad file
        sock.close()
        print(f"tenball serve: --db {settings.db}: cannot open the match database: {error}",
              file=sys.stderr)  # fmt: skip
        return 2
    settings = app.state.settings  # with the database's token when --token is not given
    _say_source_changes()
    base, note = page_base(settings.host, settings.port)
    print(f"tenball serve: operator token: {settings.token}", flush=True)
    print(f"tenball serve: operator page {base}/operator?token={settings.token}", flush=True)
    print(f"tenball serve: overlay {base}/overlay  video {base}/stream.mjpg", flush=True)
    if note:
        print(f"tenball serve: {note}", flush=True)
    # /stream.mjpg never ends by itself: without a limit, stopping would wait for its viewers
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level="info",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )
    uvicorn.Server(config).run(sockets=[sock])
    return 0


LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
ANY_HOSTS = frozenset({"0.0.0.0", "::", ""})


def page_base(host: str, port: int) -> tuple[str, str]:
    """The address to print for the pages, and a note ("" when none).

    Listening on every address (--host 0.0.0.0), the printed link is this machine's address
    on its network, the one a phone can open (http://0.0.0.0:8000 opens nothing there).
    Listening on this machine only (the default), the note says how to let the phones in.
    """
    if host in ANY_HOSTS:
        return f"http://{_network_address() or '127.0.0.1'}:{port}", ""
    shown = f"[{host}]" if ":" in host else host
    note = ("the pages answer on this machine only: --host 0.0.0.0 lets the phones and the "
            "streaming computer on the network in") if host in LOCAL_HOSTS else ""  # fmt: skip
    return f"http://{shown}:{port}", note


def _network_address() -> str | None:
    """This machine's IPv4 address on its network (None when it has none but loopback). A UDP
    socket is only pointed at a private address: no packet is sent."""
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.254.254.254", 1))
            address = str(probe.getsockname()[0])
    except OSError:
        return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def _say_source_changes() -> None:
    """The camera's state changes on the console too (connecting, live, reconnecting and
    why): a camera that cannot be opened was said only on the operator page."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("tenball serve: %(message)s"))
    capture_log = logging.getLogger("referee.live.capture")
    capture_log.setLevel(logging.INFO)
    capture_log.addHandler(handler)


def _check_inputs(args: argparse.Namespace) -> str:
    """What is wrong with the inputs, before the server starts ("" when nothing)."""
    from calibration.io import CalibrationError, load_calibration
    from calibration.scale import table_choice

    try:
        table_choice(args.table)
    except ValueError as error:
        return f"--table: {error}"
    problem = _check_file_source(str(args.source).strip())
    if problem:
        return f"--source {args.source}: {problem}"
    if args.calibration is not None:
        try:
            load_calibration(args.calibration)
        except (OSError, CalibrationError, ValueError) as error:
            return f"--calibration {args.calibration}: {error}"
    return ""


def _check_file_source(spec: str) -> str:
    """Why a file or folder source cannot be read ("" when it can, or when the source is a
    camera or a stream: those may come up later, and the service waits for them)."""
    from vision.sources import STREAM_SCHEMES, SourceError, open_source

    if spec.lower() in ("", "none") or spec.isdigit() or spec.lower().startswith(STREAM_SCHEMES):
        return ""
    try:
        open_source(spec).close()
    except SourceError as error:
        return f"{error} (a camera is its number, a stream an rtsp:// or http:// URL)"
    return ""
