"""Fakes for gate tests: a tiny git repository and a side runner that "measures" its code.

The fake side runner reads ``speed.json`` from the side's exported commit, so a slowdown is a
committed code change, just as with asv: ``{"case-name": {"factor": 1.2, "fail": false}}``
(``"absent": true``: the case does not exist at that commit).
Samples are drawn with a seeded RNG around ``factor`` x 1 ms with 1% noise.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from perfgate import machine
from perfgate.asv.discover import asv_discover
from perfgate.asv.side_run import SideRun
from perfgate.formats.benchmarks_json import Suite, case_names, parse_benchmarks
from perfgate.gate.hooks import Hooks
from perfgate.model import CaseKey
from perfgate.secrets import child_environment
from perfgate.settings import GateSettings
from perfgate.sim.child import LAYOUT_VARIABLE
from perfgate.sim.harness import PREPARE_DONE, PREPARE_ONLY, PREPARE_VARIABLE
from perfgate.sim.phase import RUNS, SimRunner

BENCH = "suite.Kernel.time_run"
CASES = {
    "a": CaseKey(BENCH, (("path", "numpy"), ("n", "8"))),
    "b": CaseKey(BENCH, (("path", "handwritten"), ("n", "8"))),
    "c": CaseKey(BENCH, (("path", "assembled"), ("n", "8"))),
}
BENCHMARKS_JSON = {
    "version": 2,
    BENCH: {
        "params": [["'numpy'", "'handwritten'", "'assembled'"], ["8"]],
        "param_names": ["path", "n"],
        "unit": "seconds",
        "type": "time",
        "version": "1",
    },
}
CONFIG = """
[tool.perfgate]
default_threshold = 0.05
min_samples = 6
max_rounds = 10
confirm = true
blocking = ['^suite\\.']
parity_command = ["{python}", "-c", "pass"]

[[tool.perfgate.baseline]]
param = "path"
variant = "assembled"
baseline = "handwritten"
reference = "numpy"
"""
ASV_CONF = {"version": 1, "project": "tiny", "repo": ".", "benchmark_dir": "benchmarks"}


def git(repo: Path, *args: str) -> str:
    """Run git with a fixed identity in ``repo``."""
    out = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def commit_speed(repo: Path, speeds: Mapping[str, Mapping[str, object]], message: str) -> str:
    """Write ``speed.json`` and commit it; return the SHA."""
    (repo / "speed.json").write_text(json.dumps(speeds))
    git(repo, "add", "-A")
    git(repo, "commit", "--allow-empty", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


def make_repo(root: Path, config: str = CONFIG) -> Path:
    """A git repo with pyproject.toml, asv.conf.json, benchmarks/ and a first commit."""
    repo = root / "repo"
    (repo / "benchmarks").mkdir(parents=True)
    (repo / "benchmarks" / "__init__.py").write_text("")
    (repo / "pyproject.toml").write_text(config)
    (repo / "asv.conf.json").write_text(json.dumps(ASV_CONF))
    git(repo, "init", "-q", "-b", "main")
    commit_speed(repo, {}, "base")
    return repo


class FakeSides:
    """A `SideRunner`: samples from ``speed.json`` of the side's export; counts calls."""

    def __init__(self, seed: int = 1, kill_after: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.calls: list[tuple[str, int]] = []
        self.kill_after = kill_after

    def __call__(
        self, settings: GateSettings, side: str, round_dir: Path, bench: Sequence[str]
    ) -> SideRun:
        if self.kill_after is not None and len(self.calls) >= self.kill_after:
            raise KeyboardInterrupt
        source = settings.base_source if side == "base" else settings.head_source
        speeds = json.loads((source / "speed.json").read_text())
        round_dir.mkdir(parents=True, exist_ok=True)
        (round_dir / "benchmarks.json").write_text(json.dumps(BENCHMARKS_JSON))
        self.calls.append((side, len(bench)))
        suite = parse_benchmarks(BENCHMARKS_JSON)
        names = case_names(suite)
        out: dict[CaseKey, tuple[float, ...] | None] = {}
        for name, key in CASES.items():
            if not any(re.search(b, names[key]) for b in bench):
                continue
            spec = speeds.get(name, {})
            if spec.get("absent"):  # the case does not exist at this commit
                continue
            if spec.get("fail"):
                out[key] = None
                continue
            factor = float(spec.get("factor", 1.0))
            noise = self.rng.normal(0.0, 0.01, 5)
            out[key] = tuple(float(1e-3 * factor * (1 + e)) for e in noise)
        return SideRun(out, suite)

    def discover(self, _settings: GateSettings, _side: str, folder: Path) -> Suite:
        """asv's ``just-discover`` of a side: the suite, written to ``folder``."""
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "benchmarks.json").write_text(json.dumps(BENCHMARKS_JSON))
        return parse_benchmarks(BENCHMARKS_JSON)


def fingerprint(**changes: object) -> machine.Fingerprint:
    """A fixed fingerprint (the fields the gate compares), optionally changed."""
    data: dict[str, object] = {
        "cpu_model": "Test CPU",
        "cores": 2,
        "logical_cpus": 2,
        "smt": False,
        "numa": {"0": "0-1"},
        "governor": "performance",
        "turbo": "off",
        "thp": "madvise",
        "kernel": "6.0",
        "affinity": "0-1",
        "memory_policy": "none",
        "threading_layer": "omp",
        "num_threads": 2,
        "versions": {"python": "3.11", "numba": "0.68.1"},
    }
    data.update(changes)
    return machine.Fingerprint.from_dict(data)


