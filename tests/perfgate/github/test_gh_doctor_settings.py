"""perfgate doctor's GitHub checks against the schema-checked fake API: the variables the
workflows read without a default must exist, and the gate's labels too."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gh_env import actions_env
from gh_fake_api import FakeServer

from perfgate import cli
from perfgate.adopt.doctor.github import github_checks, required_variables
from perfgate.adopt.report_lines import Level

pytestmark = pytest.mark.subprocess  # git

CALLER = """
on: pull_request
jobs:
  gate:
    uses: perfgate/perfgate/.github/workflows/gate.yml@v0.2.0
    with:
      runner-labels: ${{ vars.PERF_LABELS }}
      shards: ${{ vars.PERF_SHARDS || '[1]' }}
"""
FORK = "on: pull_request_target\n# safe-to-bench\njobs: {}\n"


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "perfgate.yml").write_text(CALLER)
    (repo / ".github" / "workflows" / "perfgate-fork.yml").write_text(FORK)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def test_required_variables_leave_out_those_with_a_default() -> None:
    assert required_variables({"a.yml": CALLER}) == {"PERF_LABELS": "a.yml"}


def test_missing_variable_and_label_are_problems(tmp_path: Path, server: FakeServer) -> None:
    repo = _repo(tmp_path)
    server.fake.variables = {f"OTHER_{k}": "x" for k in range(35)}  # two pages
    server.fake.labels = {"safe-to-bench"}
    found = github_checks(repo, actions_env(server))
    problems = [f.line() for f in found if f.level is Level.PROBLEM]
    assert problems == [
        "problem: GitHub variable PERF_LABELS is not set (perfgate.yml reads it, with no "
        "default); fix: gh variable set PERF_LABELS --body VALUE (Settings > Secrets and "
        "variables > Actions > Variables)",
        "problem: label perf-regression-accepted does not exist (the gate's workflows use "
        "it); fix: gh label create perf-regression-accepted",
    ]
    server.fake.variables["PERF_LABELS"] = '["self-hosted"]'
    server.fake.labels.add("perf-regression-accepted")
    found = github_checks(repo, actions_env(server))
    assert [f for f in found if f.level is Level.PROBLEM] == []
    assert any(f.line() == "ok: GitHub variable PERF_LABELS" for f in found)


def test_without_a_token_it_is_a_note(tmp_path: Path) -> None:
    found = github_checks(_repo(tmp_path), {})
    assert [f.level for f in found] == [Level.OK, Level.NOTE]
    assert "not checked: set GITHUB_TOKEN" in found[1].what


def test_no_caller_is_a_problem(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / ".github" / "workflows" / "perfgate.yml").unlink()
    (finding, _note) = github_checks(repo, {})
    assert finding.level is Level.PROBLEM and "perfgate init" in finding.fix


def test_a_token_the_api_rejects_is_a_problem_and_doctor_exits_1(
    tmp_path: Path,
    server: FakeServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 37 item 4: a token the API answers 401 to was "a note", then "no problem",
    exit 0."""
    repo = _repo(tmp_path)
    for name, value in actions_env(server, GITHUB_TOKEN="ghp_revokedtoken0123456789").items():
        monkeypatch.setenv(name, value)
    code = cli.main(["doctor", "--repo", str(repo), "--only", "github"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "problem: GitHub variables and labels not checked: GitHub" in out and "401" in out
    assert "GITHUB_TOKEN is not a valid token" in out and "no problem" not in out
    assert "revokedtoken" not in out


def test_an_api_it_cannot_reach_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    """Issue 37 item 12: doctor against an unreachable API died with a traceback."""
    env = {"GITHUB_TOKEN": "ghp_sometoken0123456789", "GITHUB_REPOSITORY": "o/r"}
    env["GITHUB_API_URL"] = "http://127.0.0.1:9"  # discard port: nothing listens
    found = github_checks(_repo(tmp_path), env)
    assert [f.level for f in found] == [Level.OK, Level.PROBLEM]
    assert "cannot reach http://127.0.0.1:9/repos/o/r/actions/variables" in found[1].what
    assert "GITHUB_API_URL" in found[1].fix
