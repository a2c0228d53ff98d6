"""The API over real HTTP on loopback: posts that load, posts refused with the pointer of the failing part, keys,
limits, the rater headers, the other line formats, the schemas, the OpenAPI description, and answers that are
JSON whatever happens."""

from __future__ import annotations

import csv
import hashlib
import json

import duckdb
import pytest

from evalhouse import operations
from evalhouse.api.auth import key_hash_name
from evalhouse.build import BuildResult
from evalhouse.lock import writer_lock
from evalhouse.publish import working_copy
from evalhouse.settings import Settings
from tests.api.conftest import BARE_KEY, KEY, MAX_BODY_BYTES, MAX_RECORDS, api_server
from tests.conftest import cognibench_record, eval_form_record, instance_record, write_lines

pytestmark = pytest.mark.slow


def _raw(server, sql: str, params=()) -> list[tuple]:
    with duckdb.connect(str(working_copy(server.db_path)), read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


def _judge_form(**changes):
    return eval_form_record(rater={"type": "llm_judge", "id": "claude-sonnet-4-6#p3a9f", "model": "claude-sonnet-4-6"},
                            **changes)


# -- valid posts ---------------------------------------------------------------------------------------------------

def test_a_valid_eval_form_is_saved_whole_loaded_and_its_lineage_names_the_key_not_the_key_itself(server):
    record = _judge_form()
    answer = server.post("/v1/evals", record)

    assert answer.status == 200, answer.text
    assert answer.body["status"] == "loaded" and answer.body["saved"] == 1
    result = answer.body["results"][0]
    assert result["status"] == "loaded" and result["id"] == record["eval_id"]
    landing_file = server.landing / answer.body["landing_file"]
    line = landing_file.read_bytes().splitlines()[result["line"] - 1]
    assert json.loads(line) == record  # no field added: the record is what was posted
    assert _raw(server, "select source_line, record_sha256 from raw.eval_form where natural_key = ?",
                [record["eval_id"]]) == [(result["line"], hashlib.sha256(line).hexdigest())]

    lineage = list(csv.DictReader(landing_file.with_name(landing_file.name.replace(".jsonl", ".lineage.csv")).open()))
    row = next(r for r in lineage if r["record_key"] == record["eval_id"])
    assert row["key_name"] == "judge-a" and row["line"] == str(result["line"])
    assert row["record_sha256"] == hashlib.sha256(line).hexdigest()
    assert row["request_id"] == answer.body["request_id"] and row["remote"] == "127.0.0.1"
    assert KEY not in landing_file.with_name(landing_file.name.replace(".jsonl", ".lineage.csv")).read_text()


def test_a_bare_key_is_named_by_its_hash_in_the_lineage(server):
    record = _judge_form()
    answer = server.post("/v1/evals", [record], key=BARE_KEY)
    assert answer.status == 200, answer.text
    lineage = next(server.api_folder.glob("eval_form_*.lineage.csv")).read_text()
    assert f"{record['eval_id']},eval_form," in lineage
    assert key_hash_name(BARE_KEY) in lineage and BARE_KEY not in lineage


def test_the_rater_headers_fill_the_rater_the_body_leaves_out(server):
    record = eval_form_record()
    del record["rater"]
    answer = server.post("/v1/evals", record,
                         headers={"X-Rater-Type": "llm_judge", "X-Rater-Model": "claude-sonnet-4-6"})
    assert answer.status == 200, answer.text
    stored = json.loads(server.landing_lines()[answer.body["results"][0]["line"] - 1])
    assert stored["rater"] == {"type": "llm_judge", "model": "claude-sonnet-4-6"}


def test_headers_that_agree_with_the_body_are_fine_and_a_conflict_is_refused_naming_both_values(server):
    agreeing = _judge_form()
    answer = server.post("/v1/evals", agreeing, headers={"X-Rater-Type": "llm_judge"})
    assert answer.status == 200, answer.text

    before = len(server.landing_lines())
    answer = server.post("/v1/evals", _judge_form(), headers={"X-Rater-Type": "human"})
    assert answer.status == 422
    result = answer.body["results"][0]
    assert result["status"] == "rejected" and result["error_kind"] == "header_conflict"
    assert result["pointer"] == "/rater/type"
    assert '"llm_judge"' in result["message"] and '"human"' in result["message"]
    answer = server.post("/v1/evals", _judge_form(), headers={"X-Rater-Model": "gpt-4.1"})
    assert answer.status == 422 and answer.body["results"][0]["pointer"] == "/rater/model"
    assert len(server.landing_lines()) == before


def test_posting_the_same_record_again_is_a_duplicate_and_reusing_its_id_is_a_conflict(server):
    record = _judge_form()
    first = server.post("/v1/evals", record)
    assert first.status == 200
    lines = len(server.landing_lines())
    again = server.post("/v1/evals", record)
    assert again.status == 200 and again.body["results"][0]["status"] == "duplicate"
    assert again.body["results"][0]["line"] == first.body["results"][0]["line"]
    assert again.body["appended"] == 0 and len(server.landing_lines()) == lines  # not appended again

    changed = {**record, "issue_tags": ["verbosity"]}
    answer = server.post("/v1/evals", changed)
    assert answer.status == 409, answer.text
    result = answer.body["results"][0]
    assert result["status"] == "quarantined" and result["error_kind"] == "conflict" and result["pointer"] == "/eval_id"
    retried = server.post("/v1/evals", changed)  # the conflict is still answered: the client must change the id
    assert retried.status == 409 and retried.body["appended"] == 0, retried.text
    repeated = retried.body["results"][0]
    assert (repeated["error_kind"], repeated["line"]) == ("conflict", result["line"])
    assert _raw(server, "select count(*) from raw.eval_form where natural_key = ?", [record["eval_id"]]) == [(1,)]
    landing_file = str((server.landing / answer.body["landing_file"]).resolve())
    assert _raw(server, "select count(*) from raw.quarantine where source_path = ? and source_line = ?",
                [landing_file, result["line"]]) == [(1,)]  # one refusal: the retry added no second line to refuse


def test_the_other_line_formats_are_posted_with_their_format(server):
    instance = instance_record(sample_id="api-0001")
    answer = server.post("/v1/records?format=eee_instance", [instance, instance_record(sample_id="api-0002")])
    assert answer.status == 200, answer.text
    assert [r["status"] for r in answer.body["results"]] == ["loaded", "loaded"]
    assert (server.api_folder / answer.body["landing_file"].removeprefix("api/")).name.startswith("eee_instance_")

    lines = server.landing_lines("eee_instance")
    again = server.post("/v1/records?format=eee_instance", instance)  # no id: the same bytes are the same record
    assert again.status == 200 and again.body["results"][0]["status"] == "duplicate", again.text
    assert again.body["results"][0]["line"] == answer.body["results"][0]["line"]
    assert again.body["results"][0]["message"].startswith(
        f"the same record is line {answer.body['results'][0]['line']} of the landing file, saved by an earlier post")
    assert server.landing_lines("eee_instance") == lines  # a rebuild loads the file whole: one line, one trial
    assert _raw(server, "select count(*) from raw.eee_instance") == [(2,)]

    judged = cognibench_record()
    answer = server.post("/v1/records?format=cognibench", judged)
    assert answer.status == 200 and answer.body["results"][0]["id"] == judged["evaluation_id"]
    loaded = _raw(server, "select count(*) from raw.cognibench where natural_key = ?", [judged["evaluation_id"]])
    assert loaded == [(1,)]


# -- refused posts -------------------------------------------------------------------------------------------------

def test_a_batch_with_one_invalid_record_saves_nothing_and_says_which_and_why(server):
    good = _judge_form()
    bad = _judge_form()
    bad["universal"]["helpfulness"] = {"score": 2, "confidence": "high"}
    before = len(server.landing_lines())

    answer = server.post("/v1/evals", [good, bad])

    assert answer.status == 422
    assert answer.body["status"] == "rejected" and answer.body["saved"] == 0 and answer.body["rejected"] == 1
    first, second = answer.body["results"]
    assert first["status"] == "not_saved"
    assert second["status"] == "rejected" and second["index"] == 1 and second["error_kind"] == "schema"
    assert second["pointer"] == "/universal/helpfulness/rationale"
    assert "rationale" in second["message"] and "Traceback" not in answer.text
    assert len(server.landing_lines()) == before


@pytest.mark.parametrize("change, pointer", [
    (lambda r: r.update(eval_id="not-a-uuid"), "/eval_id"),
    (lambda r: r.update(created_at="yesterday"), "/created_at"),
    (lambda r: r["universal"].update(helpfulness={"score": 7, "confidence": "high"}), "/universal/helpfulness/score"),
    (lambda r: r.update(safety={"hazards": {"privacy": {"verdict": "violating"}}, "is_violating_any": True}),
     "/safety/hazards/privacy/severity"),
    (lambda r: r.update(extra_field=1), "/extra_field"),
])
def test_the_api_refuses_exactly_what_ingest_strict_quarantines_with_the_same_pointer(server, warehouse, tmp_path,
                                                                                        change, pointer):
    record = _judge_form()
    change(record)
    answer = server.post("/v1/evals", record)
    assert answer.status == 422 and answer.body["results"][0]["pointer"] == pointer

    (tmp_path / "same.jsonl").write_text(json.dumps(record) + "\n")
    warehouse.ingest(tmp_path / "same.jsonl", strict=True, forced_format="eval_form", workers=0)
    quarantined = warehouse.quarantine()
    assert [q["error_pointer"] for q in quarantined] == [pointer]
    assert quarantined[0]["error_message"] == answer.body["results"][0]["message"]


def test_a_body_that_is_not_json_is_a_400_and_a_duplicate_key_a_422_with_its_pointer(server):
    answer = server.post("/v1/evals", b'{"eval_id": "x", ')
    assert answer.status == 400 and answer.body["error"]["code"] == "invalid_json"
    assert "post it again" in answer.body["error"]["message"] and "file" not in answer.body["error"]["message"]
    answer = server.post("/v1/evals", b'{"eval_id": NaN}')
    assert answer.status == 400 and answer.body["error"]["code"] == "non_finite_number"
    assert answer.body["error"]["message"].endswith("post it again (JSON pointer /eval_id)")
    answer = server.post("/v1/evals", b"[]")
    assert answer.status == 400 and answer.body["error"]["code"] == "no_records"
    lines = (json.dumps(_judge_form()) + "\n" + json.dumps(_judge_form()) + "\n").encode()  # JSON Lines, not JSON
    answer = server.post("/v1/evals", lines)
    assert answer.status == 400 and answer.body["error"]["code"] == "invalid_json"
    assert answer.body["error"]["message"] == ("the body is not JSON: the body holds one JSON value per line (JSON "
                                               "Lines): post one record, or a JSON array of records")

    record = json.dumps(_judge_form())
    duplicated = b"[" + record.encode() + b", " + record[:-1].encode() + b', "issue_tags": [], "issue_tags": []}]'
    answer = server.post("/v1/evals", duplicated)
    assert answer.status == 422
    assert [r["status"] for r in answer.body["results"]] == ["not_saved", "rejected"]
    assert answer.body["results"][1]["error_kind"] == "duplicate_key"
    assert answer.body["results"][1]["pointer"] == "/issue_tags"


def test_rater_headers_are_refused_on_formats_without_a_rater(server):
    answer = server.post("/v1/records?format=eee_instance", instance_record(), headers={"X-Rater-Type": "human"})
    assert answer.status == 400 and answer.body["error"]["code"] == "rater_headers_not_applicable"


def test_an_unknown_format_is_refused_naming_the_ones_there_are(server):
    answer = server.post("/v1/records?format=csv", instance_record())
    assert answer.status == 422 and answer.body["error"]["code"] == "invalid_request"
    assert "eee_instance" in answer.body["error"]["message"]


# -- keys ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("key, headers, code", [
    (None, {}, "missing_key"),
    ("not-one-of-the-keys-at-all", {}, "invalid_key"),
    (None, {"Authorization": f"Basic {KEY}"}, "missing_key"),
    (KEY + "x", {}, "invalid_key"),
])
def test_a_write_without_a_valid_key_is_refused_with_401(server, key, headers, code):
    before = len(server.landing_lines())
    answer = server.post("/v1/evals", _judge_form(), key=key, headers=headers)
    assert answer.status == 401 and answer.body["error"]["code"] == code
    assert answer.headers.get("www-authenticate") == "Bearer"
    answer = server.post("/v1/records?format=eee_instance", instance_record(), key=key, headers=headers)
    assert answer.status == 401
    assert len(server.landing_lines()) == before


