"""The API server's settings: where it listens, which keys it accepts, and how much one request may carry.

Flags first, then the environment, then the defaults, as evalhouse/settings.py does for the warehouse and the
landing folder (which the API takes from there: --db / EVALHOUSE_DB, --landing / EVALHOUSE_LANDING).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from evalhouse.api.auth import ApiKey, InvalidKeys, parse_keys

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8502  # the app is on 8501
DEFAULT_MAX_BODY_BYTES = 5_000_000
DEFAULT_MAX_RECORDS = 1_000
# How long a request waits for another writer (a build, an ingest, another API process) before it answers
# 202 Accepted: its records are safe in the landing file by then, and the next ingest loads them.
DEFAULT_LOAD_WAIT_SECONDS = 2.0

KEYS_VARIABLE = "EVALHOUSE_API_KEYS"
MAX_BODY_VARIABLE = "EVALHOUSE_API_MAX_BODY_BYTES"
MAX_RECORDS_VARIABLE = "EVALHOUSE_API_MAX_RECORDS"


class ApiSettingsError(ValueError):
    """A setting that cannot be used; the message names it and says what to do."""


@dataclass(frozen=True)
class ApiSettings:
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    keys: tuple[ApiKey, ...] = ()
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_records: int = DEFAULT_MAX_RECORDS
    load: bool = True  # False: write the landing file and answer 202; the next `evalhouse ingest` loads it
    load_wait_seconds: float = DEFAULT_LOAD_WAIT_SECONDS


def resolve_api(*, host: str | None = None, port: int | None = None, max_body_bytes: int | None = None,
                max_records: int | None = None, load: bool = True, load_wait_seconds: float | None = None,
                environ: Mapping[str, str] | None = None) -> ApiSettings:
    env = os.environ if environ is None else environ
    try:
        keys = parse_keys(env.get(KEYS_VARIABLE, ""))
    except InvalidKeys as exc:
        raise ApiSettingsError(f"{KEYS_VARIABLE}: {exc}") from None
    settings = ApiSettings(
        host=host or DEFAULT_HOST,
        port=DEFAULT_PORT if port is None else port,
        keys=keys,
        max_body_bytes=max_body_bytes if max_body_bytes is not None
        else _positive_int(env, MAX_BODY_VARIABLE, DEFAULT_MAX_BODY_BYTES),
        max_records=max_records if max_records is not None
        else _positive_int(env, MAX_RECORDS_VARIABLE, DEFAULT_MAX_RECORDS),
        load=load,
        load_wait_seconds=DEFAULT_LOAD_WAIT_SECONDS if load_wait_seconds is None else load_wait_seconds,
    )
    if settings.max_body_bytes < 1 or settings.max_records < 1:
        raise ApiSettingsError("the body and record limits must be at least 1")
    if not 0 <= settings.port <= 65535:
        raise ApiSettingsError(f"port {settings.port} is not a TCP port (0 to 65535; 0 picks a free one)")
    return settings


def _positive_int(env: Mapping[str, str], name: str, default: int) -> int:
    text = env.get(name, "").strip().replace("_", "")
    if not text:
        return default
    if not text.isdigit() or int(text) < 1:
        raise ApiSettingsError(f"{name}={env[name]!r} is not a positive whole number")
    return int(text)
