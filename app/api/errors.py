"""HTTP handlers: every error, expected or not, answers {code, message, detail}; the status
comes from `app.errors` by class."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, JsonValue
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.errors import DatabaseUnavailableError, ErrorBody, error_body, http_status, internal
from app.schemas.requests import did_you_mean, error_text, model_in, plain, readable_loc
from models.errors import RwaoptError

log = logging.getLogger("rwaopt.api")
DESCRIPTIONS = {
    400: "invalid input: the message says what to change",
    401: "no API key or an unknown one: send yours in X-API-Key",
    403: "this API key may not do this (read-only)",
    429: "too many jobs queued: retry after Retry-After seconds",
    404: "unknown plan, algorithm or collective",
    408: "the request body arrived too slowly",
    409: "the plan is not done yet",
    413: "beyond a limit: the request body's size (RWAOPT_MAX_BODY_BYTES), the chosen "
    "method's model size, the memory one solve may use (RWAOPT_SOLVE_MEMORY_MB, estimated up "
    "front) or the time it may take (RWAOPT_MAX_SOLVE_S); the message says which and what "
    "fits",
    422: "the request does not match the schema",
    503: "the database, the job queue or a solver process is unavailable or busy; retry "
    "(after Retry-After seconds when given), or ask for less",
}


# Response bodies that are not JSON, as OpenAPI schemas (so generated clients read them).
BINARY: dict[str, Any] = {"schema": {"type": "string", "format": "binary"}}
TEXT: dict[str, Any] = {"schema": {"type": "string"}}


def responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses an operation can answer, all as {code, message,
    detail}; listing 422 replaces FastAPI's default validation-error schema, which our handler
    does not use."""
    every = sorted({401, 403, *codes})  # the API-key check guards every /api/v1 operation
    return {
        code: {
            "model": ErrorBody,
            "description": DESCRIPTIONS[code],
            "content": {"application/json": {"example": EXAMPLES[code]}},
        }
        for code in every
    }


# One answer of each status, as the service writes it (the messages are the code's own),
# so the document's error examples are not all the 404 of the ErrorBody schema.
EXAMPLES: dict[int, dict[str, Any]] = {
    400: {"code": "invalid_input",
          "message": "parameters given for hring, which is not among the algorithms"},
    401: {"code": "unauthorized",
          "message": "this server needs an API key: send it in the X-API-Key header"},
    403: {"code": "forbidden",
          "message": "this API key is read-only (':read'); use a key that may write"},
    404: {"code": "not_found",
          "message": "no plan 'no-such-plan'; GET /api/v1/plans lists the stored plans"},
    408: {"code": "body_timeout", "message": "no body data for 30 s"},
    409: {"code": "not_ready", "detail": {"status": "running"},
          "message": "plan 0b7c... is running; its lightpaths and plots exist once it is done"},
    413: {"code": "limit_exceeded",
          "message": "the solve ran past its limit of 3600 s (RWAOPT_MAX_SOLVE_S) and was "
          "ended; ask for less: a smaller ring, fewer algorithms, a shorter time_limit_s or "
          "search_budget_s"},
    422: {"code": "invalid_input",
          "message": "message_sizes_bytes.0: a message is a whole number of bytes, not 1.5: "
          "give 1 or 2"},
    429: {"code": "queue_full", "detail": {"retry_after_s": 30, "queued": 64},
          "message": "64 jobs are queued or running and this adds 1; at most 64 "
          "(RWAOPT_MAX_QUEUED_JOBS): retry later"},
    503: {"code": "busy", "detail": {"retry_after_s": 5},
          "message": "all 2 solver processes are busy; retry in a little while"},
}  # fmt: skip


def _allowed(app: FastAPI, path: str) -> list[str]:
    """The methods of every operation whose path template matches `path`, read off the
    OpenAPI document (routers nest, so the document is the one flat list of operations), and
    HEAD where GET is one."""
    methods: set[str] = set()
    for template, operations in app.openapi()["paths"].items():
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, path):
            methods |= {m.upper() for m in operations if m != "parameters"}
    if "GET" in methods:
        methods.add("HEAD")  # answered as GET without the body (app.api.limits.HeadAsGet)
    return sorted(methods)


