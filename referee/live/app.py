"""The live referee web app: `create_app(settings)`.

Viewers (the overlay, /ws, /stream.mjpg, GET /api/...) need nothing; every POST /api/...
changes the match and needs the operator token (`Authorization: Bearer TOKEN`): without it
the answer is 401 and nothing changes. Malformed bodies get 422 naming the field; an action
the rules refuse gets 409 with the engine's reason.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from importlib import resources
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Path, Query, Request, WebSocket
from fastapi.responses import (
    FileResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from starlette.websockets import WebSocketDisconnect

from referee.live import messages as m
from referee.live.runtime import LiveRuntime, PipelineFactory, SourceOpener
from referee.live.service import NoMatchError
from referee.live.session import RulesBackend, RulesError
from referee.live.settings import LiveSettings
from referee.live.store import MatchNotFoundError

STATIC = resources.files("referee.live") / "static"
_bearer = HTTPBearer(auto_error=False, description="the operator token printed at startup")


def get_settings(request: Request) -> LiveSettings:
    """The settings in force (override in tests through `app.dependency_overrides`)."""
    settings: LiveSettings = request.app.state.settings
    return settings


def get_runtime(request: Request) -> LiveRuntime:
    runtime: LiveRuntime = request.app.state.runtime
    return runtime


UNAUTHORISED = "operator token missing or wrong: send 'Authorization: Bearer TOKEN'"


def _token_matches(given: str, settings: LiveSettings) -> bool:
    return bool(given) and secrets.compare_digest(given.encode(), settings.token.encode())


def require_operator(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    settings: Annotated[LiveSettings, Depends(get_settings)],
) -> None:
    """401 unless the request carries the operator token."""
    given = credentials.credentials if credentials is not None else ""
    if not _token_matches(given, settings):
        raise HTTPException(401, detail=UNAUTHORISED, headers={"WWW-Authenticate": "Bearer"})


async def _operator_gate(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    """Refuse an operator POST without the token before its body is even read, so that a
    stranger gets 401 (never 422) and learns nothing about the body."""
    if request.method == "POST" and request.url.path.startswith("/api/"):
        override = request.app.dependency_overrides.get(get_settings)
        settings = override() if override is not None else request.app.state.settings
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not _token_matches(given.strip(), settings):
            return JSONResponse(
                {"detail": UNAUTHORISED}, status_code=401, headers={"WWW-Authenticate": "Bearer"}
            )
    return await call_next(request)


Runtime = Annotated[LiveRuntime, Depends(get_runtime)]
MatchId = Annotated[int, Path(ge=1, le=2**62, description="match id")]
operator = APIRouter(prefix="/api", dependencies=[Depends(require_operator)], tags=["operator"])
viewer = APIRouter(tags=["viewer"])


def _refusal(error: RulesError) -> HTTPException:
    return HTTPException(status_code=409, detail=str(error))


ForShot = Annotated[
    Literal["auto", "this", "next"],
    Query(
        description="while a shot still rolls: 'this' (the shot being played, entered late) "
        "or 'next' (the shot after it; 'auto', the default, is 'next'); at rest the next shot "
        "is the one to play"
    ),
]


def _act(
    runtime: LiveRuntime, kind: str, payload: dict[str, Any], for_shot: str | None = None
) -> dict[str, Any]:
    try:
        return runtime.referee.act(kind, payload, for_shot)
    except RulesError as error:
        raise _refusal(error) from error


@operator.post("/match", status_code=201)
async def start_match(body: m.StartMatch, runtime: Runtime) -> dict[str, Any]:
    """Start a match (player names, who breaks, racks to win); it becomes the current match."""
    try:
        match_id = runtime.referee.start_match(
            body.players.model_dump(), body.breaker, runtime.settings.source, body.race_to
        )
    except RulesError as error:
        raise _refusal(error) from error
    return {"match_id": match_id, **runtime.state()}


@operator.post("/declare/call")
async def declare_call(
    body: m.DeclareCall, runtime: Runtime, for_shot: ForShot = "auto"
) -> dict[str, Any]:
    """Declare the ball and pocket of the next shot (the last call before the stroke counts)."""
    return _act(runtime, "call", body.model_dump(mode="json"), for_shot)


@operator.post("/declare/push-out")
async def declare_push_out(runtime: Runtime, for_shot: ForShot = "auto") -> dict[str, Any]:
    """Declare a push-out for the next shot (first shot after a legal break only)."""
    return _act(runtime, "push_out", {}, for_shot)


@operator.post("/declare/break-10")
async def declare_break_ten(
    body: m.BreakAnnounce10, runtime: Runtime, for_shot: ForShot = "auto"
) -> dict[str, Any]:
    """The breaker announces the 10 on the break (optionally in a pocket)."""
    return _act(runtime, "break_announce_10", body.model_dump(mode="json"), for_shot)


@operator.post("/declare/safety")
async def declare_safety(runtime: Runtime, for_shot: ForShot = "auto") -> dict[str, Any]:
    """Note a safety (informative only: FFB has no safety call)."""
    return _act(runtime, "safety", {}, for_shot)


@operator.post("/declare/clear")
async def clear_declarations(runtime: Runtime, for_shot: ForShot = "auto") -> dict[str, Any]:
    """Forget the declarations made for the next shot."""
    return _act(runtime, "clear_declarations", {}, for_shot)


@operator.post("/foul")
async def referee_foul(body: m.RefereeFoul, runtime: Runtime) -> dict[str, Any]:
    """A foul only a person can see, applied to the shot being played."""
    return _act(runtime, "referee_foul", body.model_dump(mode="json"))


@operator.post("/warning")
async def warning(body: m.Warning, runtime: Runtime) -> dict[str, Any]:
    """Warn a player on two consecutive fouls."""
    return _act(runtime, "warning", body.model_dump(mode="json"))


@operator.post("/option")
async def option_choice(body: m.OptionChoice, runtime: Runtime) -> dict[str, Any]:
    """The holder of the pending option shoots or hands the table back."""
    return _act(runtime, "option_choice", body.model_dump(mode="json"))


@operator.post("/rack")
async def new_rack(body: m.NewRack, runtime: Runtime) -> dict[str, Any]:
    """Rack the balls: after a win the break alternates; before one, the breaker re-breaks."""
    return _act(runtime, "new_rack", body.model_dump(mode="json", exclude_none=True))


@operator.post("/undo")
async def undo(runtime: Runtime) -> dict[str, Any]:
    """Cancel the latest action still in force (kept in the audit trail)."""
    try:
        return runtime.referee.undo()
    except RulesError as error:
        raise _refusal(error) from error


@operator.post("/correct")
async def correct(body: m.Correction, runtime: Runtime) -> dict[str, Any]:
    """Amend a judged shot's facts, call or referee fouls and judge again (audited)."""
    referee = runtime.referee
    calls = referee.view.calls if referee.view else []
    target = body.target if body.target is not None else (calls[-1]["action_id"] if calls else None)
    judged = next((c for c in calls if c["action_id"] == target), None)
    previous = judged["declarations"] if judged else {}
    try:
        return referee.correct(body.payload(previous))
    except RulesError as error:
        raise _refusal(error) from error


