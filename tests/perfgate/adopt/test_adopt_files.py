"""perfgate.adopt.files: everything written or nothing; what exists is replaced only with
--force, whose diff is returned."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from perfgate.adopt.files import Planned, plan_file, plan_policy, write_planned
from perfgate.errors import UserError

IN_PYPROJECT = "[tool.perfgate]\nmin_samples = 4\n"
OWN = "min_samples = 4\n"


def test_new_project_gets_perfgate_toml(tmp_path: Path) -> None:
    plan = plan_policy(tmp_path, IN_PYPROJECT, OWN)
    assert plan.path == tmp_path / "perfgate.toml" and not plan.replaces
    assert write_planned(tmp_path, [plan], force=False) == []
    assert (tmp_path / "perfgate.toml").read_text() == OWN


def test_pyproject_without_policy_gets_it_appended(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    plan = plan_policy(tmp_path, IN_PYPROJECT, OWN)
    assert plan.path.name == "pyproject.toml" and not plan.replaces
    write_planned(tmp_path, [plan], force=False)
    assert (tmp_path / "pyproject.toml").read_text() == "[project]\nname = 'x'\n\n" + IN_PYPROJECT


def test_existing_files_are_refused_and_nothing_is_written(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.perfgate]\nmin_samples = 9\n")
    workflow = tmp_path / ".github" / "workflows" / "perfgate.yml"
    plans = [plan_policy(tmp_path, IN_PYPROJECT, OWN), plan_file(workflow, "new: 1\n")]
    with pytest.raises(
        UserError, match=r"refusing to overwrite pyproject.toml \(already there\); --force"
    ):
        write_planned(tmp_path, plans, force=False)
    assert not workflow.exists()
    assert (tmp_path / "pyproject.toml").read_text() == "[tool.perfgate]\nmin_samples = 9\n"
    diffs = write_planned(tmp_path, plans, force=True)
    assert (tmp_path / "pyproject.toml").read_text() == IN_PYPROJECT
    (diff,) = diffs
    assert "-min_samples = 9\n+min_samples = 4\n" in diff and "a/pyproject.toml" in diff
    assert workflow.read_text() == "new: 1\n"


PROJECT = "[project]\nname = 'x'\n"


def _project_and_plans(root: Path) -> list[Planned]:
    (root / "pyproject.toml").write_text(PROJECT)
    (root / "pyproject.toml").chmod(0o644)
    workflows = root / ".github" / "workflows"
    return [
        plan_policy(root, IN_PYPROJECT, OWN),
        plan_file(workflows / "perfgate.yml", "a: 1\n"),
        plan_file(workflows / "perfgate-fork.yml", "b: 1\n"),
    ]


def _listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@contextmanager
def _immutable(path: Path) -> Iterator[None]:
    """``path`` with the immutable attribute (chattr +i: not even root may change it)."""
    if shutil.which("chattr") is None or os.geteuid() != 0:
        pytest.skip("chattr +i needs the chattr tool and root")
    subprocess.run(["chattr", "+i", str(path)], check=True)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def _assert_untouched(root: Path, before: list[str]) -> None:
    assert (root / "pyproject.toml").read_text() == PROJECT
    assert stat.S_IMODE((root / "pyproject.toml").stat().st_mode) == 0o644
    assert _listing(root) == before  # no temporary file, no folder left behind


@pytest.mark.subprocess  # chattr
def test_a_github_folder_that_cannot_take_files_writes_nothing(tmp_path: Path) -> None:
    """Issue 37 item 10: with .github immutable, init modified pyproject.toml, wrote no
    workflow and died with a traceback. Everything or nothing, and an error naming the file."""
    plans = _project_and_plans(tmp_path)
    (tmp_path / ".github").mkdir()
    before = _listing(tmp_path)
    with _immutable(tmp_path / ".github"):
        with pytest.raises(UserError, match=r"cannot write \.github/workflows/perfgate\.yml"):
            write_planned(tmp_path, plans, force=False)
    _assert_untouched(tmp_path, before)


def test_a_github_file_in_the_way_writes_nothing(tmp_path: Path) -> None:
    """The same without privileges: ``.github`` is a file, so its folder cannot be made."""
    plans = _project_and_plans(tmp_path)
    (tmp_path / ".github").write_text("not a folder\n")
    before = _listing(tmp_path)
    with pytest.raises(UserError, match=r"cannot write \.github/workflows/perfgate\.yml"):
        write_planned(tmp_path, plans, force=False)
    _assert_untouched(tmp_path, before)


@pytest.mark.subprocess  # chattr
def test_an_immutable_pyproject_puts_the_written_workflows_back(tmp_path: Path) -> None:
    """Issue 37 item 12: init into an immutable file died with a traceback. The workflows,
    placed first, are removed again, and so is the folder init made for them."""
    plans = _project_and_plans(tmp_path)
    plans = [*plans[1:], plans[0]]  # the policy last: the workflows are in place when it fails
    before = _listing(tmp_path)
    with _immutable(tmp_path / "pyproject.toml"):
        with pytest.raises(UserError, match=r"cannot write pyproject\.toml \(.*\); nothing"):
            write_planned(tmp_path, plans, force=False)
    _assert_untouched(tmp_path, before)


def test_a_replaced_pyproject_keeps_its_mode(tmp_path: Path) -> None:
    """Issue 37 item 14: init turned an existing 0644 pyproject.toml into 0600."""
    plans = _project_and_plans(tmp_path)
    old = os.umask(0o022)
    try:
        write_planned(tmp_path, plans, force=False)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "pyproject.toml").stat().st_mode) == 0o644
    workflow = tmp_path / ".github" / "workflows" / "perfgate.yml"
    assert stat.S_IMODE(workflow.stat().st_mode) == 0o644
