"""perfgate doctor --run: the quick selection run once at HEAD, its broken benchmarks and
whether its rounds fit the quick budget (issue 38: nothing ran a benchmark before the first
gate)."""

from __future__ import annotations

from pathlib import Path

import pytest
from adopt_project import make_project

from perfgate.adopt.doctor.doctor import RUN, DoctorOptions, doctor
from perfgate.adopt.doctor.run import broken_findings, budget_findings
from perfgate.adopt.probe import Probe
from perfgate.adopt.report_lines import Level
from perfgate.config import GateConfig

BROKEN = {"b.time_bad": "ValueError: x and y coordinate lengths do not match"}


def test_each_broken_benchmark_is_a_problem_with_its_error() -> None:
    (finding,) = broken_findings(Probe({}, BROKEN, 0.0, "box"))
    assert finding.level is Level.PROBLEM
    assert finding.line().startswith(
        "problem: b.time_bad fails at HEAD: ValueError: x and y coordinate lengths"
    )
    assert "BROKEN ON BOTH SIDES" in finding.line()


@pytest.mark.parametrize(
    ("seconds", "level"),
    [(1.0, Level.OK), (7.0, Level.NOTE), (20.0, Level.PROBLEM)],
)
def test_the_budget_check(seconds: float, level: Level) -> None:
    """Six rounds of 2 x (seconds + 1 s of asv) against 3 minutes: 24 s fits with room,
    96 s fits with less than half to spare, 252 s does not fit (and the fix says how much
    budget would)."""
    (finding,) = budget_findings(Probe({"b.time_x": seconds}, {}, 1.0, "box"), GateConfig())
    assert finding.level is level
    if level is Level.PROBLEM:
        assert "raise quick_budget_minutes to 9" in finding.line()


@pytest.mark.subprocess  # git
def test_doctor_runs_the_probe_only_when_asked(tmp_path: Path) -> None:
    repo = make_project(tmp_path)
    with (repo / "pyproject.toml").open("a") as policy:
        policy.write("\n[tool.perfgate]\nasv_config = 'benchmarks/asv.conf.json'\n")
    calls: list[GateConfig] = []

    def prober(_root: Path, config: GateConfig, _total: int) -> Probe:
        calls.append(config)
        return Probe({"bench_core.Core.time_add": 0.5}, BROKEN, 1.0, "box")

    doctor(DoctorOptions(repo=repo, groups=("project",)), prober=prober)
    assert calls == []
    lines = [f.line() for f in doctor(DoctorOptions(repo=repo, groups=(RUN,)), prober=prober)]
    assert len(calls) == 1
    assert any(line.startswith("problem: b.time_bad fails at HEAD") for line in lines)
    assert any(line.startswith("ok: --quick: 1 working benchmark(s)") for line in lines)