def test_health_and_schemas_need_no_key(server):
    health = server.get("/v1/health")
    assert health.status == 200
    assert health.body["status"] == "ok" and health.body["accepts_writes"] is True
    assert health.body["max_body_bytes"] == MAX_BODY_BYTES and health.body["max_records"] == MAX_RECORDS

    listed = server.get("/v1/schemas")
    assert listed.status == 200 and {"eval_form", "eee_instance", "cognibench"} <= {s["name"] for s in listed.body}
    schema = server.get("/v1/schemas/eval_form")
    assert schema.status == 200 and schema.body["title"] == "AIF Eval Form v1"
    assert "x-bars-anchors" in schema.body["properties"]["universal"]["properties"]["helpfulness"]
    older = server.get("/v1/schemas/eee_instance?version=0.2.2")
    assert older.status == 200 and "0.2.2" in json.dumps(older.body)
    assert server.get("/v1/schemas/nope").status == 404
    assert server.get("/v1/schemas/eval_form?version=9").body["error"]["code"] == "unknown_version"


# -- limits --------------------------------------------------------------------------------------------------------

def _padded(size: int) -> bytes:
    record = json.dumps(_judge_form()).encode()
    return record[:-1] + b', "pad": "' + b"x" * size + b'"}'


def test_an_oversized_body_is_refused_with_413_whether_its_length_is_declared_or_not(server):
    body = _padded(MAX_BODY_BYTES + 10_000)
    declared = server.post("/v1/evals", body)
    assert declared.status == 413 and declared.body["error"]["code"] == "body_too_large"
    assert "EVALHOUSE_API_MAX_BODY_BYTES" in declared.body["error"]["message"]

    chunks = [body[i:i + 16_384] for i in range(0, len(body), 16_384)]
    streamed = server.post("/v1/evals", chunks)
    assert streamed.status == 413 and "arrived" in streamed.body["error"]["message"]


