"""What every catalog algorithm provides: parameters, refusal reasons, stages, closed forms."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from models.errors import AlgorithmRefusedError, InvalidInputError, UnknownParameterError
from models.ring import Ring
from models.stage import Schedule


class Collective(StrEnum):
    ALLGATHER = "allgather"
    ALLREDUCE = "allreduce"
    ALLTOALL = "alltoall"


@dataclass(frozen=True)
class ParamSpec:
    """An integer parameter of an algorithm. `default` None means it is derived from the
    ring by `default_rule` (e.g. WRHT's m = 2w + 1)."""

    name: str
    description: str
    minimum: int
    default: int | None
    default_rule: str = ""
    maximum_rule: str = ""
    is_list: bool = False  # a comma-separated list of integers, e.g. OpTree's branching


@dataclass(frozen=True)
class ClosedForm:
    """One closed form of a paper, evaluated for a ring (value None where undefined)."""

    quantity: str
    text: str
    source: str
    value: float | None = None
    alternative: float | None = None
    note: str = ""


ParamValue = int | tuple[int, ...]
Params = dict[str, ParamValue]


class Algorithm(ABC):
    """A collective algorithm of the papers. Subclasses are stateless; parameters are passed
    in as a resolved dict (see `resolve`)."""

    collective: ClassVar[Collective]
    name: ClassVar[str]
    title: ClassVar[str]
    source: ClassVar[str]
    params: ClassVar[tuple[ParamSpec, ...]] = ()
    steps_formula: ClassVar[str]
    steps_source: ClassVar[str]

    def resolve(self, ring: Ring, overrides: Mapping[str, ParamValue] | None = None) -> Params:
        """Defaults plus overrides, checked; raises on unknown names and on refusal."""
        overrides = dict(overrides or {})
        known = {p.name: p for p in self.params}
        unknown = sorted(set(overrides) - set(known))
        if unknown:
            allowed = ", ".join(known) or "none"
            raise UnknownParameterError(
                f"{self.collective}/{self.name} has no parameter {', '.join(unknown)}; "
                f"its parameters: {allowed}",
                {"algorithm": self.name, "unknown": unknown, "allowed": list(known)},
            )
        resolved: Params = {}
        for spec in self.params:
            if spec.name in overrides:
                resolved[spec.name] = _check_value(self.name, spec, overrides[spec.name])
        resolved = self.fill_defaults(ring, resolved)
        reason = self.refusal(ring, resolved)
        if reason:
            raise AlgorithmRefusedError(
                f"{self.collective}/{self.name} cannot run on N={ring.nodes}: {reason}",
                {"algorithm": self.name, "nodes": ring.nodes, "params": resolved},
            )
        return resolved

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        """Fill in the defaults of parameters not given; override for derived defaults."""
        out = dict(given)
        for spec in self.params:
            if spec.name not in out and spec.default is not None:
                out[spec.name] = spec.default
        return out

    def refusal(self, ring: Ring, params: Params) -> str | None:
        """Why this algorithm cannot run on `ring` with `params` (and what would work)."""
        return None

    @abstractmethod
    def schedule(self, ring: Ring, params: Params) -> Schedule:
        """The ordered stages of data movement (call `resolve` first)."""

    @abstractmethod
    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        """The papers' closed forms; the first one is the claimed step count."""

    def data_per_message(self, ring: Ring, params: Params) -> int:
        """How many items one message is cut into: item_bytes = message_bytes / this.
        All-gather: the message is each node's contribution, one item. Override otherwise."""
        return 1


def _check_value(algorithm: str, spec: ParamSpec, value: object) -> ParamValue:
    values = value if isinstance(value, list | tuple) else [value]
    if not spec.is_list and len(values) != 1:
        raise InvalidInputError(f"{algorithm}: parameter {spec.name} takes one integer")
    if not values:
        raise InvalidInputError(f"{algorithm}: parameter {spec.name} needs at least one integer")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidInputError(
                f"{algorithm}: parameter {spec.name} must be an integer, got {v!r}"
            )
        if v < spec.minimum:
            raise InvalidInputError(
                f"{algorithm}: parameter {spec.name} must be >= {spec.minimum}, got {v}"
            )
    return tuple(int(v) for v in values) if spec.is_list else int(values[0])  # type: ignore[arg-type]


def int_param(params: Params, name: str) -> int:
    value = params[name]
    assert isinstance(value, int)
    return value
