"""perfgate doctor runs the quick parity command once at HEAD and reports its time; one that
fails (a test module that cannot import: issue 53), or one it could not run, is a problem."""

from __future__ import annotations

from pathlib import Path

import pytest
from adopt_project import fake_finder, git, make_project

from perfgate import cli
from perfgate.adopt.doctor import doctor as doctor_module
from perfgate.adopt.doctor.doctor import GROUPS, DoctorOptions, doctor
from perfgate.adopt.doctor.parity import parity_checks, trial_finding
from perfgate.adopt.init import InitOptions, init
from perfgate.adopt.parity_trial import Trial, TrialOutcome, run_trials
from perfgate.adopt.report_lines import Level
from perfgate.config import GateConfig
from perfgate.errors import RunnerError

pytestmark = pytest.mark.subprocess  # git, pytest


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quick_test: str) -> Path:
    """make_project with tests/test_core.py (init's quick subset) and init's policy written
    without running anything (--no-measure), committed."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # private ~/.asv-machine.json
    (tmp_path / "home").mkdir()
    repo = make_project(tmp_path)
    (repo / "tests" / "test_core.py").write_text(quick_test)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "quick test")
    init(InitOptions(repo=repo, workflows=False), fake_finder)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "policy")
    return repo


def _parity(repo: Path) -> list[str]:
    return [f.line() for f in doctor(DoctorOptions(repo=repo, groups=("parity",)))]


def test_parity_is_a_default_group() -> None:
    assert "parity" in GROUPS


def test_doctor_runs_a_quick_command_that_fails_to_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _project(tmp_path, monkeypatch, "import not_installed_plugin_xyz\n")
    (line,) = _parity(repo)
    assert line.startswith("problem: quick_parity_command at HEAD "), line
    assert "failed (exit 2)" in line and "No module named 'not_installed_plugin_xyz'" in line
    assert "fix: fix what its output says" in line


def test_doctor_reports_the_time_of_a_passing_quick_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _project(tmp_path, monkeypatch, "def test_core():\n    assert True\n")
    (line,) = _parity(repo)
    assert line.startswith("ok: quick_parity_command at HEAD ") and " passed in " in line
    monkeypatch.setattr(doctor_module, "asv_discover_suite", fake_finder)
    assert cli.main(["doctor", "--repo", str(repo), "--only", "project,parity"]) == 0
    assert " passed in " in capsys.readouterr().out


def test_what_doctor_could_not_run_is_a_problem(tmp_path: Path) -> None:
    assert parity_checks(tmp_path, None, run_trials)[0].level is Level.PROBLEM
    placeholder = GateConfig(parity_command=("set-parity_command-in-the-perfgate-configuration",))
    (found,) = parity_checks(tmp_path, placeholder, run_trials)
    assert found.level is Level.PROBLEM and "placeholder" in found.line()

    def cannot_export(*_args: object) -> list[Trial]:
        raise RunnerError("git archive failed")

    (found,) = parity_checks(tmp_path, GateConfig(), cannot_export)
    assert found.level is Level.PROBLEM
    assert "parity_command was not run" in found.line() and "git archive failed" in found.line()


def test_a_stopped_command_is_a_problem_naming_its_limit() -> None:
    trial = Trial(("pytest",), TrialOutcome.TIMED_OUT, 600.2, 600.0, -9, "collected 900 items")
    found = trial_finding("quick_parity_command", trial)
    assert found.level is Level.PROBLEM and "within the limit of 10 min" in found.line()
    assert "collected 900 items" in found.line()
