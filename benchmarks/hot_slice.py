"""Steady-state time of one hot-slice call per task x profile x path x N x threads.

The first call (JIT compile or Numba cache load) happens in ``setup`` and is never timed;
compile time has its own suite (``compile_time.py``). Every timed call advances the step
counter, so per-term logging steps are timed in the proportion a training loop sees them.
"""

from __future__ import annotations

from ._common import NUM_ENVS, PATHS, PROFILES, TASKS, THREADS, Case


class HotSlice:
    """Wall time of ``hot_slice.compute(batch, step)``; NumPy runs at 1 thread only."""

    params = (TASKS, PROFILES, PATHS, NUM_ENVS, THREADS)
    param_names = ("task", "profile", "path", "num_envs", "threads")
    timeout = 300.0  # setup may compile on a cold cache on a loaded machine
    warmup_time = 0.2
    sample_time = 0.02
    min_run_count = 3
    repeat = (3, 10, 5.0)  # 3..10 samples, at most ~5 s per round
    #: The history's runs (perf-history.yml) interleave these rounds across the commits they
    #: measure, so a drift of the machine during a run hits every commit alike and an 8% step
    #: between stored commits stays visible; the gate runs one round per asv process
    #: (``-a rounds=1``) and interleaves base and head itself.
    rounds = 4

    def setup(self, task: str, profile: str, path: str, num_envs: int, threads: int) -> None:
        """Build the case (skip with NotImplementedError when the commit lacks it)."""
        if path == "numpy" and threads != 1:
            raise NotImplementedError("the NumPy path is single-threaded; timed at threads=1")
        self.case = Case(task, profile, path, num_envs, threads)

    def time_compute(
        self, task: str, profile: str, path: str, num_envs: int, threads: int
    ) -> None:
        """One hot-slice call (the step counter advances)."""
        self.case.call()
