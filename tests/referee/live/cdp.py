"""A minimal Chrome DevTools Protocol client for Debian's headless chromium.

No browser is downloaded and no driver is needed: chromium is started with a debugging port
and driven over its websocket (the `websockets` package of the dev extra).
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser")


def find_chromium() -> str | None:
    for candidate in CHROMIUM_CANDIDATES:
        path = shutil.which(candidate)
        if path:
            return path
    return None


class Browser:
    """One headless chromium with one page, closed on `close()`."""

    def __init__(self, executable: str, width: int = 1280, height: int = 720) -> None:
        self._profile = tempfile.TemporaryDirectory(
            prefix="tenball-chromium-", ignore_cleanup_errors=True
        )
        self._process = subprocess.Popen(
            [
                executable, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--no-first-run", "--disable-extensions",
                "--remote-debugging-port=0", f"--user-data-dir={self._profile.name}",
                f"--window-size={width},{height}", "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        port = self._debug_port(Path(self._profile.name) / "DevToolsActivePort")
        pages = httpx.get(f"http://127.0.0.1:{port}/json/list", timeout=5).json()
        page = next(p for p in pages if p["type"] == "page")
        self._stack = contextlib.ExitStack()
        self._ws = self._stack.enter_context(connect(page["webSocketDebuggerUrl"], max_size=None))
        self._ids = itertools.count(1)
        self.send("Page.enable")
        self.send("Runtime.enable")

    def _debug_port(self, path: Path, timeout_s: float = 20.0) -> int:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if path.exists() and path.read_text().strip():
                return int(path.read_text().splitlines()[0])
            if self._process.poll() is not None:
                raise RuntimeError("chromium exited at startup")
            time.sleep(0.05)
        raise RuntimeError("chromium did not open its debugging port")

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Call a DevTools method and return its result (events in between are skipped)."""
        message_id = next(self._ids)
        self._ws.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            reply = json.loads(self._ws.recv(timeout=30))
            if reply.get("id") == message_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result

    def navigate(self, url: str) -> None:
        self.send("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete'", what=f"{url} to load")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (a promise is awaited)."""
        result = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout_s: float = 15.0, what: str = "") -> Any:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what or expression}")

    def screenshot(self, path: Path, transparent: bool = False) -> Path:
        if transparent:
            self.send(
                "Emulation.setDefaultBackgroundColorOverride",
                color={"r": 0, "g": 0, "b": 0, "a": 0},
            )
        data = self.send("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def emulate_phone(self, width: int = 390, height: int = 844) -> None:
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=2, mobile=True)  # fmt: skip

    def close(self) -> None:
        try:
            self._stack.close()
        finally:
            self._process.terminate()
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
            self._profile.cleanup()
