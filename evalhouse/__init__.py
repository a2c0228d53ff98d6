"""evalhouse: a warehouse for LLM eval results. The `evalhouse` command (cli.py) drives ingest, dbt build,
the report and the app; each lives in its own module."""
