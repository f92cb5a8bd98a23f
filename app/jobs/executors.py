"""One executor per process, made on first use: the solver-process pool and the inline job
threads are both kept this way, and both stopped the same way at shutdown."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Generic, TypeVar

E = TypeVar("E", bound=Executor)


class SharedExecutor(Generic[E]):
    def __init__(self, make: Callable[[int], E]) -> None:
        self._make = make
        self._executor: E | None = None
        self._lock = threading.Lock()

    def get(self, workers: int) -> E:
        with self._lock:
            if self._executor is None:
                self._executor = self._make(workers)
            return self._executor

    def shutdown(self) -> None:
        """Cancel work not started yet, wait for the running work; the next `get` makes a new
        executor."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
