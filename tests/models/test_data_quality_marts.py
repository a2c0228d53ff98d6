"""The data-quality marts: a refused line that a later ingest of the same bytes loaded is marked as loaded later."""

from __future__ import annotations

import json

from evalhouse.build import run_dbt
from tests.conftest import FIXTURES, LM_EVAL_SAMPLES, Warehouse, instance_record


def test_a_refused_line_loaded_by_a_later_run_is_marked_and_one_never_loaded_stays_null(tmp_path):
    """An lm-eval samples file ingested under another name has its ten lines refused; restored to its name, a later
    run loads them. A file refused under --strict loads without it, but for its line that is not JSON. The refusals
    stay in raw.quarantine; the mart says when and by which run each line was loaded, and NULL for the line no run
    loaded, though its file's other lines were."""
    warehouse = Warehouse(tmp_path / "w.duckdb")
    original = LM_EVAL_SAMPLES
    renamed = tmp_path / "run" / "math.jsonl"
    renamed.parent.mkdir()
    renamed.write_bytes(original.read_bytes())
    assert warehouse.ingest(renamed).quarantined == 10
    restored = renamed.rename(renamed.with_name(original.name))
    assert warehouse.ingest(restored).accepted == 10
    lm_eval_batch, lm_eval_at = warehouse.rows("select batch_id, ingested_at from raw.lm_eval_sample limit 1")[0]

    real = (FIXTURES / "every_eval_ever" / "ai2_arc_ollama_qwen2.5-0.5b_1761001924.jsonl").read_bytes()
    arc = tmp_path / "arc.jsonl"  # three real records that need null_as_absent, a line that is not JSON, a valid one
    arc.write_bytes(real + b"not json\n" + json.dumps(instance_record()).encode() + b"\n")
    assert (warehouse.ingest(arc, strict=True).quarantined, warehouse.ingest(arc).accepted) == (4, 3)
    arc_batch, arc_at = warehouse.rows("select batch_id, max(ingested_at) from raw.eee_instance group by 1 "
                                       "order by 2 desc limit 1")[0]

    select = ("build", "--select", "+fct_quarantined_lines")
    assert run_dbt(warehouse.path, select, target_path=tmp_path / "target", quiet=True).ok
    rows = warehouse.rows(
        "select source_path, source_line, loaded_later_at, loaded_later_batch_id, loaded_later_source_format "
        "from marts.fct_quarantined_lines order by source_path, source_line")
    assert warehouse.scalar("select count(*) from raw.quarantine") == len(rows) == 14  # the refusals are kept
    lm_eval = [row[2:] for row in rows if row[0] == str(renamed.resolve())]
    assert lm_eval == [(lm_eval_at, lm_eval_batch, "lm_eval_sample")] * 10
    assert [row[1:] for row in rows if row[0] == str(arc.resolve())] == [
        (1, arc_at, arc_batch, "eee_instance"), (2, arc_at, arc_batch, "eee_instance"),
        (3, arc_at, arc_batch, "eee_instance"), (4, None, None, None)]
