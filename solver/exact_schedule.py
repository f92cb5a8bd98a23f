"""The exact optimum of SPEC section 12 on small rings: a time-expanded CP-SAT model.

Slots t = 0..S-1 (S an upper bound the search raises until the model is feasible); in each
used slot, lightpaths (sender, receiver, direction, channel) with one piece each. The model is
the schedule model the data-flow simulator checks (`models.dataflow`):

- every item (all-gather), block (all-to-all) or vector (all-reduce) is cut into `pieces`
  equal pieces; a lightpath carries one piece, so every slot costs c(message / pieces) and the
  least time for a given number of pieces is the least number of slots;
- all-gather / all-to-all: a node sends only pieces it holds at the start of the slot, and
  holds what it received from the next slot on (copies; for all-to-all a copy that does not
  lead to the destination is never needed, and the schedule keeps only what is);
- all-reduce: one accumulator per (node, piece), the set of contributions it has summed. An
  ADD sends the sender's accumulator, which must be disjoint from the receiver's and from every
  other ADD it gets in the slot; a COPY sends a complete sum; a (node, piece) gets either ADDs
  or one COPY in a slot (a reduction and a broadcast may share a slot, Reduction.MIXED);
- reduce-scatter: the same accumulators over N chunks x `pieces` (chunk i ends summed at node
  i, nothing is asked of the others), ADDs only;
- the lightpaths of a slot are conflict-free on C = F w channels per direction (wavelength
  continuity: one channel on every link of the arc), at most `hop_limit` hops long, and within
  the per-node transmit / receive limits.

Objective: the number of used slots (a prefix of 0..S-1). Infeasible at S means no schedule
has S slots or fewer; the answer then is searched again with a larger S. The result carries
the proven lower bound and whether it is optimal, and its slots as lightpaths with their
channels (so a test can validate the model's own RWA) and as a `models.stage.Schedule`.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from models.achievable import achievable_bound
from models.errors import LimitExceededError
from models.ring import Direction, Hardware, Ring
from models.stage import IntArray, Reduction, Schedule, StageFlow, frozen

if TYPE_CHECKING:  # OR-Tools loads in the functions that solve: 0.8 s a plan need not pay
    from ortools.sat.python import cp_model

# The model's size: (pairs x directions x channels) lightpath variables plus the carried-data
# variables, per slot. Beyond this it is refused (the catalog algorithm `optimal` says what fits).
SIZE_LIMIT = 15_000


@dataclass(frozen=True)
class Lightpath:
    sender: int
    receiver: int
    direction: int  # models.ring.Direction
    channel: int
    datum: int  # the piece carried: see models.stage.Schedule (piece j of datum i = i q + j)
    copy: bool = False  # all-reduce: a COPY (else an ADD)


@dataclass(frozen=True)
class ExactSchedule:
    """The least-slot schedule found, with the proven bound on slots."""

    collective: str
    nodes: int
    channels: int
    pieces: int
    hop_limit: int
    slots: tuple[tuple[Lightpath, ...], ...]
    slots_lower_bound: int
    optimal: bool
    seconds: float

    @property
    def slot_count(self) -> int:
        return len(self.slots)

    def schedule(self) -> Schedule:
        """The slots as stages of data movement, for the data-flow simulator and the RWA engine."""
        n, q = self.nodes, self.pieces
        flows = []
        for t, paths in enumerate(self.slots):
            senders = [p.sender for p in paths]
            receivers = [p.receiver for p in paths]
            data = [p.datum for p in paths]
            label = f"slot {t + 1}"
            if self.collective == "allreduce":
                copies = [int(p.copy) for p in paths]
                flows.append(
                    StageFlow.of(senders, receivers, data, Reduction.MIXED, label, copies=copies)
                )
            elif self.collective == "reducescatter":
                flows.append(StageFlow.of(senders, receivers, data, Reduction.ADD, label))
            else:
                flows.append(StageFlow.of(senders, receivers, data, label=label))
        if self.collective == "allgather":
            return Schedule("allgather", n, _arange(n), n * q, tuple(flows), pieces=q)
        if self.collective == "alltoall":
            return Schedule("alltoall", n, _arange(n), n * n * q, tuple(flows), pieces=q)
        if self.collective == "reducescatter":
            return Schedule("reducescatter", n, _arange(n), n * q, tuple(flows), pieces=q)
        return Schedule("allreduce", n, _arange(n), q, tuple(flows))


def _arange(n: int) -> IntArray:
    return frozen(range(n))


def arc_links(nodes: int, sender: int, receiver: int, direction: int) -> list[int]:
    """The links of an arc: CW link i goes i -> i+1, CCW link i goes i+1 -> i (SPEC 1)."""
    if direction == Direction.CW:
        return [(sender + k) % nodes for k in range((receiver - sender) % nodes)]
    return [(receiver + k) % nodes for k in range((sender - receiver) % nodes)]


def _data(collective: str, nodes: int, pieces: int) -> int:
    if collective in ("allgather", "reducescatter"):
        return nodes * pieces
    if collective == "alltoall":
        return nodes * nodes * pieces
    return pieces


def model_size(
    collective: str, nodes: int, channels: int, pieces: int, slots: int, hop_limit: int
) -> int:
    """Variables of the model at `slots` slots (an estimate good to a small factor)."""
    arcs = 2 * nodes * min(hop_limit, nodes - 1)  # per sender and direction: 1..H hops
    pairs = nodes * (nodes - 1)
    carried = pairs * _data(collective, nodes, pieces)
    if collective in ("allreduce", "reducescatter"):
        carried = pairs * _data(collective, nodes, pieces) * (2 + nodes)
    return slots * (arcs * channels + carried)


def slots_lower_bound(
    collective: str,
    ring: Ring,
    pieces: int,
    hop_limit: int,
    max_tx: int | None,
    max_rx: int | None,
) -> int:
    """Least slots of any schedule with these pieces (one per lightpath): the achievable
    bound's slot count, and its bytes moved counted in pieces over what one slot carries."""
    # In units of one piece: an item (all-gather), a vector (all-reduce) or a block
    # (all-to-all: the send buffer is N blocks; reduce-scatter: the vector is N chunks) is
    # `pieces` units; a lightpath carries one.
    units = pieces * (ring.nodes if collective in ("alltoall", "reducescatter") else 1)
    bound = achievable_bound(collective, ring, float(units), Hardware(), hop_limit, max_tx, max_rx)
    per_slot = ring.nodes * bound.fan  # lightpaths per slot, at most
    lightpaths = -(-round(bound.bytes_moved) // per_slot)
    link_slots = -(-round(bound.byte_hops) // (2 * ring.nodes * ring.channels_per_direction))
    return max(bound.slots, lightpaths, link_slots)


def solve_exact_schedule(
    collective: str,
    ring: Ring,
    pieces: int = 1,
    hop_limit: int | None = None,
    max_tx: int | None = None,
    max_rx: int | None = None,
    time_limit_s: float = 60.0,
    workers: int = 2,
) -> ExactSchedule:
    """The least-slot schedule of `collective` with `pieces` pieces per item, or the best
    found at the time limit with its proven bound. Raises LimitExceededError when the model
    is beyond SIZE_LIMIT."""
    from ortools.sat.python import cp_model
    started = time.monotonic()
    n = ring.nodes
    h = n - 1 if hop_limit is None else max(1, min(hop_limit, n - 1))
    lower = slots_lower_bound(collective, ring, pieces, h, max_tx, max_rx)
    horizon = lower + 1  # often the optimum is the bound: a short horizon solves fastest
    size = model_size(collective, n, ring.channels_per_direction, pieces, horizon, h)
    if size > SIZE_LIMIT:
        raise LimitExceededError(
            f"the exact schedule model of {collective} at N={n}, {ring.channels_per_direction} "
            f"channels per direction, {pieces} piece(s) has about {size} variables (limit "
            f"{SIZE_LIMIT}); use fewer nodes, channels or pieces",
            {"size": size, "limit": SIZE_LIMIT},
        )
    best: tuple[tuple[Lightpath, ...], ...] | None = None
    while True:
        remaining = time_limit_s - (time.monotonic() - started)
        if remaining <= 0:
            break
        outcome = _solve(collective, ring, pieces, h, max_tx, max_rx, horizon, lower, remaining,
                         workers)
        status, slots, bound = outcome
        lower = max(lower, bound)
        if slots is not None:
            best = slots
            if status == cp_model.OPTIMAL:
                lower = len(slots)
            break
        if status == cp_model.INFEASIBLE:
            lower = max(lower, horizon + 1)
            horizon *= 2
            size = model_size(collective, n, ring.channels_per_direction, pieces, horizon, h)
            if size > SIZE_LIMIT:
                break
            continue
        break  # time limit without a schedule
    if best is None:
        raise LimitExceededError(
            f"no {collective} schedule found within {time_limit_s:g} s at N={n} (proven: at "
            f"least {lower} slots); give more time or a smaller ring",
            {"slots_lower_bound": lower},
        )
    return ExactSchedule(
        collective=collective,
        nodes=n,
        channels=ring.channels_per_direction,
        pieces=pieces,
        hop_limit=h,
        slots=best,
        slots_lower_bound=lower,
        optimal=lower >= len(best),
        seconds=time.monotonic() - started,
    )


def _solve(
    collective: str,
    ring: Ring,
    pieces: int,
    hop_limit: int,
    max_tx: int | None,
    max_rx: int | None,
    horizon: int,
    lower: int,
    time_limit_s: float,
    workers: int,
) -> tuple[Any, tuple[tuple[Lightpath, ...], ...] | None, int]:
    """One CP-SAT solve over `horizon` slots: (status, slots found or None, proven bound)."""
    from ortools.sat.python import cp_model
    n, channels = ring.nodes, ring.channels_per_direction
    m = cp_model.CpModel()
    steps = range(horizon)
    used = [m.new_bool_var(f"used{t}") for t in steps]
    for t in range(horizon - 1):
        m.add_implication(used[t + 1], used[t])
    m.add(sum(used) >= lower)
    arcs = [
        (u, v, d, arc_links(n, u, v, d))
        for u, v in itertools.permutations(range(n), 2)
        for d in Direction
        if len(arc_links(n, u, v, d)) <= hop_limit
    ]
    # y[t, arc, c]: the lightpath exists in slot t on channel c
    y = {
        (t, a, c): m.new_bool_var(f"y{t}_{a}_{c}")
        for t in steps
        for a in range(len(arcs))
        for c in range(channels)
    }
    for t in steps:
        for d in Direction:
            for link in range(n):
                on_link = [a for a, arc in enumerate(arcs) if arc[2] == d and link in arc[3]]
                for c in range(channels):
                    m.add(sum(y[t, a, c] for a in on_link) <= used[t])
        for node in range(n):
            out_arcs = [a for a, arc in enumerate(arcs) if arc[0] == node]
            in_arcs = [a for a, arc in enumerate(arcs) if arc[1] == node]
            if max_tx is not None:
                m.add(sum(y[t, a, c] for a in out_arcs for c in range(channels)) <= max_tx)
            if max_rx is not None:
                m.add(sum(y[t, a, c] for a in in_arcs for c in range(channels)) <= max_rx)
    pair_arcs: dict[tuple[int, int], list[int]] = {}
    for a, (u, v, _, _) in enumerate(arcs):
        pair_arcs.setdefault((u, v), []).append(a)
    pairs = sorted(pair_arcs)

    def lightpaths(t: int, u: int, v: int) -> cp_model.LinearExpr:
        return cp_model.LinearExpr.sum(
            [y[t, a, c] for a in pair_arcs[(u, v)] for c in range(channels)]
        )

    if collective == "allreduce":
        carried = _reduction(m, n, pieces, horizon, pairs, lightpaths)
    elif collective == "reducescatter":
        owners = [j // pieces for j in range(n * pieces)]
        carried = _reduction(m, n, n * pieces, horizon, pairs, lightpaths, owners)
    else:
        carried = _copies(m, collective, n, pieces, horizon, pairs, lightpaths)
    m.minimize(sum(used))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(time_limit_s, 0.01)
    solver.parameters.num_workers = workers
    status = solver.solve(m)
    if status == cp_model.INFEASIBLE:
        return status, None, horizon + 1
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return status, None, lower
    bound = max(lower, round(solver.best_objective_bound))
    out = []
    for t in steps:
        if not solver.value(used[t]):
            break
        # the channels of each pair's lightpaths, then the data they carry, in order
        free: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for (u, v), arc_ids in pair_arcs.items():
            free[(u, v)] = [
                (int(arcs[a][2]), c)
                for a in arc_ids
                for c in range(channels)
                if solver.value(y[t, a, c])
            ]
        paths = []
        for (tt, u, v, datum, copy), var in carried.items():
            if tt == t and solver.value(var):
                way, channel = free[(u, v)].pop()
                paths.append(Lightpath(u, v, way, channel, datum, copy))
        if any(free.values()):
            raise AssertionError("the model left a lightpath without data")  # sums are equal
        out.append(tuple(paths))
    if collective == "alltoall":
        out = _chains(out, n, pieces)
    return status, tuple(out), bound


def _chains(slots: list[tuple[Lightpath, ...]], n: int, pieces: int) -> list[tuple[Lightpath, ...]]:
    """All-to-all: keep, per piece, only the copies on the chain that first reaches its
    destination (a block lives at one process at a time: the simulator moves it). Dropping
    lightpaths keeps a slot conflict-free and within the node limits."""
    first: dict[tuple[int, int], tuple[int, Lightpath]] = {}  # (node, datum) -> first receipt
    for t, paths in enumerate(slots):
        for p in paths:
            first.setdefault((p.receiver, p.datum), (t, p))
    keep: set[tuple[int, Lightpath]] = set()
    data = {p.datum for paths in slots for p in paths}
    for datum in data:
        node = (datum // pieces) % n
        origin = datum // pieces // n
        while node != origin:
            t, p = first[(node, datum)]
            keep.add((t, p))
            node = p.sender
    return [
        kept
        for t, paths in enumerate(slots)
        if (kept := tuple(p for p in paths if (t, p) in keep))
    ]


Carried = dict[tuple[int, int, int, int, bool], "cp_model.IntVar"]


def _copies(
    m: cp_model.CpModel,
    collective: str,
    n: int,
    pieces: int,
    horizon: int,
    pairs: list[tuple[int, int]],
    lightpaths: object,
) -> Carried:
    """All-gather / all-to-all: holdings h[t, node, datum]; s[t, u, v, datum] sends a copy."""
    count = _data(collective, n, pieces)

    def origin(datum: int) -> int:
        if collective == "allgather":
            return datum // pieces
        return datum // pieces // n  # block (s, d) = s n + d

    def target(datum: int) -> int | None:
        return None if collective == "allgather" else (datum // pieces) % n

    data = [
        x for x in range(count) if collective == "allgather" or origin(x) != target(x)
    ]
    held = {
        (t, v, x): m.new_bool_var(f"h{t}_{v}_{x}")
        for t in range(horizon + 1)
        for v in range(n)
        for x in data
    }
    for v in range(n):
        for x in data:
            m.add(held[0, v, x] == int(origin(x) == v))
            dest = target(x)
            if dest is None or dest == v:
                m.add(held[horizon, v, x] == 1)
    sent: Carried = {}
    for t in range(horizon):
        for u, v in pairs:
            useful = [
                x
                for x in data
                if origin(x) != v and (target(x) is None or target(x) != u)
            ]
            here = {x: m.new_bool_var(f"s{t}_{u}_{v}_{x}") for x in useful}
            for x, var in here.items():
                m.add_implication(var, held[t, u, x])
                sent[t, u, v, x, False] = var
            m.add(sum(here.values()) == lightpaths(t, u, v))  # type: ignore[operator]
        for v in range(n):
            for x in data:
                incoming = [sent[key] for u in range(n) if (key := (t, u, v, x, False)) in sent]
                m.add(held[t + 1, v, x] >= held[t, v, x])
                m.add(held[t + 1, v, x] <= held[t, v, x] + sum(incoming))
    return sent


def _reduction(
    m: cp_model.CpModel,
    n: int,
    pieces: int,
    horizon: int,
    pairs: list[tuple[int, int]],
    lightpaths: object,
    owners: list[int] | None = None,
) -> Carried:
    """All-reduce: acc[t, v, j, w] = node v's accumulator of piece j holds w's contribution.
    With `owners` (reduce-scatter; `pieces` counts every chunk's pieces): piece j must end
    complete at owners[j] only, and there are no COPYs."""
    acc = {
        (t, v, j, w): m.new_bool_var(f"a{t}_{v}_{j}_{w}")
        for t in range(horizon + 1)
        for v in range(n)
        for j in range(pieces)
        for w in range(n)
    }
    complete = {
        (t, v, j): m.new_bool_var(f"c{t}_{v}_{j}")
        for t in range(horizon)
        for v in range(n)
        for j in range(pieces)
    }
    for v in range(n):
        for j in range(pieces):
            for w in range(n):
                m.add(acc[0, v, j, w] == int(v == w))
                if owners is None or owners[j] == v:
                    m.add(acc[horizon, v, j, w] == 1)
    carried: Carried = {}
    for t in range(horizon):
        for v in range(n):
            for j in range(pieces):
                # complete => every contribution (the other direction is not needed)
                for w in range(n):
                    m.add_implication(complete[t, v, j], acc[t, v, j, w])
        for u, v in pairs:
            ops = []
            for j in range(pieces):
                add = m.new_bool_var(f"add{t}_{u}_{v}_{j}")
                copy = m.new_bool_var(f"copy{t}_{u}_{v}_{j}")
                m.add_implication(copy, complete[t, u, j])
                if owners is not None:
                    m.add(copy == 0)
                carried[t, u, v, j, False] = add
                carried[t, u, v, j, True] = copy
                ops += [add, copy]
            m.add(sum(ops) == lightpaths(t, u, v))  # type: ignore[operator]
        for v in range(n):
            for j in range(pieces):
                senders = [u for u in range(n) if (t, u, v, j, True) in carried]  # in reach
                copies = [carried[t, u, v, j, True] for u in senders]
                got_copy = m.new_bool_var(f"gc{t}_{v}_{j}")
                m.add(sum(copies) == got_copy)
                for u in senders:
                    m.add_implication(got_copy, carried[t, u, v, j, False].Not())
                for w in range(n):
                    # z[u]: u ADDs an accumulator holding w to v
                    zs = []
                    for u in senders:
                        z = m.new_bool_var(f"z{t}_{u}_{v}_{j}_{w}")
                        add = carried[t, u, v, j, False]
                        m.add_bool_and([add, acc[t, u, j, w]]).only_enforce_if(z)
                        m.add_bool_or([add.Not(), acc[t, u, j, w].Not(), z])
                        zs.append(z)
                    m.add(acc[t, v, j, w] + sum(zs) <= 1)  # no contribution counted twice
                    m.add(acc[t + 1, v, j, w] >= acc[t, v, j, w])
                    m.add(acc[t + 1, v, j, w] >= got_copy)
                    for z in zs:
                        m.add(acc[t + 1, v, j, w] >= z)
                    m.add(acc[t + 1, v, j, w] <= acc[t, v, j, w] + sum(zs) + got_copy)
    return carried
