"""The service's errors and the one place every rwaopt error becomes an answer: an HTTP status,
a CLI exit code and the `{code, message, detail}` body, chosen by class.

The domain errors (bad input, refused algorithms, limits, internal faults) are in
`models.errors`; the ones below exist only because there is a service: a plan that is not
stored, not solved yet, or a part of the service (solver process, job queue) that is down.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, JsonValue
from pydantic_core import to_jsonable_python

from models.errors import (
    AlgorithmRefusedError,
    InternalError,
    InvalidInputError,
    LimitExceededError,
    RwaoptError,
    UnknownAlgorithmError,
)


class ErrorBody(BaseModel):
    """Every error: a stable code, a message saying what to change, and details."""

    code: str
    message: str
    detail: dict[str, JsonValue] = Field(default_factory=dict)


class ServiceError(RwaoptError):
    """Not about the computation: about the stored plans and the parts that run them."""

    code = "service_error"


class NotFoundError(ServiceError):
    """A resource the caller named (e.g. a plan id) does not exist."""

    code = "not_found"


class NotReadyError(ServiceError):
    """The resource exists but is not finished yet (e.g. a queued plan has no lightpaths)."""

    code = "not_ready"


class UnavailableError(ServiceError):
    """A part the service needs (a solver process, the job queue) is not working right now;
    not the caller's fault, retrying may work."""

    code = "unavailable"


class SolverCrashedError(UnavailableError):
    """A solver process died (retrying with less may work)."""

    code = "solver_crashed"


class WorkerFailedError(UnavailableError):
    """The worker solving a queued plan stopped (timeout, killed, or a crash past the job)."""

    code = "worker_failed"


class UnauthorizedError(ServiceError):
    """No API key, or one the server does not know (RWAOPT_API_KEYS)."""

    code = "unauthorized"


class ForbiddenError(ServiceError):
    """A known key that may not do this (a read-only key writing)."""

    code = "forbidden"


class QueueFullError(ServiceError):
    """Too many jobs queued already; retry after `detail.retry_after_s`."""

    code = "queue_full"


class DatabaseUnavailableError(UnavailableError):
    """The database does not answer."""

    code = "database_unavailable"


class SolverBusyError(UnavailableError):
    """Every solver process is busy and the call could not wait longer for one."""

    code = "busy"


class ShuttingDownError(UnavailableError):
    """The server received SIGTERM while the call waited for its solve."""

    code = "shutting_down"


class JobCancelledError(ServiceError):
    """The job was cancelled (a sweep's DELETE) while it ran."""

    code = "cancelled"


# Most specific first: the first class an error is an instance of decides.
ANSWERS: tuple[tuple[type[RwaoptError], int, int], ...] = (
    # (class, HTTP status, CLI exit code)
    (UnauthorizedError, 401, 2),
    (ForbiddenError, 403, 2),
    (QueueFullError, 429, 3),
    (NotFoundError, 404, 2),
    (NotReadyError, 409, 2),
    (JobCancelledError, 409, 2),
    (UnavailableError, 503, 3),
    (UnknownAlgorithmError, 404, 2),
    (AlgorithmRefusedError, 422, 2),
    (LimitExceededError, 413, 2),
    (InvalidInputError, 400, 2),
    (InternalError, 500, 1),
    (RwaoptError, 500, 1),
)


def http_status(error: RwaoptError) -> int:
    return next(status for kind, status, _ in ANSWERS if isinstance(error, kind))


def exit_code(error: RwaoptError) -> int:
    return next(code for kind, _, code in ANSWERS if isinstance(error, kind))


def error_body(error: RwaoptError) -> ErrorBody:
    """The error as the API and CLI show it; its detail as JSON values (a refusal's parameters
    hold tuples: OpTree's branching, synth's radices)."""
    return ErrorBody.model_validate(
        {"code": error.code, "message": error.message,
         "detail": to_jsonable_python(error.detail)}
    )


def internal(error: BaseException) -> InternalError:
    """An unexpected exception (a bug) as an rwaopt error that keeps the error format. It
    names the exception and nothing more: no traceback or file path reaches a client or a
    stored job (the caller logs the traceback)."""
    wrapped = InternalError(f"internal error ({type(error).__name__}); it has been logged")
    wrapped.__cause__ = error
    return wrapped


def from_body(body: ErrorBody) -> RwaoptError:
    """The exception an error body was made from (same class, so the same answer): errors
    cross process boundaries as bodies."""
    return _BY_CODE.get(body.code, RwaoptError)(body.message, body.detail)


def _subclasses(root: type[RwaoptError]) -> list[type[RwaoptError]]:
    out = [root]
    for sub in root.__subclasses__():
        out.extend(_subclasses(sub))
    return out


_BY_CODE = {kind.code: kind for kind in _subclasses(RwaoptError)}
