"""Simulated CPU cost of one hot-slice call (callgrind), per task x profile x path x N.

The same cases as ``hot_slice.HotSlice`` at one thread, counted instead of timed: the
figures are deterministic (the same code and inputs give the same counts on any run), so a
1% change shows from one measurement per side. Threads, memory bandwidth and NUMA stay on the
wall clock (valgrind serializes threads and simulates caches, not DRAM).

One asv run measures every selected case in one valgrind process (``setup_cache``), one call
of a case being what ``hot_slice`` times: ``hot_slice.compute(batch, step)`` with the step
counter advancing. The hot slice logs on every fourth step; a case is counted on steps 4
(logging) and 5 (a plain step), weighted 1:3 (`SimHotSlice.sim_weights`), which stands for
steps 4 to 7 of a training loop for two simulated calls instead of four: a call of the
motion_tracking NumPy path at N=65536 costs ~30 s under the simulator, and steps 5 and 6
differ by at most 0.33% in instructions on the full grid (g1_walk's small cases; under 0.01%
at N=65536). Both sides of a comparison count the same steps. A warm-up call (step 3)
fills the simulated caches first. Building a case (batch, kernel load, first call) is never
counted. Cases of one task, profile and N share their batch, as in ``hot_slice``'s variant
rounds, and are counted one after another (`SimHotSlice.sim_order`): the motion_tracking
batch at N=65536 takes ~4 s to build natively.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from perfgate.sim.suite import SimBenchmark

from ._common import NUM_ENVS, PATHS, PROFILES, TASKS, Case

#: (task, profile, num_envs) -> its batch: the last one built, shared by its paths
_batch: tuple[tuple[str, str, int], Any] | None = None


def shared_batch(task: str, profile: str, num_envs: int) -> Any:
    """The batch of (task, profile, num_envs), built once for the cases that share it."""
    global _batch
    key = (task, profile, num_envs)
    if _batch is None or _batch[0] != key:
        _batch = None  # one batch alive at a time
        from termplan import tasks

        _batch = (key, tasks.make_batch(task, num_envs, seed=0, profile=profile))
    return _batch[1]


#: The largest N counted: the full grid's larger N (up to 262144 on the pinned runners) cost
#: a minute of simulation per case and call and add nothing a count at 65536 misses (every
#: path's data is already far beyond the simulated last-level cache there).
MAX_NUM_ENVS = 65536
SIM_NUM_ENVS = tuple(n for n in NUM_ENVS if n <= MAX_NUM_ENVS)


class SimHotSlice(SimBenchmark):
    """Callgrind's figures per ``hot_slice.compute`` call at one thread."""

    params = (TASKS, PROFILES, PATHS, SIM_NUM_ENVS)
    param_names = ("task", "profile", "path", "num_envs")
    #: measured: step 4 (logs), step 5 (also standing for steps 6 and 7); warm-up: step 3
    sim_weights = (1, 3)
    sim_warmup = 1

    @classmethod
    def sim_order(cls, combos: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """The cases of one batch (task, profile, N) one after another, paths in order."""
        return sorted(combos, key=lambda c: (TASKS.index(c[0]), PROFILES.index(c[1]), c[3]))

    def setup_cache(self) -> dict[tuple[Any, ...], dict[str, Any]]:
        """One harness run for every selected case of this asv run."""
        return self.measure_cases()

    @staticmethod
    def sim_case(task: str, profile: str, path: str, num_envs: int) -> Callable[[], object]:
        """The built case (first call done, never counted), its step counter at
        `FIRST_STEP`; each call advances the step."""
        batch = shared_batch(task, profile, num_envs)
        case = Case(task, profile, path, num_envs, 1, batch=batch)
        case.step = FIRST_STEP
        return case.call


#: the warm-up call's step: the measured calls are then step 4 (a logging step: termplan's
#: ``tasks.base.LOG_EVERY`` is 4) and 5
FIRST_STEP = 3
