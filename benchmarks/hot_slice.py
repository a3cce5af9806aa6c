"""Steady-state time of one hot-slice call per task x profile x path x N x threads.

The first call (JIT compile or Numba cache load) happens when the case is built and is never
timed; compile time has its own suite (``compile_time.py``). Every timed call advances the
step counter, so per-term logging steps are timed in the proportion a training loop sees them.

asv runs each parameter combination in a process of its own, and asv_runner >= 0.3 re-runs
``setup`` before every timed call of a benchmark that has one (asv#966). Building a case
(its batch, the hot slice, the first call) takes up to ~2 s at N=65536, so ``setup`` builds
it once per process and hands the same built case to every later call: the timed calls stay
consecutive calls of one hot slice, as in a training loop, and a case costs one build, not one
per sample. ``setup`` also sets ``number`` so that one sample batches about ``sample_time``
of calls (asv would otherwise take one call per sample when a benchmark has a setup).
"""

from __future__ import annotations

import math
import statistics

from ._common import NUM_ENVS, PATHS, PROFILES, TASKS, THREADS, Case

#: At most this many calls are timed once a case is built, to choose ``number`` (fewer
#: when they already add up to ``sample_time``); they also warm the case up.
CALIBRATION_CALLS = 3

Params = tuple[str, str, str, int, int]
"""(task, profile, path, num_envs, threads) of one case."""

#: The case this process built last: (its parameters, the case, its ``number``).
_built: tuple[Params, Case, int] | None = None


def calls_per_sample(seconds_per_call: float, sample_time: float) -> int:
    """Calls that make one sample of about ``sample_time`` seconds (at least one)."""
    if not seconds_per_call > 0.0:
        return 1
    return max(1, math.ceil(sample_time / seconds_per_call))


def built_case(params: Params, sample_time: float) -> tuple[Case, int]:
    """The built case of ``params`` and its calls per sample, built once per process."""
    global _built
    if _built is None or _built[0] != params:
        _built = None  # a process measures one case: drop the last one before building
        case = Case(*params)
        times = [case.timed_call()]
        while len(times) < CALIBRATION_CALLS and sum(times) < sample_time:
            times.append(case.timed_call())
        _built = (params, case, calls_per_sample(statistics.median(times), sample_time))
    return _built[1], _built[2]


class HotSlice:
    """Wall time of ``hot_slice.compute(batch, step)``; NumPy runs at 1 thread only."""

    params = (TASKS, PROFILES, PATHS, NUM_ENVS, THREADS)
    param_names = ("task", "profile", "path", "num_envs", "threads")
    timeout = 300.0  # setup may compile on a cold cache on a loaded machine
    #: the build's first call and the calibration calls come first, untimed: a short warm-up
    #: (two samples' worth) is enough, and it is paid by every case in every round
    warmup_time = 0.05
    sample_time = 0.02
    min_run_count = 3
    repeat = (3, 10, 5.0)  # 3..10 samples, at most ~5 s per round
    #: The history's runs (perf-history.yml) interleave these rounds across the commits they
    #: measure, so a drift of the machine during a run hits every commit alike and an 8% step
    #: between stored commits stays visible; the gate runs one round per asv process
    #: (``-a rounds=1``) and interleaves base and head itself.
    rounds = 4

    def setup(self, task: str, profile: str, path: str, num_envs: int, threads: int) -> None:
        """The built case (skip with NotImplementedError when the commit lacks it)."""
        if path == "numpy" and threads != 1:
            raise NotImplementedError("the NumPy path is single-threaded; timed at threads=1")
        params: Params = (task, profile, path, num_envs, threads)
        self.case, self.number = built_case(params, self.sample_time)

    def time_compute(
        self, task: str, profile: str, path: str, num_envs: int, threads: int
    ) -> None:
        """One hot-slice call (the step counter advances)."""
        self.case.call()
