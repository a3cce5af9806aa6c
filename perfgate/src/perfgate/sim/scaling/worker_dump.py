"""A dump of callgrind's counts issued by every worker of Numba's pool (measured process only).

With ``--separate-threads=yes`` callgrind keeps counts per thread, and a client request
dumps (and zeroes) the counts of the thread that issues it only; ``CALLGRIND_ZERO_STATS``
too zeroes the issuing thread only (both measured here: valgrind 3.19). The calling thread
can therefore not end a worker's interval. This module compiles one small parallel kernel
whose ``prange`` over the pool's active thread count issues the dump request once per
iteration: with Numba's workqueue layer a parallel loop of T iterations on T threads is one
task per worker queue, so each active worker dumps its own counts exactly once (the harness
checks that T distinct threads dumped, `perfgate.sim.scaling.threaded`).

The kernel calls the request code of `perfgate.sim.client` through a ctypes function pointer,
which Numba cannot cache: it compiles in the measured process (a few seconds, uninstrumented,
under valgrind), eagerly, when `WorkerDumps` is made, before any case is built. Compiled
lazily, at the first case's warm-up dump (before the calling thread's counts are zeroed), it
still left that case's first measured call with ~40,000 more serial instructions than its
second (measured; the first call after a compile does more work): the first case of every run
was biased. Imports Numba lazily: the gate's own
distribution does not depend on it.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from perfgate.sim import client

#: the threading layer the per-thread split relies on (the calling thread never runs a chunk)
LAYER = "workqueue"

#: uint64 request(uint64 block, uint64 default): the request code, typed for Numba
_SIGNATURE = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64)


def _compile() -> Callable[[int], Any]:
    """The parallel kernel issuing request block ``address`` once on every active worker,
    compiled now (its signature given), not at its first call."""
    import numba

    code = ctypes.cast(client._load(), ctypes.c_void_p).value  # type: ignore[arg-type]
    if code is None:
        raise RuntimeError("the client request code has no address")
    request = _SIGNATURE(code)

    @numba.njit("uint64(uint64)", parallel=True)
    def dump_on_workers(address: int) -> int:  # pragma: no cover (compiled)
        total = 0
        for _ in numba.prange(numba.get_num_threads()):
            total += request(address, 0)
        return total

    return dump_on_workers


class WorkerDumps:
    """Prepared dump requests for the workers (the buffers live as long as this object)."""

    def __init__(self) -> None:
        self._kernel = _compile()
        self._keep: list[object] = []

    def prepared(self, name: str) -> Callable[[], None]:
        """Issuing this dumps every active worker's counts under ``name``."""
        text = ctypes.create_string_buffer(name.encode("ascii"))
        block = client._Args(client.DUMP_STATS_AT, ctypes.addressof(text))
        self._keep.append((text, block))
        address, kernel = ctypes.addressof(block), self._kernel

        def dump() -> None:
            kernel(address)

        return dump


def threading_layer() -> str:
    """The layer Numba's pool was started with (call after the first parallel call)."""
    import numba

    return str(numba.threading_layer())
