"""End to end: the real gate on this repository, posted twice to the fake GitHub API.

``perfgate gate --base HEAD~1 --head HEAD --quick --post --pr 1`` runs asv, decides and posts;
run twice it must leave exactly one sticky comment (edited once) and two statuses. It takes
minutes (real asv rounds), so it is ``slow``: ``make test-slow``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from gh_env import TOKEN, actions_env
from gh_fake_api import FakeServer

from perfgate.formats.report_files import MARKER

pytestmark = [pytest.mark.network, pytest.mark.subprocess]

REPO_ROOT = Path(__file__).resolve().parents[3]


def _gate(server: FakeServer, report_dir: Path) -> subprocess.CompletedProcess[str]:
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    env = {**os.environ, **actions_env(server, GITHUB_SHA=head)}
    argv = [sys.executable, "-m", "perfgate.cli", "gate", "--base", "HEAD~1", "--head", "HEAD"]
    argv += ["--quick", "--post", "--pr", "1", "--report-dir", str(report_dir)]
    return subprocess.run(argv, cwd=REPO_ROOT, env=env, capture_output=True, text=True)


@pytest.mark.slow
def test_gate_posts_one_sticky_comment_and_two_statuses(
    server: FakeServer, tmp_path: Path
) -> None:
    """Two gate runs: one comment (created, then edited), one status per run, no token leak."""
    first = _gate(server, tmp_path / "r1")
    second = _gate(server, tmp_path / "r2")
    for run in (first, second):
        assert run.returncode in (0, 1), run.stdout[-3000:] + run.stderr[-3000:]
        assert TOKEN not in run.stdout + run.stderr
    (comment,) = server.fake.comments.values()
    assert comment["edits"] == 1
    assert comment["body"].startswith(MARKER)
    assert len(server.fake.statuses) == 2
    assert {s["context"] for s in server.fake.statuses} == {"perfgate"}
    print(comment["body"])
