"""Shared parameter grids, feature checks and timing helpers of the asv suites.

Grids are static tuples (asv records ``params`` in ``benchmarks.json`` once per suite), so
they never depend on what the benchmarked commit offers. Every ``require_*`` check turns a
missing feature into ``NotImplementedError``, which asv records as a skip (n/a) instead of a
failure; a real error inside a present feature still raises and is recorded as a failure.

Environment variables
---------------------
PERFGATE_GRID
    ``default`` (two-core machines: N in {2048, 65536}, threads {1, 2}, profile sac_default),
    ``full`` (pinned runners: N up to 262144, threads up to 160, every profile) or ``runner``
    (what ``perfgate gate`` sets: N in {2048, 8192, 65536}, profiles sac_default and
    ppo_default, the thread counts of ``PERFGATE_THREADS``). Thread counts above the
    machine's ``NUMBA_NUM_THREADS`` skip.
PERFGATE_THREADS
    The runner grid's thread counts, e.g. ``1,2`` (required by ``runner``): derived by the
    gate from its pinning plan's topology (``perfgate.runner_grid``).
"""

from __future__ import annotations

import importlib
import os
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

TASKS: tuple[str, ...] = ("g1_walk", "motion_tracking")
PATHS: tuple[str, ...] = ("numpy", "handwritten", "assembled")
NUMBA_PATHS: tuple[str, ...] = ("handwritten", "assembled")

_GRIDS: dict[str, dict[str, tuple[Any, ...]]] = {
    "default": {
        "profiles": ("sac_default",),
        "num_envs": (2048, 65536),
        "threads": (1, 2),
    },
    "full": {
        "profiles": ("sac_default", "ppo_default", "full_supported"),
        "num_envs": (2048, 16384, 65536, 131072, 262144),
        "threads": (1, 2, 4, 8, 16, 32, 64, 128, 160),
    },
    "runner": {
        "profiles": ("sac_default", "ppo_default"),
        "num_envs": (2048, 8192, 65536),
    },
}


def grid_name(environ: Mapping[str, str] | None = None) -> str:
    """The grid chosen by ``PERFGATE_GRID``; an unknown name is a ValueError (fail loudly)."""
    name = (os.environ if environ is None else environ).get("PERFGATE_GRID", "default")
    if name not in _GRIDS:
        raise ValueError(f"PERFGATE_GRID: expected one of {sorted(_GRIDS)}, got {name!r}")
    return name


def runner_threads(environ: Mapping[str, str] | None = None) -> tuple[int, ...]:
    """``PERFGATE_THREADS`` as sorted, distinct positive thread counts (a ValueError names
    the variable when it is missing or malformed)."""
    text = (os.environ if environ is None else environ).get("PERFGATE_THREADS", "")
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or not all(p.isdigit() and int(p) >= 1 for p in parts):
        raise ValueError(f"PERFGATE_THREADS: expected thread counts like '1,2', got {text!r}")
    return tuple(sorted({int(p) for p in parts}))


def grid(key: str, environ: Mapping[str, str] | None = None) -> tuple[Any, ...]:
    """One axis (``profiles``, ``num_envs`` or ``threads``) of the selected grid."""
    name = grid_name(environ)
    if name == "runner" and key == "threads":
        return runner_threads(environ)
    return _GRIDS[name][key]


def preload() -> bool:
    """Import the commit's tasks and Numba's CPU target once, where asv imports the suites.

    asv's forkserver imports the suites once per run and forks a process per benchmark case,
    so what is imported here is shared by every case instead of paid by each: importing
    termplan and Numba (~0.7 s here) and Numba's typing and target contexts (~0.5 s, paid by
    a process's first cached-kernel load). Only imports and context set-up run: no kernel is
    called, so no thread pool exists in the forking process. Best effort and silent: a
    commit without termplan, or one whose import fails, is left to each case's ``setup``,
    which skips or records the failure as it always did. True when everything was loaded.
    """
    try:
        tasks = importlib.import_module("termplan.tasks")
        for task in getattr(tasks, "TASKS", ()):
            importlib.import_module(f"termplan.tasks.{task}")
        from numba.core.registry import cpu_target

        cpu_target.typing_context.refresh()
        cpu_target.target_context.refresh()
    except Exception:  # the case's own setup reports it
        return False
    return True