def test_too_many_records_in_one_request_is_a_413(server):
    answer = server.post("/v1/evals", [_judge_form() for _ in range(MAX_RECORDS + 1)])
    assert answer.status == 413 and answer.body["error"]["code"] == "too_many_records"


def test_a_body_at_the_limit_is_read_whole(server):
    records = [_judge_form() for _ in range(MAX_RECORDS)]
    answer = server.post("/v1/evals", records)
    assert answer.status == 200, answer.text
    assert answer.body["saved"] == MAX_RECORDS


# -- the warehouse busy, and answers that stay JSON ----------------------------------------------------------------

def test_while_another_writer_holds_the_warehouse_records_are_kept_and_load_with_the_next_post(server):
    first = _judge_form()
    with writer_lock(server.db_path, "a build in a test"):
        answer = server.post("/v1/evals", first)
    assert answer.status == 202, answer.text
    assert answer.body["status"] == "saved" and answer.body["results"][0]["status"] == "pending"
    assert first["eval_id"].encode() in b"\n".join(server.landing_lines())

    second = server.post("/v1/evals", _judge_form())
    assert second.status == 200
    assert _raw(server, "select count(*) from raw.eval_form where natural_key = ?", [first["eval_id"]]) == [(1,)]


def test_unknown_paths_and_methods_answer_json(server):
    missing = server.get("/v2/evals")
    assert missing.status == 404 and missing.body["error"]["code"] == "not_found"
    wrong = server.request("GET", "/v1/evals")
    assert wrong.status == 405 and wrong.body["error"]["code"] == "method_not_allowed"


