"""API keys and the API's settings: `name:key` and bare keys, refused entries, and limits from the environment."""

from __future__ import annotations

import hashlib

import pytest

from evalhouse.api.auth import InvalidKeys, identify, key_hash_name, parse_keys
from evalhouse.api.settings import ApiSettingsError, resolve_api

A, B = "a" * 20, "b-key:with-colon-1234"


def test_named_and_bare_keys_are_parsed_and_only_their_digests_kept():
    keys = parse_keys(f" judge-a:{A} , {B.replace(':', '')},,")
    assert [k.name for k in keys] == ["judge-a", key_hash_name(B.replace(":", ""))]
    assert keys[1].name == "sha256:" + hashlib.sha256(B.replace(":", "").encode()).hexdigest()[:12]
    assert all(A.encode() not in k.digest for k in keys)


def test_a_key_is_identified_by_comparing_it_with_every_configured_key():
    keys = parse_keys(f"judge-a:{A},judge-b:{B}")
    assert identify(keys, A).name == "judge-a"
    assert identify(keys, B).name == "judge-b"  # the key may hold a colon once it has a name
    assert identify(keys, A + "x") is None and identify(keys, "") is None and identify(keys, None) is None
    assert identify((), A) is None


@pytest.mark.parametrize("text, fragment", [
    ("short", "at least 16"),
    (f"bad name:{A}", "name"),
    (f"x:{A},x:{A}b", "same name"),
    (f"x:{A},y:{A}", "listed twice"),
])
def test_unusable_entries_are_refused_with_the_reason(text, fragment):
    with pytest.raises(InvalidKeys, match=fragment):
        parse_keys(text)


def test_limits_come_from_flags_then_the_environment_then_defaults():
    env = {"EVALHOUSE_API_KEYS": f"a:{A}", "EVALHOUSE_API_MAX_BODY_BYTES": "1_000", "EVALHOUSE_API_MAX_RECORDS": "7"}
    settings = resolve_api(environ=env)
    assert (settings.max_body_bytes, settings.max_records, settings.host) == (1000, 7, "127.0.0.1")
    assert resolve_api(environ=env, max_records=3).max_records == 3
    assert resolve_api(environ={}).max_body_bytes == 5_000_000 and resolve_api(environ={}).keys == ()
    with pytest.raises(ApiSettingsError, match="EVALHOUSE_API_MAX_RECORDS"):
        resolve_api(environ={"EVALHOUSE_API_MAX_RECORDS": "lots"})
    with pytest.raises(ApiSettingsError, match="EVALHOUSE_API_KEYS"):
        resolve_api(environ={"EVALHOUSE_API_KEYS": "short"})
