"""The service's listening socket: any free port on request, a clear error on a taken one."""

from __future__ import annotations

import socket
import threading

import pytest

from referee.live.listen import ListenError, bound_port, listen


def test_port_zero_listens_on_a_real_port_that_accepts() -> None:
    with listen("127.0.0.1", 0) as sock:
        port = bound_port(sock)
        assert port > 0
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass


def test_a_taken_port_is_an_error_naming_the_address() -> None:
    with listen("127.0.0.1", 0) as taken:
        port = bound_port(taken)
        with pytest.raises(ListenError, match=f"127.0.0.1:{port}"):
            listen("127.0.0.1", port)


def test_a_restart_waits_for_its_old_port_to_be_freed() -> None:
    taken = listen("127.0.0.1", 0)
    port = bound_port(taken)
    release = threading.Timer(0.3, taken.close)
    release.start()
    try:
        with listen("127.0.0.1", port, retry_s=10.0) as sock:
            assert bound_port(sock) == port
    finally:
        release.join()
        taken.close()
