"""Data-flow simulator: runs a schedule on symbolic data and checks the collective's promise.

It is independent of how the algorithms compute their flows: it keeps its own state and checks

- all-gather: a node only sends items it holds; at the end every node holds all N items;
- all-to-all: a process only sends blocks it holds (a block lives at one process at a time);
  at the end block (s, t) is at process t;
- all-reduce (and reduce-scatter): every (node, chunk) keeps the multiset of contributions
  it has summed, as a count and a sum of 64-bit random keys (mod 2^64); ADD adds the sender's,
  COPY requires the sender's chunk to be complete (all N contributions, each once) and
  copies it. At the end every node must hold, for every chunk, exactly the N contributions
  each once. A node may keep partial sums in scratch registers (`models.stage.REGISTERS`): a
  flow sends the sum of the registers it reads and adds to (ADD), replaces (SET: any partial
  sum; COPY: complete sums only) the receiver's register it writes; only register 0 counts at
  the end. Reduce-scatter checks only each chunk's owner at the end (chunk i at node i).
  A wrong multiset passes only if two sums of random 64-bit keys collide (probability ~2^-64).

Stages are synchronous: every flow reads the state at the start of its stage.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from models.errors import DataFlowError
from models.stage import REGISTERS, Reduction, Schedule


@dataclass(frozen=True)
class DataFlowReport:
    stages: int
    moved: int  # data moved over all stages (unit lightpaths plus intra-node moves)
    # all-reduce and reduce-scatter: the most nodes at which one datum's complete sum is
    # formed by adding partial sums (rather than received whole); 1 means every complete sum
    # is formed once and copied from there: a reduce-then-broadcast schedule
    # (docs/achievable.md). None for the other collectives.
    sums_formed: int | None = None


def simulate(schedule: Schedule) -> DataFlowReport:
    """Run `schedule`; raise DataFlowError with the first violation found."""
    runner: dict[str, Callable[[Schedule], tuple[int, int | None]]] = {
        "allgather": _allgather,
        "alltoall": _alltoall,
        "allreduce": _allreduce,
        "reducescatter": _reducescatter,
    }
    try:
        run = runner[str(schedule.collective)]
    except KeyError:
        raise DataFlowError(f"no simulator for collective {schedule.collective}") from None
    moved, formed = run(schedule)
    return DataFlowReport(schedule.stage_count, moved, formed)


def _allgather(schedule: Schedule) -> tuple[int, None]:
    n = schedule.nodes
    has = np.repeat(np.eye(n, dtype=bool), schedule.pieces, axis=1)  # piece j of item i
    moved = 0
    for t, flow in enumerate(schedule.flows):
        held = has[flow.senders, flow.data]
        if not held.all():
            i = int(np.flatnonzero(~held)[0])
            raise DataFlowError(
                f"stage {t + 1}: node {flow.senders[i]} sends item {flow.data[i]} it does not hold"
            )
        has[flow.receivers, flow.data] = True
        moved += len(flow.data)
    missing = np.argwhere(~has)
    if len(missing):
        node, item = missing[0]
        q = schedule.pieces
        what = f"item {item}" if q == 1 else f"piece {item % q} of item {item // q}"
        raise DataFlowError(f"after all stages node {node} lacks {what}")
    return moved, None


def _alltoall(schedule: Schedule) -> tuple[int, None]:
    p, q = len(schedule.endpoint_node), schedule.pieces
    block = np.arange(p * p * q) // q  # piece j of block b is datum b * q + j
    holder = block // p  # block s * P + t starts at process s
    slot = np.full(p * p * q, -1, dtype=np.int64)  # scratch: which position wrote a datum
    moved = 0
    for t, flow in enumerate(schedule.flows):
        # A block named twice is written twice and keeps one position: the other differs.
        position = np.arange(len(flow.data))
        slot[flow.data] = position
        if (slot[flow.data] != position).any():
            raise DataFlowError(f"stage {t + 1}: a block is sent twice in one stage")
        wrong = holder[flow.data] != flow.senders
        if wrong.any():
            i = int(np.flatnonzero(wrong)[0])
            raise DataFlowError(
                f"stage {t + 1}: process {flow.senders[i]} sends block {flow.data[i]} "
                f"held by process {holder[flow.data[i]]}"
            )
        holder[flow.data] = flow.receivers
        moved += len(flow.data)
    target = block % p
    bad = np.flatnonzero(holder != target)
    if len(bad):
        b = int(block[bad[0]])
        raise DataFlowError(
            f"after all stages block {b // p}->{b % p} is at process {holder[bad[0]]}, "
            f"not {b % p}"
        )
    return moved, None


def _reducescatter(schedule: Schedule) -> tuple[int, int]:
    """All-reduce's rules; at the end only the owner's chunks are checked: datum d (piece
    d mod q of chunk d // q, q = `schedule.pieces`) belongs to node d // q."""
    return _allreduce(schedule, owned_only=True)


def _allreduce(schedule: Schedule, owned_only: bool = False) -> tuple[int, int]:
    n, chunks = schedule.nodes, schedule.data_count
    rng = np.random.default_rng(20231)
    keys = rng.integers(0, 2**63, size=(n, chunks), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    # register -> (count, fingerprint) per (node, chunk), flat at node * chunks + chunk (one
    # index array instead of two: the tests simulate thousands of schedules); scratch
    # registers start empty and are made when a flow first names them (most schedules use
    # register 0 only)
    count = {0: np.ones(n * chunks, dtype=np.int64)}
    fingerprint = {0: keys.reshape(-1).copy()}
    total_count = n
    total_fingerprint = keys.sum(axis=0, dtype=np.uint64)
    # (node, chunk) where a complete sum was formed by adding (a lone node: its own)
    formed = np.full(n * chunks, n == 1)

    def complete(counts: np.ndarray, prints: np.ndarray, c: np.ndarray) -> np.ndarray:
        """Which of these sums (of chunks c) hold every contribution once."""
        whole: np.ndarray = (counts == total_count) & (prints == total_fingerprint[c])
        return whole

    def register(k: int) -> None:
        if k not in count:
            count[k] = np.zeros(n * chunks, dtype=np.int64)
            fingerprint[k] = np.zeros(n * chunks, dtype=np.uint64)

    moved = 0
    for t, flow in enumerate(schedule.flows):
        s, r, c = flow.senders, flow.receivers, flow.data
        source = s.astype(np.int64) * chunks + c  # int64: N = 8192 x 262144 data > 2^31
        target = r.astype(np.int64) * chunks + c
        if flow.reads is None:
            sent_count, sent_fp = count[0][source], fingerprint[0][source]
        else:
            sent_count = np.zeros(len(c), dtype=np.int64)
            sent_fp = np.zeros(len(c), dtype=np.uint64)
            for k in range(REGISTERS):
                named = (flow.reads >> k) & 1 == 1
                if named.any():
                    register(k)
                    sent_count[named] += count[k][source[named]]
                    sent_fp[named] += fingerprint[k][source[named]]
        writes = np.zeros(len(c), dtype=np.int64) if flow.writes is None else flow.writes
        setting = flow.reduction == Reduction.SET
        if flow.reduction == Reduction.COPY:
            copy = np.ones(len(c), dtype=bool)
        elif flow.reduction in (Reduction.ADD, Reduction.SET):
            copy = np.zeros(len(c), dtype=bool)
        elif flow.reduction == Reduction.MIXED and flow.copies is not None:
            copy = flow.copies.astype(bool)
        else:
            raise DataFlowError(f"stage {t + 1}: all-reduce flow without ADD, SET or COPY")
        incomplete = copy & ~complete(sent_count, sent_fp, c) if copy.any() else copy
        if incomplete.any():
            i = int(np.flatnonzero(incomplete)[0])
            raise DataFlowError(
                f"stage {t + 1}: node {s[i]} broadcasts chunk {c[i]} before it is fully "
                f"reduced ({sent_count[i]} of {total_count} contributions)"
            )
        replacing = copy | setting
        if replacing.any() and not (copy.all() and flow.writes is None):
            # a register replaced in a stage takes that value only: no addition lands there,
            # nor (SET) a second partial sum
            slot = writes * (n * chunks) + target
            put = slot[replacing]
            others = slot[~replacing]  # none in a pure COPY stage: nothing to intersect
            clash = np.intersect1d(put, others) if len(others) else others
            if setting and not len(clash):
                values, seen = np.unique(put, return_counts=True)
                clash = values[seen > 1]
            if len(clash):
                where, chunk = divmod(int(clash[0]), chunks)
                k, node = divmod(where, n)
                raise DataFlowError(
                    f"stage {t + 1}: node {node} receives chunk {chunk} in register {k} both "
                    "as a replacement and as another value"
                )
        groups = ([(0, None)] if flow.writes is None
                  else [(k, writes == k) for k in np.unique(writes).tolist()])
        for k, here in groups:  # per register written (most flows: register 0 only)
            register(k)
            add = ~replacing if here is None else here & ~replacing
            if add.any():
                whole = bool(add.all())  # no mask to apply: the common pure-ADD stage
                at = target if whole else target[add]
                ac = c if whole else c[add]
                added = sent_count if whole else sent_count[add]
                added_fp = sent_fp if whole else sent_fp[add]
                # adding one complete sum into an empty register only copies it; any other
                # addition that completes a sum forms it here
                copied = (count[k][at] == 0) & complete(added, added_fp, ac)
                np.add.at(count[k], at, added)
                np.add.at(fingerprint[k], at, added_fp)
                made = complete(count[k][at], fingerprint[k][at], ac) & ~copied
                formed[at[made]] = True
            put = replacing if here is None else here & replacing
            if put.any():
                count[k][target[put]] = sent_count[put]
                fingerprint[k][target[put]] = sent_fp[put]
        moved += len(c)
    final_count = count[0].reshape(n, chunks)
    wrong = ~complete(final_count, fingerprint[0].reshape(n, chunks), np.arange(chunks))
    if owned_only:
        if chunks != n * schedule.pieces:
            raise DataFlowError(
                f"a reduce-scatter of {n} nodes has {n} chunks of {schedule.pieces} pieces, "
                f"not {chunks} data"
            )
        owner = np.arange(chunks) // schedule.pieces
        wrong &= np.arange(n)[:, None] == owner[None, :]
    if wrong.any():
        node, chunk = np.argwhere(wrong)[0]
        raise DataFlowError(
            f"after all stages node {node} chunk {chunk} holds {final_count[node, chunk]} "
            f"contributions (or the wrong ones); expected each of the {total_count} once"
        )
    return moved, int(formed.reshape(n, chunks).sum(axis=0).max(initial=0))


@dataclass(frozen=True)
class MessageCounts:
    """What an MPI algorithm's K and D count, measured on its schedule: rounds in which some
    process sends data to another process, and the most data one process sends in all."""

    rounds: int
    data_sent_per_process: int


def count_messages(schedule: Schedule) -> MessageCounts:
    """K and D of TRA's Propositions 1-4, counted on a schedule (intra-node transfers count:
    they are messages between processes, even when they use no lightpath)."""
    endpoints = len(schedule.endpoint_node)
    sent = np.zeros(endpoints, dtype=np.int64)
    rounds = 0
    for flow in schedule.flows:
        moving = flow.senders != flow.receivers
        if moving.any():
            rounds += 1
            sent += np.bincount(flow.senders[moving], minlength=endpoints)
    return MessageCounts(rounds, int(sent.max(initial=0)))
