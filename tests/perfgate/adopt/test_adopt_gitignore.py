"""perfgate.adopt.gitignore: init puts the work folder into .gitignore (issue 38: 3.9 MB of
run folders were left for `git add -A`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfgate.adopt.gitignore import ignores_work_dir, plan_gitignore


def test_a_new_gitignore_is_planned(tmp_path: Path) -> None:
    planned = plan_gitignore(tmp_path)
    assert planned is not None and planned.old is None and not planned.replaces
    assert planned.text.endswith("/.perfgate/\n")


@pytest.mark.parametrize("old", ["*.pyc", "*.pyc\n", "*.pyc\n\n"])
def test_the_line_is_appended_to_an_existing_one(tmp_path: Path, old: str) -> None:
    (tmp_path / ".gitignore").write_text(old)
    planned = plan_gitignore(tmp_path)
    assert planned is not None and not planned.replaces
    assert planned.text.startswith(old) and planned.text.endswith("\n/.perfgate/\n")
    assert planned.text.count("*.pyc") == 1


@pytest.mark.parametrize("line", [".perfgate", ".perfgate/", "/.perfgate/", "  .perfgate  "])
def test_an_ignored_work_folder_is_left_alone(tmp_path: Path, line: str) -> None:
    (tmp_path / ".gitignore").write_text(f"*.pyc\n{line}\n")
    assert plan_gitignore(tmp_path) is None


def test_comments_and_negations_do_not_count() -> None:
    assert not ignores_work_dir("# .perfgate\n!.perfgate/\n.perfgate-old/\n")
