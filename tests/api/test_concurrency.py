"""Concurrent writers: 20 clients post 1,000 records in all, at once, to two API processes sharing one landing folder
and one warehouse; every record lands once, on a whole line, with its lineage, and loads once."""

from __future__ import annotations

import csv
import hashlib
import json
from concurrent.futures import ThreadPoolExecutor

import duckdb
import pytest

from evalhouse.operations import ingest
from evalhouse.publish import working_copy
from evalhouse.settings import Settings
from ingest.pipeline import IngestOptions
from tests.api.conftest import api_server
from tests.conftest import eval_form_record

pytestmark = pytest.mark.slow

POSTERS, PER_POSTER, PER_REQUEST = 20, 50, 5


def test_twenty_concurrent_posters_write_a_thousand_records_none_lost_none_duplicated(tmp_path):
    landing, db_path = tmp_path / "landing", tmp_path / "warehouse" / "evalhouse.duckdb"
    with api_server(tmp_path / "a", landing=landing, db_path=db_path) as first, \
            api_server(tmp_path / "b", landing=landing, db_path=db_path) as second:
        servers = [first, second]

        def poster(number: int) -> list[tuple[int, list[str], dict]]:
            server = servers[number % 2]
            answers = []
            for _ in range(PER_POSTER // PER_REQUEST):
                batch = [eval_form_record(rater={"type": "llm_judge", "id": f"judge-{number}"})
                         for _ in range(PER_REQUEST)]
                answer = server.post("/v1/evals", batch)
                answers.append((answer.status, [r["eval_id"] for r in batch], answer.body))
            return answers

        with ThreadPoolExecutor(POSTERS) as pool:
            answers = [a for answers in pool.map(poster, range(POSTERS)) for a in answers]

    posted = [eval_id for _, ids, _ in answers for eval_id in ids]
    assert len(posted) == len(set(posted)) == POSTERS * PER_POSTER
    assert {status for status, _, _ in answers} <= {200, 202}, {s for s, _, _ in answers}
    reported_lines = [r["line"] for _, _, body in answers for r in body["results"]]
    assert sorted(reported_lines) == list(range(1, len(posted) + 1))  # every record its own line

    # The landing file: one whole, parseable line per record, each record once, each request's lines together.
    files = list(landing.glob("api/eval_form_*.jsonl"))
    assert len(files) == 1
    lines = files[0].read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) - 1 == len(posted)
    stored = [json.loads(line) for line in lines[:-1]]
    assert sorted(r["eval_id"] for r in stored) == sorted(posted)
    for _, ids, body in answers:
        numbers = [r["line"] for r in body["results"]]
        assert numbers == list(range(numbers[0], numbers[0] + PER_REQUEST))
        assert [stored[n - 1]["eval_id"] for n in numbers] == ids

    # Lineage: one row per line, matching the line's checksum.
    lineage = list(csv.DictReader(files[0].with_name(files[0].name.replace(".jsonl", ".lineage.csv")).open()))
    assert sorted(int(r["line"]) for r in lineage) == list(range(1, len(posted) + 1))
    assert all(r["record_sha256"] == hashlib.sha256(lines[int(r["line"]) - 1]).hexdigest() for r in lineage)

    # Loaded once each: what a busy warehouse left pending loads with the next ingest, and nothing twice.
    ingest(Settings(db_path, landing), [landing], IngestOptions(strict=True, workers=0))
    with duckdb.connect(str(working_copy(db_path)), read_only=True) as con:
        loaded = [key for (key,) in con.execute("select natural_key from raw.eval_form").fetchall()]
        quarantined = con.execute("select count(*) from raw.quarantine").fetchone()[0]
    assert sorted(loaded) == sorted(posted)
    assert quarantined == 0
