"""`perfgate publish`: input checks and the publish config (asv itself is not run here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfgate import cli
from perfgate.formats.asv_conf import publish_config


def test_publish_config_absolute_paths(tmp_path: Path) -> None:
    """Results, HTML and benchmark folders become absolute; other keys are kept."""
    conf = publish_config(
        {"project": "p", "benchmark_dir": "benchmarks"},
        tmp_path,
        tmp_path / "res",
        tmp_path / "html",
    )
    assert conf["project"] == "p"
    assert conf["results_dir"] == str((tmp_path / "res").resolve())
    assert conf["benchmark_dir"] == str((tmp_path / "benchmarks").resolve())


def test_missing_results_is_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No results directory: exit 3 naming the missing benchmarks.json."""
    code = cli.main(["publish", "--repo", str(tmp_path), "--results-dir", str(tmp_path / "r")])
    assert code == 3
    assert "benchmarks.json" in capsys.readouterr().err


def test_corrupt_results_is_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A corrupt benchmarks.json: exit 3 naming the file."""
    results = tmp_path / "r"
    results.mkdir()
    (results / "benchmarks.json").write_text("{not json")
    (tmp_path / "asv.conf.json").write_text(json.dumps({"version": 1}))
    assert cli.main(["publish", "--repo", str(tmp_path), "--results-dir", str(results)]) == 3
    assert "corrupt" in capsys.readouterr().err


def test_no_results_yet_says_in_one_line_what_to_run_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fresh clone (`make dashboard` before any run): one line naming the commands."""
    assert (
        cli.main(["publish", "--repo", str(tmp_path), "--results-dir", str(tmp_path / "r")]) == 3
    )
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()
    assert "make asv-smoke" in line and "perfgate history export" in line
    assert captured.out == ""


@pytest.mark.parametrize("stored", [False, True])
def test_a_missing_gate_runs_path_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stored: bool
) -> None:
    """Issue 37 item 14: ``--gate-runs`` naming nothing said "no results yet, run make
    gate" (or, with stored results, was silently ignored)."""
    results = tmp_path / "r"
    if stored:
        results.mkdir()
        (results / "benchmarks.json").write_text(json.dumps({"version": 2}))
    missing = tmp_path / "no" / "runs"
    argv = ["publish", "--repo", str(tmp_path), "--results-dir", str(results)]
    assert cli.main([*argv, "--gate-runs", str(missing)]) == 3
    err = capsys.readouterr().err
    assert f"--gate-runs {missing}: no such folder" in err and "make gate" not in err


def test_a_corrupt_file_is_named_where_it_is_not_in_the_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 37 item 14: errors named the temporary copy publish makes, not the file."""
    results = tmp_path / "r"
    results.mkdir()
    (results / "benchmarks.json").write_text("{not json")
    (tmp_path / "asv.conf.json").write_text(json.dumps({"version": 1}))
    assert cli.main(["publish", "--repo", str(tmp_path), "--results-dir", str(results)]) == 3
    err = capsys.readouterr().err
    assert str(results / "benchmarks.json") in err and "perfgate-publish-" not in err
