"""The history's probe cases of issue 36: a run that stored nothing is never "pushed", a
damaged file on the branch is moved aside by the next append (never rewritten in place),
and ``export --dest`` naming a file is a clean error with a documented exit code."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pg_results_factory as f
import pytest
from test_history_export_checks import _plant
from test_history_race import BRANCH, branch_files, make_writer

from perfgate.cli import main

pytestmark = pytest.mark.subprocess

OTHER_SHA = "0123456789abcdef0123456789abcdef01234567"
BENCH = f.Bench("hot.K.time_k", ("n",), ((8,),))


@pytest.fixture
def remote_and_repo(tmp_path: Path) -> tuple[Path, Path]:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    return remote, make_writer(tmp_path, "a", remote)


def _results(root: Path, commits: list[str]) -> Path:
    """An asv results dir with a result of each of ``commits`` (none: metadata only)."""
    f.write_benchmarks_json(root, [BENCH])
    f.write_machine_json(root)
    for commit in commits:
        f.write_result(root, commit, [BENCH], {BENCH.name: [[1e-3] * 5]})
    return root


def _hashfile(tmp_path: Path, commits: list[str]) -> Path:
    path = tmp_path / "hashes.txt"
    path.write_text("".join(f"{c}\n" for c in commits))
    return path


def _append(repo: Path, results: Path, *extra: str) -> int:
    argv = ["history", "append", "--repo", str(repo), "--results", str(results)]
    return main([*argv, "--branch", BRANCH, "--attempts", "1", *extra])


def test_append_of_a_run_without_any_result_fails_naming_the_commits(
    tmp_path: Path, remote_and_repo: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """asv stopped at discovery: benchmarks.json and machine.json only. Before the fix the
    append pushed machine.json and said "pushed"."""
    remote, repo = remote_and_repo
    results = _results(tmp_path / "res", [])
    hashes = _hashfile(tmp_path, [f.HEAD_SHA, f.BASE_SHA])
    assert _append(repo, results, "--measured", str(hashes)) == 1
    err = capsys.readouterr().err
    assert "no asv result file" in err and f.HEAD_SHA[:12] in err and f.BASE_SHA[:12] in err
    assert "pushed" not in capsys.readouterr().out
    assert subprocess.run(
        ["git", "-C", str(remote), "rev-parse", "--verify", "--quiet", BRANCH],
        capture_output=True, check=False,
    ).returncode != 0  # fmt: skip


def test_append_without_a_result_of_the_measured_commits_appends_nothing(
    tmp_path: Path, remote_and_repo: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A stale result of another commit in the results dir does not make the run stored."""
    _remote, repo = remote_and_repo
    results = _results(tmp_path / "res", [f.BASE_SHA])
    assert _append(repo, results, "--measured", str(_hashfile(tmp_path, [f.HEAD_SHA]))) == 1
    captured = capsys.readouterr()
    assert f"measured commit(s) {f.HEAD_SHA[:12]}" in captured.err
    assert "nothing appended" in captured.err and "pushed" not in captured.out


def test_append_missing_some_measured_commits_stores_the_rest_and_exits_1(
    tmp_path: Path, remote_and_repo: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    remote, repo = remote_and_repo
    results = _results(tmp_path / "res", [f.BASE_SHA])
    hashes = _hashfile(tmp_path, [f.HEAD_SHA, f.BASE_SHA])
    assert _append(repo, results, "--measured", str(hashes)) == 1
    captured = capsys.readouterr()
    assert f"no result of the measured commit(s) {f.HEAD_SHA[:12]}" in captured.err
    assert f.BASE_SHA[:12] not in captured.err
    assert any(p.endswith(".json") and f.BASE_SHA[:8] in p for p in branch_files(remote))


def test_append_of_every_measured_commit_exits_0(
    tmp_path: Path, remote_and_repo: tuple[Path, Path]
) -> None:
    _remote, repo = remote_and_repo
    results = _results(tmp_path / "res", [f.BASE_SHA, f.HEAD_SHA])
    hashes = _hashfile(tmp_path, [f.HEAD_SHA[:8], f.BASE_SHA])
    assert _append(repo, results, "--measured", str(hashes)) == 0


def test_a_measured_file_that_is_not_a_hashfile_is_a_clean_error(
    tmp_path: Path, remote_and_repo: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _remote, repo = remote_and_repo
    results = _results(tmp_path / "res", [f.BASE_SHA])
    bad = tmp_path / "bad.txt"
    bad.write_text("main\n")
    assert _append(repo, results, "--measured", str(bad)) == 1
    assert "expected commit hashes" in capsys.readouterr().err
    assert _append(repo, results, "--measured", str(tmp_path / "absent")) == 1
    assert "cannot read" in capsys.readouterr().err


def test_a_truncated_file_on_the_branch_is_quarantined_by_the_next_append(
    tmp_path: Path, remote_and_repo: tuple[Path, Path]
) -> None:
    """Before the fix it stayed on the branch for good (append-only), and every export
    after it handed watch a file it cannot read."""
    remote, repo = remote_and_repo
    assert _append(repo, _results(tmp_path / "r1", [f.BASE_SHA])) == 0
    truncated = f"perf-runner/{f.HEAD_SHA[:8]}-existing-py_3.11.json"
    _plant(tmp_path, remote, {truncated: '{"version": 2, "commit_'})
    before = branch_files(remote)
    assert _append(repo, _results(tmp_path / "r2", [OTHER_SHA])) == 0
    after = branch_files(remote)
    assert truncated not in after
    assert after[f"quarantine/{truncated}"] == before[truncated]  # moved, content unchanged
    why = json.loads(after[f"quarantine/{truncated}.why.json"])
    assert why["path"] == truncated and "truncated" in why["problem"]
    assert all(after[p] == c for p, c in before.items() if p != truncated)
    message = subprocess.run(
        ["git", "-C", str(remote), "log", "-1", "--format=%B", BRANCH],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert f"quarantine: {truncated} -> quarantine/{truncated}" in message
    # exported no more: the export is readable again
    dest = tmp_path / "out"
    argv = ["history", "export", "--repo", str(repo), "--branch", BRANCH, "--dest", str(dest)]
    assert main(argv) == 0
    assert not (dest / truncated).exists() and not (dest / "quarantine").exists()


def test_a_json_file_of_another_shape_is_not_quarantined(
    tmp_path: Path, remote_and_repo: tuple[Path, Path]
) -> None:
    """Only what no tool can read is moved: another asv version may read this one."""
    remote, repo = remote_and_repo
    assert _append(repo, _results(tmp_path / "r1", [f.BASE_SHA])) == 0
    _plant(tmp_path, remote, {"other/machine.json": '{"version": 7}'})
    assert _append(repo, _results(tmp_path / "r2", [OTHER_SHA])) == 0
    assert "other/machine.json" in branch_files(remote)


def test_export_dest_naming_a_file_is_a_clean_error(
    tmp_path: Path, remote_and_repo: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Before the fix: a traceback and exit 3 (history's documented codes are 0/1/2)."""
    _remote, repo = remote_and_repo
    assert _append(repo, _results(tmp_path / "r1", [f.BASE_SHA])) == 0
    dest = tmp_path / "a-file"
    dest.write_text("x")
    argv = ["history", "export", "--repo", str(repo), "--branch", BRANCH, "--dest", str(dest)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"--dest: {dest} is a file; expected a directory" in err
    assert "Traceback" not in err
