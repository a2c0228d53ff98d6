"""Every answer is JSON, errors included: `{"error": {"code", "message", "error_id"}}`, never a stack trace.

An unexpected exception answers 500 with an error id; the trace goes to the server's log under the same id, so a
client can quote it and an operator can find it.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

LOG = logging.getLogger("evalhouse.api")


class ErrorBody(BaseModel):
    code: str
    message: str
    error_id: str | None = None


class ErrorResponse(BaseModel):
    error: ErrorBody


class ApiError(Exception):
    """An answer other than success, with the status, a stable code and a message that says what to do."""

    def __init__(self, status: int, code: str, message: str, *, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = dict(headers or {})


def error_response(status: int, code: str, message: str, *, error_id: str | None = None,
                   headers: Mapping[str, str] | None = None) -> JSONResponse:
    body = ErrorResponse(error=ErrorBody(code=code, message=message, error_id=error_id))
    return JSONResponse(body.model_dump(mode="json"), status_code=status, headers=dict(headers or {}))


def install(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_exception_handler(Exception, _unexpected)


async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
    return error_response(exc.status, exc.code, exc.message, headers=exc.headers)


async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    codes = {404: "not_found", 405: "method_not_allowed"}
    message = {
        404: f"no such endpoint: {request.method} {request.url.path}; see /docs or /openapi.json",
        405: f"{request.method} is not allowed on {request.url.path}",
    }.get(exc.status_code, str(exc.detail))
    return error_response(exc.status_code, codes.get(exc.status_code, "http_error"), message,
                          headers=getattr(exc, "headers", None))


async def _invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    """A query parameter or header the route cannot take (the framework's check): which one, and why."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("query", "header", "path"))
        parts.append(f"{where}: {error.get('msg', 'invalid')}" if where else str(error.get("msg", "invalid")))
    return error_response(422, "invalid_request", "; ".join(parts) or "the request is not valid")


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    error_id = uuid.uuid4().hex[:12]
    LOG.error("error %s on %s %s", error_id, request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal_error",
                          f"evalhouse failed on this request; nothing was saved unless the response said so. "
                          f"Quote error id {error_id} when you report it.", error_id=error_id)
