"""``bench roofline``: the assembled kernel's memory traffic against the machine's triad limit.

Bytes per env come from the plan (only the inputs the active terms read, plus every output
written), so they are what the generated kernel must move, not what the batch holds. The
limit is a STREAM-style triad ``a = b + s * c`` run by Numba over float64 arrays far larger
than the last-level cache (24 bytes per element: two reads, one write; write-allocate not
counted, as STREAM). The share is ``(bytes per call / kernel seconds) / triad bandwidth``, at
each requested thread count; the record reports the best.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numba
import numpy as np
from numba import prange

from termplan import tasks
from termplan.bench.timing import parse_int_list
from termplan.kernel_options import PARALLEL_OPTIONS
from termplan.plan import ResolvedPlan
from termplan.runtime import FusedRuntime
from termplan.threads import apply_threads, max_threads

#: Triad elements per array: 3 x 128 MiB, far beyond any last-level cache here.
TRIAD_ELEMENTS = 1 << 24


@numba.njit(**PARALLEL_OPTIONS)
def _triad(a: np.ndarray, b: np.ndarray, c: np.ndarray, s: float) -> None:  # pragma: no cover
    for i in prange(a.shape[0]):
        a[i] = b[i] + s * c[i]


def plan_bytes_per_env(plan: ResolvedPlan) -> dict[str, int]:
    """Bytes one env reads (active inputs) and writes (reward, done, observation rows)."""
    read = sum(s.width * np.dtype(s.dtype).itemsize for s in plan.inputs)
    write = 4 + 1 + sum(width * 4 for _, width in plan.groups)
    return {"read": read, "write": write, "total": read + write}


def triad_gbps(threads: int, repeats: int = 7, elements: int = TRIAD_ELEMENTS) -> float:
    """Best-of-``repeats`` triad bandwidth in GB/s (24 bytes per element) at ``threads``."""
    apply_threads(threads)
    a = np.empty(elements)
    b = np.full(elements, 1.0)
    c = np.full(elements, 2.0)
    _triad(a, b, c, 3.0)  # compile and first-touch
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        _triad(a, b, c, 3.0)
        best = min(best, time.perf_counter() - start)
    return 24.0 * elements / best / 1e9


def kernel_seconds(task: str, profile: str, num_envs: int, threads: int, iters: int) -> float:
    """Median seconds of the assembled kernel alone (bound once, non-logging variant)."""
    hot = tasks.build(task, profile, num_envs, "assembled", num_threads=threads)
    batch = tasks.make_batch(task, num_envs, seed=0, profile=profile)
    hot.compute(batch, 1)
    runtime: FusedRuntime = hot.runtime  # type: ignore[attr-defined]
    samples = []
    for _ in range(iters):
        start = time.perf_counter()
        runtime.execute(False)
        samples.append(time.perf_counter() - start)
    return float(np.median(samples))


def run_roofline(
    task: str, profile: str, num_envs: int, threads: list[int], iters: int = 30
) -> list[dict[str, Any]]:
    """One record: bytes per env, triad GB/s and kernel GB/s per T, and the best share."""
    hot = tasks.build(task, profile, num_envs, "assembled", num_threads=threads[0])
    plan: ResolvedPlan = hot.plan  # type: ignore[attr-defined]
    per_env = plan_bytes_per_env(plan)
    per_thread = []
    for t in threads:
        triad = triad_gbps(t)
        seconds = kernel_seconds(task, profile, num_envs, t, iters)
        achieved = per_env["total"] * num_envs / seconds / 1e9
        per_thread.append(
            {
                "threads": t,
                "triad_gbps": triad,
                "kernel_ms": seconds * 1e3,
                "kernel_gbps": achieved,
                "share_of_triad": achieved / triad,
            }
        )
    best = max(per_thread, key=lambda r: r["share_of_triad"])
    return [
        {
            "task": task,
            "profile": profile,
            "num_envs": num_envs,
            "bytes_read_per_env": per_env["read"],
            "bytes_written_per_env": per_env["write"],
            "bytes_per_env": per_env["total"],
            "threads": best["threads"],
            "triad_gbps": best["triad_gbps"],
            "kernel_ms": best["kernel_ms"],
            "kernel_gbps": best["kernel_gbps"],
            "share_of_triad": best["share_of_triad"],
            "per_thread": per_thread,
        }
    ]


def add_parser(subparsers: Any) -> None:
    """Register ``roofline`` on the ``bench`` command line."""
    p = subparsers.add_parser("roofline", help="assembled kernel bandwidth vs a triad")
    p.add_argument("--task", required=True, help=f"one of {', '.join(tasks.TASKS)}")
    p.add_argument("--profile", default="sac_default")
    p.add_argument("--num-envs", type=int, default=65536)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--iters", type=int, default=30)
    p.add_argument("--json", action="store_true", help="print a JSON list of records")
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Validate options and run :func:`run_roofline`; bad options raise ValueError."""
    module = tasks.task_module(args.task)
    if "assembled" not in module.PATHS:
        raise ValueError(f"--task: {args.task} has no assembled path")
    if args.profile not in module.PROFILES:
        raise ValueError(f"--profile: {args.profile!r} is not one of {', '.join(module.PROFILES)}")
    if args.num_envs < 1 or args.iters < 1:
        raise ValueError("--num-envs and --iters must be >= 1")
    threads = parse_int_list(args.threads, "--threads")
    if max(threads) > max_threads():
        raise ValueError(f"--threads: {threads} exceed NUMBA_NUM_THREADS={max_threads()}")
    return run_roofline(args.task, args.profile, args.num_envs, threads, args.iters)
