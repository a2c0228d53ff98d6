"""Splitting one large JSON object into its members, with one array streamed element by element
(ingest/json_object_stream.py), and writing bare NaN as null (ingest/nonfinite.py): whatever the read sizes, with
strings that hold brackets, commas and escaped quotes, oversized elements, and documents cut short."""

from __future__ import annotations

import io
import json

import pytest

import ingest.json_object_stream as json_object_stream
from ingest.json_object_stream import Element, Member, ObjectStream
from ingest.nonfinite import nonfinite_to_null

DOCUMENT = {
    "version": 2,
    "eval": {"task": "t", "tricky": ["x,]}", "a\"b", "\\", "{["]},
    "samples": [{"id": 1, "text": "a\"b]},"}, [1, 2], {"id": 3, "nested": {"list": [[], {}]}}],
    "reductions": [{"x": 1}],
}


def _events(data: bytes, chunk: int, limit: int = 10**6, monkeypatch=None):
    monkeypatch.setattr(json_object_stream, "_CHUNK", chunk)
    stream = ObjectStream(io.BytesIO(data), "samples", limit, 8)
    return list(stream.events()), stream


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
@pytest.mark.parametrize("indent", [None, 2])
def test_members_and_elements_come_out_whole_whatever_the_read_size(chunk, indent, monkeypatch):
    data = json.dumps(DOCUMENT, indent=indent).encode()
    events, stream = _events(data, chunk, monkeypatch=monkeypatch)
    assert stream.complete and stream.is_object
    members = {e.key: json.loads(e.value) for e in events if isinstance(e, Member)}
    elements = [json.loads(e.data) for e in events if isinstance(e, Element)]
    assert members == {k: v for k, v in DOCUMENT.items() if k != "samples"}
    assert elements == DOCUMENT["samples"]
    for event in events:  # offsets and sizes point at the text in the file
        text = event.value if isinstance(event, Member) else event.data
        assert data[event.offset:event.offset + event.size] == text
    assert [e.index for e in events if isinstance(e, Element)] == [1, 2, 3]


def test_an_oversized_element_keeps_only_a_preview_and_its_true_size(monkeypatch):
    big = {"id": 2, "text": "x" * 500}
    data = json.dumps({"version": 2, "samples": [{"id": 1}, big, {"id": 3}]}).encode()
    events, _ = _events(data, 16, limit=100, monkeypatch=monkeypatch)
    elements = [e for e in events if isinstance(e, Element)]
    assert [(e.index, e.oversized) for e in elements] == [(1, False), (2, True), (3, False)]
    assert elements[1].size == len(json.dumps(big)) and len(elements[1].data) <= 8
    assert data[elements[1].offset:elements[1].offset + elements[1].size] == json.dumps(big).encode()
    assert json.loads(elements[2].data) == {"id": 3}


def test_a_document_cut_short_gives_what_was_read_and_marks_the_cut_element(monkeypatch):
    data = json.dumps(DOCUMENT).encode()
    cut = data[:data.index(b'"nested"')]
    events, stream = _events(cut, 5, monkeypatch=monkeypatch)
    assert not stream.complete
    elements = [e for e in events if isinstance(e, Element)]
    assert [(e.index, e.unterminated) for e in elements] == [(1, False), (2, False), (3, True)]
    assert [e.key for e in events if isinstance(e, Member)] == ["version", "eval"]


def test_a_document_that_is_not_an_object_yields_nothing(monkeypatch):
    events, stream = _events(b'  [{"version": 2}]', 4, monkeypatch=monkeypatch)
    assert events == [] and not stream.is_object


def test_a_samples_member_that_is_not_an_array_is_an_ordinary_member(monkeypatch):
    events, stream = _events(b'{"samples": null, "eval": {}}', 3, monkeypatch=monkeypatch)
    assert [(e.key, e.value) for e in events] == [("samples", b"null"), ("eval", b"{}")] and stream.complete


def test_bare_nan_and_infinity_become_null_outside_strings_only():
    text = b'{"a": NaN, "b": -Infinity, "c": "NaN and Infinity", "d": [Infinity, 1.5], "e": "say \\"NaN\\""}'
    data, replaced = nonfinite_to_null(text)
    assert replaced == 3
    assert json.loads(data) == {"a": None, "b": None, "c": "NaN and Infinity", "d": [None, 1.5], "e": 'say "NaN"'}
    assert nonfinite_to_null(b'{"a": 1}') == (b'{"a": 1}', 0)
