"""perfgate init on a throwaway asv project: it finds asv.conf.json in benchmarks/, writes a
policy the gate then reads as proposed and the two workflow callers, and overwrites nothing
without --force."""

from __future__ import annotations

from pathlib import Path

import pytest
from adopt_project import fake_finder, git, make_project

from perfgate import cli
from perfgate.adopt import init as init_module
from perfgate.adopt.init import InitOptions, init
from perfgate.config_files import config_on_disk
from perfgate.errors import UserError

pytestmark = pytest.mark.subprocess  # git


def test_init_writes_the_policy_and_the_workflows(tmp_path: Path) -> None:
    repo = make_project(tmp_path)
    result = init(InitOptions(repo=repo), fake_finder)
    assert [str(p) for p in result.written] == [
        "pyproject.toml",
        ".gitignore",  # /.perfgate/ (issue 38)
        ".github/workflows/perfgate.yml",
        ".github/workflows/perfgate-fork.yml",
    ]
    config = config_on_disk(repo)
    assert config.asv_config == "benchmarks/asv.conf.json" and config.build == "none"
    assert config.blocking == (r"^bench_core\.",)  # memory has no timing benchmark
    assert config.threshold_for("bench_core.Core.time_add") == 0.1  # asv's threshold
    assert config.parity_command == ("{python}", "-m", "pytest", "-x", "-q")
    assert config.instruments == ("wall",)  # no sim family: the wall clock alone
    assert "name = 'p'" in (repo / "pyproject.toml").read_text()
    # make_project's tests/test_pkg.py names no benchmarked module: the full suite
    assert config.quick_parity_command is None


def test_without_pyproject_the_policy_goes_to_perfgate_toml(tmp_path: Path) -> None:
    repo = make_project(tmp_path, pyproject=None)
    init(InitOptions(repo=repo, workflows=False), fake_finder)
    assert not (repo / "pyproject.toml").exists()
    assert config_on_disk(repo).source.endswith("perfgate.toml")
    assert not (repo / ".github").exists()


def test_a_second_init_is_refused_and_force_prints_the_diff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_project(tmp_path)
    monkeypatch.setattr(init_module, "asv_discover_suite", fake_finder)
    assert cli.main(["init", "--repo", str(repo), "--no-measure"]) == 0
    workflow = repo / ".github" / "workflows" / "perfgate.yml"
    workflow.write_text(workflow.read_text() + "# edited by hand\n")
    before = (repo / "pyproject.toml").read_text()
    capsys.readouterr()
    assert cli.main(["init", "--repo", str(repo), "--no-measure"]) == 3
    err = capsys.readouterr().err
    assert "refusing to overwrite pyproject.toml, .github/workflows/perfgate.yml" in err
    assert ".github/workflows/perfgate-fork.yml" in err
    assert (repo / "pyproject.toml").read_text() == before  # nothing written
    assert workflow.read_text().endswith("# edited by hand\n")
    assert cli.main(["init", "--repo", str(repo), "--no-measure", "--force"]) == 0
    out = capsys.readouterr().out
    assert "-# edited by hand" in out and "wrote .github/workflows/perfgate.yml" in out
    assert (repo / "pyproject.toml").read_text() == before  # same proposal, same text


def test_no_asv_configuration_is_an_error_naming_where_it_looked(tmp_path: Path) -> None:
    repo = make_project(tmp_path)
    (repo / "benchmarks" / "asv.conf.json").unlink()
    with pytest.raises(UserError, match=r"no asv configuration \(asv.conf.json.*--asv-config"):
        init(InitOptions(repo=repo), fake_finder)


def test_asv_config_option_and_no_benchmarks(tmp_path: Path) -> None:
    repo = make_project(tmp_path)
    (repo / "benchmarks" / "asv.conf.json").rename(repo / "perf.json")
    with pytest.raises(UserError, match="asv discovered no benchmarks"):
        init(InitOptions(repo=repo, asv_config=Path("perf.json")), lambda *_: {})
    result = init(InitOptions(repo=repo, asv_config=Path("perf.json")), fake_finder)
    assert result.proposal.asv_config == "perf.json"


def test_init_discovers_with_real_asv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """asv's own discovery of HEAD, as the gate will run it (benchmarks/benchmarks)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # private ~/.asv-machine.json
    (tmp_path / "home").mkdir()
    repo = make_project(tmp_path)
    result = init(InitOptions(repo=repo, workflows=False))
    assert [(f.name, f.count) for f in result.proposal.families] == [("bench_core", 1)]


def test_init_exports_a_committed_link_out_of_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A committed ``LICENSE-LINK`` to an absolute path outside the repository: init used to
    die with tarfile's AbsoluteLinkError exporting HEAD for asv's discovery (issue 37, 8)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # private ~/.asv-machine.json
    (tmp_path / "home").mkdir()
    repo = make_project(tmp_path)
    outside = tmp_path / "system-licence.txt"
    outside.write_text("licence\n")
    (repo / "LICENSE-LINK").symlink_to(outside)
    git(repo, "add", "LICENSE-LINK")
    git(repo, "commit", "-qm", "link")
    result = init(InitOptions(repo=repo, workflows=False))
    assert [(f.name, f.count) for f in result.proposal.families] == [("bench_core", 1)]
