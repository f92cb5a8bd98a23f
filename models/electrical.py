"""The electrical baseline of the optical-vs-electrical all-reduce paper: a two-level fat-tree
of packet switches (Sec. 3, Fig. 1; Table 2) and the Hockney cost of Ring and RD all-reduce on
it (eqs. (8)-(9), step counts of Table 1).

The paper prints: two levels, hosts on level-1 switches whose uplinks go to level-2 switches,
"each electrical switch features 36 ports", router bandwidth 25 Gb/s, router delay 25 us,
128-byte packets, shortest-path routing, SimGrid's default configuration otherwise. It does not
say how 36-port switches reach 1024 hosts in two levels (a non-blocking two-level tree of
36-port switches holds 648); rwaopt keeps 18 hosts and 18 uplinks per leaf and lets the 18
spines take as many leaves as N needs (an assumption, `FatTree.note`).
"""

from __future__ import annotations

from dataclasses import dataclass

from models.closed_forms import (
    Formula,
    ceil_log,
    rd_allreduce_steps_electrical,
    ring_allreduce_steps,
)

E_RING_STEPS = Formula(
    "steps",
    "2(n - 1)",
    "optical-vs-electrical Table 1 (electrical)",
    ring_allreduce_steps,
)
E_RD_STEPS = Formula(
    "steps",
    "ceil(log2 n)",
    "optical-vs-electrical Table 1 (electrical)",
    rd_allreduce_steps_electrical,
)


@dataclass(frozen=True)
class FatTree:
    """Two-level fat-tree: `hosts_per_leaf` hosts on each level-1 switch, each level-1 switch
    linked once to each of `spines` level-2 switches; every link `link_gbps` with latency
    `link_latency_us` (the paper's "router delay")."""

    hosts_per_leaf: int = 18  # half of a 36-port switch (Sec. 3)
    spines: int = 18  # the other half: one uplink per level-2 switch
    link_gbps: float = 25.0  # Table 2, router bandwidth
    link_latency_us: float = 25.0  # Table 2, router delay
    packet_bytes: int = 128  # Table 2 (SimGrid models flows, not packets)

    note = (
        "36-port switches as printed (18 hosts + 18 uplinks per leaf); the paper does not say "
        "how two levels of them reach N > 648, so the 18 spines take ceil(N / 18) leaves each"
    )

    def leaves(self, nodes: int) -> int:
        return -(-nodes // self.hosts_per_leaf)

    def leaf_of(self, host: int) -> int:
        return host // self.hosts_per_leaf

    def route_links(self, source: int, destination: int) -> int:
        """Links of the shortest route: host-leaf-host (2) or host-leaf-spine-leaf-host (4)."""
        return 2 if self.leaf_of(source) == self.leaf_of(destination) else 4

    @property
    def alpha_s(self) -> float:
        """The paper's alpha: the link latency (router delay)."""
        return self.link_latency_us * 1e-6

    @property
    def link_bps(self) -> float:
        return self.link_gbps * 1e9


def e_ring_hockney_s(nodes: int, message_bytes: float, alpha_s: float, link_bps: float) -> float:
    """Eq. (8): 2(n - 1)(alpha + d eta / (n beta_E)), d eta = message bytes, beta_E in bit/s."""
    return 2 * (nodes - 1) * (alpha_s + message_bytes * 8 / (nodes * link_bps))


def e_rd_hockney_s(nodes: int, message_bytes: float, alpha_s: float, link_bps: float) -> float:
    """Eq. (9): ceil(log2 n)(alpha + d eta / beta_E)."""
    return ceil_log(2, nodes) * (alpha_s + message_bytes * 8 / link_bps)


E_RING_TIME = Formula(
    "time_s",
    "T_E-Ring = 2(n - 1) (alpha + d eta / (n beta_E))",
    "optical-vs-electrical eq. (8)",
    e_ring_hockney_s,
)
E_RD_TIME = Formula(
    "time_s",
    "T_E-RD = ceil(log2 n) (alpha + d eta / beta_E)",
    "optical-vs-electrical eq. (9)",
    e_rd_hockney_s,
)


@dataclass(frozen=True)
class DnnWorkload:
    """A DNN of the papers' evaluations: its gradient is `parameters` float32 values."""

    name: str
    parameters: float
    batch_size: int
    source: str = "WRHT Sec. IV (parameter counts and batch sizes as printed)"

    @property
    def gradient_bytes(self) -> float:
        return self.parameters * FLOAT32_BYTES


FLOAT32_BYTES = 4  # eta: the storage size of one parameter (float32, optical-vs-electrical)
DNN_WORKLOADS = {
    w.name: w
    for w in (
        DnnWorkload("alexnet", 62.3e6, 512),
        DnnWorkload("vgg16", 138e6, 48),
        DnnWorkload("resnet50", 25e6, 1024),
        DnnWorkload("googlenet", 6.7977e6, 64),
    )
}
