"""A ``--bench`` regex that selects nothing is refused before parity and before measuring,
and a report of a run that failed says what really ran (issue 30 item 6)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from gate_fakes import BENCH, CASES, FakeSides, hooks, make_repo
from test_pl_gate import make_repo_config

from perfgate.asv.side_run import GateError, SideRun
from perfgate.errors import UserError
from perfgate.formats.benchmarks_json import Suite
from perfgate.gate import preview
from perfgate.gate import run as gate
from perfgate.settings import GateOptions, GateSettings, ShardSpec
from perfgate.shards import shard

pytestmark = pytest.mark.subprocess

NO_SUCH = "^no_such_benchmark_xyz$"


class CountingSides(FakeSides):
    """`FakeSides` that counts the suite discoveries."""

    def __init__(self) -> None:
        super().__init__()
        self.discovered: list[str] = []

    def discover(self, settings: GateSettings, side: str, folder: Path) -> Suite:
        self.discovered.append(side)
        return super().discover(settings, side, folder)


def _repo(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose parity command leaves a marker file: (repo, marker)."""
    marker = tmp_path / "parity-ran"
    parity = f'["{{python}}", "-c", "open(r\'{marker}\', \'w\').close()"]'
    return make_repo(tmp_path, make_repo_config(parity)), marker


def _verdict(repo: Path) -> dict:
    return json.loads((repo / "out" / "verdict.json").read_text())


def test_a_bench_regex_matching_nothing_is_refused_before_parity(tmp_path: Path) -> None:
    """It ran parity (32 s; minutes in a full gate), then asv found no benchmark; the report
    said "machine unknown". Refused after the discovery, naming the regex and the closest
    benchmark names; parity not run, nothing measured, the machine named."""
    repo, marker = _repo(tmp_path)
    sides = CountingSides()
    opts = GateOptions(
        base="HEAD", head="HEAD", repo=repo, report_dir=repo / "out", bench=(NO_SUCH,)
    )
    assert gate.run(opts, hooks(sides, [])) == 3
    assert not marker.exists() and sides.calls == []
    assert sides.discovered == ["base", "head"]  # once per side
    verdict = _verdict(repo)
    (reason,) = verdict["reasons"]
    assert NO_SUCH in reason and f"closest: {BENCH}" in reason
    assert verdict["machine"].startswith("perfgate-")
    assert "not run by this command" in (repo / "out" / "report.md").read_text()


def test_a_bench_regex_matching_something_runs_as_before(tmp_path: Path) -> None:
    repo, marker = _repo(tmp_path)
    sides = CountingSides()
    opts = GateOptions(
        base="HEAD", head="HEAD", repo=repo, report_dir=repo / "out", bench=(NO_SUCH, "Kernel")
    )
    assert gate.run(opts, hooks(sides, [])) == 3  # one of the two selects nothing
    opts = GateOptions(
        base="HEAD", head="HEAD", repo=repo, report_dir=repo / "out", bench=("Kernel",)
    )
    assert gate.run(opts, hooks(sides, [])) == 0
    assert marker.exists() and sides.calls


class BrokenAsv(FakeSides):
    """asv leaves no result file (as with a selection of nothing)."""

    def __call__(
        self, settings: GateSettings, side: str, round_dir: Path, bench: Sequence[str]
    ) -> SideRun:
        raise GateError(f"asv (exit 1) left 0 result files in {round_dir}; expected 1")


def test_a_run_that_fails_after_parity_reports_what_ran(tmp_path: Path) -> None:
    """The report said "machine unknown" and "Parity: not run by this command" although
    parity had passed: it names the machine, the commits and parity as it was."""
    repo, marker = _repo(tmp_path)
    opts = GateOptions(base="HEAD", head="HEAD", repo=repo, report_dir=repo / "out")
    assert gate.run(opts, hooks(BrokenAsv(), [])) == 3
    assert marker.exists()
    verdict = _verdict(repo)
    assert verdict["machine"].startswith("perfgate-") and len(verdict["head"]) == 40
    assert "left 0 result files" in verdict["reasons"][0]
    report = (repo / "out" / "report.md").read_text()
    assert "not run by this command" not in report and "passed" in report


def test_a_shard_refuses_the_regex_before_parity_and_discovers_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, marker = _repo(tmp_path)
    sides = CountingSides()
    logged: list[str] = []
    opts = GateOptions(
        base="HEAD", head="HEAD", repo=repo, report_dir=tmp_path / "shard",
        bench=(NO_SUCH,), shard=ShardSpec(1, 2),
    )  # fmt: skip
    run_hooks = dataclasses.replace(hooks(sides, []), log=logged.append)
    assert shard.run(opts, run_hooks) == 3
    assert not marker.exists() and sides.calls == [] and sides.discovered == ["base", "head"]
    assert any(NO_SUCH in line for line in logged)
    opts = dataclasses.replace(opts, bench=("Kernel",), report_dir=tmp_path / "shard2")
    sides.discovered.clear()
    assert shard.run(opts, run_hooks) == 0
    assert sides.discovered == ["base", "head"]  # the check and the partition share one


def test_the_plan_refuses_the_regex_too(tmp_path: Path) -> None:
    repo, _marker = _repo(tmp_path)
    opts = GateOptions(base="HEAD", head="HEAD", repo=repo, bench=(NO_SUCH,))
    names = {key: BENCH for key in CASES.values()}
    with pytest.raises(UserError, match="no_such_benchmark_xyz"):
        preview.build_plan(opts, lambda *_: names)