def test_the_openapi_description_covers_every_route_with_bearer_auth(server):
    spec = server.get("/openapi.json").body
    assert {"/v1/evals", "/v1/records", "/v1/schemas/{name}", "/v1/health"} <= set(spec["paths"])
    post = spec["paths"]["/v1/evals"]["post"]
    assert post["security"] == [{"HTTPBearer": []}]
    assert {"200", "202", "401", "409", "413", "422"} <= set(post["responses"])
    assert {p["name"] for p in post["parameters"]} == {"X-Rater-Type", "X-Rater-Model"}
    body = post["requestBody"]["content"]["application/json"]["schema"]["oneOf"]
    assert body[0] == {"$ref": "/v1/schemas/eval_form"}
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"


def test_a_server_without_keys_refuses_every_write_and_says_why(tmp_path):
    with api_server(tmp_path, env={"EVALHOUSE_API_KEYS": ""}) as bare:
        assert bare.get("/v1/health").body["accepts_writes"] is False
        answer = bare.post("/v1/evals", _judge_form())
        assert answer.status == 401 and answer.body["error"]["code"] == "no_keys_configured"
        assert not bare.api_folder.exists()


def test_with_no_load_records_are_saved_for_the_next_ingest(tmp_path):
    with api_server(tmp_path, "--no-load") as saving:
        answer = saving.post("/v1/evals", _judge_form())
        assert answer.status == 202 and answer.body["results"][0]["status"] == "pending"
        assert len(saving.landing_lines()) == 1
        assert not working_copy(saving.db_path).exists()


