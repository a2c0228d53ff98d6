"""API keys: parsed from EVALHOUSE_API_KEYS, checked in constant time, and named in lineage without the key.

EVALHOUSE_API_KEYS is a comma-separated list; each entry is `name:key` or a bare `key` (split at the first colon,
so a key that contains a colon needs a name). A bare key's name is its hash, `sha256:` and the first 12 hex digits
of its SHA-256. Only a key's SHA-256 digest is kept in memory; a presented key is hashed the same way and compared
with every configured digest through hmac.compare_digest, so neither the time taken nor the order of the list
tells which key nearly matched.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from evalhouse.api.errors import ApiError

MIN_KEY_LENGTH = 16
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}")
HOW_TO_MAKE_ONE = "make one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"
CHALLENGE = {"WWW-Authenticate": "Bearer"}
# auto_error=False: a missing or malformed header gets our JSON 401, not the framework's 403.
BEARER = HTTPBearer(auto_error=False, description="An API key from EVALHOUSE_API_KEYS, as a bearer token.")


class InvalidKeys(ValueError):
    """An entry of EVALHOUSE_API_KEYS that cannot be used."""


@dataclass(frozen=True)
class ApiKey:
    name: str  # what lineage records: the configured name, or sha256:<12 hex> for a bare key
    digest: bytes  # SHA-256 of the key


def key_hash_name(key: str) -> str:
    return "sha256:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def parse_keys(text: str) -> tuple[ApiKey, ...]:
    keys: list[ApiKey] = []
    for position, entry in enumerate((e.strip() for e in text.split(",")), start=1):
        if not entry:
            continue
        name, sep, key = entry.partition(":")
        if not sep:
            name, key = key_hash_name(entry), entry
        elif not _NAME.fullmatch(name):
            raise InvalidKeys(f"entry {position}: the name {name!r} must be letters, digits, '_', '.', '@' or '-'")
        if len(key) < MIN_KEY_LENGTH:  # named by position only: even a hash of a weak key helps guess it
            raise InvalidKeys(f"entry {position}: a key must be at least {MIN_KEY_LENGTH} characters; "
                              f"{HOW_TO_MAKE_ONE}")
        keys.append(ApiKey(name, hashlib.sha256(key.encode("utf-8")).digest()))
    names = [k.name for k in keys]
    if len(set(names)) != len(names):
        twice = ", ".join(sorted({n for n in names if names.count(n) > 1}))
        raise InvalidKeys(f"two entries have the same name ({twice})")
    if len({k.digest for k in keys}) != len(keys):
        raise InvalidKeys("the same key is listed twice")
    return tuple(keys)


def identify(keys: tuple[ApiKey, ...], presented: str | None) -> ApiKey | None:
    """The configured key the presented one equals, or None. Every configured key is compared, always."""
    if not presented:
        return None
    digest = hashlib.sha256(presented.encode("utf-8")).digest()
    found = None
    for key in keys:
        if hmac.compare_digest(key.digest, digest):
            found = key
    return found


# -- the FastAPI side: every POST depends on this ------------------------------------------------------------------

def require_key(request: Request,
                credentials: HTTPAuthorizationCredentials | None = Depends(BEARER)) -> ApiKey:
    """The key the request was sent with, or 401. A server with no keys configured refuses every write."""
    keys: tuple[ApiKey, ...] = request.app.state.api.keys
    if not keys:
        raise ApiError(401, "no_keys_configured",
                       "this server has no API keys configured (EVALHOUSE_API_KEYS), so it refuses every write; "
                       "set the variable and restart `evalhouse api`", headers=CHALLENGE)
    if credentials is None:
        raise ApiError(401, "missing_key", "send an API key as a bearer token: `Authorization: Bearer <key>`",
                       headers=CHALLENGE)
    key = identify(keys, credentials.credentials)
    if key is None:
        raise ApiError(401, "invalid_key", "the API key is not one of this server's keys (EVALHOUSE_API_KEYS)",
                       headers=CHALLENGE)
    return key
