"""An unexpected failure answers 500 as JSON with an error id, and the trace stays in the server's log."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import threading
import time

import pytest
import uvicorn

from evalhouse.api.app import create_app
from evalhouse.api.settings import resolve_api
from evalhouse.settings import Settings


@pytest.fixture
def failing_server(tmp_path):
    app = create_app(resolve_api(environ={}), Settings(tmp_path / "w.duckdb", tmp_path / "landing"))

    @app.get("/v1/fail")
    async def fail() -> None:
        raise RuntimeError("a secret detail of the failure")

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield sock.getsockname()[1]
    server.should_exit = True
    thread.join(timeout=10)


def test_an_unexpected_error_is_a_json_500_with_an_error_id_and_no_trace(failing_server, caplog):
    connection = http.client.HTTPConnection("127.0.0.1", failing_server, timeout=10)
    with caplog.at_level(logging.ERROR, logger="evalhouse.api"):
        connection.request("GET", "/v1/fail")
        response = connection.getresponse()
        text = response.read().decode()
    body = json.loads(text)

    assert response.status == 500 and body["error"]["code"] == "internal_error"
    error_id = body["error"]["error_id"]
    assert error_id and error_id in body["error"]["message"]
    assert "secret detail" not in text and "Traceback" not in text
    logged = [r for r in caplog.records if error_id in r.getMessage()]
    assert logged and "secret detail" in str(logged[0].exc_info[1])
