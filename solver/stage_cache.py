"""Solved stages reused across algorithms, shapes, plans and sweeps, up to ring symmetry.

A stage and its image under a rotation of the ring (i -> i + t) or a reflection
(i -> -i, clockwise and counter-clockwise swapped) need the same channels: an assignment of
one maps onto the other lightpath by lightpath, colours kept, directions swapped by a
reflection. So a stage is solved in a canonical form and the answer mapped back:

- each node gets a signature, a hash of its outgoing demands (offset d - s, count, allowed
  direction) summed over them; the rotation that makes the signature sequence
  lexicographically least (Booth's algorithm) is applied, and the same for the reflected
  stage; the smaller of the two sequences wins (ties keep the unreflected one);
- the key is a digest of the canonical demands themselves, so a hash collision in the
  signatures can only cost a reuse, never give a wrong answer.

Chi does not depend on the ring's wavelengths or fibres, so a result is reused for any
(w, F): only `channels_per_direction` (and with it the steps) is set for the caller's ring.
With per-node limits the schedule does depend on them, and the channels join the key.

Stages above CANONICAL_LIMIT demands skip the canonical form (its sort costs about as much
as their solve) and are keyed as given. Mapped assignments are checked by the validator.
"""

from __future__ import annotations

import hashlib
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from models.ring import ANY_DIRECTION, Direction, Ring
from models.stage import Stage
from solver.assignment import Assignment
from solver.outcome import RwaResult, SolvedBy, SolveOptions, Status
from solver.solve import channels_to_prove, solve_stage
from solver.validator import validate

IntArray = npt.NDArray[np.int64]

CANONICAL_LIMIT = 1_000_000  # demands; larger stages are keyed as given
DEFAULT_RUN_LIMIT = 8_000_000  # assignment runs kept by a cache (about 256 MB)
# the key suffix of results that proved steps but not channels (`_steps_only`)
_STEPS_ONLY = b"|steps"
MIN_SOLVE_S = 0.5  # the least time a solve past its deadline still gets (bound, heuristic)

_FLIP = np.array([Direction.CCW, Direction.CW, ANY_DIRECTION], dtype=np.int64)


_KEYS: weakref.WeakKeyDictionary[Stage, bytes] = weakref.WeakKeyDictionary()


def _steps_only(key: bytes, ring: Ring) -> bytes:
    """Where a result that proved steps but not channels is kept: its colouring stopped at
    the channels its steps need on this ring's C channels (C ceil(bound / C)), so it serves
    rings of as many channels only (review, session 34: kept for any C, a stage solved at
    C = 64 answered 2 steps at C = 10 where a fresh solve proves 1)."""
    return key + _STEPS_ONLY + str(ring.channels_per_direction).encode()


def stage_key(stage: Stage) -> bytes:
    """A digest of the stage's demands (SHA-256: a collision is not a concern). Remembered
    per stage object: a plan and its cache both key the same stage. SHA-256 because this
    machine hashes it at 1.2 GB/s against BLAKE2b's 0.42 (both in hashlib): the N = 8192
    all-to-all search keyed 13859 stages, 13.6 s of its 30 s budget with BLAKE2b."""
    known = _KEYS.get(stage)
    if known is not None:
        return known
    digest = hashlib.sha256()
    digest.update(np.int64(stage.nodes).tobytes())
    for array in (stage.sources, stage.destinations, stage.counts, stage.allowed):
        digest.update(np.int64(len(array)).tobytes())
        digest.update(np.ascontiguousarray(array).data)
    key = digest.digest()
    _KEYS[stage] = key
    return key


@dataclass(frozen=True)
class Canonical:
    """`stage` = the canonical stage moved back: canonical demand c is demand `order[c]` of
    the caller's stage; `reflected` swaps the two directions."""

    stage: Stage
    order: IntArray
    reflected: bool
    rotation: int

    @property
    def identity(self) -> bool:
        return not self.reflected and self.rotation == 0

    def assignment_forward(self, assignment: Assignment) -> Assignment:
        """An assignment of the caller's stage as one of the canonical stage."""
        position = np.empty_like(self.order)
        position[self.order] = np.arange(len(self.order))
        direction = 1 - assignment.direction if self.reflected else assignment.direction
        return Assignment.from_runs(
            position[assignment.demand], direction, assignment.first_colour, assignment.count
        )

    def assignment_back(self, assignment: Assignment) -> Assignment:
        """An assignment of the canonical stage as one of the caller's stage."""
        direction = 1 - assignment.direction if self.reflected else assignment.direction
        return Assignment.from_runs(
            self.order[assignment.demand], direction, assignment.first_colour, assignment.count
        )


