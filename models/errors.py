"""The exception tree of `models` and `solver`. Every error rwaopt raises on purpose is a
`RwaoptError`: the caller's (`InvalidInputError` and its kinds) or rwaopt's own
(`InternalError`: a schedule or an assignment that breaks a rule, which only a bug can cause).
The service's own errors (not found, not ready, unavailable) extend the tree in
`app.errors`, which maps every class to an HTTP status and a CLI exit code in one place."""

from collections.abc import Mapping


class RwaoptError(Exception):
    """Base of every error rwaopt raises on purpose."""

    code = "rwaopt_error"

    def __init__(self, message: str, detail: Mapping[str, object] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = dict(detail or {})


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


class InternalError(RwaoptError):
    """rwaopt broke one of its own rules (a bug, never the caller's input)."""

    code = "internal_error"


class DataFlowError(InternalError):
    """An algorithm's schedule does not deliver the collective."""

    code = "dataflow_error"


class InvalidAssignmentError(InternalError):
    """An assignment is not a valid RWA of its stage; the message says the first problem."""

    code = "invalid_assignment"


class NodeLimitError(InternalError):
    """A slot of a node-limited schedule exceeds a node's transmit or receive limit."""

    code = "node_limit_violated"
