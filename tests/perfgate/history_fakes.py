"""Helpers of the history tests that run git against throwaway repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> str:
    """``git -C repo args`` (checked); its stdout, stripped."""
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True)
    return done.stdout.decode().strip()


def project_with_commits(tmp_path: Path, count: int) -> tuple[Path, list[str]]:
    """A checkout of main with ``count`` commits (oldest first) and a bare ``origin``."""
    bare, repo = tmp_path / "remote.git", tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    git(repo, "remote", "add", "origin", str(bare))
    commits = []
    for k in range(count):
        (repo / "code.py").write_text(f"x = {k}\n")
        git(repo, "add", "code.py")
        git(repo, "commit", "-q", "-m", f"c{k}")
        commits.append(git(repo, "rev-parse", "HEAD"))
    return repo, commits
