"""Websocket viewers: one bounded queue and one sender task per client.

`broadcast` never waits: it serialises the message once and puts it in every client's queue
without blocking. A client whose queue is full (a phone on a bad network, a frozen tab) is
dropped instead of slowing the others or the capture; it reconnects and gets the state anew.
In-memory and single-process, as FastAPI's docs warn about such managers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from fastapi import WebSocket

logger = logging.getLogger(__name__)


@dataclass(eq=False)
class _Client:
    websocket: WebSocket
    queue: asyncio.Queue[str | None]
    sender: asyncio.Task[None] | None = None
    sent: int = 0


@dataclass
class ConnectionStats:
    """Counters for /api/health."""

    connected_total: int = 0
    dropped_slow: int = 0
    messages_sent: int = 0
    by_type: dict[str, int] = field(default_factory=dict)


class ConnectionManager:
    """Websocket viewers of the live service.

    Args:
        queue_messages: messages a client may have waiting before it is dropped; raising it
            rides out longer stalls at the cost of memory and staler messages.
    """

    def __init__(self, queue_messages: int = 512) -> None:
        self.queue_messages = queue_messages
        self._clients: set[_Client] = set()
        self.stats = ConnectionStats()
        self._closing: set[asyncio.Future[None]] = set()

    @property
    def count(self) -> int:
        return len(self._clients)

    async def connect(self, websocket: WebSocket, first: dict[str, Any] | None = None) -> _Client:
        """Accept a viewer and start its sender; `first` is sent before anything else."""
        await websocket.accept()
        client = _Client(websocket, asyncio.Queue(self.queue_messages))
        if first is not None:
            client.queue.put_nowait(json.dumps(first))
        client.sender = asyncio.create_task(self._send_loop(client))
        self._clients.add(client)
        self.stats.connected_total += 1
        return client

    async def disconnect(self, client: _Client) -> None:
        """Forget a viewer and stop its sender (safe to call twice)."""
        self._clients.discard(client)
        if client.sender is not None and client.sender is not asyncio.current_task():
            client.sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await client.sender

    def broadcast(self, message: dict[str, Any]) -> None:
        """Queue a message for every viewer; never blocks. Call from the event loop."""
        if not self._clients:
            return
        text = json.dumps(message, default=_jsonable)
        kind = str(message.get("type", ""))
        self.stats.by_type[kind] = self.stats.by_type.get(kind, 0) + 1
        for client in list(self._clients):
            try:
                client.queue.put_nowait(text)
            except asyncio.QueueFull:
                self.stats.dropped_slow += 1
                logger.warning("dropping a slow websocket viewer (%d queued)", client.queue.qsize())
                self._clients.discard(client)
                task = asyncio.ensure_future(self._close(client))
                self._closing.add(task)
                task.add_done_callback(self._closing.discard)

    async def _close(self, client: _Client) -> None:
        if client.sender is not None:
            client.sender.cancel()
        with contextlib.suppress(Exception):
            await client.websocket.close(code=1013, reason="too slow: reconnect")

    async def _send_loop(self, client: _Client) -> None:
        try:
            while True:
                text = await client.queue.get()
                if text is None:
                    return
                await client.websocket.send_text(text)
                client.sent += 1
                self.stats.messages_sent += 1
        except Exception:  # the peer went away: the receive side cleans up
            self._clients.discard(client)

    async def close_all(self) -> None:
        for client in list(self._clients):
            await self._close(client)
        self._clients.clear()


def _jsonable(value: Any) -> Any:
    """JSON for numpy scalars and other stragglers."""
    for attribute in ("item", "tolist"):
        if hasattr(value, attribute):
            return getattr(value, attribute)()
    return str(value)