@operator.post("/shot")
async def enter_shot(body: m.ManualShot, runtime: Runtime) -> dict[str, Any]:
    """Judge a shot the camera missed (the camera was down, the service restarting)."""
    try:
        return runtime.referee.enter_shot(body.payload())
    except RulesError as error:
        raise _refusal(error) from error


@operator.post("/matches/{match_id}/resume")
async def resume_match(match_id: MatchId, runtime: Runtime) -> dict[str, Any]:
    """Make a stored match the current one again (e.g. after a new match started by mistake)."""
    try:
        return {"match_id": match_id, **runtime.referee.resume_match(match_id)}
    except MatchNotFoundError as error:
        raise HTTPException(status_code=404, detail=str(error)) from error


@operator.post("/alerts/{alert_id}/dismiss")
async def dismiss_alert(alert_id: MatchId, runtime: Runtime) -> dict[str, Any]:
    """The operator saw an alert (OK): it leaves every page and is not shown again."""
    if not runtime.dismiss_alert(alert_id):
        raise HTTPException(status_code=404, detail=f"no open alert {alert_id}")
    return {"dismissed": alert_id, "alerts": runtime.store.open_alerts()}


@viewer.get("/api/health")
async def health(runtime: Runtime) -> dict[str, Any]:
    """Source state, dropped and skipped frames, viewers and latencies."""
    return runtime.health()


@viewer.get("/api/state")
async def state(runtime: Runtime) -> dict[str, Any]:
    """The current match, the balls and the source."""
    return runtime.state()


@viewer.get("/api/matches")
async def matches(runtime: Runtime) -> dict[str, Any]:
    return {"matches": runtime.store.match_ids(), "current": runtime.referee.match_id}


@viewer.get("/api/matches/{match_id}")
async def match(match_id: MatchId, runtime: Runtime) -> dict[str, Any]:
    """A stored match: players, standing and every call."""
    try:
        return runtime.referee.match_json(match_id)
    except MatchNotFoundError as error:
        raise HTTPException(status_code=404, detail=str(error)) from error


