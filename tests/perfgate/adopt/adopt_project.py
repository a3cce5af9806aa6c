"""A throwaway asv project for the init and doctor tests (helpers, no fixtures)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from perfgate.config import GateConfig
from perfgate.formats.benchmarks_json import Suite, parse_benchmarks

SUITE = {
    "bench_core.Core.time_add": {"type": "time", "param_names": ["n"], "params": [["8"]]},
    "bench_core.Core.time_mul": {"type": "time"},
    "memory.Mem.peakmem_build": {"type": "peakmemory"},
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.strip()


def make_project(root: Path, *, pyproject: str | None = "[project]\nname = 'p'\n") -> Path:
    """A git repository with ``pkg/``, a pytest test, and asv.conf.json in ``benchmarks/``
    (suites in ``benchmarks/benchmarks``), committed once."""
    repo = root / "proj"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("def add(a, b):\n    return a + b\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_pkg.py").write_text(
        "from pkg import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    )
    suites = repo / "benchmarks" / "benchmarks"
    suites.mkdir(parents=True)
    (suites / "__init__.py").write_text("")
    (suites / "bench_core.py").write_text(
        "import pkg\n\n\nclass Core:\n    def time_add(self):\n        pkg.add(1, 2)\n"
    )
    conf = {"version": 1, "project": "p", "repo": "..", "benchmark_dir": "benchmarks"}
    conf |= {"environment_type": "virtualenv", "branches": ["main"]}
    conf["regressions_thresholds"] = {"bench_core\\..*": 0.1}
    (repo / "benchmarks" / "asv.conf.json").write_text(json.dumps(conf))
    if pyproject is not None:
        (repo / "pyproject.toml").write_text(pyproject)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "project")
    return repo


def fake_finder(_root: Path, _config: GateConfig) -> Suite:
    """asv's discovery, as the fake suite above."""
    return parse_benchmarks(SUITE)
