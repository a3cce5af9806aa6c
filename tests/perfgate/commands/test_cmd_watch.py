"""`perfgate watch` on the command line: the table, --json, and exit 3 on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pg_results_factory import write_result
from watch_history import BENCH, scripted_history, slowdown

from perfgate.cli import main
from perfgate.config import parse_config
from perfgate.errors import ConfigError

pytestmark = pytest.mark.subprocess


@pytest.fixture(autouse=True)
def _git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key in ("GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_SERVER_URL"):
        monkeypatch.delenv(key, raising=False)


def _argv(tmp_path: Path, *extra: str) -> list[str]:
    history = scripted_history(tmp_path)
    history.measure((1, 4, 8, 12), slowdown(7))
    return [
        "watch",
        "--results",
        str(history.results),
        "--repo",
        str(history.repo),
        "--config",
        str(tmp_path / "none.toml"),
        "--no-state",
        *extra,
    ]


def test_watch_prints_a_table_of_the_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_argv(tmp_path)) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == [
        "status",
        "direction",
        "ratio",
        "range",
        "issue",
        "case",
    ]
    assert "suspected  regression" in out and "time_compute(assembled) on perf-runner" in out


def test_watch_json_lists_each_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_argv(tmp_path, "--json")) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert {"benchmark", "params", "machine", "commit", "ratio", "direction", "status"} <= set(
        record
    )
    assert (record["params"], record["status"]) == (["assembled"], "suspected")


def test_an_unknown_ref_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_argv(tmp_path, "--ref", "no-such-ref")) == 3
    assert "no-such-ref" in capsys.readouterr().err


def test_a_missing_results_dir_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _argv(tmp_path)
    argv[2] = str(tmp_path / "nowhere")
    assert main(argv) == 3
    assert "nowhere" in capsys.readouterr().err


def test_watch_keys_of_the_configuration() -> None:
    config = parse_config({"watch_alpha": 0.02, "watch_min_segment": 6})
    assert (config.watch_alpha, config.watch_min_segment) == (0.02, 6)
    assert (parse_config({}).watch_alpha, parse_config({}).watch_min_segment) == (0.01, 5)
    with pytest.raises(ConfigError, match="tool.perfgate.watch_alpha"):
        parse_config({"watch_alpha": 0.7})
    with pytest.raises(ConfigError, match="tool.perfgate.watch_min_segment"):
        parse_config({"watch_min_segment": 1})


def test_bisect_dry_run_names_the_probes_of_this_machine_and_measures_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _argv(tmp_path, "--bisect", "--machine", "perf-runner", "--dry-run", "--json")
    argv += ["--budget-minutes", "5", "--max-steps", "3", "--work-dir", str(tmp_path / "w")]
    assert main(argv) == 0
    captured = capsys.readouterr()
    (record,) = json.loads(captured.out)
    assert (record["status"], record["probes"]) == ("suspected", [])
    assert "would confirm" in captured.err and "on perf-runner" in captured.err
    assert not (tmp_path / "w").exists()


def test_changes_of_another_machine_are_not_probed_here(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _argv(tmp_path, "--confirm", "--machine", "elsewhere", "--no-alerts", "--dry-run")
    assert main(argv) == 0
    assert "would" not in capsys.readouterr().err


def test_confirm_and_bisect_are_one_choice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_argv(tmp_path, "--confirm", "--bisect")) == 3  # usage errors exit 3
    assert "not allowed with" in capsys.readouterr().err


def test_the_probe_budget_keys_of_the_configuration() -> None:
    config = parse_config({"watch_budget_minutes": 30, "watch_max_steps": 4})
    assert (config.watch_budget_minutes, config.watch_max_steps) == (30.0, 4)
    assert (parse_config({}).watch_budget_minutes, parse_config({}).watch_max_steps) == (60.0, 8)
    with pytest.raises(ConfigError, match="tool.perfgate.watch_budget_minutes"):
        parse_config({"watch_budget_minutes": 0})
    with pytest.raises(ConfigError, match="tool.perfgate.watch_max_steps"):
        parse_config({"watch_max_steps": 0})


def _foreign(history_results: Path, *shas: str) -> None:
    """Results of commits that are not in the watched repository."""
    for sha in shas:
        write_result(history_results, sha, [BENCH], {BENCH.name: [[1.0] * 20]})


def test_results_of_another_repository_are_an_error_naming_the_commits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 30 item 5: none of the stored commits is in the watched history (``--results``
    of another repository, a shallow clone): it said "no change points" and exited 0."""
    history = scripted_history(tmp_path)
    _foreign(history.results, "a" * 40, "b" * 40)
    argv = ["watch", "--results", str(history.results), "--repo", str(history.repo)]
    assert main([*argv, "--config", str(tmp_path / "none.toml"), "--no-state"]) == 3
    captured = capsys.readouterr()
    assert "no change points" not in captured.out
    assert "none of the 2 commit(s)" in captured.err
    assert "aaaaaaaaaaaa, bbbbbbbbbbbb" in captured.err and "first-parent history" in captured.err


def test_stored_commits_outside_the_history_are_named_in_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _argv(tmp_path)
    _foreign(Path(argv[2]), "c" * 40)
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "suspected  regression" in captured.out
    assert "warning: 1 of 5 commit(s)" in captured.err and "cccccccccccc" in captured.err
