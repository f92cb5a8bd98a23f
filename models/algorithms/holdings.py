"""All-gather builder helper: who holds which item, and "send what the receiver lacks".

Tree-shaped all-gathers (OpTree, WRHT) are easiest to state as "in this stage, node a sends
node b everything a holds that b does not". This helper tracks holdings as an N x N boolean
matrix (16 MiB at N = 4096) and turns a stage's (sender, receiver) pairs into the items they
carry, all computed against the holdings at the start of the stage (stages are synchronous).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from models.stage import StageFlow

_PAIR_BATCH = 2048


class Holdings:
    def __init__(self, nodes: int) -> None:
        self.has = np.eye(nodes, dtype=bool)

    def stage(self, senders: npt.ArrayLike, receivers: npt.ArrayLike, label: str) -> StageFlow:
        """Flows of one stage; every pair sends what its receiver lacks, then all arrive."""
        s_all = np.asarray(senders, dtype=np.int64)
        r_all = np.asarray(receivers, dtype=np.int64)
        out_s, out_r, out_d = [], [], []
        for lo in range(0, len(s_all), _PAIR_BATCH):
            s = s_all[lo : lo + _PAIR_BATCH]
            r = r_all[lo : lo + _PAIR_BATCH]
            pair_idx, item = np.nonzero(self.has[s] & ~self.has[r])
            out_s.append(s[pair_idx])
            out_r.append(r[pair_idx])
            out_d.append(item)
        flow_s = np.concatenate(out_s) if out_s else np.zeros(0, np.int64)
        flow_r = np.concatenate(out_r) if out_r else np.zeros(0, np.int64)
        flow_d = np.concatenate(out_d) if out_d else np.zeros(0, np.int64)
        self.has[flow_r, flow_d] = True
        return StageFlow.of(flow_s, flow_r, flow_d, label=label)

    def stage_counts(
        self, senders: npt.ArrayLike, receivers: npt.ArrayLike
    ) -> npt.NDArray[np.int64]:
        """What `stage` does, counting the items of each pair instead of listing them (the
        shape search needs only the demands; tests prove both give the same stage)."""
        s_all = np.asarray(senders, dtype=np.int64)
        r_all = np.asarray(receivers, dtype=np.int64)
        counts = np.zeros(len(s_all), dtype=np.int64)
        for lo in range(0, len(s_all), _PAIR_BATCH):
            s = s_all[lo : lo + _PAIR_BATCH]
            r = r_all[lo : lo + _PAIR_BATCH]
            counts[lo : lo + _PAIR_BATCH] = (self.has[s] & ~self.has[r]).sum(axis=1)
        if len(s_all):
            # has[r] |= has[s] for every pair (all read before any is written), grouped by
            # receiver in batches of rows so memory stays bounded (ufunc.at is slow).
            nodes = self.has.shape[1]
            arrived = np.zeros((self.has.shape[0], -(-nodes // 8)), dtype=np.uint8)
            order = np.argsort(r_all, kind="stable")
            s_sorted, r_sorted = s_all[order], r_all[order]
            for lo in range(0, len(order), _PAIR_BATCH):
                r = r_sorted[lo : lo + _PAIR_BATCH]
                starts = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
                packed = np.packbits(self.has[s_sorted[lo : lo + _PAIR_BATCH]], axis=1)
                arrived[r[starts]] |= np.bitwise_or.reduceat(packed, starts, axis=0)
            self.has |= np.unpackbits(arrived, axis=1, count=nodes).astype(bool)
        return counts


class PackedHoldings:
    """`Holdings.stage_counts` on bits: row i holds node i's items as N / 64 words, so a
    pair's new items are a popcount of 64-bit words (about 8x less memory and work than
    booleans). Copies are cheap (2 MiB at N = 4096): OpTree's padded trees that share a
    prefix of levels start from the holdings after it."""

    def __init__(self, nodes: int, bits: npt.NDArray[np.uint64] | None = None) -> None:
        self.nodes = nodes
        if bits is None:
            words = -(-nodes // 64)
            bits = np.zeros((nodes, words), dtype=np.uint64)
            index = np.arange(nodes)
            bits[index, index // 64] = np.left_shift(np.uint64(1), (index % 64).astype(np.uint64))
        self.bits = bits

    def copy(self) -> PackedHoldings:
        return PackedHoldings(self.nodes, self.bits.copy())

    def stage_counts(
        self, senders: npt.ArrayLike, receivers: npt.ArrayLike
    ) -> npt.NDArray[np.int64]:
        """Per pair, the items the sender holds that the receiver lacks (all read before any
        arrives); then every receiver holds what its senders held."""
        s_all = np.asarray(senders, dtype=np.int64)
        r_all = np.asarray(receivers, dtype=np.int64)
        counts = np.zeros(len(s_all), dtype=np.int64)
        for lo in range(0, len(s_all), _PAIR_BATCH * 4):
            s = s_all[lo : lo + _PAIR_BATCH * 4]
            r = r_all[lo : lo + _PAIR_BATCH * 4]
            new = self.bits[s] & ~self.bits[r]
            counts[lo : lo + len(s)] = np.bitwise_count(new).sum(axis=1, dtype=np.int64)
        if len(s_all):
            order = np.argsort(r_all, kind="stable")
            s_sorted, r_sorted = s_all[order], r_all[order]
            starts = np.flatnonzero(np.r_[True, r_sorted[1:] != r_sorted[:-1]])
            arrived = np.bitwise_or.reduceat(self.bits[s_sorted], starts, axis=0)
            self.bits[r_sorted[starts]] |= arrived
        return counts
