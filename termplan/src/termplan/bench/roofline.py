"""``bench roofline``: the assembled kernel's memory traffic against the machine's triad limit.

Bytes per env come from the plan (only the inputs the active terms read, plus every output
written), so they are what the generated kernel must move, not what the batch holds. The
limit is a STREAM-style triad ``a = b + s * c`` run by Numba over float64 arrays far larger
than the last-level cache (24 bytes per element: two reads, one write; write-allocate not
counted, as STREAM). The share is ``(bytes per call / best kernel seconds) / best triad
bandwidth`` at each requested thread count; the record is the kernel's best thread count.
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


class _Triad:
    """A STREAM-style triad over float64 arrays of ``elements`` (compiled and first-touched)."""

    def __init__(self, elements: int = TRIAD_ELEMENTS) -> None:
        self.a = np.empty(elements)
        self.b = np.full(elements, 1.0)
        self.c = np.full(elements, 2.0)
        self.bytes = 24.0 * elements
        _triad(self.a, self.b, self.c, 3.0)

    def seconds(self) -> float:
        start = time.perf_counter()
        _triad(self.a, self.b, self.c, 3.0)
        return time.perf_counter() - start


def _kernel(task: str, profile: str, num_envs: int, threads: int) -> tuple[FusedRuntime, Any]:
    """The assembled runtime, bound to the benchmark batch (non-logging variant is timed)."""
    hot = tasks.build(task, profile, num_envs, "assembled", num_threads=threads)
    batch = tasks.make_batch(task, num_envs, seed=0, profile=profile)
    hot.compute(batch, 1)
    runtime: FusedRuntime = hot.runtime  # type: ignore[attr-defined]
    return runtime, batch


def measure(
    task: str,
    profile: str,
    num_envs: int,
    threads: int,
    rounds: int,
    bytes_per_call: float,
    write_bytes: float,
) -> dict[str, Any]:
    """Triad and kernel interleaved round by round, three calls of each per round.

    The headline share compares the best kernel time with the best triad time over all
    rounds (STREAM's convention, measured the same way on both sides), which is stable from
    run to run; the median of the per-round ratios (best of three each, back to back) is kept
    as ``share_of_triad_paired``: it moves with the host's noise.
    """
    apply_threads(threads)
    triad = _Triad()
    runtime, _ = _kernel(task, profile, num_envs, threads)
    triad_s, kernel_s, paired = [], [], []
    for _ in range(rounds):
        apply_threads(threads)
        t = min(triad.seconds() for _ in range(3))
        calls = []
        for _ in range(3):
            start = time.perf_counter()
            runtime.execute(False)
            calls.append(time.perf_counter() - start)
        triad_s.append(t)
        kernel_s += calls
        paired.append((bytes_per_call / min(calls)) / (triad.bytes / t))
    best_triad = triad.bytes / min(triad_s) / 1e9
    best_kernel = bytes_per_call / min(kernel_s) / 1e9
    share = best_kernel / best_triad
    # Counting the write-allocate read of every written line on both sides (32 B per triad
    # element, read + 2 x write per kernel byte written) gives the real DRAM traffic ratio.
    allocate = (bytes_per_call + write_bytes) / bytes_per_call * 24.0 / 32.0
    return {
        "threads": threads,
        "triad_gbps": best_triad,
        "kernel_ms": min(kernel_s) * 1e3,
        "kernel_median_ms": float(np.median(kernel_s)) * 1e3,
        "kernel_gbps": best_kernel,
        "share_of_triad": share,
        "share_of_triad_paired": float(np.median(paired)),
        "share_of_triad_write_allocate": share * allocate,
    }


def run_roofline(
    task: str, profile: str, num_envs: int, threads: list[int], rounds: int = 20
) -> list[dict[str, Any]]:
    """One record: bytes per env (from the plan), triad and kernel GB/s, the share.

    ``share_of_triad`` compares the best times (see :func:`measure`); the record is the
    kernel's best thread count (the fastest kernel), its triad measured at that count.
    """
    runtime, _ = _kernel(task, profile, num_envs, threads[0])
    per_env = plan_bytes_per_env(runtime.plan)
    per_thread = [
        measure(
            task,
            profile,
            num_envs,
            t,
            rounds,
            per_env["total"] * num_envs,
            per_env["write"] * num_envs,
        )
        for t in threads
    ]
    best = min(per_thread, key=lambda r: r["kernel_ms"])
    return [
        {
            "task": task,
            "profile": profile,
            "num_envs": num_envs,
            "bytes_read_per_env": per_env["read"],
            "bytes_written_per_env": per_env["write"],
            "bytes_per_env": per_env["total"],
            **best,
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
    p.add_argument("--rounds", type=int, default=20, help="triad/kernel rounds")
    p.add_argument("--json", action="store_true", help="print a JSON list of records")
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Validate options and run :func:`run_roofline`; bad options raise ValueError."""
    module = tasks.task_module(args.task)
    if "assembled" not in module.PATHS:
        raise ValueError(f"--task: {args.task} has no assembled path")
    if args.profile not in module.PROFILES:
        raise ValueError(f"--profile: {args.profile!r} is not one of {', '.join(module.PROFILES)}")
    if args.num_envs < 1 or args.rounds < 1:
        raise ValueError("--num-envs and --rounds must be >= 1")
    threads = parse_int_list(args.threads, "--threads")
    if max(threads) > max_threads():
        raise ValueError(f"--threads: {threads} exceed NUMBA_NUM_THREADS={max_threads()}")
    return run_roofline(args.task, args.profile, args.num_envs, threads, args.rounds)
