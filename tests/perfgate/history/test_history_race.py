"""perfgate.history against a local bare repository: append-only, race-safe, non-invasive."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from history_fakes import git

from perfgate.history.append import Action, append, renamed_path
from perfgate.history.branch import HistoryError
from perfgate.history.export import export
from perfgate.retry import RetryPolicy

pytestmark = pytest.mark.subprocess

FAST = RetryPolicy(attempts=20, base_delay=0.05, max_delay=0.5)
BRANCH = "perf-results"


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    return bare


def make_writer(tmp_path: Path, name: str, remote: Path) -> Path:
    """A checkout with one commit on main and a staged, uncommitted change."""
    repo = tmp_path / name
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "code.py").write_text("x = 1\n")
    git(repo, "add", "code.py")
    git(repo, "commit", "-q", "-m", "c0")
    (repo / "code.py").write_text("x = 2\n")
    git(repo, "add", "code.py")
    git(repo, "remote", "add", "origin", str(remote))
    return repo


def write_results(root: Path, commits: list[str], machine: str = "m1", suite: str = "s1") -> Path:
    """An asv-shaped results dir: benchmarks.json, machine.json, one file per commit."""
    (root / machine).mkdir(parents=True, exist_ok=True)
    (root / "benchmarks.json").write_text(json.dumps({"version": 2, "suite": suite}))
    (root / machine / "machine.json").write_text(json.dumps({"machine": machine, "version": 1}))
    for commit in commits:
        result = {"version": 2, "commit_hash": commit, "results": {"b.time_x": [[1.0]]}}
        (root / machine / f"{commit[:8]}-virtualenv.json").write_text(json.dumps(result))
    return root


def branch_files(remote: Path) -> dict[str, bytes]:
    """Every file on the remote's history branch with its content."""
    listing = git(remote, "ls-tree", "-r", "--name-only", BRANCH).splitlines()
    return {p: git(remote, "show", f"{BRANCH}:{p}").encode() for p in listing}


def expected_files(results: Path) -> dict[str, bytes]:
    return {p.relative_to(results).as_posix(): p.read_bytes() for p in results.rglob("*.json")}


def test_two_processes_racing_both_succeed_and_nothing_is_lost(
    tmp_path: Path, remote: Path
) -> None:
    """Two writers append different result files at the same moment; all of them land."""
    writers = []
    for name, commits in (("a", ["aaaa1111" * 5, "aaaa2222" * 5]), ("b", ["bbbb1111" * 5])):
        repo = make_writer(tmp_path, name, remote)
        writers.append((repo, write_results(tmp_path / f"res-{name}", commits)))
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "perfgate.cli",
                "history",
                "append",
                "--repo",
                str(repo),
                "--results",
                str(results),
                "--remote",
                "origin",
                "--branch",
                BRANCH,
                "--attempts",
                "20",
                "--retry-delay",
                "0.05",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )  # fmt: skip
        for repo, results in writers
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err.decode()
        assert b"pushed" in out or b"nothing new" in out
    stored = branch_files(remote)
    for _, results in writers:
        for path, content in expected_files(results).items():
            assert stored[path] == content  # present and never overwritten
    assert len([p for p in stored if p.startswith("m1/") and "-virtualenv" in p]) == 3
    assert git(remote, "rev-list", "--count", BRANCH) == "2"


def test_a_push_that_loses_the_race_is_retried_on_a_fresh_fetch(
    tmp_path: Path, remote: Path
) -> None:
    """Writer B pushes between A's fetch and A's push; A retries and keeps B's files."""
    repo_a, repo_b = make_writer(tmp_path, "a", remote), make_writer(tmp_path, "b", remote)
    res_a = write_results(tmp_path / "res-a", ["aaaa1111" * 5])
    res_b = write_results(tmp_path / "res-b", ["bbbb1111" * 5])

    def b_sneaks_in(attempt: int) -> None:
        if attempt == 1:
            append(repo_b, res_b, "origin", BRANCH, FAST)

    report = append(repo_a, res_a, "origin", BRANCH, FAST, before_push=b_sneaks_in)
    assert report.attempts == 2
    stored = branch_files(remote)
    assert {**expected_files(res_a), **expected_files(res_b)}.items() <= stored.items()


def test_append_is_idempotent_and_never_overwrites_a_result(tmp_path: Path, remote: Path) -> None:
    """Same files again: no commit. A re-run with other content: stored under a new name."""
    repo = make_writer(tmp_path, "a", remote)
    results = write_results(tmp_path / "res", ["aaaa1111" * 5])
    first = append(repo, results, "origin", BRANCH, FAST)
    assert first.commit is not None
    again = append(repo, results, "origin", BRANCH, FAST)
    assert again.commit is None
    assert {c.action for c in again.changes} == {Action.UNCHANGED}

    rerun = tmp_path / "res" / "m1" / "aaaa1111-virtualenv.json"
    original = rerun.read_bytes()
    rerun.write_text(json.dumps({"version": 2, "commit_hash": "aaaa1111" * 5, "results": {}}))
    report = append(repo, results, "origin", BRANCH, FAST)
    stored = branch_files(remote)
    assert stored["m1/aaaa1111-virtualenv.json"] == original
    renamed = renamed_path("m1/aaaa1111-virtualenv.json", rerun.read_bytes())
    assert stored[renamed] == rerun.read_bytes()
    assert [c.action for c in report.changes if c.action.writes] == [Action.ADD_RENAMED]


