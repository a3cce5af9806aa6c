"""``bench compile``: a hand-written kernel's compile time with Numba's copy propagation and
with termplan's (:mod:`termplan.copy_propagation`), side by side in one run.

Each compile is the first of a fresh child process (alternating, ``--repeats`` of each, one
hash seed for all): a second compile of a kernel in one process is not the first's equal
(Numba's counters name its variables and the parfor's arguments otherwise, and the code
differs in its stack frame even with the same pass). The child builds the kernel once
through its task path (from the cache when there is one) for its signature, then compiles
its Python function afresh (no cache) with the pass asked for. A record is the fastest
compile of each, their ratio, and whether both gave the same machine code (the assembly
with symbol names, which carry per-process ids, and the lengths of strings made of them
left out).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numba
import numba.parfors.parfor as parfor_module
from numba.core import ir_utils

from termplan import copy_propagation, tasks
from termplan.kernel_options import PARALLEL_OPTIONS

#: The hand-written kernel of each task: its module and its name there.
KERNELS: dict[str, tuple[str, str]] = {
    "g1_walk": ("termplan.tasks.g1_walk.handwritten_kernel", "g1_walk_kernel"),
    "motion_tracking": ("termplan.tasks.motion_tracking.handwritten_kernel", "motion_kernel"),
}
#: The two copy propagations, by the name a record gives them.
PASSES: dict[str, Callable[..., Any]] = {
    "numba": copy_propagation.NUMBA_OWN,
    "termplan": copy_propagation.copy_propagate,
}
#: The child's job that only builds the kernel (fills the cache before the timed children).
WARM = "warm"
#: Symbols and run-dependent numbers in Numba's assembly (addresses: 8 hex digits or more).
_NAMES = re.compile(r"_ZN\w+|\.kernel\.\d+|0x[0-9a-f]{8,}|\.size\s+\"\.const\.[^\"]*\", \d+")


def add_parser(subparsers: Any) -> None:
    """Register ``compile`` on the ``bench`` command line."""
    p = subparsers.add_parser("compile", help="hand-written kernel compile time, both passes")
    p.add_argument("--task", required=True, help=f"one of {', '.join(tasks.TASKS)}")
    p.add_argument("--repeats", type=int, default=1, help="compiles of each, alternating")
    p.add_argument("--json", action="store_true", help="print a JSON list of records")
    p.set_defaults(func=run_from_args)


def run_from_args(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Validate options and run :func:`compare_compiles`; bad options raise ValueError."""
    if args.task not in KERNELS:
        raise ValueError(f"--task: expected one of {', '.join(KERNELS)}, got {args.task!r}")
    if args.repeats < 1:
        raise ValueError(f"--repeats: expected at least 1, got {args.repeats}")
    return [compare_compiles(args.task, args.repeats)]


def compare_compiles(task: str, repeats: int) -> dict[str, Any]:
    """Compile ``task``'s hand-written kernel with each copy propagation, ``repeats`` times."""
    seconds: dict[str, list[float]] = {name: [] for name in PASSES}
    code: dict[str, set[str]] = {name: set() for name in PASSES}
    _compile_in_child(task, WARM)  # the kernel in the cache: no timed child compiles it twice
    for repeat in range(repeats):
        for name in list(PASSES)[:: 1 if repeat % 2 == 0 else -1]:
            took, digest = _compile_in_child(task, name)
            seconds[name].append(took)
            code[name].add(digest)
    best = {name: min(values) for name, values in seconds.items()}
    return {
        "task": task,
        "kernel": KERNELS[task][1],
        "numba_s": best["numba"],
        "termplan_s": best["termplan"],
        "speedup": best["numba"] / best["termplan"],
        "same_code": len(code["numba"] | code["termplan"]) == 1,
    }


def _compile_in_child(task: str, name: str) -> tuple[float, str]:
    """Seconds and code digest of ``task``'s kernel compiled with pass ``name`` in a fresh
    Python process."""
    command = [sys.executable, "-m", __name__, task, name]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"compiling {task} with {name}'s pass failed: {done.stderr[-2000:]}")
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return float(answer["seconds"]), str(answer["code"])


def _child(task: str, name: str) -> None:
    """In the child: build (``WARM``: only that, filling the cache), compile afresh with
    pass ``name``, print seconds and digest. A kernel not loaded from the cache was compiled
    by the build: the timed compile would be the process's second, and is refused."""
    kernel = _built_kernel(task)
    if name == WARM:
        print(json.dumps({"seconds": 0.0, "code": ""}))
        return
    if kernel.stats.cache_hits.get(kernel.signatures[0], 0) < 1:
        raise SystemExit(f"{KERNELS[task][1]} was compiled, not loaded from the kernel cache")
    took, digest = _compile_with(PASSES[name], kernel.py_func, kernel.signatures[0])
    print(json.dumps({"seconds": took, "code": digest}))


def _built_kernel(task: str) -> Any:
    """The task's hand-written kernel dispatcher, called once so it has its signature."""
    hot = tasks.build(task, "sac_default", 64, "handwritten")
    hot.compute(tasks.make_batch(task, 64))
    module, name = KERNELS[task]
    return getattr(importlib.import_module(module), name)


def _compile_with(
    function: Callable[..., Any], py_func: Callable[..., Any], signature: Any
) -> tuple[float, str]:
    """Seconds to compile ``py_func`` afresh with ``function`` as the copy propagation, and
    a digest of its assembly without names."""
    saved = ir_utils.copy_propagate, parfor_module.copy_propagate
    ir_utils.copy_propagate = parfor_module.copy_propagate = function
    try:
        fresh = numba.njit(**{**PARALLEL_OPTIONS, "cache": False})(py_func)
        began = time.perf_counter()
        fresh.compile(signature)
        took = time.perf_counter() - began
    finally:
        ir_utils.copy_propagate, parfor_module.copy_propagate = saved
    assembly = _NAMES.sub("", fresh.inspect_asm(signature))
    return took, hashlib.sha256(assembly.encode()).hexdigest()


if __name__ == "__main__":
    _child(*sys.argv[1:3])
