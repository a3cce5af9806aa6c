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