def test_planted_hooks_and_global_config_never_run(
    tmp_path: Path, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A runner that also benchmarks pull requests may hold a planted ~/.gitconfig (hooksPath)
    or repository hooks; the push credentials are in the environment, so no hook may run."""
    repo = make_writer(tmp_path, "a", remote)
    witness = tmp_path / "hook-ran"
    hooks = tmp_path / "evil-hooks"
    hooks.mkdir()
    for folder in (hooks, repo / ".git" / "hooks"):
        hook = folder / "pre-push"
        hook.write_text(f"#!/bin/sh\nenv > {witness}\n")
        hook.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[core]\n\thooksPath = {hooks}\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    report = append(
        repo, write_results(tmp_path / "res", ["cccc3333" * 5]), "origin", BRANCH, FAST
    )
    assert report.commit is not None and "m1/cccc3333-virtualenv.json" in branch_files(remote)
    assert not witness.exists()


def test_main_checkout_head_index_and_worktree_are_untouched(tmp_path: Path, remote: Path) -> None:
    """Plumbing only: HEAD, the branch, the index and the worktree stay as they were."""
    repo = make_writer(tmp_path, "a", remote)
    before = (git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain"))
    staged = git(repo, "diff", "--cached")
    append(repo, write_results(tmp_path / "res", ["aaaa1111" * 5]), "origin", BRANCH, FAST)
    assert (git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain")) == before
    assert git(repo, "diff", "--cached") == staged
    assert git(repo, "symbolic-ref", "HEAD") == "refs/heads/main"
    assert git(repo, "for-each-ref", "refs/perfgate") == ""  # private fetch refs removed


def test_export_writes_missing_files_and_never_overwrites(tmp_path: Path, remote: Path) -> None:
    """Export fills an asv results dir from the branch; local files win and are kept."""
    repo = make_writer(tmp_path, "a", remote)
    results = write_results(tmp_path / "res", ["aaaa1111" * 5, "aaaa2222" * 5])
    append(repo, results, "origin", BRANCH, FAST)
    dest = tmp_path / "out"
    (dest / "m1").mkdir(parents=True)
    (dest / "m1" / "machine.json").write_text("local")
    status = export(repo, "origin", BRANCH, dest)
    assert status["m1/machine.json"] == "kept-local"
    assert (dest / "m1" / "machine.json").read_text() == "local"
    assert status["m1/aaaa2222-virtualenv.json"] == "written"
    assert export(repo, "origin", BRANCH, dest)["m1/aaaa2222-virtualenv.json"] == "same"
    assert not list(dest.rglob("*.tmp"))


def test_bad_inputs_fail_closed_with_named_errors(tmp_path: Path, remote: Path) -> None:
    """Missing dir, corrupt JSON, unknown remote: HistoryError naming the culprit."""
    repo = make_writer(tmp_path, "a", remote)
    with pytest.raises(HistoryError, match="not a directory"):
        append(repo, tmp_path / "nope", "origin", BRANCH, FAST)
    results = write_results(tmp_path / "res", ["aaaa1111" * 5])
    (results / "m1" / "broken-virtualenv.json").write_text('{"truncated": ')
    with pytest.raises(HistoryError, match="broken-virtualenv.json"):
        append(repo, results, "origin", BRANCH, FAST)
    (results / "m1" / "broken-virtualenv.json").unlink()
    with pytest.raises(HistoryError, match="ls-remote"):
        append(repo, results, str(tmp_path / "missing.git"), BRANCH, FAST)


def test_cli_exit_codes(tmp_path: Path, remote: Path) -> None:
    """0 on success, 1 on a HistoryError (message on stderr), 2 on usage errors."""
    repo = make_writer(tmp_path, "a", remote)
    results = write_results(tmp_path / "res", ["aaaa1111" * 5])
    base = [sys.executable, "-m", "perfgate.cli", "history"]
    ok = subprocess.run([*base, "append", "--repo", str(repo), "--results", str(results)],
                        capture_output=True, text=True)  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert "add" in ok.stdout and "pushed" in ok.stdout
    (tmp_path / "empty").mkdir()
    empty = str(tmp_path / "empty")
    bad = subprocess.run([*base, "append", "--repo", str(repo), "--results", empty],
                         capture_output=True, text=True)  # fmt: skip
    assert bad.returncode == 1 and "error:" in bad.stderr
    usage = subprocess.run([*base, "frobnicate"], capture_output=True, text=True)
    assert usage.returncode == 2
