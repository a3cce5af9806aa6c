"""perfgate.config_files: the gate's policy from pyproject.toml or perfgate.toml, on disk and
at a commit; two policies are refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from git_project import run_git

from perfgate.config_files import config_at_commit, config_on_disk, load_config
from perfgate.errors import ConfigError

PYPROJECT = "[project]\nname = 'x'\n\n[tool.perfgate]\nmin_samples = 4\n"
PERFGATE_TOML = "min_samples = 7\nbuild = 'pip'\n\n[thresholds]\n'^a' = 0.2\n"


def test_perfgate_toml_holds_the_keys_at_its_top_level(tmp_path: Path) -> None:
    (tmp_path / "perfgate.toml").write_text(PERFGATE_TOML)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # no [tool.perfgate]
    config = config_on_disk(tmp_path)
    assert (config.min_samples, config.build) == (7, "pip")
    assert config.threshold_for("ab") == 0.2
    assert config.source == f"{tmp_path}/perfgate.toml"
    assert load_config(tmp_path / "perfgate.toml").min_samples == 7


def test_pyproject_without_perfgate_toml(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    assert config_on_disk(tmp_path).min_samples == 4


def test_two_policies_are_refused(tmp_path: Path) -> None:
    (tmp_path / "perfgate.toml").write_text(PERFGATE_TOML)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    with pytest.raises(ConfigError, match="two gate policies"):
        config_on_disk(tmp_path)


def test_no_configuration(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no perfgate.toml and no pyproject.toml"):
        config_on_disk(tmp_path)
    assert config_on_disk(tmp_path, required=False).min_samples == 6


def test_a_bad_key_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "perfgate.toml").write_text("min_sample = 3\n")
    with pytest.raises(ConfigError, match=r"perfgate.toml: .*min_sample"):
        config_on_disk(tmp_path)


@pytest.mark.subprocess
def test_at_a_commit_the_commit_s_files_count(tmp_path: Path) -> None:
    """The base commit's perfgate.toml is read, not the working tree's, and a commit that
    has neither file is an error."""
    repo = tmp_path / "repo"
    repo.mkdir()
    run_git(repo, "init", "-q", "-b", "main")
    (repo / "README").write_text("x\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "none")
    bare = run_git(repo, "rev-parse", "HEAD")
    (repo / "perfgate.toml").write_text(PERFGATE_TOML)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "policy")
    sha = run_git(repo, "rev-parse", "HEAD")
    (repo / "perfgate.toml").write_text("min_samples = 2\n")  # not committed
    config = config_at_commit(repo, sha)
    assert config.min_samples == 7 and config.source == f"{sha[:12]}:perfgate.toml"
    with pytest.raises(ConfigError, match="no perfgate.toml and no pyproject.toml"):
        config_at_commit(repo, bare)