@viewer.get("/api/matches/{match_id}/export")
async def export(match_id: MatchId, runtime: Runtime) -> JSONResponse:
    """Everything stored about a match (actions, events, calls, audit) as a JSON file."""
    try:
        body = runtime.store.export(match_id)
    except MatchNotFoundError as error:
        raise HTTPException(status_code=404, detail=str(error)) from error
    headers = {"Content-Disposition": f'attachment; filename="tenball-match-{match_id}.json"'}
    return JSONResponse(body, headers=headers)


@viewer.websocket("/ws")
async def websocket(websocket: WebSocket) -> None:
    """Pushes JSON messages with a "type": state, source_status, balls, event, call, audit."""
    runtime: LiveRuntime = websocket.app.state.runtime
    client = await runtime.manager.connect(websocket, runtime.referee.state_message() | {
        "table": runtime.table})  # fmt: skip
    runtime.manager.broadcast({"type": "viewers", "count": runtime.manager.count})
    client.queue.put_nowait(json.dumps({"type": "source_status", **runtime.source_status()}))
    for kept in runtime.store.open_alerts():  # oldest first: the page lists newest on top
        client.queue.put_nowait(json.dumps({"type": "alert", **kept}))
    if (alert := runtime.referee.interrupted_alert()) is not None:
        client.queue.put_nowait(json.dumps(alert))
    try:
        while True:
            await websocket.receive_text()
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        await runtime.manager.disconnect(client)
        runtime.manager.broadcast({"type": "viewers", "count": runtime.manager.count})


async def _mjpeg(runtime: LiveRuntime) -> AsyncIterator[bytes]:
    board = runtime.board
    board.viewers += 1
    sent = -1
    try:
        while True:
            if board.jpeg is not None and board.sequence != sent:
                sent, jpeg = board.sequence, board.jpeg
                yield (
                    b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                    + str(len(jpeg)).encode()
                    + b"\r\n\r\n"
                    + jpeg
                    + b"\r\n"
                )
            await asyncio.sleep(board.period_s / 2)
    finally:
        board.viewers -= 1


@viewer.get("/stream.mjpg")
async def stream(runtime: Runtime) -> StreamingResponse:
    """The annotated video as multipart/x-mixed-replace JPEG."""
    return StreamingResponse(
        _mjpeg(runtime), media_type="multipart/x-mixed-replace; boundary=frame"
    )


def _page(name: str) -> Callable[[], Coroutine[Any, Any, FileResponse]]:
    async def page() -> FileResponse:
        return FileResponse(str(STATIC / name), media_type="text/html")

    page.__name__ = name.removesuffix(".html")
    return page


viewer.add_api_route("/overlay", _page("overlay.html"), methods=["GET"], include_in_schema=False)
viewer.add_api_route("/operator", _page("operator.html"), methods=["GET"], include_in_schema=False)


@viewer.get("/", include_in_schema=False)
async def index() -> RedirectResponse:
    return RedirectResponse("/operator")


def create_app(
    settings: LiveSettings,
    *,
    rules: RulesBackend | None = None,
    open_source: SourceOpener | None = None,
    make_pipeline: PipelineFactory | None = None,
) -> FastAPI:
    """The live referee app.

    Args:
        settings: the service settings; without `settings.token`, the one kept in the
            database (made at its first start).
        rules: the rules engine (default: the FFB engine of referee.rules).
        open_source: opens the frame source (default: vision.sources.open_source of
            `settings.source`; none when the source is "none").
        make_pipeline: builds the pipeline from the first frame (default: referee.pipeline).
    """
    from referee.live import defaults

    runtime = LiveRuntime(
        settings,
        rules or defaults.rules(),
        open_source if open_source is not None else defaults.source_opener(settings),
        make_pipeline or defaults.pipeline_factory(settings),
    )
    if not settings.token:  # the database's: a restart keeps the phones signed in
        token = runtime.store.operator_token(lambda: secrets.token_urlsafe(16))
        settings = runtime.settings = settings.model_copy(update={"token": token})

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await runtime.start()
        try:
            yield
        finally:
            await runtime.stop()

    app = FastAPI(title="tenball live referee", version="1", lifespan=lifespan)
    app.state.settings = settings
    app.state.runtime = runtime
    app.include_router(operator)
    app.include_router(viewer)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    app.add_exception_handler(NoMatchError, _no_match)
    app.middleware("http")(_operator_gate)
    return app


async def _no_match(request: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(error)}, status_code=409)
