"""First-call (compile) time of the Numba paths, cold and warm cache, as its own metric.

Steady-state suites never include compilation. Here each sample is a fresh interpreter that
imports numpy and numba, then starts the clock, imports the task, builds the hot slice,
makes a small batch and makes the first ``compute`` call:

* ``cold``: ``NUMBA_CACHE_DIR`` (and termplan's generated-source cache) point at a new, empty
  temporary directory, so every kernel is compiled;
* ``warm``: the same directory was filled by one earlier probe, so kernels load from disk.

The cold probes run in asv's ``setup_cache`` (once per asv run, each into its own folder of
asv's setup-cache directory, which asv removes after the suite): the ``cold`` case reports
that probe's seconds and the ``warm`` case loads from the cache it filled, so each path is
compiled once per run instead of twice (a warm case used to compile a private cache first).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from ._common import NUMBA_PATHS, TASKS, require_case

PROFILE = "sac_default"
NUM_ENVS = 512
CACHES: tuple[str, ...] = ("cold", "warm")
PROBE_TIMEOUT_S = 600.0

_PROBE = """
import json, sys, time
import numba, numpy  # noqa: F401  (imported before the clock starts: not compile time)
task, profile, path, num_envs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
start = time.perf_counter()
from termplan import tasks
hot = tasks.build(task, profile, num_envs, path, num_threads=1)
batch = tasks.make_batch(task, num_envs, seed=0, profile=profile)
hot.compute(batch, 0)
print(json.dumps({"seconds": time.perf_counter() - start}))
"""


def probe_env(cache_dir: Path) -> dict[str, str]:
    """This process's environment with every compile cache pointed into ``cache_dir``."""
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = str(cache_dir)
    env["TERMPLAN_CACHE_DIR"] = str(cache_dir / "termplan")
    return env


def parse_probe_output(stdout: str) -> float:
    """The ``seconds`` of the probe's last output line; anything else is a ValueError."""
    lines = stdout.strip().splitlines()
    try:
        seconds = float(json.loads(lines[-1])["seconds"])
    except (IndexError, KeyError, TypeError, ValueError) as exc:
        raise ValueError(
            f"compile probe: expected a JSON line with seconds, got {stdout!r}"
        ) from exc
    if not seconds > 0.0:
        raise ValueError(f"compile probe: expected seconds > 0, got {seconds}")
    return seconds


def run_probe(task: str, path: str, cache_dir: Path) -> float:
    """Seconds from task import to the end of the first call, in a fresh interpreter."""
    argv = [sys.executable, "-c", _PROBE, task, PROFILE, path, str(NUM_ENVS)]
    done = subprocess.run(
        argv,
        env=probe_env(cache_dir),
        capture_output=True,
        text=True,
        timeout=PROBE_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"compile probe {task}/{path} failed: {done.stderr[-2000:]}")
    return parse_probe_output(done.stdout)


#: What ``setup_cache`` leaves per ``task/path``: the cold probe's ``seconds`` and the
#: ``cache`` it filled, or the ``error`` of a probe that failed (that case fails, not the
#: suite); a path the commit lacks is absent (its cases skip in ``setup``).
ColdProbes = dict[str, dict[str, Any]]


def cold_probes(root: Path) -> ColdProbes:
    """One cold probe per task and Numba path the commit offers, each cache under ``root``."""
    out: ColdProbes = {}
    for task in TASKS:
        for path in NUMBA_PATHS:
            try:
                require_case(task, PROFILE, path)
            except NotImplementedError:
                continue
            folder = root / task / path
            try:
                out[f"{task}/{path}"] = {
                    "seconds": run_probe(task, path, folder),
                    "cache": str(folder),
                }
            except (RuntimeError, ValueError, subprocess.TimeoutExpired) as exc:
                out[f"{task}/{path}"] = {"error": str(exc)}
    return out


class CompileTime:
    """Seconds to the first result of a Numba path, with a cold or a warm compile cache."""

    params = (TASKS, NUMBA_PATHS, CACHES)
    param_names = ("task", "path", "cache")
    unit = "seconds"
    timeout = 1800.0
    rounds = 1
    repeat = 1

    def setup_cache(self) -> ColdProbes:
        """Compile every present path once, cold, into asv's setup-cache folder (the cwd)."""
        return cold_probes(Path.cwd() / "compile-cache")

    def setup(self, probes: ColdProbes, task: str, path: str, cache: str) -> None:
        """Check the path exists and its cold probe ran (a failed probe fails the case)."""
        require_case(task, PROFILE, path)
        probe = probes.get(f"{task}/{path}")
        if probe is None:
            raise RuntimeError(f"compile probe {task}/{path}: setup_cache did not run it")
        if "error" in probe:
            raise RuntimeError(probe["error"])
        self.probe = probe

    def track_first_call(self, probes: ColdProbes, task: str, path: str, cache: str) -> float:
        """Compile (cold) or cache-load (warm) time of the first hot-slice call."""
        if cache == "cold":
            return float(self.probe["seconds"])
        return run_probe(task, path, Path(self.probe["cache"]))
