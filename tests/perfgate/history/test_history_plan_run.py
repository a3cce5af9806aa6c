"""`perfgate history plan`: the commits `pending` lists, planned from the durations the
machine stored on perf-results (against a local bare repository)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from history_fakes import project_with_commits

from perfgate.history.append import append
from perfgate.history.export import plan_run
from perfgate.retry import RetryPolicy

pytestmark = pytest.mark.subprocess

FAST = RetryPolicy(attempts=5, base_delay=0.01, max_delay=0.1)
BRANCH = "perf-results"
HOUR = 3600.0


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, list[str]]:
    """A checkout of main with three commits (oldest first) and a bare ``origin``."""
    return project_with_commits(tmp_path, 3)


def _store(repo: Path, root: Path, commit: str, durations: dict[str, float]) -> None:
    """Append one result file of machine m1 for ``commit`` with ``durations``."""
    (root / "m1").mkdir(parents=True)
    (root / "benchmarks.json").write_text(json.dumps({"version": 2}))
    (root / "m1" / "machine.json").write_text(json.dumps({"machine": "m1"}))
    result = {"version": 2, "commit_hash": commit, "results": {}, "durations": durations}
    (root / "m1" / f"{commit[:8]}-virtualenv.json").write_text(json.dumps(result))
    append(repo, root, "origin", BRANCH, FAST, suite_ref=commit)


def test_planned_from_the_newest_stored_durations(
    tmp_path: Path, project: tuple[Path, list[str]]
) -> None:
    repo, c = project
    assert plan_run(repo, "origin", BRANCH, "m1", "HEAD", 3, 4 * HOUR).expected_s is None
    hot = {"<build>": 60.0, "hot_slice.S.time_a": 3000.0, "collector.S.time_b": 1200.0}
    _store(repo, tmp_path / "r0", c[0], hot)
    plan = plan_run(repo, "origin", BRANCH, "m1", "HEAD", 3, 2 * HOUR)
    assert plan.commits == (c[2], c[1])  # c0 is measured: the gap stops there
    assert "durations of " + c[0][:12] in plan.basis
    assert plan.expected_s == pytest.approx(2 * (60 + 3000 + 1200 + 10))
    assert plan.fits is True and len(plan.shards) == 2  # 71 minutes a commit, 90 usable


def test_the_cli_prints_a_matrix(tmp_path: Path, project: tuple[Path, list[str]]) -> None:
    repo, c = project
    _store(repo, tmp_path / "r0", c[0], {"<build>": 60.0, "hot_slice.S.time_a": 600.0})
    argv = [sys.executable, "-m", "perfgate.cli", "history", "plan", "--repo", str(repo)]
    argv += ["--machine", "m1", "--machine", "m2", "--max-commits", "3"]
    done = subprocess.run(
        [*argv, "--timeout-minutes", "240", "--matrix"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    matrix = json.loads(done.stdout)
    assert [(e["machine"], e["shard"], e["hashes"]) for e in matrix["include"]] == [
        ("m1", "1/1", f"{c[2]} {c[1]}"),
        ("m2", "1/3", c[2]),  # never measured, no costs: one commit per runner
        ("m2", "2/3", c[1]),
        ("m2", "3/3", c[0]),
    ]
    bad = subprocess.run([*argv, "--timeout-minutes", "0"], capture_output=True, text=True)
    assert bad.returncode == 2
