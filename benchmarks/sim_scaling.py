"""Simulated thread scaling of the Numba paths at 8, 32 and 64 threads (callgrind per thread).

The cases of ``thread_scaling`` at the grid's high end, counted instead of timed: one
hot-slice call (``hot_slice.compute``, steps 4 and 5 weighted 1:3 after a warm-up at step 3,
as ``sim_hot_slice``) at T threads, Numba's pool sized to T whatever the runner's cores, on
the workqueue layer. Per call the calling thread's counts are the serial work and each
worker's its share; the model (`perfgate.sim.scaling.model`) projects E(T) = total work / (T x
(serial + largest share)) and the serial share. What the model does not simulate (memory
bandwidth, NUMA placement, false sharing and coherence, frequency) stays with the wall clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from perfgate.sim.scaling.suite import SimScalingBenchmark

from ._common import NUMBA_PATHS, TASKS, Case
from .sim_hot_slice import FIRST_STEP, shared_batch

PROFILE = "sac_default"
SCALING_NUM_ENVS = (2048, 8192)
SCALING_THREADS = (8, 32, 64)

#: (task, path) -> the family that counts it instead, and why: valgrind 3.19 stops the
#: per-thread run of the motion_tracking assembled kernel compiled for the host (or for the CPU
#: valgrind presents) with SIGILL on the register form of VEX ``vmovq`` (docs/sim-scaling-
#: trials.txt, section 3); `SimScalingBaseline` counts it compiled without AVX. Skipped here
#: with the reason (asv's skip, not a failure).
COUNTED_ELSEWHERE = {
    ("motion_tracking", "assembled"): (
        "counted by sim_scaling.SimScalingBaseline (x86-64-v2, no AVX): valgrind 3.19 cannot "
        "decode an instruction of this kernel's per-thread run for this CPU (SIGILL on vmovq "
        "0xC5 0x79 0xD6 0xC0)"
    ),
}


class SimScaling(SimScalingBenchmark):
    """The model's figures per ``hot_slice.compute`` call at T threads."""

    params = (TASKS, NUMBA_PATHS, SCALING_NUM_ENVS, SCALING_THREADS)
    param_names = ("task", "path", "num_envs", "threads")
    sim_weights = (1, 3)
    sim_warmup = 1

    @classmethod
    def sim_order(cls, combos: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """The cases of one batch (task, N) one after another."""
        return sorted(combos, key=lambda c: (TASKS.index(c[0]), c[2], NUMBA_PATHS.index(c[1])))

    def setup_cache(self) -> dict[tuple[Any, ...], dict[str, Any]]:
        """One per-thread harness run for every selected case of this asv run."""
        return self.measure_cases()

    @staticmethod
    def sim_case(task: str, path: str, num_envs: int, threads: int) -> Callable[[], object]:
        """The built case at ``threads`` (first call done, never counted), at `FIRST_STEP`;
        a case `COUNTED_ELSEWHERE` is skipped with its reason."""
        if (task, path) in COUNTED_ELSEWHERE:
            raise NotImplementedError(COUNTED_ELSEWHERE[task, path])
        return built_case(task, path, num_envs, threads)


class SimScalingBaseline(SimScaling):
    """The cases `SimScaling` cannot count, compiled for x86-64-v2 (SSE, no VEX encoding:
    `perfgate.sim.target`'s ``baseline`` mode), in a process of their own. Their figures are
    of SSE code: compare them with each other (base vs head), not with `SimScaling`'s."""

    params = (
        tuple(sorted({t for t, _ in COUNTED_ELSEWHERE})),
        tuple(sorted({p for _, p in COUNTED_ELSEWHERE})),
        SCALING_NUM_ENVS,
        SCALING_THREADS,
    )
    target_mode = "baseline"

    def setup_cache(self) -> dict[tuple[Any, ...], dict[str, Any]]:
        """One per-thread harness run for every selected case of this asv run."""
        return self.measure_cases()

    @staticmethod
    def sim_case(task: str, path: str, num_envs: int, threads: int) -> Callable[[], object]:
        """The built case at ``threads`` (first call done, never counted)."""
        if (task, path) not in COUNTED_ELSEWHERE:
            raise NotImplementedError(f"{task} {path}: counted by sim_scaling.SimScaling")
        return built_case(task, path, num_envs, threads)


def built_case(task: str, path: str, num_envs: int, threads: int) -> Callable[[], object]:
    """One hot-slice case at ``threads``, its first call done, at `FIRST_STEP`."""
    batch = shared_batch(task, PROFILE, num_envs)
    case = Case(task, PROFILE, path, num_envs, threads, batch=batch)
    case.step = FIRST_STEP
    return case.call
