"""perfgate.adopt.files: everything written or nothing; what exists is replaced only with
--force, whose diff is returned."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfgate.adopt.files import plan_file, plan_policy, write_planned
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
