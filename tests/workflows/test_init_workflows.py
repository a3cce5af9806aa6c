"""The workflow files `perfgate init` writes pass actionlint and zizmor when pinned to a
commit of perfgate (the tag default is reported by zizmor as unpinned-uses, and init says
to pin a SHA)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_workflow_lint import actionlint, zizmor

from perfgate.adopt.workflows import WORKFLOW_FILES, WorkflowOptions, render

PINNED = WorkflowOptions(ref="0123456789abcdef0123456789abcdef01234567")


def _repo(root: Path, options: WorkflowOptions) -> Path:
    folder = root / ".github" / "workflows"
    folder.mkdir(parents=True)
    for name in WORKFLOW_FILES:
        (folder / name).write_text(render(name, options))
    return root


@pytest.mark.subprocess
@pytest.mark.network
def test_generated_workflows_pass_actionlint(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "pinned", PINNED)
    assert actionlint([repo], tmp_path)[repo] == []


@pytest.mark.subprocess
def test_generated_workflows_pass_zizmor_when_pinned(tmp_path: Path) -> None:
    code, output = zizmor(_repo(tmp_path / "pinned", PINNED))
    assert code == 0 and "No findings to report" in output, output
    code, output = zizmor(_repo(tmp_path / "tag", WorkflowOptions(ref="v0.2.0")))
    assert code != 0 and "unpinned-uses" in output
