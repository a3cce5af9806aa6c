"""perfgate init runs each parity command it is about to write once at HEAD and writes only
one it saw pass (issue 53: a quick test module that could not import was written, and the
first A/A quick gate of an untouched commit ended PARITY FAILURE)."""

from __future__ import annotations

from pathlib import Path

import pytest
from adopt_project import fake_finder, git, make_project

from perfgate.adopt.init import InitOptions, init
from perfgate.adopt.parity_trial import Trial, TrialOutcome, last_lines, run_trials
from perfgate.adopt.survey import PARITY_PLACEHOLDER, PYTEST
from perfgate.config import GateConfig
from perfgate.config_files import config_on_disk

pytestmark = pytest.mark.subprocess  # git, pytest

#: a test of the benchmarked module (bench_core): init's quick subset
QUICK = (*PYTEST, "tests/test_core.py")
BROKEN_IMPORT = (
    "import pytest_benchmark_plugin_not_installed  # s3cr3t-value-1234\n\n\n"
    "def test_core():\n    pass\n"
)


def _project(tmp_path: Path, quick_test: str) -> Path:
    repo = make_project(tmp_path)
    (repo / "tests" / "test_core.py").write_text(quick_test)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "quick test")
    return repo


def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # private ~/.asv-machine.json
    (tmp_path / "home").mkdir()


def test_a_quick_module_that_fails_to_import_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _home(tmp_path, monkeypatch)
    monkeypatch.setenv("SOME_API_TOKEN", "s3cr3t-value-1234")
    repo = _project(tmp_path, BROKEN_IMPORT)
    result = init(InitOptions(repo=repo, workflows=False), fake_finder, trier=run_trials)
    p = result.proposal
    assert p.quick_parity.value == QUICK  # what the survey found ...
    assert p.quick_parity_trial is not None and not p.quick_parity_trial.passed
    assert "ModuleNotFoundError" in p.quick_parity_trial.error
    config = config_on_disk(repo)
    assert config.quick_parity_command is None  # ... is not written
    # the full suite collects the same module: it fails too, and is not written either
    assert p.parity_trial is not None and p.parity_trial.outcome is TrialOutcome.FAILED
    assert config.parity_command == PARITY_PLACEHOLDER
    text = (repo / "pyproject.toml").read_text()
    assert "# quick_parity_command = " in text and "# parity_command = " in text
    assert "ModuleNotFoundError: No module named 'pytest_benchmark_plugin_not_installed'" in text
    assert "failed (exit 2)" in text
    # the secret the command printed (its source line, in pytest's traceback) is redacted
    assert "pytest_benchmark_plugin_not_installed  #" in p.quick_parity_trial.error
    assert "s3cr3t-value-1234" not in text and "s3cr3t" not in p.quick_parity_trial.error
    assert config.costs is None or config.costs.quick_parity_s is None


def test_a_passing_quick_command_is_written_with_its_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _home(tmp_path, monkeypatch)
    repo = _project(
        tmp_path, "from pkg import add\n\ndef test_core():\n    assert add(2, 2) == 4\n"
    )
    result = init(InitOptions(repo=repo, workflows=False), fake_finder, trier=run_trials)
    config = config_on_disk(repo)
    assert config.quick_parity_command == QUICK
    assert config.parity_command == PYTEST
    assert config.costs is not None
    trial = result.proposal.quick_parity_trial
    assert trial is not None and trial.passed
    assert config.costs.quick_parity_s == pytest.approx(trial.seconds)
    assert config.costs.parity_s is not None and config.costs.parity_s > 0
    assert "perfgate init ran it once at HEAD" in (repo / "pyproject.toml").read_text()


def test_a_command_over_the_limit_is_stopped_and_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _home(tmp_path, monkeypatch)
    repo = _project(tmp_path, "import time\n\ndef test_core():\n    time.sleep(60)\n")
    config = GateConfig(asv_config="benchmarks/asv.conf.json")
    (trial,) = run_trials(repo, config, [QUICK], 2.0)
    assert trial.outcome is TrialOutcome.TIMED_OUT and not trial.passed
    assert trial.seconds < 30
    assert "did not finish within the limit" in trial.summary()


def test_a_command_that_cannot_start_is_a_failure_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _home(tmp_path, monkeypatch)
    repo = make_project(tmp_path)
    config = GateConfig(asv_config="benchmarks/asv.conf.json")
    (trial,) = run_trials(repo, config, [("no-such-program-here",)], 30.0)
    assert trial.outcome is TrialOutcome.FAILED and "no-such-program-here" in trial.error


def test_last_lines_are_redacted_and_fit_a_comment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_abcdefghijklmnop1234")
    text = (
        "\n".join(f"line {i}" for i in range(20))
        + "\n=== summary ===\ntoken ghp_abcdefghijklmnop1234\x1b[0m\n"
    )
    lines = last_lines(text).splitlines()
    assert len(lines) == 8 and lines[0] == "line 13"
    assert "ghp_abcdefghijklmnop1234" not in lines[-1] and "\x1b" not in lines[-1]


def test_a_trial_summary_says_how_it_ended() -> None:
    passed = Trial(QUICK, TrialOutcome.PASSED, 3.25, 600.0)
    failed = Trial(QUICK, TrialOutcome.FAILED, 1.0, 600.0, 2, "boom")
    assert passed.summary() == "passed in 3.2 s" and failed.summary() == "failed (exit 2) in 1.0 s"


def test_the_cli_writes_no_failing_quick_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``perfgate init`` with no flags, as a new user runs it (asv's discovery and the
    suite's run faked; the parity commands run for real)."""
    from perfgate import cli
    from perfgate.adopt import init as init_module
    from perfgate.adopt.probe import Probe
    from perfgate.commands import init as init_command

    _home(tmp_path, monkeypatch)
    monkeypatch.setenv("SOME_API_TOKEN", "s3cr3t-value-1234")
    repo = _project(tmp_path, BROKEN_IMPORT)
    monkeypatch.setattr(init_module, "asv_discover_suite", fake_finder)
    probe = Probe({"bench_core.Core.time_add": 0.5, "bench_core.Core.time_mul": 0.5}, {}, 2.0, "m")
    monkeypatch.setattr(init_command, "run_probe", lambda *_: probe)
    assert cli.main(["init", "--repo", str(repo), "--no-workflows"]) == 0
    config = config_on_disk(repo)
    assert config.quick_parity_command is None and config.parity_command == PARITY_PLACEHOLDER
    out = capsys.readouterr().out
    assert "quick_parity_command: failed (exit 2)" in out and "NOT written" in out
    assert "ModuleNotFoundError" in out and "s3cr3t" not in out


def test_init_prints_how_each_parity_command_did() -> None:
    from perfgate.commands.init import trial_lines

    passed = Trial(QUICK, TrialOutcome.PASSED, 3.25, 600.0)
    stopped = Trial(PYTEST, TrialOutcome.TIMED_OUT, 600.1, 600.0, -9, "collected 9 items")
    assert trial_lines("quick_parity_command", passed) == [
        "  quick_parity_command: passed in 3.2 s: written"
    ]
    first, rest = trial_lines("parity_command", stopped)
    assert "--parity-minutes allows longer" in first and "NOT written" in first
    assert rest == "    collected 9 items"
    assert trial_lines("parity_command", None) == []
