"""Whole-line appends to the landing file: line numbers as the ingester counts them, a torn line closed first, a
record the file holds already not appended again (whoever appended it), and writers in several threads of two
writers (as two API processes: only the file lock keeps them apart) never interleaving."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import threading
from concurrent.futures import ThreadPoolExecutor

from evalhouse.api.writing import LandingWriter, LineCounter, Sender, frozen, landing_file, lineage_file
from ingest.sources import read_records

NOW = dt.datetime(2026, 11, 21, 23, 59, 59, tzinfo=dt.timezone.utc)


def _sender(request_id: str = "r1") -> Sender:
    return Sender(request_id, "judge-a", "127.0.0.1", NOW)


def _line(n: int, pad: int = 0) -> bytes:
    return json.dumps({"n": n, "pad": "x" * pad}).encode()


def test_lines_are_numbered_as_the_ingester_numbers_them_even_after_a_torn_line(tmp_path):
    writer = LandingWriter(tmp_path)
    first = writer.append("eval_form", [_line(1), _line(2)], ["a", "b"], _sender())
    path = first.path
    assert path == landing_file(tmp_path, "eval_form", NOW).resolve() and path.name == "eval_form_2026-11-21.jsonl"
    assert first.lines == (1, 2) and first.written == (True, True) and first.end == 2
    with path.open("ab") as handle:
        handle.write(b"\n" + b'{"torn": ')  # a blank line, then a writer that died mid-line

    second = writer.append("eval_form", [_line(3)], ["c"], _sender("r2"))

    assert second.lines == (5,) and second.end == 5
    read = {raw.line: raw.data for raw in read_records(path)}
    assert read[5] == _line(3) and read[4] == b'{"torn": '
    rows = lineage_file(path).read_text().splitlines()
    assert rows[0].startswith("landing_file,line,record_sha256,record_key")
    assert rows[-1].split(",")[:4] == [path.name, "5", hashlib.sha256(_line(3)).hexdigest(), "c"]


def test_the_line_counter_reads_only_what_was_appended_and_notices_a_replaced_file(tmp_path):
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"a\nb\nc")
    counter = LineCounter()
    with path.open("rb") as handle:
        assert counter.count(path, handle.fileno()) == (3, False)
    with path.open("ab") as handle:
        handle.write(b"c\nd\n")
    with path.open("rb") as handle:
        assert counter.count(path, handle.fileno()) == (4, True)
    path.unlink()
    path.write_bytes(b"x\n")
    with path.open("rb") as handle:
        assert counter.count(path, handle.fileno()) == (1, True)


def test_two_writers_in_many_threads_never_interleave_or_lose_a_line(tmp_path):
    writers = [LandingWriter(tmp_path), LandingWriter(tmp_path)]  # separate in-process locks, like two processes
    counter = iter(range(10**6))
    lock = threading.Lock()

    def post(worker: int) -> list[tuple[range, list[bytes]]]:
        done = []
        for _ in range(20):
            with lock:
                numbers = [next(counter) for _ in range(3)]
            lines = [_line(n, pad=5000) for n in numbers]  # several pages per request
            appended = writers[worker % 2].append("eval_form", lines, [None] * 3, _sender(f"w{worker}"))
            done.append((appended.lines, lines))
        return done

    with ThreadPoolExecutor(16) as pool:
        batches = [b for found in pool.map(post, range(16)) for b in found]

    path = landing_file(tmp_path, "eval_form", NOW)
    content = path.read_bytes().split(b"\n")
    assert content[-1] == b"" and len(content) - 1 == 16 * 20 * 3
    for numbers, lines in batches:
        assert [content[n - 1] for n in numbers] == lines
    lineage = lineage_file(path).read_text().splitlines()
    assert len(lineage) == 1 + 16 * 20 * 3  # one header


def test_a_frozen_file_gives_its_line_count_and_holds_appenders_off(tmp_path):
    writer = LandingWriter(tmp_path)
    appended = writer.append("eval_form", [_line(1)], [None], _sender())
    started = threading.Event()
    result = {}

    def append_while_frozen() -> None:
        started.set()
        result["appended"] = writer.append("eval_form", [_line(2)], [None], _sender("r2"))

    with frozen(appended.path, LineCounter()) as lines:
        assert lines == 1
        thread = threading.Thread(target=append_while_frozen)
        thread.start()
        started.wait()
        thread.join(timeout=0.3)
        assert thread.is_alive()  # waiting for the shared lock to go
        assert appended.path.read_bytes().count(b"\n") == 1
    thread.join(timeout=10)
    assert result["appended"].lines == (2,)


def test_a_record_the_file_holds_already_is_not_appended_again_nor_given_a_second_lineage_row(tmp_path):
    writer = LandingWriter(tmp_path)
    first = writer.append("eval_form", [_line(1), _line(2)], ["a", "b"], _sender("r1"))

    again = writer.append("eval_form", [_line(2), _line(3), _line(1)], ["b", "c", "a"], _sender("r2"))

    assert again.lines == (2, 3, 1) and again.written == (False, True, False) and again.appended == 1
    assert again.end == 3
    assert first.path.read_bytes().splitlines() == [_line(1), _line(2), _line(3)]
    rows = lineage_file(first.path).read_text().splitlines()[1:]
    assert [row.split(",")[1] for row in rows] == ["1", "2", "3"]  # one row per landing line
    assert rows[-1].split(",")[6] == "r2"

    nothing = writer.append("eval_form", [_line(3)], ["c"], _sender("r3"))
    assert nothing.lines == (3,) and nothing.appended == 0 and nothing.end == 3
    assert first.path.read_bytes().count(b"\n") == 3 and len(lineage_file(first.path).read_text().splitlines()) == 4


def test_identical_records_of_one_post_are_all_appended_as_the_ingester_keeps_identical_lines(tmp_path):
    writer = LandingWriter(tmp_path)
    appended = writer.append("eee_instance", [_line(1), _line(1)], [None, None], _sender())
    assert appended.lines == (1, 2) and appended.appended == 2
    retried = writer.append("eee_instance", [_line(1), _line(1)], [None, None], _sender("r2"))
    assert retried.lines == (1, 1) and retried.appended == 0


def test_a_line_another_writer_appended_or_a_crash_left_unclosed_counts_as_held(tmp_path):
    mine, other = LandingWriter(tmp_path), LandingWriter(tmp_path)  # as two API processes
    assert mine.append("eval_form", [_line(1)], [None], _sender()).lines == (1,)
    assert other.append("eval_form", [_line(2)], [None], _sender("o1")).lines == (2,)
    assert mine.append("eval_form", [_line(2)], [None], _sender("r2")).appended == 0

    path = landing_file(tmp_path, "eval_form", NOW)
    with path.open("ab") as handle:
        handle.write(_line(3) + b"\r\n")  # a line written by hand, with a CRLF ending
        handle.write(_line(4))  # a writer that died just before the newline: the whole record is there
    crlf = mine.append("eval_form", [_line(3)], [None], _sender("r3"))
    assert crlf.lines == (3,) and crlf.appended == 0  # the same record, as the ingester hashes a CRLF line

    closed = mine.append("eval_form", [_line(4), _line(5)], [None, None], _sender("r4"))

    assert closed.lines == (4, 5) and closed.written == (False, True)
    read = {raw.line: raw.data for raw in read_records(path)}
    assert read[4] == _line(4) and read[5] == _line(5) and len(read) == 5