PRELOADED: bool = preload()
PROFILES: tuple[str, ...] = grid("profiles")
NUM_ENVS: tuple[int, ...] = grid("num_envs")
THREADS: tuple[int, ...] = grid("threads")


def import_optional(name: str) -> ModuleType:
    """Import ``name``; only the absence of that very module becomes a skip."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if name == missing or name.startswith(missing + "."):
            raise NotImplementedError(f"{name} does not exist at this commit") from exc
        raise


def require_task(task: str) -> ModuleType:
    """The task package, or NotImplementedError when this commit has no usable task API."""
    tasks = import_optional("termplan.tasks")
    if task not in getattr(tasks, "TASKS", ()):
        raise NotImplementedError(f"task {task!r} is not registered at this commit")
    module = import_optional(f"termplan.tasks.{task}")
    missing = [a for a in ("PATHS", "PROFILES", "build", "make_batch") if not hasattr(module, a)]
    if missing:
        raise NotImplementedError(f"task {task!r} lacks {', '.join(missing)} at this commit")
    return module


def require_case(task: str, profile: str, path: str) -> ModuleType:
    """The task package, after checking that it offers ``path`` and ``profile``."""
    module = require_task(task)
    if path not in module.PATHS:
        raise NotImplementedError(f"task {task!r} has no path {path!r} at this commit")
    if profile not in module.PROFILES:
        raise NotImplementedError(f"task {task!r} has no profile {profile!r} at this commit")
    return module


def require_threads(num_threads: int) -> None:
    """Skip thread counts above the machine's Numba pool (``NUMBA_NUM_THREADS``)."""
    threads = import_optional("termplan.threads")
    limit = int(threads.max_threads())
    if num_threads > limit:
        raise NotImplementedError(f"{num_threads} threads > NUMBA_NUM_THREADS={limit}")


def usable_threads(counts: Sequence[int]) -> list[int]:
    """The thread counts of ``counts`` that this machine's Numba pool can run."""
    limit = int(import_optional("termplan.threads").max_threads())
    return [t for t in counts if t <= limit]


class Case:
    """One built hot slice, its batch and a step counter that advances on every call."""

    def __init__(
        self,
        task: str,
        profile: str,
        path: str,
        num_envs: int,
        threads: int,
        batch: Any = None,
        **options: Any,
    ) -> None:
        """Build the hot slice (``batch`` may be shared between cases of the same N).

        ``options`` go to the task's ``build`` as they are.
        """
        require_case(task, profile, path)
        require_threads(threads)
        from termplan import tasks
        from termplan.threads import apply_threads

        self.threads = threads
        self._apply_threads: Callable[[int], None] = apply_threads
        if batch is None:
            batch = tasks.make_batch(task, num_envs, seed=0, profile=profile)
        self.batch = batch
        self.hot = tasks.build(task, profile, num_envs, path, num_threads=threads, **options)
        self.step = 0
        self.call()  # first call compiles (or loads the Numba cache): never timed

    def call(self) -> Any:
        """One hot-slice call at this case's thread count; returns the StepOutputs."""
        self._apply_threads(self.threads)
        out = self.hot.compute(self.batch, self.step)
        self.step += 1
        return out

    def timed_call(self) -> float:
        """One call's wall time in seconds."""
        start = time.perf_counter()
        self.call()
        return time.perf_counter() - start


def interleaved_medians(
    cases: Sequence[Case],
    min_rounds: int = 7,
    max_rounds: int = 51,
    budget_s: float = 1.0,
    warmup_rounds: int = 2,
) -> list[float]:
    """Median seconds per case over rounds in which every case runs once, back to back.

    The first case of a round rotates, so no case always runs first (or right after the
    slowest one); drifts of the machine hit every case alike. ``warmup_rounds`` untimed rounds
    go first; timed rounds stop after ``budget_s`` once ``min_rounds`` are done.
    """
    if not cases or min_rounds < 1 or max_rounds < min_rounds:
        raise ValueError("interleaved_medians: expected cases and 1 <= min_rounds <= max_rounds")
    for _ in range(warmup_rounds):
        for case in cases:
            case.call()
    samples: list[list[float]] = [[] for _ in cases]
    order = list(range(len(cases)))
    start = time.perf_counter()
    for r in range(max_rounds):
        if r >= min_rounds and time.perf_counter() - start > budget_s:
            break
        shift = r % len(order)
        for i in order[shift:] + order[:shift]:
            samples[i].append(cases[i].timed_call())
    return [statistics.median(s) for s in samples]
