"""The exception tree shared by every layer. `app` maps it to HTTP / CLI errors in one place."""


class RwaoptError(Exception):
    """Base of every error rwaopt raises on purpose."""

    code = "rwaopt_error"

    def __init__(self, message: str, detail: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail or {}


class InvalidInputError(RwaoptError):
    """The caller asked for something that cannot be computed; the message says what to change."""

    code = "invalid_input"


class UnknownAlgorithmError(InvalidInputError):
    code = "unknown_algorithm"


class UnknownParameterError(InvalidInputError):
    code = "unknown_parameter"


class AlgorithmRefusedError(InvalidInputError):
    """An algorithm cannot run on this ring (e.g. RD needs a power-of-two N)."""

    code = "algorithm_refused"


class LimitExceededError(InvalidInputError):
    """The request is valid but beyond a configured size limit."""

    code = "limit_exceeded"


class DataFlowError(RwaoptError):
    """An algorithm's schedule does not deliver the collective (a bug, never user input)."""

    code = "dataflow_error"


class NotFoundError(RwaoptError):
    """A resource the caller named (e.g. a plan id) does not exist."""

    code = "not_found"


class NotReadyError(RwaoptError):
    """The resource exists but is not finished yet (e.g. a queued plan has no lightpaths)."""

    code = "not_ready"


class UnavailableError(RwaoptError):
    """A part the service needs (a solver process, the job queue) is not working right now;
    not the caller's fault, retrying may work."""

    code = "unavailable"


class SolverCrashedError(UnavailableError):
    """A solver process died (retrying with less may work)."""

    code = "solver_crashed"
