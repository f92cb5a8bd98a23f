"""The achievable: a proven lower bound on the time of *every* schedule (SPEC section 12).

A schedule of SPEC 12 is a sequence of slots on the ring of SPEC 1; in slot t every lightpath
carries at most p_t bytes the sender holds at the start of the slot (bundles and, for the
reductions, sums included), and the slot costs p_t / B + a(p_t) (SPEC 3). Lightpaths keep to a
hop limit H and to the per-node limits (lightpaths transmitted / received per node per slot).

Three facts about any such schedule give the bound (docs/achievable.md proves each):

- **bytes moved** X: the bytes all lightpaths carry together. All-gather: every node receives
  every other node's M bytes, X >= N (N - 1) M. Reduce-scatter: each element's N
  contributions meet at its owner, at least N - 1 transmissions each, X >= (N - 1) M.
  All-reduce: one-way gossip needs 2 N - 2 transmissions per element (Harary and Schwenk
  1974), X >= 2 (N - 1) M. All-to-all: a block crossing ring distance k with lightpaths of at
  most H hops is received ceil(k / H) times, X >= M sum_k ceil(min(k, N - k) / H).
  A slot moves at most p_t bytes per lightpath and at most N min(2 F w, Tx, Rx) lightpaths.
- **byte-hops** Y: bytes times the links they cross. All-gather: the lightpaths carrying a byte
  form a connected set of arcs covering the ring but one link, Y >= N (N - 1) M. All-to-all:
  Y >= M floor(N^2 / 4) (each block crosses its ring distance). Reductions: every transmission
  crosses at least one link, Y >= X. A slot offers 2 N F w link-channels.
- **slots** S: an item spreads at most H hops per slot (the farthest node is floor(N / 2)
  away), and what a node knows (or how many nodes hold something of an item) grows at most
  (1 + fan) times per slot, fan = min(2 F w, Tx, Rx).

With P = sum_t p_t >= max(X / (N fan), Y / (2 N F w)) and S >= S_min, every slot costs at least
the reconfiguration delay plus its bytes and at least one O/E/O cycle, so

    T >= S r + 8 P / B + (cycles / clock) max(S, P / flit).

Slots and hops are coupled: in S slots the datum that must reach the node floor(N/2) away
travels on a chain of at most S lightpaths, so its lightpaths have floor(N/2) - S hops more
than one each; Y grows by that much per item byte (all-gather) or element (reductions) when
S < floor(N/2). The bound is the least of the right-hand side over S >= S_min.

Each term alone is also reported (in seconds, as the least time it allows on its own), with the
hardware bound of SPEC 3 kept as the named term `hardware`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from models.ring import Hardware, Ring
from models.timing import hardware_lower_bound_s

COLLECTIVES = ("allgather", "reducescatter", "allreduce", "alltoall")


@dataclass(frozen=True)
class AchievableBound:
    """The bound on every schedule for one message size, with each term in seconds."""

    collective: str
    message_bytes: float
    hop_limit: int  # H used: the request's limits, never above N - 1
    fan: int  # lightpaths one node may receive (or send) per slot: min(2 F w, Tx, Rx)
    bytes_moved: float  # X: bytes all lightpaths must carry together
    byte_hops: float  # Y: bytes x links they must cross together
    slot_bytes: float  # P at S_min slots: least sum over slots of the largest piece
    slots: int  # S_min: least number of slots
    slots_at_bound: int  # the S >= S_min at which slots and bytes together cost least
    slots_by_distance: int
    slots_by_fan: int
    terms: dict[str, float]  # name -> seconds (each alone a lower bound)
    bound_s: float  # the combination of the terms (>= every term)


def distance_sum(nodes: int, hop_limit: int | None = None) -> int:
    """sum over k = 1..N-1 of ceil(min(k, N - k) / H): per source, the lightpaths its N - 1
    blocks need at least (with H = None: the ring distances themselves, floor(N^2 / 4))."""
    half = nodes // 2
    h = hop_limit if hop_limit is not None else 1

    def ceil_sum(upto: int) -> int:
        """sum_{k=1}^{upto} ceil(k / h): the j-th full block of h distances adds h j."""
        q, rest = divmod(upto, h)
        return h * q * (q + 1) // 2 + rest * (q + 1)

    # distances 1..half appear twice (k and N - k), N / 2 once when N is even
    total = 2 * ceil_sum(half)
    if nodes % 2 == 0:
        total -= -(-half // h)
    return total


def reduce_then_broadcast_slots(nodes: int, hop_limit: int | None) -> int:
    """Slots of any all-reduce schedule that forms each element's complete sum at one node
    and then copies it (reduce-scatter + all-gather: `synth`, Ring, H-Ring, WRHT, BT; not
    recursive doubling): 2 ceil(floor(N/2) / H). That node needs the contribution of the node
    floor(N/2) away, which moves at most H hops per slot, and that node needs the sum back
    (docs/achievable.md, "Reduce-then-broadcast schedules")."""
    h = nodes - 1 if hop_limit is None else max(1, min(int(hop_limit), nodes - 1))
    return 2 * -(-(nodes // 2) // h)


def _levels(nodes: int, fan: int) -> int:
    """Least S with (1 + fan)^S >= N (integer arithmetic)."""
    s, reach = 0, 1
    while reach < nodes:
        reach *= 1 + fan
        s += 1
    return s


def achievable_bound(
    collective: str,
    ring: Ring,
    message_bytes: float,
    hardware: Hardware,
    hop_limit: int | None = None,
    max_tx: int | None = None,
    max_rx: int | None = None,
    min_slots: int = 1,
) -> AchievableBound:
    """The least time any schedule of SPEC 12 can take for `collective` on `ring`.

    `message_bytes`: all-gather, each node's contribution; reduce-scatter and all-reduce, each
    node's vector; all-to-all, each node's send buffer (N blocks of message / N).
    `hop_limit`: the longest lightpath allowed (None: no limit); `max_tx` / `max_rx`: the
    per-node lightpath limits per slot (None: none). `min_slots`: the bound of the schedules
    of a class known to need at least that many slots (`reduce_then_broadcast_slots`)."""
    if collective not in COLLECTIVES:
        raise ValueError(f"unknown collective {collective}; one of {', '.join(COLLECTIVES)}")
    if not message_bytes > 0:
        raise ValueError(f"message size must be > 0 bytes, got {message_bytes}")
    n, m = ring.nodes, float(message_bytes)
    channels = ring.channels_per_direction
    h = n - 1 if hop_limit is None else max(1, min(int(hop_limit), n - 1))
    fan = 2 * channels
    for limit in (max_tx, max_rx):
        if limit is not None:
            fan = min(fan, int(limit))
    if collective == "allgather":
        moved = n * (n - 1) * m
        hops = moved
    elif collective == "reducescatter":
        moved = (n - 1) * m
        hops = moved
    elif collective == "allreduce":
        moved = 2 * (n - 1) * m
        hops = moved
    else:
        moved = m * distance_sum(n, h)
        hops = m * distance_sum(n)
    by_distance = -(-(n // 2) // h)
    by_fan = _levels(n, fan)
    slots = max(1, by_distance, by_fan, int(min_slots))
    # Fact 3b: within S slots, the chain that brings a datum to the node floor(N/2) away has
    # at most S lightpaths covering floor(N/2) links: at least floor(N/2) - S hops beyond one
    # per lightpath. Once per item and byte (all-gather), per element (reductions); an
    # all-to-all block crosses its distance whatever S is.
    far = n // 2
    extra_per = {"allgather": n * m, "reducescatter": m, "allreduce": m, "alltoall": 0.0}
    candidates = np.arange(slots, max(slots, far) + 1, dtype=np.float64)
    hops_at = hops + extra_per[collective] * np.maximum(0.0, far - candidates)
    bytes_at = np.maximum(moved / (n * fan), hops_at / (2 * n * channels))

    bits_s = 8.0 / (hardware.bandwidth_per_wavelength_gbps * 1e9)  # seconds per byte on the wire
    cycle_s = hardware.oeo_cycles_per_flit / (hardware.clock_ghz * 1e9)
    reconfigure_s = hardware.mrr_reconfiguration_us * 1e-6

    def least_time(s: Any, p: Any) -> Any:
        """sum of slot costs >= s r + 8 P / B + cycle max(s, P / flit) (ceil(x) >= max(1, x));
        elementwise on arrays."""
        return s * reconfigure_s + p * bits_s + cycle_s * np.maximum(s, p / hardware.flit_bytes)

    terms = {
        "hardware": hardware_lower_bound_s(collective, ring, m, hardware),
        "receive": float(least_time(1, moved / (n * fan))),
        "link_capacity": float(least_time(1, hops / (2 * n * channels))),
        "slots": float(least_time(slots, 0.0)),
    }
    # Every schedule has some S >= S_min slots and then P >= bytes_at[S]: the least over S.
    times = least_time(candidates, bytes_at)
    best = int(np.argmin(times))
    bound = float(times[best])
    slot_bytes = float(bytes_at[0])
    return AchievableBound(
        collective=collective,
        message_bytes=m,
        hop_limit=h,
        fan=fan,
        bytes_moved=moved,
        byte_hops=hops,
        slot_bytes=slot_bytes,
        slots=slots,
        slots_at_bound=int(candidates[best]),
        slots_by_distance=by_distance,
        slots_by_fan=by_fan,
        terms=terms,
        bound_s=bound,
    )
