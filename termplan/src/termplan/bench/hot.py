"""``bench hot``: time the hot slice of each path, interleaved call by call.

Every (path, threads) case of one N shares one batch and runs in the same rounds, one call
each, in a rotating order, so the ratio between paths is measured side by side and slow
drifts of the machine hit every case alike.

Each timed call is *primed* by default: the same case runs the same step once, untimed, just
before it, so the timed call starts from that case's own steady state (as ``timeit`` and asv,
which repeat one function, measure). Without priming a call inherits the caches its
predecessor left, and at large N the predecessor's dirty lines are written back during the
timed call: on the 2-core reference VM the G1 hand-written kernel (N=65536, two threads) took
a median 2.86 ms alone, 3.04 after the assembled kernel and 3.34 ms after the NumPy path,
whose 25 ms call leaves the whole last-level cache dirty. ``--no-prime`` keeps the
inherited-cache measurement.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from typing import Any

from termplan import tasks
from termplan.bench.timing import parse_int_list, seed_arg, summarize_ms
from termplan.tasks.base import HotSlice
from termplan.threads import apply_threads, max_threads


@dataclass
class _Case:
    path: str
    threads: int
    hot_slice: HotSlice
    compile_ms: float = 0.0
    samples_ms: list[float] = field(default_factory=list)
    step: int = 0

    def prime(self, batch: Any) -> None:
        """Run the step the next :meth:`call` will time, untimed (the counter stays)."""
        apply_threads(self.threads)
        self.hot_slice.compute(batch, self.step)

    def call(self, batch: Any) -> float:
        """One timed call in ms, after masking Numba's pool to this case's threads.

        The step counter advances per call, so logging steps (every ``LOG_EVERY``-th) are
        timed in the proportion a training loop sees them.
        """
        apply_threads(self.threads)
        start = time.perf_counter()
        self.hot_slice.compute(batch, self.step)
        elapsed = (time.perf_counter() - start) * 1e3
        self.step += 1
        return elapsed


def _build_cases(
    task: str, profile: str, num_envs: int, paths: list[str], threads: list[int]
) -> list[_Case]:
    cases = []
    for path in paths:
        for t in [1] if path == "numpy" else threads:
            hot = tasks.build(task, profile, num_envs, path, num_threads=t)
            cases.append(_Case(path, t, hot))
    return cases


def _measure(cases: list[_Case], batch: Any, iters: int, warmup: int, prime: bool) -> None:
    for case in cases:
        case.compile_ms = case.call(batch)
    for _ in range(warmup):
        for case in cases:
            case.call(batch)
    for r in range(iters):
        shift = r % len(cases)
        for case in cases[shift:] + cases[:shift]:
            if prime:
                case.prime(batch)
            case.samples_ms.append(case.call(batch))


def run_hot(
    task: str,
    profile: str,
    num_envs: list[int],
    threads: list[int],
    paths: list[str],
    iters: int = 100,
    warmup: int = 10,
    seed: int = 0,
    prime: bool = True,
) -> list[dict[str, Any]]:
    """Benchmark every (path, N, threads) case; one record per case (module docstring)."""
    records: list[dict[str, Any]] = []
    for n in num_envs:
        batch = tasks.make_batch(task, n, seed=seed, profile=profile)
        cases = _build_cases(task, profile, n, paths, threads)
        _measure(cases, batch, iters, warmup, prime)
        numpy_median = next(
            (summarize_ms(c.samples_ms)["median_ms"] for c in cases if c.path == "numpy"), None
        )
        for case in cases:
            stats = summarize_ms(case.samples_ms)
            record: dict[str, Any] = {
                "task": task,
                "profile": profile,
                "path": case.path,
                "num_envs": n,
                "threads": case.threads,
                **stats,
                "env_per_s": n / (stats["median_ms"] * 1e-3),
                "compile_ms": case.compile_ms,
                "iters": iters,
                "warmup": warmup,
                "primed": prime,
            }
            if numpy_median is not None:
                record["speedup_vs_numpy"] = numpy_median / stats["median_ms"]
            records.append(record)
    return records


def add_parser(subparsers: Any) -> None:
    """Register ``hot`` on the ``bench`` command line."""
    p = subparsers.add_parser("hot", help="time the hot slice per path, N and thread count")
    p.add_argument("--task", required=True, help=f"one of {', '.join(tasks.TASKS)}")
    p.add_argument("--profile", default="sac_default")
    p.add_argument("--num-envs", default="2048,65536")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--paths", default="numpy,handwritten")
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--seed", type=seed_arg, default=0)
    p.add_argument(
        "--no-prime",
        dest="prime",
        action="store_false",
        help="time each call in the caches its predecessor left (no untimed call before it)",
    )
    p.add_argument("--json", action="store_true", help="print a JSON list of records")
    p.set_defaults(func=run_from_args)


def validate_paths(task: str, text: str) -> list[str]:
    """Split ``--paths`` and check each against the task; errors name the bad path."""
    module = tasks.task_module(task)
    paths = [p.strip() for p in text.split(",") if p.strip()]
    for path in paths:
        if path not in module.PATHS:
            raise ValueError(f"--paths: {path!r} is not a path of {task}; expected {module.PATHS}")
    if not paths:
        raise ValueError("--paths: expected at least one path")
    return paths


def run_from_args(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Translate parsed options into :func:`run_hot`; bad options raise ValueError."""
    paths = validate_paths(args.task, args.paths)
    profiles = tasks.task_module(args.task).PROFILES
    if args.profile not in profiles:
        raise ValueError(f"--profile: {args.profile!r} is not one of {', '.join(profiles)}")
    threads = parse_int_list(args.threads, "--threads")
    too_many = [t for t in threads if t > max_threads()]
    if too_many:
        raise ValueError(f"--threads: {too_many} exceed NUMBA_NUM_THREADS={max_threads()}")
    if args.iters < 1 or args.warmup < 0:
        raise ValueError("--iters must be >= 1 and --warmup >= 0")
    return run_hot(
        args.task,
        args.profile,
        parse_int_list(args.num_envs, "--num-envs"),
        threads,
        paths,
        iters=args.iters,
        warmup=args.warmup,
        seed=args.seed,
        prime=args.prime,
    )
