"""A record posted to the API reaches the marts at the next `evalhouse build`, its lineage (the key's name)
joins its raw row as docs/api.md shows, and a post repeated (a client's retry) counts once, even after `evalhouse
rebuild` loads the landing files whole."""

from __future__ import annotations

import io

import duckdb
import pytest

from evalhouse.operations import build, rebuild
from evalhouse.settings import Settings
from tests.api.conftest import api_server
from tests.conftest import eval_form_record, instance_record

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


def test_an_instance_posted_twice_is_one_trial_after_a_rebuild(tmp_path):
    trial = instance_record(sample_id="retried-0001")  # no id: only its bytes tell a retry from a second trial
    with api_server(tmp_path) as server:
        first = server.post("/v1/records?format=eee_instance", trial)
        again = server.post("/v1/records?format=eee_instance", trial)  # the client's retry
        settings = Settings(server.db_path, server.landing)
    assert first.status == 200 and first.body["results"][0]["status"] == "loaded", first.text
    assert again.status == 200 and again.body["results"][0]["status"] == "duplicate", again.text

    log = io.StringIO()
    assert rebuild(settings, out=log), log.getvalue()  # a fresh warehouse from the landing files

    with duckdb.connect(str(settings.db_path), read_only=True) as con:
        trials = con.execute("select count(*) from marts.fct_trials where sample_id = ?", [trial["sample_id"]])
        assert trials.fetchall() == [(1,)]
