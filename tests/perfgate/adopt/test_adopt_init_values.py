"""perfgate.adopt.init_values: every value init writes is checked before anything is written
(issue 37 items 9, 10, 11)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from adopt_project import fake_finder, make_project

from perfgate import cli
from perfgate.adopt import init as init_module
from perfgate.adopt.init import InitOptions, init
from perfgate.adopt.workflows import WORKFLOW_FILES, WorkflowOptions, render
from perfgate.config_files import config_on_disk
from perfgate.errors import UserError

pytestmark = pytest.mark.subprocess  # git

INJECTED = "v1\n    secrets: inherit"


def _init_cli(repo: Path, *extra: str) -> int:
    return cli.main(["init", "--repo", str(repo), *extra])


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(init_module, "asv_discover_suite", fake_finder)
    return make_project(tmp_path)


def _listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.parts)


@pytest.mark.parametrize(
    ("option", "value", "named"),
    [
        ("--workflow-ref", INJECTED, "--workflow-ref"),
        ("--workflow-ref", "v1 # x", "--workflow-ref"),
        ("--workflow-ref", "../../main", "--workflow-ref"),
        ("--runner-labels", '["self-hosted", "x\'y"]', "--runner-labels"),
        ("--runner-labels", '["a\\n    secrets: inherit"]', "--runner-labels"),
        ("--perfgate", "perfgate\n    secrets: inherit", "--perfgate"),
    ],
)
def test_a_value_that_would_change_the_workflow_is_refused(
    repo: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, named: str
) -> None:
    """Issue 37 item 9: ``--workflow-ref $'v1\\n    secrets: inherit'`` gave the generated
    workflow ``secrets: inherit``. Refused (exit 3), the option named, nothing written."""
    before = _listing(repo)
    assert _init_cli(repo, option, value) == 3
    err = capsys.readouterr().err
    assert f"perfgate: error: {named}: expected" in err and "Traceback" not in err
    assert _listing(repo) == before


def test_good_values_render_line_for_line() -> None:
    options = WorkflowOptions("0123456789abcdef0123456789abcdef01234567", "perfgate==0.2")
    for name in WORKFLOW_FILES:
        text = render(name, options)
        assert "secrets:" not in text
        assert "uses: perfgate/perfgate/.github/workflows/gate.yml@0123456789abcdef" in text


def test_an_asv_config_outside_the_repository_is_refused_up_front(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 37 item 11: ``--asv-config ../other/asv.conf.json`` stored a policy its own
    loader rejects ("expected a file inside the repository")."""
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(repo / "benchmarks" / "asv.conf.json", other / "asv.conf.json")
    before = _listing(repo)
    for named in ("../other/asv.conf.json", str(other / "asv.conf.json")):
        assert _init_cli(repo, "--asv-config", named) == 3
        err = capsys.readouterr().err
        assert f"--asv-config {named}: expected a file inside the repository" in err
    link = repo / "linked.json"
    link.symlink_to(other / "asv.conf.json")
    with pytest.raises(UserError, match="--asv-config linked.json: expected a file inside"):
        init(InitOptions(repo=repo, asv_config=Path("linked.json")), fake_finder)
    link.unlink()
    assert _listing(repo) == before


def test_an_asv_config_with_dots_inside_the_repository_is_stored_normalised(repo: Path) -> None:
    """``benchmarks/../benchmarks/asv.conf.json`` is inside: stored without the ``..``,
    which the loader would refuse."""
    named = Path("benchmarks/../benchmarks/asv.conf.json")
    init(InitOptions(repo=repo, asv_config=named, workflows=False), fake_finder)
    assert config_on_disk(repo).asv_config == "benchmarks/asv.conf.json"
    absolute = repo / "benchmarks" / "asv.conf.json"
    assert init_module.init_values.asv_config_inside(repo, absolute) == Path(
        "benchmarks/asv.conf.json"
    )


def test_init_into_an_immutable_github_folder_is_a_clean_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 37 items 10 and 12: with ``.github`` immutable, init modified pyproject.toml,
    wrote no workflow and exited 3 with a traceback."""
    if shutil.which("chattr") is None or os.geteuid() != 0:
        pytest.skip("chattr +i needs the chattr tool and root")
    (repo / ".github").mkdir()
    before_text = (repo / "pyproject.toml").read_text()
    before = _listing(repo)
    subprocess.run(["chattr", "+i", str(repo / ".github")], check=True)
    try:
        code = _init_cli(repo)
    finally:
        subprocess.run(["chattr", "-i", str(repo / ".github")], check=True)
    err = capsys.readouterr().err
    assert code == 3 and "Traceback" not in err
    assert "cannot write .github/workflows/perfgate.yml" in err and "nothing was written" in err
    assert (repo / "pyproject.toml").read_text() == before_text and _listing(repo) == before


def test_a_rendered_workflow_with_more_lines_than_its_template_is_refused() -> None:
    """The last guard: whatever a value holds, it cannot add a line to the workflow."""
    from perfgate.adopt.init_values import same_lines

    template = "uses: @USES@\nwith: {}\n"
    assert same_lines("x.yml", template, "uses: a@v1\nwith: {}\n") == "uses: a@v1\nwith: {}\n"
    with pytest.raises(UserError, match="x.yml: a value would add lines"):
        same_lines("x.yml", template, "uses: a@v1\n    secrets: inherit\nwith: {}\n")
