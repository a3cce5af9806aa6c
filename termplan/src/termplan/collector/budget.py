"""One thread budget for the three pools of the collector: physics, Numba and BLAS.

The collector's phases run one after another on the main thread (action selection in BLAS,
physics in MuJoCo's rollout pool, update_state in Numba), but idle pool workers may still
spin (OpenMP and OpenBLAS busy-wait after a region), so pools sized independently to the
core count fight over the cores: upstream UniLab #663 measured a 2.5-2.8x slower collector
when Numba's workers competed with Torch's. The split here gives every pool the calling
thread plus a *disjoint* share of the other ``cores - 1`` cores, so the busy threads never
exceed the cores even if every pool spins at once. Physics (the largest phase) gets half of
the spare cores, rounded up; Numba half of the rest, rounded up; BLAS what remains.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from termplan.arrays import check_count
from termplan.threads import apply_threads, max_threads


@dataclass(frozen=True)
class ThreadSplit:
    """Threads per pool; each count includes the calling thread (so 1 means "run inline")."""

    cores: int
    physics: int
    numba: int
    blas: int

    def as_record(self) -> dict[str, int]:
        """The split as flat record fields."""
        return {
            "thread_budget": self.cores,
            "physics_threads": self.physics,
            "numba_threads": self.numba,
            "blas_threads": self.blas,
        }


def split_budget(cores: int) -> ThreadSplit:
    """Split ``cores`` between the pools (pure; see the module docstring).

    Raises
    ------
    ValueError
        If ``cores`` is not a positive int.
    """
    cores = check_count("thread budget (cores)", cores)
    spare = cores - 1
    physics_extra = (spare + 1) // 2
    numba_extra = (spare - physics_extra + 1) // 2
    blas_extra = spare - physics_extra - numba_extra
    return ThreadSplit(cores, 1 + physics_extra, 1 + numba_extra, 1 + blas_extra)


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def apply_split(split: ThreadSplit) -> Any:
    """Mask Numba's pool and limit BLAS to the split; returns the BLAS limiter to keep alive.

    Numba is capped at its pool size (``NUMBA_NUM_THREADS``); the physics count is passed to
    :class:`termplan.sim.physics.BatchedPhysics` by the caller.
    """
    from threadpoolctl import threadpool_limits

    apply_threads(min(split.numba, max_threads()))
    return threadpool_limits(limits=split.blas, user_api="blas")