def test_posts_to_the_demos_warehouse_are_saved_in_the_demos_folder_and_to_a_teams_in_the_landing_folder(
        tmp_path, monkeypatch):
    settings = Settings(tmp_path / "warehouse" / "evalhouse.duckdb", tmp_path / "landing")
    # The manifest decides, not the marts: the builds here publish the raw tables without running dbt.
    monkeypatch.setattr(operations, "build_warehouse", lambda work: BuildResult(True, (), ()))
    operations.ingest(settings, [write_lines(settings.landing / "demo" / "eee" / "sample.jsonl", [instance_record()])])
    assert operations.build(settings).ok
    with api_server(tmp_path, landing=settings.landing, db_path=settings.db_path) as running:
        answer = running.post("/v1/evals", _judge_form())
        assert answer.status == 200 and answer.body["status"] == "loaded", answer.text
        assert answer.body["landing_file"].startswith("demo/api/eval_form_")
        assert operations.files_not_from_the_demo(settings) == []  # the next `evalhouse demo` is not refused

        # Asked per post: once the warehouse holds a team's file too, posts go to the landing folder's api/.
        operations.ingest(settings, [write_lines(tmp_path / "team" / "results.jsonl",
                                                 [instance_record(model_id="team/model-a")])])
        assert operations.build(settings).ok
        answer = running.post("/v1/evals", _judge_form())
        assert answer.status == 200 and answer.body["landing_file"].startswith("api/eval_form_"), answer.text
        assert len(running.landing_lines()) == 1
