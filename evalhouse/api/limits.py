"""How much one request may carry: the body's bytes, counted while the stream is read (a Content-Length may be
absent, as with chunked transfer, or wrong), and the number of records. Over either limit: 413 with a message
that names the limit and its setting.
"""

from __future__ import annotations

from fastapi import Request

from evalhouse.api.errors import ApiError
from evalhouse.api.settings import MAX_BODY_VARIABLE, MAX_RECORDS_VARIABLE


async def read_body(request: Request, max_bytes: int) -> bytes:
    """The whole body, or ApiError 413 as soon as it is known to be over `max_bytes` (nothing more is read)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise _too_large(max_bytes, f"Content-Length says {int(declared):,} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise _too_large(max_bytes, f"more than {max_bytes:,} bytes arrived")
        chunks.append(chunk)
    return b"".join(chunks)


def check_record_count(count: int, max_records: int) -> None:
    if count > max_records:
        raise ApiError(413, "too_many_records",
                       f"the request carries {count:,} records, over the limit of {max_records:,} per request "
                       f"({MAX_RECORDS_VARIABLE} or --max-records); send them in several requests")


def _too_large(max_bytes: int, found: str) -> ApiError:
    return ApiError(413, "body_too_large",
                    f"the request body is over the limit of {max_bytes:,} bytes ({found}; {MAX_BODY_VARIABLE} or "
                    "--max-body-bytes); send the records in several requests")
