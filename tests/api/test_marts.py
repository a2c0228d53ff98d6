"""A record posted to the API reaches the marts at the next `evalhouse build`, and its lineage (the key's name)
joins its raw row as docs/api.md shows."""

from __future__ import annotations

import duckdb
import pytest

from evalhouse.operations import build
from evalhouse.settings import Settings
from tests.api.conftest import api_server
from tests.conftest import eval_form_record

pytestmark = pytest.mark.slow


def test_a_posted_record_is_in_fct_ratings_after_the_next_build(tmp_path):
    judged = eval_form_record(rater={"type": "llm_judge", "id": "claude-sonnet-4-6#p3a9f",
                                     "model": "claude-sonnet-4-6"})
    person = eval_form_record(rater={"type": "human", "id": "h-ana"})  # the same item, rated by a person
    with api_server(tmp_path) as server:
        answer = server.post("/v1/evals", [judged, person])
        assert answer.status == 200, answer.text
        settings = Settings(server.db_path, server.landing)

        result = build(settings)

    assert result.ok, result.failures
    with duckdb.connect(str(settings.db_path), read_only=True) as con:
        rated = con.execute(
            "select record_id, rater_type, dimension, score from marts.fct_ratings "
            "where record_id in (?, ?) and dimension = 'helpfulness' order by rater_type",
            [judged["eval_id"], person["eval_id"]]).fetchall()
        lineage = con.execute(
            f"""
            select l.key_name, l.request_id
            from raw.eval_form as r
            inner join read_csv('{settings.landing}/api/*.lineage.csv', all_varchar = true) as l
                on r.record_sha256 = l.record_sha256 and r.source_line = cast(l.line as bigint)
            where r.natural_key = ?
            """, [judged["eval_id"]]).fetchall()
    assert rated == [(person["eval_id"], "human", "helpfulness", 4.0),
                     (judged["eval_id"], "llm_judge", "helpfulness", 4.0)]
    assert lineage == [("judge-a", answer.body["request_id"])]
