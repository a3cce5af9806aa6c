"""The dashboard's copy of the results: higher-is-better benchmarks stored as 1/value, so
asv 0.6.6's regressions page (an upward step is a regression) reads them the right way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pg_results_factory import (
    COLUMNS,
    Bench,
    write_benchmarks_json,
    write_machine_json,
    write_result,
)
from watch_history import scripted_history

from perfgate.commands.publish import run as publish
from perfgate.formats.asv_reciprocal import (
    reciprocal_result,
    reciprocal_suite,
    write_dashboard_results,
)

pytestmark = pytest.mark.subprocess

RATE = Bench("collector.Collector.track_env_steps_per_s", kind="track", unit="steps/s")
TIME = Bench("hot_slice.HotSlice.time_compute", ("path",), (("numpy",),))


def _row(data: dict, name: str, column: str) -> object:
    return data["results"][name][COLUMNS.index(column)]


def test_values_samples_and_bounds_are_inverted_only_for_the_named(tmp_path: Path) -> None:
    write_machine_json(tmp_path)
    path = write_result(
        tmp_path, "a" * 40, [RATE, TIME], {RATE.name: [[2.0, 4.0, 5.0]], TIME.name: [[1.0]]}
    )
    data = json.loads(path.read_text())
    out = reciprocal_result(data, [RATE.name])
    assert _row(out, RATE.name, "result") == [0.25]
    assert _row(out, RATE.name, "samples") == [[0.5, 0.25, 0.2]]
    assert (_row(out, RATE.name, "stats_ci_99_a"), _row(out, RATE.name, "stats_ci_99_b")) == (
        [0.2],
        [0.5],
    )
    assert _row(out, RATE.name, "stats_q_25")[0] < _row(out, RATE.name, "stats_q_75")[0]
    assert out["results"][TIME.name] == data["results"][TIME.name]
    assert data["results"][RATE.name][0] == [4.0]  # the input is not changed
    suite = reciprocal_suite({"version": 2, RATE.name: {"unit": "steps/s"}}, [RATE.name])
    assert suite[RATE.name]["unit"] == "1/(steps/s)"


def test_failed_and_skipped_values_stay_as_they_are() -> None:
    data = {"result_columns": ["result", "params"], "results": {"b": [[None, float("nan")], []]}}
    out = reciprocal_result(data, ["b"])
    assert out["results"]["b"][0][0] is None and out["results"]["b"][0][1] != 0.5


def test_the_copy_leaves_the_branch_only_folders_out(tmp_path: Path) -> None:
    source = tmp_path / "results"
    write_benchmarks_json(source, [RATE, TIME])
    write_machine_json(source)
    write_result(source, "a" * 40, [RATE], {RATE.name: [[10.0]]})
    (source / "watch" / "0123456789abcdef").mkdir(parents=True)
    (source / "watch" / "0123456789abcdef" / "0001-0123456789ab.json").write_text("{}")
    names = write_dashboard_results(source, tmp_path / "view", lambda n: n.endswith("_per_s"))
    assert names == [RATE.name]
    copied = sorted(
        p.relative_to(tmp_path / "view").as_posix() for p in (tmp_path / "view").rglob("*")
    )
    assert "watch" not in copied and "perf-runner/machine.json" in copied
    assert json.loads((source / "perf-runner" / "aaaaaaaa-existing-py_3.11.json").read_text())[
        "results"
    ][RATE.name][0] == [10.0]  # the stored results are never changed


def _publish_throughput_drop(tmp_path: Path, higher_is_better: list[str]) -> list[list[object]]:
    history = scripted_history(tmp_path, n=10)
    results = history.results
    write_benchmarks_json(results, [RATE])
    for k, commit in enumerate(history.commits):
        write_result(results, commit, [RATE], {RATE.name: [[100.0 if k < 5 else 70.0]]})
    (history.repo / "asv.conf.json").write_text(
        json.dumps({"version": 1, "project": "p", "repo": ".", "branches": ["main"]})
    )
    pyproject = history.repo / "pyproject.toml"
    pyproject.write_text(f"[tool.perfgate]\nhigher_is_better = {json.dumps(higher_is_better)}\n")
    html = tmp_path / "html"
    assert publish(history.repo, results, html, None, pyproject) == 0
    return json.loads((html / "regressions.json").read_text())["regressions"]


@pytest.mark.skipif(
    subprocess.run([sys.executable, "-m", "asv", "--version"], capture_output=True).returncode,
    reason="asv is not installed",
)
def test_asv_lists_a_throughput_drop_as_a_regression_only_once_inverted(tmp_path: Path) -> None:
    (regression,) = _publish_throughput_drop(tmp_path / "inverted", [r"_per_s$"])
    assert regression[0] == RATE.name
    assert _publish_throughput_drop(tmp_path / "raw", []) == []  # asv's own reading: none
