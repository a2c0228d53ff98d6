"""The submission API (`evalhouse api`): LLM judges, scripts and other writers post eval records over HTTP; they are
validated by the ingester's schemas, appended to the landing folder and loaded into the warehouse.

  app.py       the app factory and its routes          auth.py     API keys, checked in constant time
  settings.py  host, port, keys, limits                limits.py   body size and records per request (413)
  records.py   body -> checked landing lines           writing.py  whole-line appends and their lineage
  loading.py   ingest of the landing file, read back   errors.py   every error as JSON
  models.py    the typed answers (OpenAPI)             server.py   uvicorn on localhost

docs/api.md is the user's guide.
"""
