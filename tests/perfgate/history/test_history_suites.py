"""perfgate.history suites and catch-up, against a local bare repository.

The suite that ``export`` writes out follows the exported history, not the order in which
runs were appended; ``pending`` lists the commits of a machine's gaps.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from history_fakes import git, project_with_commits

from perfgate.history.append import append
from perfgate.history.branch import HistoryError
from perfgate.history.export import export, pending
from perfgate.retry import RetryPolicy

pytestmark = pytest.mark.subprocess

FAST = RetryPolicy(attempts=5, base_delay=0.01, max_delay=0.1)
BRANCH = "perf-results"


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, list[str]]:
    """A checkout of main with four commits (oldest first) and a bare ``origin``."""
    return project_with_commits(tmp_path, 4)


def run_dir(root: Path, commits: list[str], suite: str, machine: str = "m1") -> Path:
    """An asv results dir of one run: its suite, its machine, one result per commit."""
    (root / machine).mkdir(parents=True)
    (root / "benchmarks.json").write_text(json.dumps({"version": 2, "suite": suite}))
    (root / machine / "machine.json").write_text(json.dumps({"machine": machine}))
    for commit in commits:
        result = {"version": 2, "commit_hash": commit, "results": {}}
        (root / machine / f"{commit[:8]}-virtualenv.json").write_text(json.dumps(result))
    return root


def stored(repo: Path, path: str) -> dict[str, str]:
    return json.loads(git(repo, "show", f"origin/{BRANCH}:{path}"))


def test_export_publishes_the_newest_suite_whatever_the_append_order(
    tmp_path: Path, project: tuple[Path, list[str]]
) -> None:
    """The tip's run lands first, a slow machine's run of an older commit last: the
    dashboard still gets the tip's suite (asv hides results missing from benchmarks.json)."""
    repo, c = project
    append(repo, run_dir(tmp_path / "new", [c[3]], "s3"), "origin", BRANCH, FAST, suite_ref=c[3])
    old = run_dir(tmp_path / "old", [c[1]], "s1", machine="m2")
    append(repo, old, "origin", BRANCH, FAST, suite_ref=c[1])
    git(repo, "fetch", "-q", "origin", BRANCH)
    assert stored(repo, "benchmarks.json")["suite"] == "s1"  # the last append's, as before
    assert stored(repo, f"suites/{c[3]}.json")["suite"] == "s3"
    assert stored(repo, f"suites/{c[1]}.json")["suite"] == "s1"

    status = export(repo, "origin", BRANCH, tmp_path / "out")
    assert json.loads((tmp_path / "out" / "benchmarks.json").read_text())["suite"] == "s3"
    assert status["benchmarks.json"] == "written"
    assert not (tmp_path / "out" / "suites").exists()
    assert {"m1/machine.json", "m2/machine.json", f"m2/{c[1][:8]}-virtualenv.json"} <= set(status)

    export(repo, "origin", BRANCH, tmp_path / "then", ref=c[2])  # the history as of c2
    assert json.loads((tmp_path / "then" / "benchmarks.json").read_text())["suite"] == "s1"


def test_append_names_the_suite_after_head_by_default(
    tmp_path: Path, project: tuple[Path, list[str]]
) -> None:
    repo, c = project
    report = append(repo, run_dir(tmp_path / "r", [c[3], c[2]], "s"), "origin", BRANCH, FAST)
    assert f"suites/{c[3]}.json" in {ch.target for ch in report.changes}
    again = append(repo, tmp_path / "r", "origin", BRANCH, FAST)
    assert again.commit is None  # the suite copy is a no-op the second time too


def test_bad_refs_are_named(tmp_path: Path, project: tuple[Path, list[str]]) -> None:
    repo, c = project
    results = run_dir(tmp_path / "r", [c[3]], "s")
    with pytest.raises(HistoryError, match="--suite-ref"):
        append(repo, results, "origin", BRANCH, FAST, suite_ref="no-such-branch")
    append(repo, results, "origin", BRANCH, FAST)
    with pytest.raises(HistoryError, match="--ref"):
        export(repo, "origin", BRANCH, tmp_path / "out", ref="-x")
    with pytest.raises(HistoryError, match="--ref"):
        pending(repo, "origin", BRANCH, "m1", ref="no-such-branch")
    with pytest.raises(ValueError, match="--machine"):
        pending(repo, "origin", BRANCH, "../m1")


def test_pending_lists_a_machines_gaps_newest_first(
    tmp_path: Path, project: tuple[Path, list[str]]
) -> None:
    """A run for c3 when m1 measured c1: c3 and c2. m2 never ran: the last max_commits."""
    repo, c = project
    assert pending(repo, "origin", BRANCH, "m1", max_commits=10) == c[::-1]  # no branch yet
    append(repo, run_dir(tmp_path / "r", [c[1]], "s"), "origin", BRANCH, FAST, suite_ref=c[1])
    assert pending(repo, "origin", BRANCH, "m1", max_commits=10) == [c[3], c[2]]
    assert pending(repo, "origin", BRANCH, "m1", max_commits=1) == [c[3]]
    assert pending(repo, "origin", BRANCH, "m2", max_commits=2) == [c[3], c[2]]
    assert pending(repo, "origin", BRANCH, "m1", ref=c[2], max_commits=10) == [c[2]]


def test_pending_cli_prints_one_commit_per_line(project: tuple[Path, list[str]]) -> None:
    repo, c = project
    base = [sys.executable, "-m", "perfgate.cli", "history", "pending", "--repo", str(repo)]
    done = subprocess.run([*base, "--machine", "m1", "--max-commits", "2"],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [c[3], c[2]]
    for bad in (["--machine", "m1", "--max-commits", "0"], ["--max-commits", "2"]):
        usage = subprocess.run([*base, *bad], capture_output=True, text=True)
        assert usage.returncode == 2


def test_a_second_export_replaces_the_first_exports_suite_but_keeps_a_local_runs(
    tmp_path: Path, project: tuple[Path, list[str]]
) -> None:
    """`make dashboard` exports into the same folder every time: the suite an earlier export
    wrote gives way to the newer history's; one written by a local asv run is kept."""
    repo, c = project
    append(repo, run_dir(tmp_path / "old", [c[1]], "s1"), "origin", BRANCH, FAST, suite_ref=c[1])
    dest = tmp_path / "out"
    export(repo, "origin", BRANCH, dest)
    append(repo, run_dir(tmp_path / "new", [c[3]], "s3"), "origin", BRANCH, FAST, suite_ref=c[3])
    assert export(repo, "origin", BRANCH, dest)["benchmarks.json"] == "replaced"
    assert json.loads((dest / "benchmarks.json").read_text())["suite"] == "s3"
    assert not list(dest.rglob("*.tmp"))

    (dest / "benchmarks.json").write_text(json.dumps({"version": 2, "suite": "local run"}))
    assert export(repo, "origin", BRANCH, dest)["benchmarks.json"] == "kept-local"
    assert json.loads((dest / "benchmarks.json").read_text())["suite"] == "local run"
