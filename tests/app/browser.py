"""A headless Chromium driven over the Chrome DevTools Protocol, and a Streamlit server to point it at.

Just enough of CDP to open a page, wait until Streamlit has finished running it, read what it rendered and take
a screenshot. `websockets` comes with Streamlit; Chromium is Debian's package (/usr/bin/chromium).
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

from tests.processes import stop

APP = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"
CHROMIUM = "/usr/bin/chromium"

# What the page shows once Streamlit has rendered it: its title, its error boxes, and whether a run is going on.
_STATE_JS = """
(() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const h1 = main && main.querySelector('h1');
  const status = document.querySelector('[data-testid="stStatusWidget"]');
  const skeleton = document.querySelector('[data-testid="stAppSkeleton"]');
  const errors = Array.from(document.querySelectorAll(
      '[data-testid="stException"], [data-testid="stAlertContentError"], [data-testid="stAlert"] [kind="error"]'))
    .map(e => e.innerText.slice(0, 500));
  return JSON.stringify({
    title: h1 ? h1.innerText.trim() : null,
    running: !!(status && /running|connecting|stop/i.test(status.innerText)) || !!skeleton,
    errors: errors,
    stale: document.querySelectorAll('[data-stale="true"]').length,
    size: main ? main.querySelectorAll('[data-testid="stElementContainer"]').length + ':' + main.innerText.length : '',
    text: main ? main.innerText.slice(0, 4000) : '',
    charts: document.querySelectorAll('[data-testid="stVegaLiteChart"], .vega-embed').length,
  });
})()
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_http(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"nothing answered at {url} within {timeout:.0f} s")
        time.sleep(0.2)


@dataclass
class StreamlitServer:
    """`streamlit run app/streamlit_app.py` on a free loopback port, with the given environment."""

    env: Mapping[str, str]
    log_path: Path
    port: int = 0
    process: subprocess.Popen | None = None

    def __enter__(self) -> StreamlitServer:
        self.port = self.port or free_port()
        command = [
            sys.executable, "-m", "streamlit", "run", str(APP), "--server.port", str(self.port),
            "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none", "--server.runOnSave", "false",
        ]
        self._log = self.log_path.open("w")
        self.process = subprocess.Popen(command, env={**os.environ, **self.env}, stdout=self._log,
                                        stderr=subprocess.STDOUT)
        try:
            _wait_for_http(f"{self.url}/_stcore/health", timeout=60)
        except TimeoutError:
            self.__exit__(None, None, None)
            raise
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __exit__(self, *exc: Any) -> None:
        stop(self.process)
        self._log.close()


@dataclass
class PageState:
    title: str | None
    errors: list[str]
    text: str
    charts: int


