"""perfgate.formats.asv_conf: where a project keeps it, and per-round configurations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfgate.errors import UserError
from perfgate.formats.asv_conf import (
    find_asv_conf,
    read_asv_conf,
    read_project,
    write_round_config,
)


def test_round_config(tmp_path: Path) -> None:
    """Per-round configs keep the template and redirect results, env and benchmarks; their
    one branch is the commit the round measures (the template's may not exist locally)."""
    template = tmp_path / "asv.conf.json"
    text = '{"version": 1, "project": "p", "results_dir": "x", "branches": ["main"]}'
    template.write_text(f"// comment\n{text}\n")
    sha = "a" * 40
    path = write_round_config(
        read_asv_conf(template), tmp_path / "r0", tmp_path / "bench", tmp_path, sha
    )
    conf = json.loads(path.read_text())
    assert conf["project"] == "p" and conf["branches"] == [sha]
    assert conf["results_dir"] == str((tmp_path / "r0").resolve())
    assert conf["benchmark_dir"] == str((tmp_path / "bench").resolve())


@pytest.mark.parametrize("place", ["asv.conf.json", "benchmarks/asv.conf.json"])
def test_found_at_the_root_or_in_benchmarks(tmp_path: Path, place: str) -> None:
    """asv's paths resolve against the file's folder: in ``benchmarks/`` the suites are
    ``benchmarks/benchmarks`` and the results ``benchmarks/results`` unless it says else."""
    path = tmp_path / place
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"version": 1, "repo": ".."}')
    assert find_asv_conf(tmp_path) == path
    project = read_project(tmp_path)
    assert project.benchmark_dir == path.parent / "benchmarks"
    assert project.results_dir == path.parent / "results"


def test_none_several_or_named(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no asv configuration .*asv_config"):
        find_asv_conf(tmp_path)
    (tmp_path / "benchmarks").mkdir()
    for place in ("asv.conf.json", "benchmarks/asv.conf.json"):
        (tmp_path / place).write_text("{}")
    with pytest.raises(UserError, match="several asv configurations"):
        find_asv_conf(tmp_path)
    assert find_asv_conf(tmp_path, "benchmarks/asv.conf.json") == (
        tmp_path / "benchmarks" / "asv.conf.json"
    )
    with pytest.raises(UserError, match="not found"):
        find_asv_conf(tmp_path, "elsewhere/asv.conf.json")


def test_read_as_asv_reads_it(tmp_path: Path) -> None:
    """JSON5, as asv 0.6: comments and trailing commas (datashader's file has both)."""
    path = tmp_path / "asv.conf.json"
    path.write_text('{\n  // the project\n  "version": 1,\n  "matrix": {"pyct": [],},\n}\n')
    assert read_asv_conf(path) == {"version": 1, "matrix": {"pyct": []}}
    path.write_text("[1]")
    with pytest.raises(UserError, match="expected a JSON object"):
        read_asv_conf(path)
