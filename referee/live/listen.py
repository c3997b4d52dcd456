"""The listening socket of the live service, bound before the server starts.

Binding first means the port is known before anything is printed (`--port 0` asks the system
for any free port, and the printed operator link then carries the real one), a busy port is a
clear error before the models load, and no one can take the port between a "free port" check
and the server's own bind (tests running in parallel did, and failed at random).
"""

from __future__ import annotations

import socket
import time

BACKLOG = 128
"""Connections the system queues before the server accepts them (uvicorn's default)."""


class ListenError(OSError):
    """The address cannot be listened on (the port is taken, the host is not this machine's)."""


def listen(host: str, port: int, retry_s: float = 0.0) -> socket.socket:
    """A TCP socket bound to `host:port` and listening; `port` 0 takes any free port.

    Args:
        host: address to listen on ("127.0.0.1", "0.0.0.0", "::", a name).
        port: port; 0 lets the system choose a free one (read it with `bound_port`).
        retry_s: how long to keep trying while the port is taken (a server restarting on
            its old port); 0 tries once.

    Raises:
        ListenError: naming the address and why, when it cannot be bound.
    """
    deadline_s = time.monotonic() + retry_s
    while True:
        try:
            return _bind(host, port)
        except OSError as error:
            if time.monotonic() >= deadline_s:
                raise ListenError(
                    error.errno, f"cannot listen on {host}:{port}: {error}"
                ) from error
            time.sleep(0.1)


def _bind(host: str, port: int) -> socket.socket:
    family, kind, proto, _name, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        # a restart may rebind the port its predecessor left in TIME_WAIT
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


def bound_port(sock: socket.socket) -> int:
    """The port a socket from `listen` got."""
    return int(sock.getsockname()[1])