def canonical(stage: Stage) -> Canonical:
    """The canonical form described in the module docstring."""
    n = stage.nodes
    if stage.demand_count == 0 or stage.demand_count > CANONICAL_LIMIT:
        return Canonical(stage, np.arange(stage.demand_count), False, 0)
    plain = _least_rotation(
        _signatures(n, stage.sources, stage.destinations, stage.counts, stage.allowed)
    )
    s_r, d_r, a_r = (-stage.sources) % n, (-stage.destinations) % n, _FLIP[stage.allowed]
    mirrored = _least_rotation(_signatures(n, s_r, d_r, stage.counts, a_r))
    reflected = mirrored[1] < plain[1]
    t = mirrored[0] if reflected else plain[0]
    s, d, a = (s_r, d_r, a_r) if reflected else (stage.sources, stage.destinations, stage.allowed)
    s, d = (s - t) % n, (d - t) % n
    key = (s * n + d) * 3 + a
    order = np.argsort(key, kind="stable")
    moved = Stage(
        n,
        _frozen(s[order]),
        _frozen(d[order]),
        _frozen(stage.counts[order]),
        _frozen(a[order]),
        stage.label,
        stage.pieces,
    )
    return Canonical(moved, order, bool(reflected), int(t))


def _frozen(array: IntArray) -> IntArray:
    array.setflags(write=False)
    return array


def _signatures(n: int, s: IntArray, d: IntArray, k: IntArray, a: IntArray) -> list[int]:
    """Per node, the wrapped sum of its outgoing demands' hashes (order-free)."""
    x = (((d - s) % n) * 1_000_003 + k * 7 + a).astype(np.uint64)
    # splitmix64 finaliser: spreads nearby values over 64 bits.
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    sums = np.zeros(n, dtype=np.uint64)
    np.add.at(sums, s, x)
    return [int(v) for v in sums.tolist()]


def _least_rotation(sequence: list[int]) -> tuple[int, list[int]]:
    """(t, sequence rotated to start at t), t the start of the lexicographically least
    rotation (Booth 1980, least circular shift, O(n))."""
    doubled = sequence + sequence
    failure = [-1] * len(doubled)
    k = 0
    for j in range(1, len(doubled)):
        sj = doubled[j]
        i = failure[j - k - 1]
        while i != -1 and sj != doubled[k + i + 1]:
            if sj < doubled[k + i + 1]:
                k = j - i - 1
            i = failure[i]
        if sj != doubled[k + i + 1]:
            if sj < doubled[k]:
                k = j
            failure[j - k] = -1
        else:
            failure[j - k] = i + 1
    return k, doubled[k : k + len(sequence)]


