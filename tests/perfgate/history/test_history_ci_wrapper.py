"""ci/append-results.sh hands its settings to ``python -m perfgate.history append``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parents[3]


def test_wrapper_appends_to_the_configured_remote_and_branch(tmp_path: Path) -> None:
    """RESULTS_DIR / HISTORY_REMOTE / HISTORY_BRANCH reach the CLI; extra args pass through."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }  # fmt: skip
    bare, writer = tmp_path / "remote.git", tmp_path / "writer"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    subprocess.run(["git", "init", "-q", str(writer)], check=True)
    results = tmp_path / "results" / "m1"
    results.mkdir(parents=True)
    (results / "machine.json").write_text('{"machine": "m1", "version": 1}')
    (results / "abcd1234-virtualenv.json").write_text('{"version": 2}')
    done = subprocess.run(
        [str(REPO / "ci/append-results.sh"), "--repo", str(writer)],
        env={**env, "PYTHON": sys.executable, "RESULTS_DIR": str(tmp_path / "results"),
             "HISTORY_REMOTE": str(bare), "HISTORY_BRANCH": "perf-history-test"},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    listing = subprocess.run(
        ["git", "-C", str(bare), "ls-tree", "-r", "--name-only", "perf-history-test"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert listing == ["m1/abcd1234-virtualenv.json", "m1/machine.json"]
