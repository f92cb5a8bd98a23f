"""Stages of unit-lightpath demands (SPEC section 2) and the data movement behind them.

A `Stage` is what the RWA solver sees: aggregated demands (s, d, k), k unit lightpaths from s to
d, each carrying one item. A `StageFlow` is what the data-flow simulator sees: which datum moves
from which endpoint to which, so the demands are derived from the data, never written twice.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

import numpy as np
import numpy.typing as npt

from models.errors import AlgorithmRefusedError, InvalidInputError
from models.ring import ANY_DIRECTION, Direction

IntArray = npt.NDArray[np.int64]


def _owned(array: IntArray) -> IntArray:
    """Freeze an int64 array made here, that nothing else holds, without copying it."""
    array = array.astype(np.int64, copy=False)
    array.setflags(write=False)
    return array


def _unshared(array: IntArray, given: object) -> IntArray:
    """`array`, or a copy when it shares memory with a writable array the caller gave."""
    if (
        isinstance(given, np.ndarray)
        and given.flags.writeable
        and np.may_share_memory(array, given)
    ):
        return array.copy()
    return array


def frozen(values: npt.ArrayLike) -> IntArray:
    """A read-only int64 copy; an array that already is one is shared, not copied (a
    schedule's stages often move data between the same senders and receivers)."""
    if (
        isinstance(values, np.ndarray)
        and values.dtype == np.int64
        and values.ndim == 1
        and not values.flags.writeable
    ):
        return values
    array = np.array(values, dtype=np.int64).reshape(-1)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class Stage:
    """Aggregated demands of one stage: `counts[i]` unit lightpaths from `sources[i]` to
    `destinations[i]`; `allowed[i]` is the one `Direction` it may take, or ANY_DIRECTION.

    Pairs are unique and sorted by (source, destination)."""

    nodes: int
    sources: IntArray
    destinations: IntArray
    counts: IntArray
    allowed: IntArray
    label: str = ""
    pieces: int = 1  # pieces of the message one unit lightpath carries (see StageFlow.bundle)

    @staticmethod
    def from_demands(
        nodes: int,
        sources: npt.ArrayLike,
        destinations: npt.ArrayLike,
        counts: npt.ArrayLike | None = None,
        allowed: npt.ArrayLike | None = None,
        label: str = "",
        pieces: int = 1,
    ) -> Stage:
        """Validate and aggregate demands; duplicates (same s, d, allowed) are summed."""
        s = np.asarray(sources, dtype=np.int64).reshape(-1)
        d = np.asarray(destinations, dtype=np.int64).reshape(-1)
        k = np.ones_like(s) if counts is None else np.asarray(counts, dtype=np.int64).reshape(-1)
        a = (
            np.full_like(s, ANY_DIRECTION)
            if allowed is None
            else np.asarray(allowed, dtype=np.int64).reshape(-1)
        )
        if not (len(s) == len(d) == len(k) == len(a)):
            raise InvalidInputError("sources, destinations, counts and directions differ in length")
        for name, arr in (("source", s), ("destination", d)):
            bad = np.flatnonzero((arr < 0) | (arr >= nodes))
            if len(bad):
                raise InvalidInputError(
                    f"demand {int(bad[0])}: {name} {int(arr[bad[0]])} is outside the ring "
                    f"(nodes are 0..{nodes - 1})"
                )
        bad = np.flatnonzero(s == d)
        if len(bad):
            raise InvalidInputError(
                f"demand {int(bad[0])}: source equals destination ({int(s[bad[0]])}); "
                "a lightpath needs two different nodes"
            )
        bad = np.flatnonzero(k < 1)
        if len(bad):
            raise InvalidInputError(
                f"demand {int(bad[0])}: count {int(k[bad[0]])} < 1; every demand needs k >= 1"
            )
        if len(a) and (a.min() < 0 or a.max() > 2):
            raise InvalidInputError("direction must be one of 'any', 'cw', 'ccw'")
        # One key in the stage's order (source, destination, direction); generated stages
        # usually arrive sorted and unique, which one pass detects without sorting.
        key = s * nodes  # built in place: a stage can hold tens of millions of demands
        key += d
        key *= 3
        key += a
        if len(key) < 2 or bool((key[1:] > key[:-1]).all()):
            # Already sorted and unique: the arrays given are the stage's (decoding the key
            # would hold four more copies at 16.7M demands). Read-only inputs are shared;
            # writable ones are copied, so the caller's arrays are never frozen under it.
            del key
            return Stage(
                nodes,
                _owned(_unshared(s, sources)),
                _owned(_unshared(d, destinations)),
                _owned(_unshared(k, counts)),
                _owned(_unshared(a, allowed)),
                label,
                pieces,
            )
        else:
            order = np.argsort(key, kind="stable")
            ordered = key[order]
            del key
            starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
            uniq, summed = ordered[starts], np.add.reduceat(k[order], starts)
        a_u = uniq % 3
        uniq //= 3
        s_u = uniq // nodes
        uniq -= s_u * nodes
        d_u = uniq
        return Stage(
            nodes,
            _owned(s_u),
            _owned(d_u),
            _owned(summed),
            _owned(a_u),
            label,
            pieces,
        )

    @property
    def demand_count(self) -> int:
        return len(self.sources)

    @property
    def unit_lightpaths(self) -> int:
        return int(self.counts.sum())

    def is_empty(self) -> bool:
        return self.demand_count == 0


class Reduction(StrEnum):
    """What the receiver does with an all-reduce chunk: add it, or take the sender's copy."""

    NONE = "none"  # all-gather / all-to-all: the datum itself moves or is copied
    ADD = "add"
    COPY = "copy"
    MIXED = "mixed"  # per datum: COPY where StageFlow.copies is 1, ADD elsewhere
    SET = "set"  # the receiver's register becomes the (partial) sum sent: a running window


REGISTERS = 6
"""Partial sums one node keeps per all-reduce chunk: register 0 is the accumulator (the node's
own contribution at the start, the complete sum at the end); 1 and 2 are scratch (a sweep's
left and right windows); 3 to 5 are a virtual position's 0 to 2 when the node also plays one
(`models.synthesis.Padding`; they start empty). A datum sent is the sum of registers named by
`StageFlow.reads`."""


@dataclass(frozen=True, eq=False)
class StageFlow:
    """Data movement of one stage: datum `data[i]` goes from endpoint `senders[i]` to
    `receivers[i]`. Endpoints are nodes, or processes for multi-process all-to-all.

    `bundle` data of one (sender, receiver) pair travel on one unit lightpath (H-Ring's
    intra-group steps send a whole part of N/g chunks as one transfer); 1 otherwise.
    `copies` (with Reduction.MIXED only): 1 where the datum is a COPY, 0 where it is an ADD,
    for schedules that pipeline a reduction and a broadcast in the same slot.
    `reads` / `writes` (all-reduce only; None: register 0): per datum, the bit mask of the
    sender's registers (`REGISTERS`) whose sum is sent, and the receiver's register the
    reduction applies to."""

    senders: IntArray
    receivers: IntArray
    data: IntArray
    reduction: Reduction = Reduction.NONE
    label: str = ""
    bundle: int = 1
    copies: IntArray | None = None
    reads: IntArray | None = None
    writes: IntArray | None = None

    @staticmethod
    def of(
        senders: npt.ArrayLike,
        receivers: npt.ArrayLike,
        data: npt.ArrayLike,
        reduction: Reduction = Reduction.NONE,
        label: str = "",
        bundle: int = 1,
        copies: npt.ArrayLike | None = None,
        reads: npt.ArrayLike | None = None,
        writes: npt.ArrayLike | None = None,
    ) -> StageFlow:
        if (copies is None) != (reduction != Reduction.MIXED):
            raise InvalidInputError("a MIXED stage flow needs `copies`, and only it")
        mask = None if copies is None else frozen(copies)
        moved = frozen(data)
        read, write = (
            None if given is None else frozen(np.broadcast_to(np.asarray(given), len(moved)))
            for given in (reads, writes)
        )
        if read is not None and ((read < 1) | (read >= 1 << REGISTERS)).any():
            raise InvalidInputError(f"`reads` are masks of {REGISTERS} registers: 1 to "
                                    f"{(1 << REGISTERS) - 1}")
        if write is not None and ((write < 0) | (write >= REGISTERS)).any():
            raise InvalidInputError(f"`writes` name a register 0 to {REGISTERS - 1}")
        return StageFlow(
            frozen(senders), frozen(receivers), moved, reduction, label, bundle, mask, read, write
        )


@dataclass(frozen=True, eq=False)
class Schedule:
    """An algorithm run on one ring: its ordered stages of data movement.

    `endpoint_node[e]` is the ring node of endpoint e (identity unless processes share nodes);
    a transfer between two endpoints of the same node uses no lightpath.
    `data_count` is the number of distinct data: items (all-gather), chunks (all-reduce) or
    blocks (all-to-all), times `pieces`: a schedule that cuts every item (block) into
    `pieces` names piece j of datum i as i * pieces + j (all-reduce chunks are data already)."""

    collective: str
    nodes: int
    endpoint_node: IntArray
    data_count: int
    flows: tuple[StageFlow, ...]
    pieces: int = 1

    @property
    def stage_count(self) -> int:
        return len(self.flows)

    def stage(self, index: int) -> Stage:
        """The aggregated unit-lightpath demands of stage `index`: one per moved datum, or
        one per `bundle` data of the same pair."""
        flow = self.flows[index]
        s = self.endpoint_node[flow.senders]
        d = self.endpoint_node[flow.receivers]
        remote = s != d
        if not remote.all():
            s, d = s[remote], d[remote]
        stage = Stage.from_demands(self.nodes, s, d, label=flow.label)
        if flow.bundle == 1:
            return stage
        return Stage.from_demands(
            self.nodes,
            stage.sources,
            stage.destinations,
            -(-stage.counts // flow.bundle),
            label=flow.label,
            pieces=flow.bundle,
        )

    def stages(self) -> list[Stage]:
        """Every stage; stages with the demands of an earlier one share its arrays (Ring's
        8190 all-reduce stages at N = 4096 are one set of demands, not 1 GB of copies)."""
        out: list[Stage] = []
        seen: dict[tuple[int, int, int], list[Stage]] = {}
        # Flows with the very same sender and receiver arrays (models.stage.frozen shares
        # them) have the same demands: not even aggregated again. The flows keep the arrays
        # alive, so their ids are not reused meanwhile.
        by_arrays: dict[tuple[int, int, int], Stage] = {}
        for i, flow in enumerate(self.flows):
            same = (id(flow.senders), id(flow.receivers), flow.bundle)
            if same in by_arrays:
                out.append(replace(by_arrays[same], label=flow.label))
                continue
            stage = self.stage(i)
            s, d, k = stage.sources, stage.destinations, stage.counts
            fingerprint = (len(s), int((d * (s + 1)).sum()), int((k * (d + 1)).sum()))
            for earlier in seen.setdefault(fingerprint, []):
                if all(
                    np.array_equal(getattr(stage, name), getattr(earlier, name))
                    for name in ("sources", "destinations", "counts", "allowed")
                ):
                    stage = replace(earlier, label=stage.label, pieces=stage.pieces)
                    break
            else:
                seen[fingerprint].append(stage)
            by_arrays[same] = stage
            out.append(stage)
        return out


def within_hops(stage: Stage, max_hops: int) -> Stage:
    """The stage with every direction whose arc is longer than `max_hops` forbidden: a loss
    budget bounds the path length (OpTree journal Sec. IV-B, eqs. 4-6). Raises when a demand
    has no direction left, naming it."""
    n = stage.nodes
    s, d, a = stage.sources, stage.destinations, stage.allowed
    cw_len, ccw_len = (d - s) % n, (s - d) % n
    cw_ok = (cw_len <= max_hops) & (a != Direction.CCW)
    ccw_ok = (ccw_len <= max_hops) & (a != Direction.CW)
    stuck = np.flatnonzero(~(cw_ok | ccw_ok))
    if len(stuck):
        i = int(stuck[0])
        shortest = int(
            min(
                cw_len[i] if a[i] != Direction.CCW else n, ccw_len[i] if a[i] != Direction.CW else n
            )
        )
        raise AlgorithmRefusedError(
            f"{stage.label or 'a stage'}: the lightpath {int(s[i])} -> {int(d[i])} needs "
            f"{shortest} hops, more than the limit of {max_hops}; raise the limit "
            "(max_lightpath_hops; under 'loss_budget', the laser power) or choose another "
            "algorithm",
            {"source": int(s[i]), "destination": int(d[i]), "hops": shortest, "max_hops": max_hops},
        )
    allowed = np.where(cw_ok & ccw_ok, ANY_DIRECTION, np.where(cw_ok, Direction.CW, Direction.CCW))
    return Stage.from_demands(n, s, d, stage.counts, allowed, stage.label, stage.pieces)
