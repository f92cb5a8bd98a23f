"""Solver processes that can be stopped: each serves one call at a time over a pipe, so a call
is cancelled by ending its process (a client that went away, a DELETE, shutdown), which is then
replaced by a fresh one on next use. concurrent.futures' process pool cannot do this: a
running task there cannot be stopped, and killing a worker breaks the whole pool.

Processes use the 'spawn' start method (the API runs threads, which 'fork' would copy in an
undefined state) and die with the process that started them (Linux PR_SET_PDEATHSIG), so a
server killed with SIGKILL leaves no solver running.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from app.errors import JobCancelledError, SolverBusyError, SolverCrashedError
from models.errors import LimitExceededError

POLL_S = 0.05
MEMORY_EVERY_S = 0.2  # how often a running solve's resident memory is read
PR_SET_PDEATHSIG = 1
PAGE = os.sysconf("SC_PAGE_SIZE")


def resident_bytes(pid: int) -> int:
    """Resident memory of process `pid` (Linux /proc; 0 where that is not available)."""
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def over_memory(limit: int) -> LimitExceededError:
    return LimitExceededError(
        f"the solve used more than {limit / 2**20:.0f} MB, the memory one solve may use "
        "(RWAOPT_SOLVE_MEMORY_MB), and was ended; ask for less: a smaller ring or stage, "
        "and for a plan fewer algorithms or shape 'paper' instead of 'best'"
    )


class MemoryWatch:
    """A thread that calls `exceeded()` once when this process's resident memory passes
    `limit` bytes (read every MEMORY_EVERY_S): the guard of a solve that runs in the process
    itself (an RQ work horse), where no parent can end it."""

    def __init__(self, limit: int, exceeded: Callable[[], None]) -> None:
        self.limit, self._exceeded = limit, exceeded
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="rwaopt-memory", daemon=True)

    def _watch(self) -> None:
        while not self._done.wait(MEMORY_EVERY_S):
            if resident_bytes(os.getpid()) > self.limit:
                self._exceeded()
                return

    def __enter__(self) -> MemoryWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join()


class PoolClosedError(Exception):
    """The pool is shutting down: the call was ended, its job is left to the next start."""


def _die_with_parent(parent: int) -> None:
    """SIGKILL this process when its parent dies (Linux); elsewhere a no-op."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _serve(connection: Connection, parent: int) -> None:
    """A solver process's loop: run each call it is sent and send back what it returns.
    The solvers' C++ code (HiGHS) prints to file descriptor 1: that goes to stderr, so the
    CLI's stdout stays CSV/JSON."""
    _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    os.dup2(2, 1)
    while True:
        try:
            work, args = connection.recv()
        except (EOFError, OSError):
            return
        connection.send(work(*args))


class SolverProcess:
    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self._connection, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, os.getpid()), name="rwaopt-solver", daemon=True
        )
        self._process.start()
        child.close()

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def call(
        self,
        work: Callable[..., Any],
        args: tuple[Any, ...],
        stop: StopSignals,
        limit_s: float | None = None,
        memory_bytes: int | None = None,
    ) -> Any:
        """Run `work(*args)` in the process. Raises JobCancelledError (the call's stop event
        was set), PoolClosedError (shutdown), LimitExceededError (it ran past `limit_s`, or
        its resident memory past `memory_bytes`) or SolverCrashedError (the process died);
        after any of these the process is dead and must not be reused."""
        self._connection.send((work, args))
        deadline = None if limit_s is None else time.monotonic() + limit_s
        next_look = time.monotonic()
        while not self._connection.poll(POLL_S):
            if memory_bytes is not None and time.monotonic() >= next_look:
                next_look = time.monotonic() + MEMORY_EVERY_S
                if self.pid is not None and resident_bytes(self.pid) > memory_bytes:
                    self.kill()
                    raise over_memory(memory_bytes)
            if deadline is not None and time.monotonic() > deadline:
                self.kill()
                raise LimitExceededError(
                    f"the solve ran past its limit of {limit_s:g} s (RWAOPT_MAX_SOLVE_S) and "
                    "was ended; ask for less: a smaller ring, fewer algorithms, a shorter "
                    "time_limit_s or search_budget_s"
                )
            if stop.call.is_set() or stop.pool.is_set():
                self.kill()
                if stop.pool.is_set():
                    raise PoolClosedError
                raise JobCancelledError("the solve was cancelled")
            if not self._process.is_alive():
                raise _crashed()
        try:
            return self._connection.recv()
        except (EOFError, OSError):
            raise _crashed() from None

    def kill(self) -> None:
        if self._process.is_alive():
            self._process.kill()
        self._process.join(timeout=5)
        self._connection.close()


def _crashed() -> SolverCrashedError:
    return SolverCrashedError(
        "the solver process died (out of memory?); try a smaller ring or the heuristic method"
    )


class StopSignals:
    """What ends a call early: its own event (client gone, DELETE) or the pool's (shutdown)."""

    def __init__(self, call: threading.Event, pool: threading.Event) -> None:
        self.call, self.pool = call, pool


class SolverPool:
    """At most `size` solver processes, started on first use and reused; a call waits for a
    free one (at most `wait_s`, else SolverBusyError). With `memory_bytes`, a call whose
    process grows past it is ended (LimitExceededError), and a process left holding more
    than half of it after a call is replaced (Python keeps freed memory)."""

    def __init__(self, size: int, memory_bytes: int | None = None) -> None:
        self.size = size
        self.memory_bytes = memory_bytes
        self._slots = threading.BoundedSemaphore(size)
        self._idle: list[SolverProcess] = []
        self._busy: set[SolverProcess] = set()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self.waiting = 0  # calls waiting for a process (for admission control)

    def run(
        self,
        work: Callable[..., Any],
        *args: Any,
        stop: threading.Event | None = None,
        wait_s: float | None = None,
        limit_s: float | None = None,
    ) -> Any:
        if self._closing.is_set():
            raise PoolClosedError
        with self._lock:
            self.waiting += 1
        try:
            acquired = self._slots.acquire(timeout=wait_s)
        finally:
            with self._lock:
                self.waiting -= 1
        if not acquired:
            raise SolverBusyError(
                f"all {self.size} solver processes are busy; retry in a little while",
                {"retry_after_s": 5},
            )
        try:
            process = self._take()
            try:
                signals = StopSignals(stop or threading.Event(), self._closing)
                outcome = process.call(work, args, signals, limit_s, self.memory_bytes)
            except BaseException:
                with self._lock:
                    self._busy.discard(process)
                process.kill()
                raise
            keep = self.memory_bytes is None or (
                process.pid is not None and resident_bytes(process.pid) <= self.memory_bytes // 2
            )
            with self._lock:
                self._busy.discard(process)
                if keep:
                    self._idle.append(process)
            if not keep:
                process.kill()
            return outcome
        finally:
            self._slots.release()

    def _take(self) -> SolverProcess:
        with self._lock:
            process = self._idle.pop() if self._idle else None
        if process is None:
            process = SolverProcess()
        with self._lock:
            self._busy.add(process)
        return process

    @property
    def busy(self) -> int:
        with self._lock:
            return len(self._busy)

    def pids(self) -> list[int]:
        with self._lock:
            return [p.pid for p in (*self._idle, *self._busy) if p.pid is not None]

    def close(self) -> None:
        """End every call now (they raise PoolClosedError) and every process."""
        self._closing.set()
        with self._lock:
            idle, self._idle = self._idle, []
        for process in idle:
            process.kill()
