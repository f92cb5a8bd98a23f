"""Time model of SPEC section 3 (OpTree journal eq. (3); WRHT eq. (1); optical-vs-electrical
eqs. (6)-(9)) and the hardware lower bound.

Papers' optical model: every time slot costs item_bytes / B + a, where B is the bandwidth of
one wavelength and a = MRR reconfiguration delay + O/E/O conversion delay (one clock cycle per
flit of `flit_bytes`). A stage of s slots costs s (item_bytes / B + a); the total is the sum.
"""

from __future__ import annotations

import math

from models.ring import Hardware, Ring


def oeo_delay_s(item_bytes: float, hardware: Hardware) -> float:
    """O/E/O conversion of one item: ceil(item / flit) flits x cycles per flit / clock."""
    flits = math.ceil(item_bytes / hardware.flit_bytes)
    return flits * hardware.oeo_cycles_per_flit / (hardware.clock_ghz * 1e9)


def item_bytes(message_bytes: float, pieces: int) -> float:
    """The bytes of one of the `pieces` items a message is cut into: message / pieces, and at
    least one byte. A message of m bytes cut into more than m pieces leaves pieces of one
    byte and empty ones, and a slot lasts as long as its largest (without the floor a
    1-byte all-gather cut in two was "faster" by half a byte's time)."""
    return max(message_bytes / pieces, 1.0)


def slot_time_s(item_bytes: float, hardware: Hardware) -> float:
    """One time slot carrying one item per lightpath: item_bytes / B + a (OpTree eq. (3))."""
    transmit = item_bytes * 8 / (hardware.bandwidth_per_wavelength_gbps * 1e9)
    return transmit + hardware.mrr_reconfiguration_us * 1e-6 + oeo_delay_s(item_bytes, hardware)


def total_time_s(slots: int, item_bytes: float, hardware: Hardware) -> float:
    """Total time of an algorithm that takes `slots` time slots (eq. (3): (d/B + a) S)."""
    return slots * slot_time_s(item_bytes, hardware)


def received_bytes_per_node(collective: str, nodes: int, message_bytes: float) -> float:
    """Bytes every node must receive at least, whatever the algorithm.

    all-gather: the other N - 1 contributions; all-to-all: its N - 1 blocks of message/N from
    the others; all-reduce: every element of the result depends on the other nodes' inputs, so
    a node must receive at least one value per element: the message size (bandwidth-optimal
    algorithms move 2 (N - 1)/N of it, but that bound assumes every node also sends);
    reduce-scatter: one value per element of the node's own chunk, message / N."""
    if collective == "allgather":
        return (nodes - 1) * message_bytes
    if collective == "alltoall":
        return (nodes - 1) * message_bytes / nodes
    if collective == "allreduce":
        return message_bytes
    if collective == "reducescatter":
        return message_bytes / nodes
    raise ValueError(f"unknown collective {collective}")


def hardware_lower_bound_s(
    collective: str, ring: Ring, message_bytes: float, hardware: Hardware
) -> float:
    """Least time any algorithm could take (SPEC section 3): the bytes a node must receive
    over its receive capacity, 2 directions x F fibres x w wavelengths x B, plus one slot's
    fixed delay a (at least one reconfiguration is needed)."""
    capacity_bps = 2 * ring.channels_per_direction * hardware.bandwidth_per_wavelength_gbps * 1e9
    received = received_bytes_per_node(collective, ring.nodes, message_bytes)
    return received * 8 / capacity_bps + hardware.mrr_reconfiguration_us * 1e-6
