"""The API under test: `evalhouse api` started as a subprocess on a free loopback port (the port it prints), over a
temporary landing folder and warehouse, and a small HTTP client (http.client) that speaks to it."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.processes import stop

KEY = "judge-key-0123456789abcdef"  # configured as judge-a:<KEY>
BARE_KEY = "bare-key-fedcba9876543210"  # configured without a name: its lineage name is its hash
KEYS = f"judge-a:{KEY}, {BARE_KEY}"
MAX_BODY_BYTES = 200_000
MAX_RECORDS = 60


@dataclass
class Answer:
    status: int
    headers: Mapping[str, str]
    body: Any  # parsed JSON
    text: str


@dataclass
class ApiServer:
    host: str
    port: int
    landing: Path
    db_path: Path
    log: Path

    def request(self, method: str, path: str, body: bytes | Iterable[bytes] | Any = None, *,
                key: str | None = KEY, headers: Mapping[str, str] | None = None, timeout: float = 60) -> Answer:
        """One request on a new connection. A dict or list body is sent as JSON; an iterable of bytes is sent
        chunked (no Content-Length)."""
        sent = dict(headers or {})
        if key is not None:
            sent.setdefault("Authorization", f"Bearer {key}")
        if body is not None and not isinstance(body, (bytes, bytearray)) and not _is_chunks(body):
            body = json.dumps(body).encode("utf-8")
        if body is not None:
            sent.setdefault("Content-Type", "application/json")
        connection = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            try:
                connection.request(method, path, body=body, headers=sent,
                                   encode_chunked=body is not None and _is_chunks(body))
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server answered before reading the whole body (413): the answer is still there
            response = connection.getresponse()
            text = response.read().decode("utf-8")
            return Answer(response.status, dict(response.getheaders()), json.loads(text) if text else None, text)
        finally:
            connection.close()

    def post(self, path: str, body: Any, **options: Any) -> Answer:
        return self.request("POST", path, body, **options)

    def get(self, path: str, **options: Any) -> Answer:
        return self.request("GET", path, key=None, **options)

    @property
    def api_folder(self) -> Path:
        return self.landing / "api"

    def landing_lines(self, format_name: str = "eval_form") -> list[bytes]:
        files = sorted(self.api_folder.glob(f"{format_name}_*.jsonl"))
        return [line for f in files for line in f.read_bytes().splitlines()]


def _is_chunks(body: Any) -> bool:
    return isinstance(body, Iterator) or (isinstance(body, (list, tuple)) and bool(body)
                                          and all(isinstance(b, bytes) for b in body))


@contextmanager
def api_server(root: Path, *args: str, env: Mapping[str, str] | None = None, landing: Path | None = None,
               db_path: Path | None = None) -> Iterator[ApiServer]:
    root.mkdir(parents=True, exist_ok=True)
    landing = landing or root / "landing"
    db_path = db_path or root / "warehouse" / "evalhouse.duckdb"
    log = root / f"api-{len(list(root.glob('api-*.log')))}.log"
    environment = {**os.environ, "EVALHOUSE_API_KEYS": KEYS, **(env or {})}
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "evalhouse.cli", "api", "--port", "0", "--db", str(db_path), "--landing",
             str(landing), *args], env=environment, stdout=out, stderr=subprocess.STDOUT)
    try:
        host, port = _wait_for_address(log, process)
        server = ApiServer(host, port, landing, db_path, log)
        _wait_for_health(server, process)
        yield server
    finally:
        stop(process, timeout=15)


def _wait_for_address(log: Path, process: subprocess.Popen, timeout: float = 60) -> tuple[str, int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(r"listening on http://([\d.]+):(\d+)", log.read_text())
        if found:
            return found.group(1), int(found.group(2))
        if process.poll() is not None:
            raise RuntimeError(f"evalhouse api exited with {process.returncode}:\n{log.read_text()}")
        time.sleep(0.05)
    raise TimeoutError(f"evalhouse api did not start:\n{log.read_text()}")


def _wait_for_health(server: ApiServer, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if server.get("/v1/health", timeout=2).status == 200:
                return
        except OSError:
            pass
        if process.poll() is not None:
            raise RuntimeError(f"evalhouse api exited with {process.returncode}:\n{server.log.read_text()}")
        time.sleep(0.05)
    raise TimeoutError(f"evalhouse api never answered /v1/health:\n{server.log.read_text()}")


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[ApiServer]:
    """One server per test module, over an empty landing folder and no warehouse yet, with small limits (set
    through the environment)."""
    with api_server(tmp_path_factory.mktemp("api"), env={"EVALHOUSE_API_MAX_BODY_BYTES": str(MAX_BODY_BYTES),
                                                         "EVALHOUSE_API_MAX_RECORDS": str(MAX_RECORDS)}) as running:
        yield running
