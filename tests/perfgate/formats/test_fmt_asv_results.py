"""perfgate.formats.asv_results: asv result files, their layout, bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pg_results_factory as f
import pytest

from perfgate.errors import ResultFileError, UserError
from perfgate.formats.asv_results import (
    CaseState,
    iter_result_files,
    list_machines,
    load_commit,
    read_result_file,
    same_commit,
)
from perfgate.formats.benchmarks_json import read_benchmarks
from perfgate.model import CaseKey

BENCH = f.Bench("suite.time_k", ("path", "n"), (("numpy", "assembled"), (8, 16)))


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    f.write_benchmarks_json(root, [BENCH])
    f.write_machine_json(root)
    samples = {BENCH.name: [[1.0, 1.1, 0.9], None, [2.0, 2.0], [math.nan]]}
    f.write_result(root, f.HEAD_SHA, [BENCH], samples)
    return root


def test_reads_asv_result_file(tmp_path: Path) -> None:
    """Values, samples, param names from benchmarks.json, unquoted values, failure, skip."""
    root = _tree(tmp_path)
    rs = load_commit(root, "perf-runner", f.HEAD_SHA[:10], benchmarks=read_benchmarks(root))
    assert rs.commit_hash == f.HEAD_SHA and rs.env_name == "existing-py_3.11"
    assert rs.machine == "perf-runner" and rs.machine_info["cpu"] == "AMD EPYC 9654"
    assert rs.run_started_at == 1764400000000 and rs.run_duration == 12.5
    ok = rs.cases[CaseKey(BENCH.name, (("path", "numpy"), ("n", "8")))]
    assert ok.state is CaseState.OK and ok.value == 1.0 and ok.samples == (1.0, 1.1, 0.9)
    assert ok.ci_99 == (0.9, 1.1) and ok.repeat == 3
    failed = rs.cases[CaseKey(BENCH.name, (("path", "numpy"), ("n", "16")))]
    assert failed.state is CaseState.FAILED and failed.value is None
    skipped = rs.cases[CaseKey(BENCH.name, (("path", "assembled"), ("n", "16")))]
    assert skipped.state is CaseState.SKIPPED


def test_param_names_fall_back_without_benchmarks_json(tmp_path: Path) -> None:
    """Without benchmarks.json info, params are named param1.. like asv's display."""
    root = _tree(tmp_path)
    path = next(iter_result_files(root, "perf-runner")).path
    keys = list(read_result_file(path).cases)
    assert keys[0].params == (("param1", "numpy"), ("param2", "8"))


def _set(text: str, key: str, value: object) -> str:
    """A result file's JSON with one top-level key replaced."""
    return json.dumps({**json.loads(text), key: value})


def _set_column(text: str, column: str, value: object) -> str:
    """A result file's JSON with one column of every result row replaced."""
    data = json.loads(text)
    index = data["result_columns"].index(column)
    for row in data["results"].values():
        row += [None] * (index + 1 - len(row))
        row[index] = value
    return json.dumps(data)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda text: text[: len(text) // 2], "corrupt or truncated JSON"),
        (lambda text: text.replace('"version": 2', '"version": 1'), "unsupported version"),
        (lambda text: text.replace('"result_columns"', '"columns"'), "missing keys"),
        (lambda text: text.replace('"result", "params"', '"x", "params"'), "result_columns"),
        (lambda text: _set(text, "durations", {"<build>": "n/a"}), r"durations\['<build>'\]"),
        (lambda text: _set(text, "durations", {"<build>": float("inf")}), "finite"),
        (lambda text: _set(text, "durations", [1, 2]), "durations: expected an object"),
        (lambda text: _set(text, "env_vars", "PATH=/bin"), "env_vars: expected an object"),
        (lambda text: _set(text, "commit_hash", ""), "commit_hash: expected a commit hash"),
        (lambda text: _set(text, "commit_hash", None), "commit_hash: expected a commit hash"),
        (lambda text: _set_column(text, "started_at", float("nan")), "started_at"),
    ],
)
def test_bad_result_files_raise_naming_the_file(tmp_path: Path, mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    """Corrupt, truncated, wrong-version or column-less files give ResultFileError."""
    root = _tree(tmp_path)
    path = next(iter_result_files(root, "perf-runner")).path
    path.write_text(mutate(path.read_text()))
    with pytest.raises(ResultFileError, match=message) as info:
        read_result_file(path)
    assert str(path) in str(info.value)


def test_row_shape_mismatch_is_an_error(tmp_path: Path) -> None:
    """A result list whose length does not match the parameter grid is refused."""
    root = _tree(tmp_path)
    path = next(iter_result_files(root, "perf-runner")).path
    data = json.loads(path.read_text())
    data["results"][BENCH.name][0] = [1.0]
    path.write_text(json.dumps(data))
    with pytest.raises(ResultFileError, match="list of 4 entries"):
        read_result_file(path)


def test_half_written_files_are_ignored_and_refused(tmp_path: Path) -> None:
    """A temp file in the machine folder is never listed and cannot be read as complete."""
    root = _tree(tmp_path)
    tmp = root / "perf-runner" / f"{f.BASE_SHA[:8]}-existing-py_3.11.json.tmp"
    tmp.write_text('{"version": 2, "commit_hash": "1111')
    names = [r.path.name for r in iter_result_files(root, "perf-runner")]
    assert names == [f"{f.HEAD_SHA[:8]}-existing-py_3.11.json"]
    with pytest.raises(ResultFileError, match="half-written"):
        read_result_file(tmp)
    with pytest.raises(UserError, match="unknown revision"):
        load_commit(root, "perf-runner", f.BASE_SHA)


def test_unknown_and_malformed_revisions(tmp_path: Path) -> None:
    """Unknown hash, non-hex revision and a missing machine are UserErrors."""
    root = _tree(tmp_path)
    with pytest.raises(UserError, match="unknown revision 'deadbeef'"):
        load_commit(root, "perf-runner", "deadbeef")
    with pytest.raises(UserError, match="not a commit hash"):
        load_commit(root, "perf-runner", "main; rm -rf /")
    with pytest.raises(UserError, match="no results for machine"):
        load_commit(root, "other", f.HEAD_SHA)
    assert list_machines(root) == ["perf-runner"]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("6dcb09b5b578", "6dcb09b5b57875f334f61aebed695e2e4193db5e", True),
        ("6DCB09B5", "6dcb09b5b57875f3", True),
        ("6dcb", "6dcb09b5", True),
        ("6dc", "6dcb09b5", False),
        ("", "6dcb09b5", False),
        ("", "", False),
        ("6dcb09b5", "6dcb09b6", False),
    ],
)
def test_same_commit_needs_a_real_prefix(a: str, b: str, same: bool) -> None:
    """Full or abbreviated hashes match over the shorter one; empty or too short never."""
    assert same_commit(a, b) is same
    assert same_commit(b, a) is same
