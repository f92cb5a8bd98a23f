"""The bidirectional WDM ring of SPEC section 1 and the hardware constants of the papers.

Nodes are 0..N-1. Clockwise (CW) link i goes i -> i+1 mod N; counter-clockwise (CCW) link i
goes i+1 -> i. A channel is a (fibre, wavelength) pair; there are F*w channels per direction.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from models.errors import InvalidInputError


class Direction(IntEnum):
    """A lightpath's direction: the one encoding of every layer (assignment arrays, stored
    solutions, a demand's `allowed` when it is restricted to one direction)."""

    CW = 0
    CCW = 1

    @property
    def label(self) -> str:
        return self.name.lower()


ANY_DIRECTION = 2  # a demand's `allowed` when either direction will do
ALLOWED_NAMES = {"cw": Direction.CW, "ccw": Direction.CCW, "any": ANY_DIRECTION}
DIRECTION_LABELS = tuple(d.label for d in Direction)  # indexable by a direction array value


@dataclass(frozen=True)
class Ring:
    """N nodes, F fibres per direction, w wavelengths per fibre (defaults: F=1, w=64)."""

    nodes: int
    fibers_per_direction: int = 1
    wavelengths_per_fiber: int = 64

    def __post_init__(self) -> None:
        if self.nodes < 2:
            raise InvalidInputError(
                f"a ring needs at least 2 nodes, got nodes={self.nodes}; use nodes >= 2"
            )
        if self.fibers_per_direction < 1:
            raise InvalidInputError(
                f"fibers per direction must be >= 1, got {self.fibers_per_direction}"
            )
        if self.wavelengths_per_fiber < 1:
            raise InvalidInputError(
                f"wavelengths per fibre must be >= 1, got {self.wavelengths_per_fiber}"
            )

    @property
    def channels_per_direction(self) -> int:
        """F * w: the number of (fibre, wavelength) channels on every directed link."""
        return self.fibers_per_direction * self.wavelengths_per_fiber

    def arc_length(self, source: int, destination: int, direction: int) -> int:
        """Number of links of the arc from source to destination in `direction`."""
        if direction == Direction.CW:
            return (destination - source) % self.nodes
        return (source - destination) % self.nodes


@dataclass(frozen=True)
class Hardware:
    """Per-slot time constants (SPEC section 3; OpTree journal Sec. V-A, WRHT Table II).

    The papers charge each time slot `item_bytes / B + a`, with `a` the MRR reconfiguration
    delay plus the O/E/O conversion delay of one clock cycle per 32-byte flit.
    `clock_ghz` is an assumption: the papers say "one cycle of the CPU clock" without a
    frequency; 4.0 GHz is the i7-6700K the WRHT paper profiles on (Sec. IV-A).
    """

    bandwidth_per_wavelength_gbps: float = 40.0
    mrr_reconfiguration_us: float = 25.0
    oeo_cycles_per_flit: float = 1.0
    flit_bytes: int = 32
    packet_bytes: int = 128
    clock_ghz: float = 4.0
    dtype_bytes: int = 4

    def __post_init__(self) -> None:
        for name in ("bandwidth_per_wavelength_gbps", "clock_ghz", "flit_bytes", "packet_bytes"):
            if getattr(self, name) <= 0:
                raise InvalidInputError(f"{name} must be > 0, got {getattr(self, name)}")
        for name in ("mrr_reconfiguration_us", "oeo_cycles_per_flit"):
            if getattr(self, name) < 0:
                raise InvalidInputError(f"{name} must be >= 0, got {getattr(self, name)}")
