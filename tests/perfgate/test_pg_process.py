"""perfgate.process: child processes get no secrets, and none come back in their output."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from perfgate.process import run_process


@pytest.mark.subprocess
def test_child_processes_get_no_secrets_and_their_output_is_redacted(tmp_path: Path) -> None:
    """The parity command and asv run third-party code: no token in their environment, and
    a secret value they print (e.g. read from a file) is starred out of the returned tail."""
    token = "ghp_" + "y" * 36
    env = {"PATH": "/usr/bin:/bin", "GITHUB_TOKEN": token, "MY_API_KEY": "k" * 12, "FLAG": "1"}
    script = "import os; print(sorted(os.environ)); print('leak: " + token + "')"
    outcome = run_process([sys.executable, "-c", script], tmp_path, env, 60.0)
    assert outcome.returncode == 0
    assert "GITHUB_TOKEN" not in outcome.tail and "MY_API_KEY" not in outcome.tail
    assert "FLAG" in outcome.tail and token not in outcome.tail and "leak: ***" in outcome.tail
