"""A server asked for a port another process listens on is told so at once, before it starts: `evalhouse serve`
used to print its address and then die with Streamlit's "Port 8501 is not available", exit 1."""

from __future__ import annotations

import errno
import socket


class PortInUse(Exception):
    """Another process listens on the port a server was asked to listen on."""


def in_use_message(what: str, host: str, port: int) -> str:
    return (f"{what} did not start: port {port} on {host} is in use by another process (an app or API started "
            f"before, still running?). Stop that process, or pick another port: --port N (make: PORT=N)")


def check_free(host: str, port: int, what: str) -> None:
    """Raise PortInUse when `port` cannot be bound on one of `host`'s addresses because it is in use: each address
    the name resolves to, bound as Streamlit's server (Tornado) binds them. Any other reason a bind fails is left to
    the server to report. The port is free again when this returns: another process may still take it before the
    server binds it, and the server then reports it as it always did."""
    for family, kind, proto, _, address in socket.getaddrinfo(host, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0,
                                                              socket.AI_PASSIVE):
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                probe.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise PortInUse(in_use_message(what, host, port)) from None
