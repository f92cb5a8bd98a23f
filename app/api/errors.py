"""The one place where rwaopt's exception tree becomes HTTP responses: {code, message, detail}."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from models.errors import (
    AlgorithmRefusedError,
    LimitExceededError,
    NotFoundError,
    NotReadyError,
    RwaoptError,
    UnknownAlgorithmError,
)

STATUS: dict[type[RwaoptError], int] = {
    NotFoundError: 404,
    NotReadyError: 409,
    UnknownAlgorithmError: 404,
    AlgorithmRefusedError: 422,
    LimitExceededError: 413,
}


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
