"""`evalhouse api`: the submission API under uvicorn, on localhost unless told otherwise."""

from __future__ import annotations

import errno
import ipaddress
import logging
import socket
import sys
from typing import TextIO

import uvicorn

from evalhouse.api.app import create_app
from evalhouse.api.settings import KEYS_VARIABLE, ApiSettings
from evalhouse.exit_codes import EXIT_OK, EXIT_USAGE
from evalhouse.ports import PortInUse, in_use_message
from evalhouse.settings import Settings


def serve(api: ApiSettings, warehouse: Settings, *, out: TextIO | None = None) -> int:
    """Serve until interrupted. The socket is bound here, so `--port 0` picks a free port and the first line
    printed says which. Raises PortInUse when another process listens on the port; returns EXIT_USAGE when the
    address cannot be had for another reason (not this machine's, a port below 1024)."""
    out = out or sys.stdout
    logging.getLogger("evalhouse.api").setLevel(logging.INFO)
    try:
        sock = _bind(api.host, api.port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise PortInUse(in_use_message("the API", api.host, api.port)) from None
        print(f"evalhouse: cannot listen on {api.host}:{api.port}: {exc.strerror or exc}; give another --host or "
              f"--port", file=sys.stderr)
        return EXIT_USAGE  # the address asked for cannot be had: the command cannot run as given
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"evalhouse api: listening on http://{shown}:{port} (OpenAPI: http://{shown}:{port}/docs); "
          f"landing {warehouse.landing}, warehouse {warehouse.db_path}", file=out, flush=True)
    if not api.keys:
        print(f"evalhouse api: no API keys configured ({KEYS_VARIABLE}): every POST will be refused (401)",
              file=sys.stderr, flush=True)
    if not _is_loopback(api.host):
        print(f"evalhouse api: serving beyond localhost ({api.host}): keys travel in clear text unless a TLS proxy "
              "sits in front", file=sys.stderr, flush=True)
    config = uvicorn.Config(create_app(api, warehouse), log_level="info", proxy_headers=False, server_header=False,
                            timeout_graceful_shutdown=10)
    uvicorn.Server(config).run(sockets=[sock])
    return EXIT_OK


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