class Browser:
    """One headless Chromium with one tab, driven over CDP."""

    def __init__(self, profile_dir: Path | None = None, width: int = 1400, height: int = 2000) -> None:
        self.profile_dir = profile_dir or Path(tempfile.mkdtemp(prefix="chromium-"))
        self.width, self.height = width, height
        self.process: subprocess.Popen | None = None
        self.ws: ClientConnection | None = None
        self._ids = itertools.count(1)

    def __enter__(self) -> Browser:
        self.profile_dir.mkdir(parents=True, exist_ok=True)
        # A second start on another port: once, in CI, with both cores building warehouses, Chromium did not open
        # its DevTools port within 30 s (another process may also take the free port before Chromium binds it).
        page = self._launch() or self._launch()
        if page is None:
            output = (self.profile_dir / "chromium.log").read_text(errors="replace")[-2000:]
            self.__exit__(None, None, None)
            raise RuntimeError(f"chromium did not open its DevTools port in two starts; its last output:\n{output}")
        self.ws = connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10).__enter__()
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=self.width, height=self.height, deviceScaleFactor=1,
                  mobile=False)
        return self

    def _launch(self) -> dict[str, Any] | None:
        """Chromium on a free port: its first page's DevTools target, or None (the process stopped) if it did not
        open the port within 30 s. Its output goes to chromium.log in the profile directory."""
        port = free_port()
        with (self.profile_dir / "chromium.log").open("ab") as log:
            self.process = subprocess.Popen(
                [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={self.profile_dir}", f"--remote-debugging-port={port}",
                 "--remote-debugging-address=127.0.0.1", f"--window-size={self.width},{self.height}",
                 "about:blank"],
                stdout=subprocess.DEVNULL, stderr=log,
                # Chromium keeps its singleton socket in a folder under TMPDIR and leaves it there when it is
                # terminated: inside the profile directory, it goes when the profile does.
                env={**os.environ, "TMPDIR": str(self.profile_dir)},
            )
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as response:
                    targets = json.load(response)
                return next(t for t in targets if t.get("type") == "page")
            except (OSError, StopIteration, ValueError):
                if time.monotonic() > deadline or self.process.poll() is not None:
                    stop(self.process)
                    return None
                time.sleep(0.2)

    def __exit__(self, *exc: Any) -> None:
        if self.ws is not None:
            self.ws.close()
        stop(self.process)
        shutil.rmtree(self.profile_dir, ignore_errors=True)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        assert self.ws is not None
        message_id = next(self._ids)
        self.ws.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=60))
            if message.get("id") == message_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def open(self, url: str, *, timeout: float = 45, settle: float = 0.5) -> PageState:
        """Navigate and wait until the page has a title and Streamlit has stopped running for `settle` seconds."""
        self.call("Page.navigate", url=url)
        return self.wait_for_title(None, timeout=timeout, settle=settle, what=url)

    def wait_for_title(self, title: str | None, *, timeout: float = 45, settle: float = 0.5,
                       what: str = "the page") -> PageState:
        """Wait until the page shows a title (this one, when given) and Streamlit has been idle for `settle` s."""
        deadline = time.monotonic() + timeout
        quiet_since: float | None = None
        state: dict[str, Any] = {}
        last_size = None
        time.sleep(0.2)
        while time.monotonic() < deadline:
            state = json.loads(self.evaluate(_STATE_JS) or "{}")
            # Done: the title is there, Streamlit says nothing is running, and the page has not changed for a while.
            done = (state.get("title") and (title is None or state.get("title") == title)
                    and not state.get("running") and not state.get("stale") and state.get("size") == last_size)
            last_size = state.get("size")
            if done:
                quiet_since = quiet_since or time.monotonic()
                if time.monotonic() - quiet_since >= settle:
                    break
            else:
                quiet_since = None
            time.sleep(0.15)
        else:
            raise TimeoutError(f"{what} did not finish rendering within {timeout:.0f} s: {state}")
        return PageState(state.get("title"), state.get("errors", []), state.get("text", ""), state.get("charts", 0))

    def click_nav(self, label: str, title: str, *, timeout: float = 45) -> PageState:
        """Go to a page the way a person does, through the sidebar (no reload: the session and its caches stay)."""
        clicked = self.evaluate(
            "(() => { const a = Array.from(document.querySelectorAll('[data-testid=\"stSidebarNav\"] a'))"
            f".find(a => a.innerText.trim().endsWith({json.dumps(label)})); if (a) {{ a.click(); return true; }}"
            " return false; })()")
        if not clicked:
            raise LookupError(f"no sidebar link labelled {label!r}")
        return self.wait_for_title(title, timeout=timeout, what=label)

    def wait_for_text(self, text: str, *, timeout: float = 15) -> str:
        """The main area's text once it contains `text` (some elements, code blocks, load their code lazily)."""
        deadline = time.monotonic() + timeout
        main = ""
        while time.monotonic() < deadline:
            main = self.evaluate("(document.querySelector('[data-testid=\"stMain\"]') || document.body).innerText")
            if text in (main or ""):
                return main
            time.sleep(0.2)
        raise TimeoutError(f"{text!r} did not appear within {timeout:.0f} s")

    def wait_for(self, expression: str, *, timeout: float = 30) -> Any:
        """The value of `expression` once it is truthy: an element Streamlit renders after the page's first paint,
        or renders again on a rerun (looked for once, it was missing on a loaded machine)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.2)
        return None

    def content_height(self) -> int:
        value = self.evaluate(
            "(() => { const b = document.querySelector('[data-testid=\"stMainBlockContainer\"]');"
            " return b ? Math.ceil(b.getBoundingClientRect().bottom + 80) : document.body.scrollHeight; })()")
        return int(value or self.height)

    def screenshot(self, path: Path, *, settle: float = 0.8) -> Path:
        """The whole page, as tall as its content: the viewport grows to fit it, then shrinks back."""
        height = max(self.height, min(self.content_height(), 16000))
        if height > self.height:
            self.call("Emulation.setDeviceMetricsOverride", width=self.width, height=height, deviceScaleFactor=1,
                      mobile=False)
            time.sleep(settle)  # charts and tables lay out again in the taller viewport
        data = self.call("Page.captureScreenshot", format="png")["data"]
        if height > self.height:
            self.call("Emulation.setDeviceMetricsOverride", width=self.width, height=self.height,
                      deviceScaleFactor=1, mobile=False)
        path.write_bytes(base64.b64decode(data))
        return path
