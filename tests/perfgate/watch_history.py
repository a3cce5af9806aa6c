"""A scripted main history for the watch tests: a git repository of N commits, a bare remote
for the ``perf-results`` branch, and asv result files for chosen commits (no asv run)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pg_results_factory import Bench, write_benchmarks_json, write_machine_json, write_result

BENCH = Bench("hot_slice.HotSlice.time_compute", ("path",), (("assembled",),))
MACHINE = "perf-runner"


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo), *args],
        capture_output=True,
        check=True,
    )
    return done.stdout.decode().strip()


@dataclass
class ScriptedHistory:
    """``commits[k]`` is commit k + 1 of main; ``remote`` a bare repository; ``results`` asv's."""

    repo: Path
    remote: Path
    results: Path
    commits: list[str]

    def measure(self, numbers: Iterable[int], level: Mapping[int, float], seed: int = 7) -> None:
        """Store results for commits ``numbers`` (1-based), 20 samples at 2% noise around
        ``level[k]`` (default 1.0)."""
        rng = np.random.default_rng(seed)
        for k in numbers:
            median = level.get(k, 1.0)
            samples = [float(x) for x in median * (1.0 + 0.02 * rng.standard_normal(20))]
            write_result(self.results, self.commits[k - 1], [BENCH], {BENCH.name: [samples]})


def scripted_history(
    tmp_path: Path, n: int = 12, subject: Callable[[int], str] = lambda k: f"commit {k}"
) -> ScriptedHistory:
    """A repository with ``n`` commits on main (commit k's subject ``subject(k)``), its bare
    remote, and an empty results tree."""
    repo, remote = tmp_path / "repo", tmp_path / "remote.git"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    commits = []
    for k in range(1, n + 1):
        (repo / "step.txt").write_text(f"{k}\n")
        _git(repo, "add", "step.txt")
        _git(repo, "commit", "-q", "-m", subject(k))
        commits.append(_git(repo, "rev-parse", "HEAD"))
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    _git(repo, "remote", "add", "origin", str(remote))
    results = tmp_path / "results"
    write_benchmarks_json(results, [BENCH])
    write_machine_json(results)
    return ScriptedHistory(repo, remote, results, commits)


def slowdown(
    start: int, end: int | None = None, factor: float = 1.08, n: int = 12
) -> dict[int, float]:
    """Levels of commits 1..n: ``factor`` from ``start`` until before ``end``, else 1.0."""
    stop = end if end is not None else n + 1
    return {k: factor if start <= k < stop else 1.0 for k in range(1, n + 1)}
