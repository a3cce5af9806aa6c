"""perfgate.gate.parity: the parity command in a commit's export, failing tests named."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from git_project import run_git

from perfgate import git
from perfgate.gate.parity import parse_failing_tests, resolve_command, run_in_export
from perfgate.git import export_commit


def test_parse_failing_tests() -> None:
    """pytest's short summary lines give the failing ids, once each."""
    out = "x\nFAILED tests/a.py::test_b - assert 1\nERROR tests/c.py::test_d\n"
    out += "FAILED tests/a.py::test_b\n"
    assert parse_failing_tests(out) == ("tests/a.py::test_b", "tests/c.py::test_d")


@pytest.mark.subprocess
def test_parity_pass_and_fail(repo: Path, tmp_path: Path) -> None:
    """A passing suite passes; a broken commit's parity fails and names the test."""
    cmd = [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", "tests"]
    sha = git.resolve(repo, "HEAD")
    ok = run_in_export(cmd, export_commit(repo, sha, tmp_path / "ex"), {}, 120)
    assert ok.passed and ok.failing == ()
    (repo / "src" / "pkg" / "__init__.py").write_text("VALUE = 2\n")
    run_git(repo, "commit", "-qam", "break")
    bad_sha = git.resolve(repo, "HEAD")
    bad = run_in_export(cmd, export_commit(repo, bad_sha, tmp_path / "ex"), {}, 120)
    assert not bad.passed
    assert bad.failing == ("tests/test_ok.py::test_one",)


def test_parity_command_resolution() -> None:
    """{python} is substituted; make gets the running venv and never rebuilds it."""
    assert resolve_command(["{python}", "-m", "pytest"], "/v/bin/python") == [
        "/v/bin/python",
        "-m",
        "pytest",
    ]
    assert resolve_command(["make", "test-all"], "/v/bin/python") == [
        "make",
        "-o",
        "/v/.installed",
        "test-all",
        "VENV=/v",
        "PYTHON=/v/bin/python",
    ]