@dataclass
class StageCache:
    """Solved stages by canonical form (see the module docstring), least recently used
    dropped beyond `run_limit` assignment runs; a result of more than a quarter of that is
    returned but not kept."""

    run_limit: int = DEFAULT_RUN_LIMIT
    results: OrderedDict[bytes, RwaResult] = field(default_factory=OrderedDict)
    hits: int = 0
    runs: int = 0
    # Plans of one process may run in threads (inline jobs): the dict is guarded, the solve
    # is not (two threads may solve the same new stage once each).
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def has(self, ring: Ring, stage: Stage, options: SolveOptions) -> bool:
        """An equivalent stage is cached (solve would not solve)."""
        key = self.key(canonical(stage).stage, ring, options)
        with self.lock:
            return any(k in self.results for k in self._lookups(key, options, ring))

    @staticmethod
    def _lookups(key: bytes, options: SolveOptions, ring: Ring) -> tuple[bytes, ...]:
        """Where a result for these options may be kept: a solve that proved channels serves
        every caller; one that stopped at proven steps (`SolveOptions.prove_channels` False,
        the shape search) only callers that ask no more, on as many channels
        (`_steps_only`)."""
        return (key,) if options.prove_channels else (key, _steps_only(key, ring))

    def solve(
        self, ring: Ring, stage: Stage, options: SolveOptions, deadline: float | None = None
    ) -> RwaResult:
        """The stage's result, from the cache when an equivalent stage was solved. A solve
        that `deadline` (time.monotonic; the shape search's budget) leaves less than
        `options.time_limit_s` gets only the time left (at least `MIN_SOLVE_S`) and is kept
        only if proven: a later caller with the whole time limit may do better."""
        form = canonical(stage)
        key = self.key(form.stage, ring, options)
        found = None
        with self.lock:
            for where in self._lookups(key, options, ring):
                found = self.results.get(where)
                if found is not None:
                    self.hits += 1
                    self.results.move_to_end(where)
                    break
        if found is None:
            given = options
            if deadline is not None:
                left = max(MIN_SOLVE_S, deadline - time.monotonic())
                if left < options.time_limit_s:
                    given = replace(options, time_limit_s=left)
            found = solve_stage(ring, form.stage, given)
            # A construction does not depend on the labels (the padded odd all-to-all, built
            # when the heuristic ran out of time, would run out again under the caller's).
            relabel = not form.identity and found.method != SolvedBy.CONSTRUCTION
            # Under per-node limits the steps are the node-limited schedule's, the same
            # whether channels are proven or not (solve_stage): no second solve that keeps
            # the fewer colours (they can take more slots: explicit and searched plans
            # differed by a slot; review, session 35), and one key for both callers.
            limited = found.limited_steps is not None
            if given is options and relabel and not limited and channels_to_prove(
                found.chi, found.lower_bound, ring.channels_per_direction,
                options.prove_channels,
            ):
                found = self._also_as_given(found, form, stage, ring, options)
            if given is options or found.status == Status.OPTIMAL:
                # an optimal result is what a solve proving channels would keep too
                steps_only = (not options.prove_channels and found.status != Status.OPTIMAL
                              and not limited)
                with self.lock:
                    self._store(_steps_only(key, ring) if steps_only else key, found)
        return self._for_caller(found, form, stage, ring)

    @staticmethod
    def _also_as_given(
        found: RwaResult, form: Canonical, stage: Stage, ring: Ring, options: SolveOptions
    ) -> RwaResult:
        """An unproven canonical result against the stage solved under the caller's labels:
        the routing search and the colourings depend on where node 0 is (WRHT's
        representatives at N = 2048: 4193 channels in canonical labels, 4128 = the bound
        as given). The fewer channels win, under the larger of the two proven bounds; the
        result stays in canonical labels."""
        direct = solve_stage(ring, stage, options)
        lower = max(found.lower_bound, direct.lower_bound)
        best = found
        if direct.chi < found.chi:
            best = replace(direct, assignment=form.assignment_forward(direct.assignment))
            validate(form.stage, best.assignment)
        status = Status.OPTIMAL if best.chi == lower else best.status
        return replace(
            best, lower_bound=lower, status=status, seconds=found.seconds + direct.seconds
        )

    def key(self, stage: Stage, ring: Ring, options: SolveOptions) -> bytes:
        limited = options.max_tx is not None or options.max_rx is not None
        extra = (
            options.method.value,
            repr(options.time_limit_s),
            repr(options.max_tx),
            repr(options.max_rx),
            repr(ring.channels_per_direction) if limited else "",
        )
        return stage_key(stage) + "|".join(extra).encode()

    def _store(self, key: bytes, result: RwaResult) -> None:
        if result.assignment.runs > self.run_limit // 4:
            return
        self.results[key] = result
        self.runs += result.assignment.runs
        while self.runs > self.run_limit:
            _, dropped = self.results.popitem(last=False)
            self.runs -= dropped.assignment.runs

    @staticmethod
    def _for_caller(result: RwaResult, form: Canonical, stage: Stage, ring: Ring) -> RwaResult:
        channels = ring.channels_per_direction
        if form.identity:
            if result.channels_per_direction == channels:
                return result
            return replace(result, channels_per_direction=channels)
        assignment = form.assignment_back(result.assignment)
        validate(stage, assignment)
        return replace(result, assignment=assignment, channels_per_direction=channels)


_SHARED = StageCache()


def shared_cache() -> StageCache:
    """The process's cache: plans without a cache of their own (every plan, reproduction and
    sweep point the service solves in this process) share it."""
    return _SHARED
