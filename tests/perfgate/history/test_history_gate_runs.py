"""perfgate.history.gate_runs: what a local gate run measured, as one results folder for
the dashboard (the wall clock's first round and the sim count of each side, merged)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pg_results_factory import (
    BASE_SHA,
    HEAD_SHA,
    Bench,
    write_benchmarks_json,
    write_machine_json,
    write_result,
)

from perfgate.errors import UserError
from perfgate.formats.asv_results import merged_result
from perfgate.history import gate_runs

TIME = Bench("hot_slice.HotSlice.time_compute", ("path",), (("numpy",),))
CYCLES = Bench("sim_hot_slice.SimHotSlice.track_cycles", ("path",), (("numpy",),), "cycles")


def _round(run: Path, name: str, commit: str, bench: Bench, value: float) -> None:
    folder = run / name
    write_benchmarks_json(folder, [TIME, CYCLES])
    write_machine_json(folder)
    write_result(folder, commit, [bench], {bench.name: [[value]]})


def _run(runs: Path, name: str, value: float) -> None:
    run = runs / name
    _round(run, "main-r000-base", BASE_SHA, TIME, value)
    _round(run, "main-r000-head", HEAD_SHA, TIME, value * 2)
    _round(run, "main-r001-head", HEAD_SHA, TIME, 99.0)  # a later round: never published
    _round(run, "sim-base-1", BASE_SHA, CYCLES, 1000.0 * value)
    _round(run, "sim-head-1", HEAD_SHA, CYCLES, 2000.0 * value)
    _round(run, "sim-base-2", BASE_SHA, CYCLES, 5.0)  # the determinism check: not published


def _results(dest: Path, commit: str) -> dict[str, list[object]]:
    path = dest / "perf-runner" / f"{commit[:8]}-existing-py_3.11.json"
    results: dict[str, list[object]] = json.loads(path.read_text())["results"]
    return results


def test_each_side_gets_its_wall_round_and_its_sim_count_in_one_file(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    _run(runs, "20261203T100000Z-11111111-aaaaaaaa", 1.0)
    _run(runs, "20261203T110000Z-11111111-aaaaaaaa", 3.0)  # newer: its figures win
    got = gate_runs.collect(runs, tmp_path / "dest")
    assert got.commits == (BASE_SHA[:8], HEAD_SHA[:8])
    assert got.runs == ("20261203T110000Z-11111111-aaaaaaaa",)
    base, head = _results(tmp_path / "dest", BASE_SHA), _results(tmp_path / "dest", HEAD_SHA)
    assert (base[TIME.name][0], base[CYCLES.name][0]) == ([3.0], [3000.0])
    assert (head[TIME.name][0], head[CYCLES.name][0]) == ([6.0], [6000.0])
    assert (tmp_path / "dest" / "benchmarks.json").exists()
    assert _results(runs / got.runs[0] / "main-r000-base", BASE_SHA).keys() == {TIME.name}


def test_a_result_the_history_holds_is_left_alone(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    _run(runs, "20261203T100000Z-11111111-aaaaaaaa", 1.0)
    skip = [f"perf-runner/{BASE_SHA[:8]}-existing-py_3.11.json"]
    got = gate_runs.collect(runs, tmp_path / "dest", skip)
    assert got.commits == (HEAD_SHA[:8],)
    assert not (
        tmp_path / "dest" / "perf-runner" / f"{BASE_SHA[:8]}-existing-py_3.11.json"
    ).exists()


def test_results_of_different_commits_are_never_merged() -> None:
    a = {"commit_hash": "a" * 40, "env_name": "e", "result_columns": ["result"], "results": {}}
    with pytest.raises(UserError, match="different commit_hash"):
        merged_result(a, {**a, "commit_hash": "b" * 40})
    both = merged_result({**a, "results": {"x": [1]}}, {**a, "results": {"x": [2], "y": [3]}})
    assert both["results"] == {"x": [1], "y": [3]}


def test_a_corrupt_file_of_a_run_is_named_in_the_run(tmp_path: Path) -> None:
    """Issue 37 item 14: a file asv cannot read was named in the temporary copy publish
    makes; now by its own path in the run."""
    runs = tmp_path / "runs"
    _run(runs, "20261203T100000Z-11111111-aaaaaaaa", 1.0)
    round_dir = runs / "20261203T100000Z-11111111-aaaaaaaa" / "main-r000-head"
    (result,) = round_dir.glob("perf-runner/[!m]*.json")
    result.write_text("{not json")
    with pytest.raises(UserError, match=str(result).replace(".", r"\.") + ": "):
        gate_runs.collect(runs, tmp_path / "dest")
    _run(runs, "20261203T110000Z-11111111-aaaaaaaa", 1.0)
    suite = runs / "20261203T110000Z-11111111-aaaaaaaa" / "main-r000-base" / "benchmarks.json"
    suite.write_text("{not json")
    with pytest.raises(UserError, match=str(suite).replace(".", r"\.")):
        gate_runs.collect(runs, tmp_path / "dest2")
