"""`perfgate gate --parity-result`: CI's parity run for the head is taken, never re-run, and
refused for any other commit."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from gate_fakes import FakeSides, commit_speed, hooks, make_repo

from perfgate import cli
from perfgate.formats.parity_result import write_parity
from perfgate.formats.report_files import read_report
from perfgate.gate import parity
from perfgate.gate import run as gate
from perfgate.github import status_description
from perfgate.model import ParityResult, ParityStatus
from perfgate.process import ProcessOutcome, run_process
from perfgate.settings import GateOptions

pytestmark = pytest.mark.subprocess
FAILING = ("tests/kernels_test.py::test_parity[g1]", "tests/io_test.py::test_round_trip")


@pytest.fixture
def parity_runs(monkeypatch: pytest.MonkeyPatch) -> list[Sequence[str]]:
    """Every parity subprocess the gate starts (run as usual, recorded)."""
    started: list[Sequence[str]] = []

    def recording(cmd: Sequence[str], *args: object, **kw: object) -> ProcessOutcome:
        started.append(cmd)
        return run_process(cmd, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(parity, "run_process", recording)
    return started


def _project(tmp_path: Path) -> tuple[Path, str, str]:
    repo = make_repo(tmp_path)
    base = commit_speed(repo, {}, "base")
    head = commit_speed(repo, {"b": {"factor": 1.2}}, "slow b")
    return repo, base, head


def _result(tmp_path: Path, sha: str | None, status: ParityStatus, tests: tuple = ()) -> Path:
    if sha is None:  # an older file that names no commit
        path = tmp_path / "parity-nosha.json"
        path.write_text(json.dumps({"status": status.value, "command": "make test-all"}))
        return path
    result = ParityResult(status, "make test-all", "exit 0", sha, tests)
    return write_parity(tmp_path / f"parity-{sha[:8]}-{status.name}.json", result)


def _gate(repo: Path, base: str, head: str, result: Path | None, sides: FakeSides) -> int:
    opts = GateOptions(
        base=base, head=head, repo=repo, report_dir=repo / "out", parity_result=result
    )
    return gate.run(opts, hooks(sides, []))


def test_a_passing_result_for_the_head_skips_the_parity_run(
    tmp_path: Path, parity_runs: list[Sequence[str]]
) -> None:
    """No parity subprocess starts; the 20% slowdown is still measured and blocks."""
    repo, base, head = _project(tmp_path)
    result = _result(tmp_path, head, ParityStatus.PASSED)
    assert _gate(repo, base, head, result, FakeSides()) == 1
    assert parity_runs == []
    report = (repo / "out" / "report.md").read_text()
    assert f"CI's run at this head ({head[:12]}); not re-run on this machine" in report
    assert f"--parity-result {result}" in report  # the reproducing command (not escaped)


def test_without_the_option_the_gate_runs_parity_itself(
    tmp_path: Path, parity_runs: list[Sequence[str]]
) -> None:
    """`make gate`: no --parity-result, the configured parity command runs at the head."""
    repo, base, head = _project(tmp_path)
    assert _gate(repo, base, head, None, FakeSides()) == 1
    assert len(parity_runs) == 1


def test_a_failing_result_fails_the_status_and_names_the_tests(
    tmp_path: Path, parity_runs: list[Sequence[str]]
) -> None:
    """Exit 2 before anything is measured; report and posted status name the failing tests."""
    repo, base, head = _project(tmp_path)
    sides = FakeSides()
    result = _result(tmp_path, head, ParityStatus.FAILED, FAILING)
    assert _gate(repo, base, head, result, sides) == 2
    assert parity_runs == [] and sides.calls == []
    posted = read_report(repo / "out", expect_head=head)
    assert (posted.verdict, posted.exit_code) == ("parity_failure", 2)
    description = status_description(posted.summary)
    assert "failing: tests/kernels_test.py::test_parity[g1]" in description
    assert description.startswith("PARITY FAILURE")
    report = (repo / "out" / "report.md").read_text()
    for test in ("tests/kernels\\_test.py::test\\_parity\\[g1\\]", "tests/io\\_test.py"):
        assert test in report  # markdown-escaped


@pytest.mark.parametrize("which", ["base", "none"])
def test_a_result_for_another_commit_is_refused(
    tmp_path: Path, parity_runs: list[Sequence[str]], which: str
) -> None:
    """Exit 3 naming the file and both commits (or that it names none); nothing runs."""
    repo, base, head = _project(tmp_path)
    sides = FakeSides()
    result = _result(tmp_path, base if which == "base" else None, ParityStatus.PASSED)
    assert _gate(repo, base, head, result, sides) == 3
    assert parity_runs == [] and sides.calls == []
    reason = json.loads((repo / "out" / "verdict.json").read_text())["reasons"][0]
    assert str(result) in reason and head in reason
    assert (base in reason) if which == "base" else ("records no 'sha'" in reason)


def test_the_cli_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parity_runs: list[Sequence[str]]
) -> None:
    """`perfgate gate --parity-result FILE` reaches the gate (here: refused, exit 3)."""
    repo, base, head = _project(tmp_path)
    monkeypatch.setattr(gate, "Hooks", lambda: hooks(FakeSides(), []))
    result = _result(tmp_path, base, ParityStatus.PASSED)
    argv = ["gate", "--base", base, "--head", head, "--repo", str(repo)]
    argv += ["--report-dir", str(repo / "out"), "--parity-result", str(result)]
    assert cli.main(argv) == 3
    assert parity_runs == []