class ErrorResponse(JSONResponse):
    """An error body that always encodes: text a client sent may hold a lone surrogate,
    which UTF-8 cannot encode; then it goes out escaped (ASCII JSON), not as a 500."""

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except UnicodeEncodeError:
            return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode()


def answer(error: RwaoptError) -> JSONResponse:
    """The error's body and status; `detail.retry_after_s` also becomes Retry-After."""
    headers = {}
    retry = error.detail.get("retry_after_s")
    if isinstance(retry, int | float):
        headers["Retry-After"] = str(max(1, round(retry)))
    return ErrorResponse(
        error_body(error).model_dump(mode="json"), status_code=http_status(error), headers=headers
    )


def install(app: FastAPI) -> None:
    @app.exception_handler(RwaoptError)
    async def rwaopt_error(_: Request, error: RwaoptError) -> JSONResponse:
        return answer(error)

    @app.exception_handler(SQLAlchemyError)
    async def database_error(request: Request, error: SQLAlchemyError) -> JSONResponse:
        """The database went away (or refused): 503 in the error format, the cause logged."""
        log.error("database error on %s %s: %s", request.method, request.url.path, error)
        return answer(
            DatabaseUnavailableError(
                "the database does not answer; retry in a little while", {"retry_after_s": 5}
            )
        )

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        """A bug: still the error format (500), the exception named, the traceback logged
        (never sent)."""
        log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=error)
        return answer(internal(error))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        """Routing and body-parsing errors in the same {code, message, detail} shape. A 405
        lists every method of the resource in Allow (RFC 9110), not only those of the first
        route whose path matched."""
        headers = dict(error.headers or {})
        if error.status_code == 400 and error.detail == "There was an error parsing the body":
            # FastAPI's answer when reading the JSON raised something other than a decode
            # error (a 200000-deep array was a 400 'http_400'); said like every other body
            # that cannot be read, with its cause
            return ErrorResponse(
                ErrorBody(
                    code="invalid_input",
                    message=f"body: not valid JSON here: {_unreadable(error.__cause__)}",
                    detail={"errors": [{"loc": ["body"], "msg": "unreadable"}]},
                ).model_dump(),
                status_code=422,
            )
        if error.status_code == 405:
            headers["Allow"] = ", ".join(_allowed(app, request.url.path))
        message = str(error.detail)
        if error.status_code == 404 and message == "Not Found":
            message = f"no resource at {request.url.path}; the API is under /api/v1 (see /docs)"
        body = ErrorBody(code=f"http_{error.status_code}", message=message)
        return JSONResponse(body.model_dump(), status_code=error.status_code, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
        errors = [_body_error(request, error, e) for e in error.errors()]
        first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
        where = ".".join(x for x in readable_loc(first["loc"]) if x != "body") or "body"
        # a field that takes one of several kinds (max_lightpath_hops: a number or
        # 'loss_budget') fails once per kind at the same place: the message names them all
        place = readable_loc(first["loc"])
        alike = [e for e in errors if readable_loc(e["loc"]) == place]
        said = list(dict.fromkeys(error_text(e) for e in alike or [first]))
        kinds = union_kinds(alike) if len(alike) > 1 else None
        if kinds is not None:  # "expected a number or 'loss_budget', not 'abc'"
            message = f"{where}: expected {' or '.join(kinds)}, not {_given(first)}"
        else:
            message = f"{where}: {'; or '.join(said)}"
        if first.get("type") == "extra_forbidden":  # "...; did you mean 'algorithms'?"
            try:  # a hint only: never a 500 for it
                model = _body_model(request)
                if model is not None:
                    message += did_you_mean(model, first["loc"])
            except Exception:
                log.exception("no field suggestion for %s", first["loc"])
        missing = [e for e in errors if e.get("type") == "missing"]
        if first.get("type") == "missing" and len(missing) > 1:
            # `{}` lacks ring and collective: name every field to add, not the first only
            places = [".".join(x for x in readable_loc(e["loc"]) if x != "body") for e in missing]
            message = f"required, not given: {', '.join(dict.fromkeys(places))}"
        body = ErrorBody(
            code="invalid_input",
            message=message,
            detail={
                "errors": [
                    {"loc": list[JsonValue](readable_loc(e["loc"])), "msg": error_text(e)}
                    for e in errors
                ]
            },
        )
        return ErrorResponse(body.model_dump(), status_code=422)


def _body_model(request: Request) -> type[BaseModel] | None:
    """The pydantic model of the matched route's body, if it has one."""
    body = getattr(request.scope.get("route"), "body_field", None)
    if body is None:
        return None
    return model_in(getattr(body, "type_", None) or body.field_info.annotation)


def _unreadable(cause: BaseException | None) -> str:
    """Why FastAPI could not read a body as JSON, for people."""
    if isinstance(cause, RecursionError):
        return "arrays and objects nested too deeply to read (a request nests a few levels)"
    if isinstance(cause, UnicodeDecodeError):
        return f"not UTF-8 (byte {cause.start}: {cause.reason}); send the body as UTF-8"
    return "it could not be read; send one JSON object"


# what a value of each pydantic error type was expected to be, said as a client writes it
_KIND = {
    "int_type": "a number", "int_parsing": "a number", "int_from_float": "a whole number",
    "float_type": "a number", "float_parsing": "a number", "list_type": "a list",
    "dict_type": "an object", "model_type": "an object", "model_attributes_type": "an object",
    "string_type": "a string",
}  # fmt: skip


def union_kinds(alike: list[dict[str, Any]]) -> list[str] | None:
    """The kinds of value a field that takes one of several accepts, one per failed
    alternative (max_lightpath_hops: a number or 'loss_budget'), or None when some
    alternative failed for a reason other than its kind (then each reason is said)."""
    kinds = []
    for e in alike:
        kind = _KIND.get(str(e.get("type")))
        if e.get("type") in ("literal_error", "enum"):
            kind = plain(str((e.get("ctx") or {}).get("expected", ""))) or None
        elif e.get("type") == "value_error" and "a number is needed here" in str(e["msg"]):
            kind = "a number"  # `_no_bool`'s refusal of true/false and of strings
        if kind is None:
            return None
        kinds.append(kind)
    return list(dict.fromkeys(kinds))


def _given(error: dict[str, Any]) -> str:
    """The value a client sent, as JSON writes it, cut to 60 characters."""
    try:
        text = json.dumps(error.get("input"), ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(error.get("input"))
    return text if len(text) <= 60 else text[:57] + "..."


# pydantic's error types for "not an object" where a model (the request body) is meant
NOT_AN_OBJECT = {"model_attributes_type", "model_type", "dict_type"}


def _body_error(
    request: Request, error: RequestValidationError, item: dict[str, Any]
) -> dict[str, Any]:
    """A validation error about the request body as a whole, said in HTTP's terms: a body
    that is not JSON (FastAPI: "JSON decode error" at a character offset) says so and where,
    by line and column; a body sent without `Content-Type: application/json` (plain
    `curl -d`), which FastAPI hands on as bytes, says to send that header; a missing body
    says a JSON object is needed. Any other error is as pydantic gives it."""
    loc = tuple(item.get("loc", ()))
    if item.get("type") == "json_invalid" and loc[:1] == ("body",):
        reason = str((item.get("ctx") or {}).get("error", "")) or "it does not parse"
        position = loc[1] if len(loc) > 1 and isinstance(loc[1], int) else None
        text = error.body if isinstance(error.body, str) else None
        if position is not None and text is not None:
            line = text.count("\n", 0, position) + 1
            column = position - text.rfind("\n", 0, position)
            reason += f" at line {line} column {column}"
        return {
            "type": "json_invalid",
            "loc": ("body",),
            "msg": f"not valid JSON: {reason}",
        }
    if loc != ("body",):
        return item
    if item.get("type") in NOT_AN_OBJECT and isinstance(item.get("input"), bytes):
        # FastAPI parses a body as JSON only under a JSON content type; else it passes bytes
        content_type = request.headers.get("content-type", "")
        sent = f"with Content-Type {content_type[:80]!r}" if content_type else "without one"
        return {
            "type": "content_type",
            "loc": loc,
            "msg": "send it as JSON, with the header Content-Type: application/json "
            f"(it came {sent})",
        }
    if item.get("type") in NOT_AN_OBJECT | {"missing"}:
        return {"type": item["type"], "loc": loc, "msg": "a JSON object is needed as the body"}
    return item
