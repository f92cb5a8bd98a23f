"""The one place where rwaopt's exception tree becomes HTTP responses: {code, message, detail}."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.schemas import ErrorBody
from models.errors import (
    AlgorithmRefusedError,
    LimitExceededError,
    NotFoundError,
    NotReadyError,
    RwaoptError,
    UnavailableError,
    UnknownAlgorithmError,
)

STATUS: dict[type[RwaoptError], int] = {
    NotFoundError: 404,
    NotReadyError: 409,
    UnavailableError: 503,
    UnknownAlgorithmError: 404,
    AlgorithmRefusedError: 422,
    LimitExceededError: 413,
}


DESCRIPTIONS = {
    400: "invalid input: the message says what to change",
    404: "unknown plan, algorithm or collective",
    409: "the plan is not done yet",
    413: "beyond a size limit of the chosen method",
    422: "the request does not match the schema",
    503: "a solver process died or the job queue is unreachable; retry, or ask for less",
}


def responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses an operation can answer, all as {code, message,
    detail}; listing 422 replaces FastAPI's default validation-error schema, which our handler
    does not use."""
    return {code: {"model": ErrorBody, "description": DESCRIPTIONS[code]} for code in codes}


def _status(error: RwaoptError) -> int:
    for kind, status in STATUS.items():
        if isinstance(error, kind):
            return status
    return 400 if error.code != "dataflow_error" else 500


def install(app: FastAPI) -> None:
    @app.exception_handler(RwaoptError)
    async def rwaopt_error(_: Request, error: RwaoptError) -> JSONResponse:
        return JSONResponse(
            {"code": error.code, "message": error.message, "detail": error.detail},
            status_code=_status(error),
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        """Routing and body-parsing errors in the same {code, message, detail} shape. A 405
        lists every method of the resource in Allow (RFC 9110), not only those of the first
        route whose path matched."""
        headers = dict(error.headers or {})
        if error.status_code == 405:
            path = request.url.path
            methods = {
                m
                for route in app.routes
                if isinstance(route, APIRoute) and route.path_regex.match(path)
                for m in route.methods or ()
            }
            headers["Allow"] = ", ".join(sorted(methods))
        message = str(error.detail)
        if error.status_code == 404 and message == "Not Found":
            message = f"no resource at {request.url.path}; the API is under /api/v1 (see /docs)"
        return JSONResponse(
            {"code": f"http_{error.status_code}", "message": message, "detail": {}},
            status_code=error.status_code,
            headers=headers,
        )

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0] if error.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(x) for x in first["loc"] if x != "body") or "body"
        return JSONResponse(
            {
                "code": "invalid_input",
                "message": f"{where}: {first['msg']}",
                "detail": {
                    "errors": [
                        {"loc": [str(x) for x in e["loc"]], "msg": e["msg"]} for e in error.errors()
                    ]
                },
            },
            status_code=422,
        )
