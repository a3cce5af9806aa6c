"""perfgate.process: child processes get no secrets, and none come back in their output."""

from __future__ import annotations

import ast
import sys
import time
from pathlib import Path

import pytest

from perfgate.process import run_process

pytestmark = pytest.mark.subprocess

TAIL_CHARS = 8000  # what run_process keeps of the output


def test_child_processes_get_no_secrets_and_their_output_is_redacted(tmp_path: Path) -> None:
    """The parity command and asv run third-party code: no token in their environment, and
    a secret value they print (e.g. read from a file) is starred out of the returned tail."""
    token = "ghp_" + "y" * 36
    env = {
        "PATH": "/usr/bin:/bin",
        "GITHUB_TOKEN": token,
        "MY_API_KEY": "k" * 12,
        "PERFGATE_FLAG": "1",
    }
    script = "import os; print(sorted(os.environ)); print('leak: " + token + "')"
    outcome = run_process([sys.executable, "-c", script], tmp_path, env, 60.0)
    assert outcome.returncode == 0
    assert "GITHUB_TOKEN" not in outcome.tail and "MY_API_KEY" not in outcome.tail
    assert (
        "PERFGATE_FLAG" in outcome.tail
        and token not in outcome.tail
        and "leak: ***" in outcome.tail
    )


def test_children_get_an_allow_list_environment(tmp_path: Path) -> None:
    """Credentials a runner may hold (a PAT, a gpg passphrase, the ssh agent, a database URL
    with a password, cloud keys) never reach a child; the threading settings do."""
    env = {
        "PATH": "/usr/bin:/bin",
        "GH_PAT": "github_pat_" + "p" * 30,
        "GPG_PASSPHRASE": "correct horse battery",
        "SSH_AUTH_SOCK": "/tmp/ssh-agent.sock",
        "DATABASE_URL": "postgres://app:hunter2hunter2@db.internal/perf",
        "AWS_REGION": "eu-west-1",
        "RANDOM_SETTING": "x",
        "NUMBA_THREADING_LAYER": "omp",
        "OMP_NUM_THREADS": "2",
        "LC_ALL": "C.UTF-8",
    }
    script = "import os; print(sorted(os.environ))"
    outcome = run_process([sys.executable, "-c", script], tmp_path, env, 60.0)
    assert outcome.returncode == 0, outcome.tail
    names = set(ast.literal_eval(outcome.tail.strip().splitlines()[-1]))
    for name in ("GH_PAT", "GPG_PASSPHRASE", "SSH_AUTH_SOCK", "DATABASE_URL", "AWS_REGION"):
        assert name not in names
    assert "RANDOM_SETTING" not in names
    assert {"PATH", "NUMBA_THREADING_LAYER", "OMP_NUM_THREADS", "LC_ALL"} <= names


def test_output_is_redacted_before_the_tail_is_cut(tmp_path: Path) -> None:
    """A secret straddling the cut of the output tail leaves no suffix behind."""
    token = "ghp_" + "SUFFIXSECRET" * 3
    filler = TAIL_CHARS - 20
    script = f"import sys; sys.stdout.write({token!r} + 'x' * {filler})"
    env = {"PATH": "/usr/bin:/bin", "GITHUB_TOKEN": token}
    outcome = run_process([sys.executable, "-c", script], tmp_path, env, 60.0)
    assert "SECRET" not in outcome.tail and len(outcome.tail) <= TAIL_CHARS


def test_a_watcher_sees_the_output_while_the_child_runs(tmp_path: Path) -> None:
    """``watch`` gets the output before the child ends (progress lines), redacted."""
    import perfgate.process as process

    script = "import time\nprint('..', flush=True)\ntime.sleep(1.0)\nprint('s3cr3t-value!')"
    seen: list[tuple[float, str]] = []
    old = process.WATCH_EVERY_S
    process.WATCH_EVERY_S = 0.2
    try:
        start = time.monotonic()
        out = run_process(
            [sys.executable, "-c", script], tmp_path, {"API_TOKEN": "s3cr3t-value!"}, 30.0,
            watch=lambda text: seen.append((time.monotonic() - start, text)),
        )  # fmt: skip
    finally:
        process.WATCH_EVERY_S = old
    assert out.returncode == 0
    text = "".join(t for _, t in seen)
    assert text.startswith("..\n") and "s3cr3t" not in text
    assert any(at < 0.9 and t.startswith("..") for at, t in seen)  # before the child ended
