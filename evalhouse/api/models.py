"""The API's answers as typed models: what the OpenAPI description shows and what every response holds."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

RecordStatus = Literal["loaded", "duplicate", "pending", "quarantined", "rejected", "not_saved"]


class RecordResult(BaseModel):
    """What became of one posted record."""

    index: int = Field(description="The record's place in the posted array, from 0 (0 for a single object).")
    id: str | None = Field(None, description="Its id (eval_id, CogniBench evaluation_id) when the format has one.")
    status: RecordStatus = Field(description=(
        "loaded: in the warehouse's working copy (readers see it after the next `evalhouse build`); duplicate: the "
        "same record (same id and content, or the same bytes for a format without ids) was posted or loaded before, "
        "so it is not loaded again; a record the landing file holds already is not appended again, and `line` is "
        "the line holding it; pending: saved in the landing file, loaded by the "
        "next ingest; quarantined: saved, but refused at load (error_kind conflict: its id was loaded before with "
        "other content); rejected: fails its schema, not saved; not_saved: valid, but another record of the "
        "request was rejected, so nothing was saved."))
    line: int | None = Field(None, description="Its line in the landing file, when saved (for a record the file held "
                                               "already, that earlier line).")
    error_kind: str | None = Field(None, description="Why it was rejected or quarantined: the ingester's error kind "
                                                     "(schema, duplicate_key, header_conflict, conflict, ...).")
    pointer: str | None = Field(None, description="JSON pointer of the failing part, within the record.")
    message: str | None = Field(None, description="What is wrong and what to do.")


class SubmissionResponse(BaseModel):
    status: Literal["loaded", "saved", "conflict", "rejected"] = Field(description=(
        "loaded (200): every record saved and loaded (or a duplicate of one loaded before); saved (202): saved in "
        "the landing file, loaded at the next ingest; conflict (409): saved, but some were refused at load, see "
        "results; rejected (422): some records fail their schema, and nothing was saved."))
    format: str
    received: int
    saved: int = Field(description="Records held in the landing file once this request was answered: appended now, "
                                   "or held already from an earlier post (0 when rejected).")
    appended: int = Field(description="Lines this request appended to the landing file: a record the file holds "
                                      "already (a repeated post) is not appended again.")
    rejected: int
    landing_file: str | None = Field(None, description="Where the records were appended, relative to the landing "
                                                       "folder.")
    request_id: str = Field(description="This request's id, as the lineage file records it.")
    message: str
    results: list[RecordResult]


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    formats: list[str] = Field(description="What POST /v1/records?format= takes.")
    max_body_bytes: int
    max_records: int
    accepts_writes: bool = Field(description="False when no API key is configured: every POST answers 401.")
    loads: bool = Field(description="False when the server only saves to the landing folder (--no-load).")


class SchemaEntry(BaseModel):
    name: str
    title: str
    versions: list[str]
    latest: str
    url: str
