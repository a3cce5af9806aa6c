"""Thread scaling of the Numba paths: the best thread count per N and parallel efficiency.

Every thread count of the grid that the machine's Numba pool can run is built for the same
N and timed in interleaved rounds (one call per count per round), so the curve is measured
side by side. Two values are tracked:

* ``track_best_threads``: the thread count with the lowest median time (unit: threads);
* ``track_parallel_efficiency``: ``T1 / (p * Tp)`` at the largest usable count ``p``
  (1.0 = perfect scaling; unit: efficiency). Note that *lower* is worse here: perfgate
  compares it as base/head (``higher_is_better`` in ``[tool.perfgate]``), while asv's
  regression page flags increases; read its entries for this benchmark as improvements.
"""

from __future__ import annotations

from ._common import (
    NUM_ENVS,
    NUMBA_PATHS,
    TASKS,
    THREADS,
    Case,
    interleaved_medians,
    usable_threads,
)

PROFILE = "sac_default"


def best_threads(counts: list[int], medians: list[float]) -> int:
    """The thread count with the smallest median (the smaller count wins a tie)."""
    if not counts or len(counts) != len(medians):
        raise ValueError("best_threads: expected one median per thread count")
    return min(zip(medians, counts, strict=True))[1]


def parallel_efficiency(counts: list[int], medians: list[float]) -> float:
    """``T1 / (p * Tp)`` for the largest count ``p``; ``counts`` must start at 1."""
    if len(counts) < 2 or counts[0] != 1 or len(counts) != len(medians):
        raise ValueError("parallel_efficiency: expected counts [1, ..., p] with one median each")
    p = max(counts)
    return medians[0] / (p * medians[counts.index(p)])


class ThreadScaling:
    """Scaling of one Numba path at one N over the usable thread counts of the grid."""

    params = (TASKS, NUMBA_PATHS, NUM_ENVS)
    param_names = ("task", "path", "num_envs")
    timeout = 600.0

    def setup(self, task: str, path: str, num_envs: int) -> None:
        """Build one case per usable thread count (skip if fewer than two are usable)."""
        self.counts = usable_threads(THREADS)
        if len(self.counts) < 2 or self.counts[0] != 1:
            raise NotImplementedError(
                f"thread scaling needs >= 2 thread counts, got {self.counts}"
            )
        first = Case(task, PROFILE, path, num_envs, self.counts[0])
        rest = [Case(task, PROFILE, path, num_envs, t, first.batch) for t in self.counts[1:]]
        self.cases = [first, *rest]

    def _medians(self) -> list[float]:
        return interleaved_medians(self.cases, min_rounds=5, max_rounds=31, budget_s=2.0)

    def track_best_threads(self, task: str, path: str, num_envs: int) -> int:
        """The thread count with the lowest median time at this N."""
        return best_threads(self.counts, self._medians())

    track_best_threads.unit = "threads"  # type: ignore[attr-defined]

    def track_parallel_efficiency(self, task: str, path: str, num_envs: int) -> float:
        """T1 / (p * Tp) at the largest usable thread count p."""
        return parallel_efficiency(self.counts, self._medians())

    track_parallel_efficiency.unit = "efficiency"  # type: ignore[attr-defined]