def hooks(
    sides: FakeSides,
    out: list[str],
    fingerprints: Sequence[machine.Fingerprint] | None = None,
    sim: SimRunner | None = None,
    valgrind: str | None = None,
) -> Hooks:
    """Hooks with the fake side runner, fixed fingerprints and captured output; the sim
    instrument's runner ``sim`` (default `FakeSim`) and ``valgrind``'s version (None: not
    installed, so a configuration that leaves the instruments unset runs the wall clock)."""
    prints = list(fingerprints or [fingerprint(), fingerprint()])

    def next_fp(_plan: machine.PinPlan) -> machine.Fingerprint:
        return prints.pop(0) if len(prints) > 1 else prints[0]

    return Hooks(
        side_runner=sides,
        sim_runner=sim or FakeSim(),
        valgrind=lambda: valgrind,
        discover=getattr(sides, "discover", asv_discover),  # plain side runners have none
        fingerprint=next_fp,
        register_machine=lambda _name: None,
        write=out.append,
        log=lambda _text: None,
    )


SIM_BENCH = "sim_suite.SimKernel"
SIM_FIGURES = ("track_cycles", "track_instructions", "track_l1_misses", "track_ll_misses")


def sim_benchmarks_json(version: str = "sim-1") -> dict[str, object]:
    """benchmarks.json of the fake sim family: one figure benchmark per event, param path."""
    doc: dict[str, object] = {"version": 2}
    for figure in SIM_FIGURES:
        doc[f"{SIM_BENCH}.{figure}"] = {
            "params": [["'numpy'", "'handwritten'", "'assembled'"], ["8"]],
            "param_names": ["path", "n"],
            "unit": "cycles" if figure == "track_cycles" else "events",
            "type": "track",
            "version": version,
        }
    return doc


class FakeSim:
    """A `SimRunner`: each run reads ``sim.json`` of its side's export,
    ``{"path": {"cycles": c, "instructions": i, "l1": m1, "ll": m2, "jitter": j,
    "ijitter": k, "fail": false}}`` (no file: no sim case), and records its (side, folder)
    runs. A run given a layout shift (`LAYOUT_VARIABLE`, the base's second count) adds
    ``jitter`` to its cycles (misses that follow the memory layout) and ``ijitter`` to its
    instructions (a non-deterministic machine); ``versions`` gives each run's benchmark
    version (a valgrind or cache change between runs)."""

    def __init__(self, versions: Sequence[str] = ("sim-1", "sim-1", "sim-1")) -> None:
        self.runs: list[list[tuple[str, str]]] = []
        #: the native-only runs that prepared each side (PERFGATE_SIM_PREPARE=1)
        self.prepared: list[tuple[str, str]] = []
        self.versions = list(versions)

    def __call__(
        self,
        settings: GateSettings,
        runs: Sequence[tuple[str, Path]],
        bench: Sequence[str],
        run_env: Mapping[str, Mapping[str, str]],
    ) -> list[SideRun]:
        seen = child_environment(settings.env)  # what the suite's process is given
        if seen.get(PREPARE_VARIABLE) == PREPARE_ONLY:  # prepares, counts nothing
            self.prepared += [(side, folder.name) for side, folder in runs]
            suite = parse_benchmarks(sim_benchmarks_json(self.versions[0]))
            return [SideRun({}, suite) for _ in runs]
        if seen.get(PREPARE_VARIABLE) != PREPARE_DONE:  # the harness would prepare again
            raise AssertionError(f"a counting run without {PREPARE_VARIABLE}={PREPARE_DONE}")
        self.runs.append([(side, folder.name) for side, folder in runs])
        order = [folder for _side, folder in RUNS]  # base, head, base again
        return [
            self._one(settings, side, order.index(folder.name), bench, run_env.get(folder.name))
            for side, folder in runs
        ]

    def _one(
        self,
        settings: GateSettings,
        side: str,
        index: int,
        bench: Sequence[str],
        extra: Mapping[str, str] | None,
    ) -> SideRun:
        shifted = child_environment({**settings.env, **(extra or {})}).get(LAYOUT_VARIABLE)
        moved = shifted not in (None, "0")
        source = settings.base_source if side == "base" else settings.head_source
        path = source / "sim.json"
        doc = json.loads(path.read_text()) if path.exists() else {}
        suite = parse_benchmarks(sim_benchmarks_json(self.versions[index]))
        out: dict[CaseKey, tuple[float, ...] | None] = {}
        names = case_names(suite)
        for case, spec in doc.items():
            figures = {
                "track_cycles": float(spec["cycles"])
                + (float(spec.get("jitter", 0.0)) if moved else 0.0),
                "track_instructions": float(spec.get("instructions", spec["cycles"]))
                + (float(spec.get("ijitter", 0.0)) if moved else 0.0),
                "track_l1_misses": float(spec.get("l1", 0.0)),
                "track_ll_misses": float(spec.get("ll", 0.0)),
            }
            for figure, value in figures.items():
                key = CaseKey(f"{SIM_BENCH}.{figure}", (("path", case), ("n", "8")))
                if not any(re.search(b, names[key]) for b in bench):
                    continue
                out[key] = None if spec.get("fail") and side == "head" else (value,)
        return SideRun(out, suite)
