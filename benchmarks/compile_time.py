"""First-call (compile) time of the Numba paths, cold and warm cache, as its own metric.

Steady-state suites never include compilation. Here each sample is a fresh interpreter that
imports numpy and numba, then starts the clock, imports the task, builds the hot slice,
makes a small batch and makes the first ``compute`` call:

* ``cold``: ``NUMBA_CACHE_DIR`` (and termplan's generated-source cache) point at a new, empty
  temporary directory, so every kernel is compiled;
* ``warm``: the same directory was filled by one earlier probe, so kernels load from disk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

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


class CompileTime:
    """Seconds to the first result of a Numba path, with a cold or a warm compile cache."""

    params = (TASKS, NUMBA_PATHS, CACHES)
    param_names = ("task", "path", "cache")
    unit = "seconds"
    timeout = 1800.0
    rounds = 1
    repeat = 1

    def setup(self, task: str, path: str, cache: str) -> None:
        """Check the path exists; for ``warm``, fill a private cache with one probe."""
        require_case(task, PROFILE, path)
        self.root = Path(tempfile.mkdtemp(prefix="perfgate-compile-"))
        if cache == "warm":
            run_probe(task, path, self.root / "warm")

    def teardown(self, task: str, path: str, cache: str) -> None:
        """Remove the private caches (asv also calls this after a skipped setup)."""
        root = getattr(self, "root", None)
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)

    def track_first_call(self, task: str, path: str, cache: str) -> float:
        """Compile (cold) or cache-load (warm) time of the first hot-slice call."""
        if cache == "warm":
            return run_probe(task, path, self.root / "warm")
        return run_probe(task, path, Path(tempfile.mkdtemp(dir=self.root)))
