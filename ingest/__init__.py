"""evalhouse's ingester: reads eval records from files, validates each against the published schema of its
format and version, and loads accepted records into `raw.<format>` and rejected ones into `raw.quarantine`.

Entry point for code: `ingest.pipeline.ingest_paths`; for people: `evalhouse ingest` (ingest/cli.py).
"""
