"""The tiny asv project the items gate and init: a package ``tinypkg`` with one loop, a wall
suite, optionally a sim suite, and a ``[tool.perfgate]`` policy with few rounds so a real gate
stays short; plus the gate command of main against a head, and reading a report file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from .harness import Ctx, Ran, perfgate

BENCH = "bench_tiny.Tiny.time_work"


WORK = """def work(n):
    total = 0
    for i in range(n):
        total += i * i
    return total
"""
SUITE = """import tinypkg


class Tiny:
    params = [[20000]]
    param_names = ["n"]
    number = 3
    repeat = 3
    warmup_time = 0.0

    def time_work(self, n):
        tinypkg.work(n)
"""
SIM_SUITE = """from perfgate.sim.suite import SimBenchmark

import tinypkg


class SimTiny(SimBenchmark):
    params = ([20000],)
    param_names = ("n",)
    sim_weights = WEIGHTS

    def setup_cache(self):
        return self.measure_cases()

    @staticmethod
    def sim_case(n):
        return lambda: tinypkg.work(n)
"""
ASV_CONF = {"version": 1, "project": "tiny", "repo": ".", "benchmark_dir": "benchmarks",
            "environment_type": "virtualenv", "branches": ["main"]}  # fmt: skip


def policy(
    python: str, instruments: Sequence[str] = ("wall",), threshold: float = 0.5, rounds: int = 3
) -> str:
    """A ``[tool.perfgate]`` policy for the tiny project (few rounds; parity imports it)."""
    text = (
        "[tool.perfgate]\n"
        f"instruments = {json.dumps(list(instruments))}\n"
        f"default_threshold = {threshold}\nmin_samples = {rounds}\nmax_rounds = {rounds}\n"
        "confirm = false\n"
        f'parity_command = ["{python}", "-c", "import tinypkg"]\n'
    )
    if "sim" in instruments:
        text += f'\n[tool.perfgate.sim]\nwall = "{BENCH}"\n'
    return text


def tiny_files(pyproject: str, sim_weights: str | None = None) -> dict[str, str]:
    """The tiny asv project: ``tinypkg`` at the root, a wall suite, optionally a sim one."""
    files = {
        "tinypkg/__init__.py": WORK,
        "benchmarks/__init__.py": "",
        "benchmarks/bench_tiny.py": SUITE,
        "asv.conf.json": json.dumps(ASV_CONF, indent=1) + "\n",
        "pyproject.toml": pyproject,
    }
    if sim_weights is not None:
        files["benchmarks/sim_tiny.py"] = SIM_SUITE.replace("WEIGHTS", sim_weights)
    return files


def bare_pyproject() -> str:
    """A pyproject.toml without a policy (what ``perfgate init`` starts from)."""
    return '[project]\nname = "tiny"\nversion = "0.1"\n'


def gate(ctx: Ctx, repo: Path, head: str, name: str, timeout: float = 900) -> tuple[Ran, Path]:
    """``perfgate gate --base main --head HEAD`` from the checkout of main; its report dir."""
    out = repo.parent / f"report-{name}"
    args = ["gate", "--base", "main", "--head", head, "--machine", "probebox"]
    args += ["--report-dir", str(out), "--work-dir", str(repo.parent / f"gatework-{name}")]
    return perfgate(ctx, repo, *args, timeout=timeout), out


def read(path: Path) -> str:
    """A file's text, or '' where it is missing."""
    return path.read_text(errors="replace") if path.is_file() else ""
