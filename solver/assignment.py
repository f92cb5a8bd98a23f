"""Compact RWA assignments: runs of consecutive colours per demand and direction.

Colour c is a channel of the stage: slot c // (F w), fibre (c % (F w)) // w, wavelength c % w.
A run (demand i, direction, first colour, count) gives `count` unit lightpaths of demand i the
colours first .. first + count - 1 in that direction. A stage with millions of unit lightpaths
usually has a few runs per demand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from models.ring import Direction, Ring
from models.stage import Stage

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class Assignment:
    demand: IntArray
    direction: IntArray  # models.ring.Direction values
    first_colour: IntArray
    count: IntArray

    @staticmethod
    def from_runs(
        demand: npt.ArrayLike,
        direction: npt.ArrayLike,
        first_colour: npt.ArrayLike,
        count: npt.ArrayLike,
    ) -> Assignment:
        arrays = [
            np.asarray(a, dtype=np.int64).reshape(-1)
            for a in (demand, direction, first_colour, count)
        ]
        keep = arrays[3] > 0
        if keep.all():
            return Assignment(*arrays)
        return Assignment(*(a[keep] for a in arrays))

    @staticmethod
    def empty() -> Assignment:
        return Assignment.from_runs([], [], [], [])

    @property
    def runs(self) -> int:
        return len(self.demand)

    def colours_used(self) -> int:
        """1 + the highest colour used (0 for an empty stage)."""
        if self.runs == 0:
            return 0
        return int((self.first_colour + self.count).max())

    def expand(self) -> tuple[IntArray, IntArray, IntArray]:
        """Per unit lightpath: (demand, direction, colour)."""
        demand = np.repeat(self.demand, self.count)
        direction = np.repeat(self.direction, self.count)
        starts = np.repeat(self.first_colour, self.count)
        offsets = np.arange(len(demand)) - np.repeat(np.cumsum(self.count) - self.count, self.count)
        return demand, direction, starts + offsets

    def lightpaths(self, ring: Ring, stage: Stage) -> dict[str, IntArray]:
        """The lightpath table: source, destination, direction, slot, fibre, wavelength, hops."""
        demand, direction, colour = self.expand()
        s, d = stage.sources[demand], stage.destinations[demand]
        w, channels = ring.wavelengths_per_fiber, ring.channels_per_direction
        hops = np.where(direction == Direction.CW, (d - s) % ring.nodes, (s - d) % ring.nodes)
        return {
            "source": s,
            "destination": d,
            "direction": direction,
            "slot": colour // channels,
            "fiber": (colour % channels) // w,
            "wavelength": colour % w,
            "hops": hops,
        }

    def longest_hops(self, stage: Stage) -> int:
        """The longest lightpath's hops, read off the runs (no unit expanded)."""
        if self.runs == 0:
            return 0
        s, d = stage.sources[self.demand], stage.destinations[self.demand]
        cw = (d - s) % stage.nodes
        ccw = (stage.nodes - cw) % stage.nodes
        return int(np.where(self.direction == Direction.CW, cw, ccw).max())

    def link_loads(self, ring: Ring, stage: Stage) -> IntArray:
        """Lightpaths crossing every directed link over the whole stage, shape (2, N):
        row 0 CW link i (i -> i+1), row 1 CCW link i (i+1 -> i). Each link carries at most
        F w lightpaths per slot, so a load / (steps F w) is that link's channel usage."""
        n = ring.nodes
        loads = np.zeros((2, n + 1), dtype=np.int64)
        s, d = stage.sources[self.demand], stage.destinations[self.demand]
        for direction in (0, 1):
            pick = self.direction == direction
            # CW s -> d covers links s .. d-1; CCW s -> d covers links d .. s-1 (mod N).
            lo, hi = (s[pick], d[pick]) if direction == Direction.CW else (d[pick], s[pick])
            k = self.count[pick]
            np.add.at(loads[direction], lo, k)
            np.add.at(loads[direction], hi, -k)
            np.add.at(loads[direction], np.zeros(int((lo > hi).sum()), dtype=np.int64), k[lo > hi])
        return np.cumsum(loads[:, :n], axis=1)
