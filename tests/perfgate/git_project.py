"""A throwaway git project for the git and parity tests: a package and one passing test."""

from __future__ import annotations

import subprocess
from pathlib import Path


def run_git(repo: Path, *args: str) -> str:
    """Run git with a fixed identity in ``repo``; its stdout."""
    out = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def make_project(tmp_path: Path) -> Path:
    """A repository with ``src/pkg`` (VALUE = 1) and a test of it, committed once."""
    root = tmp_path / "repo"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "__init__.py").write_text("VALUE = 1\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_ok.py").write_text(
        "from pkg import VALUE\n\ndef test_one():\n    assert VALUE == 1\n"
    )
    run_git(root, "init", "-q", "-b", "main")
    run_git(root, "add", ".")
    run_git(root, "commit", "-qm", "one")
    return root
