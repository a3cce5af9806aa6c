"""`perfgate history append-acceptance`: an accepted regression recorded on perf-results."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path

import pytest
from history_fakes import git

from perfgate import cli
from perfgate.acceptance import ACCEPT_LABEL, AcceptanceState, acceptance_record, judge

pytestmark = pytest.mark.subprocess

SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"


def _project(tmp_path: Path) -> tuple[Path, Path]:
    bare, repo = tmp_path / "remote.git", tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    git(repo, "remote", "add", "origin", str(bare))
    git(repo, "commit", "-q", "--allow-empty", "-m", "c0")
    return bare, repo


def test_an_acceptance_is_appended_once(tmp_path: Path) -> None:
    bare, repo = _project(tmp_path)
    acceptance = judge("maintainer", "write")
    assert acceptance.state is AcceptanceState.ACCEPTED
    when = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    record = acceptance_record(acceptance, 7, SHA, "regression: x", ACCEPT_LABEL, when)
    path = tmp_path / "acceptance.json"
    path.write_text(json.dumps(record))
    argv = ["history", "append-acceptance", "--repo", str(repo), "--file", str(path)]
    assert cli.main(argv) == 0 and cli.main(argv) == 0
    stored = json.loads(git(bare, "show", f"perf-results:acceptances/7-{SHA}.json"))
    assert stored["accepted_by"] == "maintainer" and stored["label"] == ACCEPT_LABEL
    assert git(bare, "rev-list", "--count", "perf-results") == "1"


def test_a_malformed_record_is_refused(tmp_path: Path) -> None:
    bare, repo = _project(tmp_path)
    path = tmp_path / "acceptance.json"
    path.write_text(json.dumps({"kind": "perfgate-acceptance", "pull_request": 7, "head": "x"}))
    argv = ["history", "append-acceptance", "--repo", str(repo), "--file", str(path)]
    assert cli.main(argv) == 1
    assert git(bare, "branch", "--list") == ""
