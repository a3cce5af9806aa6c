"""perfgate.git on a throwaway repository: revisions, merge base, changed files, exports."""

from __future__ import annotations

import os
import subprocess
import tarfile
from pathlib import Path

import pytest
from git_project import run_git

from perfgate import git, tree_export
from perfgate.errors import RunnerError
from perfgate.git import export_commit

pytestmark = pytest.mark.subprocess


def test_resolve_and_unknown(repo: Path) -> None:
    """HEAD resolves to a 40-hex SHA; a missing revision is a named error."""
    sha = git.resolve(repo, "HEAD")
    assert len(sha) == 40
    with pytest.raises(RunnerError, match="unknown revision 'nope'"):
        git.resolve(repo, "nope")


def test_changed_files_are_named_as_they_are(repo: Path) -> None:
    """Committed, uncommitted and untracked changes under one folder, names unquoted."""
    base = git.resolve(repo, "HEAD")
    (repo / "src" / "pkg" / "b\u00e9nch.py").write_text("")
    (repo / "src" / "pkg" / 'with space "q".py').write_text("")
    run_git(repo, "add", ".")
    run_git(repo, "commit", "-qm", "two")
    (repo / "src" / "pkg" / "__init__.py").write_text("VALUE = 2\n")
    (repo / "src" / "pkg" / "new.py").write_text("")
    (repo / "tests" / "test_two.py").write_text("")
    assert git.changed_files(repo, base, repo / "src") == [
        "src/pkg/__init__.py",
        "src/pkg/b\u00e9nch.py",
        "src/pkg/new.py",
        'src/pkg/with space "q".py',
    ]
    assert git.changed_files(repo, "HEAD", repo / "src" / "pkg") == [
        "src/pkg/__init__.py",
        "src/pkg/new.py",
    ]
    with pytest.raises(RunnerError, match="git diff"):
        git.changed_files(repo, "0" * 40, repo / "src")


def test_merge_base_in_a_shallow_clone_says_so(repo: Path, tmp_path: Path) -> None:
    """A cut-off history is not "no common history": the error says to fetch it."""
    fork = git.resolve(repo, "HEAD")
    run_git(repo, "checkout", "-qb", "feature")
    run_git(repo, "commit", "-q", "--allow-empty", "-m", "feature")
    run_git(repo, "checkout", "-q", "main")
    run_git(repo, "commit", "-q", "--allow-empty", "-m", "main moves on")
    assert git.merge_base(repo, "main", "feature") == fork
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", "--no-single-branch", repo.as_uri(), str(shallow)],
        check=True,
    )
    main, feature = git.resolve(shallow, "origin/main"), git.resolve(shallow, "origin/feature")
    with pytest.raises(RunnerError, match="shallow clone"):
        git.merge_base(shallow, main, feature)


def test_export_is_complete_and_reused(repo: Path, tmp_path: Path) -> None:
    """The export holds the tree, keeps commit mtimes and is reused on the next call."""
    sha = git.resolve(repo, "HEAD")
    first = export_commit(repo, sha, tmp_path / "exports")
    assert (first / "src" / "pkg" / "__init__.py").read_text() == "VALUE = 1\n"
    mtime = (first / "src" / "pkg" / "__init__.py").stat().st_mtime
    again = export_commit(repo, sha, tmp_path / "exports")
    assert again == first
    assert (again / "src" / "pkg" / "__init__.py").stat().st_mtime == mtime
    leftovers = [p for p in (tmp_path / "exports").iterdir() if p.name.startswith(".")]
    assert leftovers == []


def test_half_written_export_is_rebuilt(repo: Path, tmp_path: Path) -> None:
    """A directory without the completion marker (a killed run) is never taken as done."""
    sha = git.resolve(repo, "HEAD")
    broken = tmp_path / "exports" / sha
    broken.mkdir(parents=True)
    (broken / "junk").write_text("x")
    out = export_commit(repo, sha, tmp_path / "exports")
    assert not (out / "junk").exists()
    assert (out / "src" / "pkg" / "__init__.py").exists()


def test_export_keeps_links_out_of_the_tree_as_links(repo: Path, tmp_path: Path) -> None:
    """A committed link to an absolute path outside the repository (and one climbing out of
    it) used to raise tarfile's AbsoluteLinkError: exported as links, never followed (the
    file outside is not copied in, nothing written through them); a link inside stays."""
    outside = tmp_path / "licence.txt"
    outside.write_text("outside\n")
    (repo / "LICENSE-LINK").symlink_to(outside)
    (repo / "src" / "up").symlink_to("../../elsewhere")
    (repo / "src" / "inside").symlink_to("pkg/__init__.py")
    run_git(repo, "add", ".")
    run_git(repo, "commit", "-qm", "links")
    out = export_commit(repo, git.resolve(repo, "HEAD"), tmp_path / "exports")
    assert os.readlink(out / "LICENSE-LINK") == str(outside)
    assert os.readlink(out / "src" / "up") == "../../elsewhere"
    assert (out / "src" / "inside").read_text() == "VALUE = 1\n"
    assert outside.read_text() == "outside\n"
    assert (out / "src" / "pkg" / "__init__.py").read_text() == "VALUE = 1\n"


def test_export_refuses_a_link_under_a_link(tmp_path: Path) -> None:
    """A tree whose link would be made inside another link's folder (no git tree holds
    one; a tampered archive could) is refused by name, nothing made through the link."""
    archive = tmp_path / "t.tar"
    with tarfile.open(archive, "w") as tar:
        for name, target in (("d", str(tmp_path / "away")), ("d/x", "/etc/passwd")):
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
    (tmp_path / "away").mkdir()
    with tarfile.open(archive) as tar, pytest.raises(RunnerError, match="'d/x'"):
        tree_export.extract_tree(tar, tmp_path / "dest")
    assert list((tmp_path / "away").iterdir()) == []


def _git_environment(repo: Path, isolated: bool) -> set[str]:
    """The variable names a git child of `git.Git` sees (through a shell alias)."""
    runner = git.Git(repo, isolated=isolated)
    done = runner.run("-c", "alias.showenv=!env", "showenv")
    assert done.returncode == 0, done.stderr
    return {line.partition("=")[0] for line in done.stdout.decode().splitlines()}


def test_git_children_get_the_allow_list_environment(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git (and what it runs: hooks, aliases, credential helpers) sees no credential of the
    gate; only the history writer's isolated git keeps its push configuration."""
    monkeypatch.setenv("GH_PAT", "github_pat_" + "q" * 30)
    monkeypatch.setenv("GPG_PASSPHRASE", "correct horse battery")
    monkeypatch.setenv("DATABASE_URL", "postgres://app:hunter2hunter2@db/perf")
    monkeypatch.setenv("SSH_AUTH_SOCK", "/tmp/agent.sock")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "http.https://example.invalid/.extraheader")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "AUTHORIZATION: basic c2VjcmV0")
    plain = _git_environment(repo, isolated=False)
    assert not plain & {"GH_PAT", "GPG_PASSPHRASE", "DATABASE_URL", "SSH_AUTH_SOCK"}
    assert not plain & {"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"}
    writer = _git_environment(repo, isolated=True)
    assert not writer & {"GH_PAT", "GPG_PASSPHRASE", "DATABASE_URL"}
    assert {"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"} <= writer


#: Issue 37 item 12: each command died with a FileNotFoundError traceback without git.
WITHOUT_GIT = {
    "init": (["init", "--repo", "{repo}"], 3),
    "gate --plan": (["gate", "--plan", "--repo", "{repo}", "--base", "HEAD", "--head", "HEAD"], 3),
    "watch": (["watch", "--repo", "{repo}", "--results", "{repo}/results", "--no-state"], 3),
    "history pending": (["history", "pending", "--repo", "{repo}", "--machine", "m"], 1),
}


@pytest.mark.parametrize("command", WITHOUT_GIT)
def test_git_missing_from_path_is_a_clean_error(
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
) -> None:
    """Each command names the missing git and exits with its documented error code."""
    from perfgate import cli

    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    argv, expected = WITHOUT_GIT[command]
    code = cli.main([a.format(repo=repo) for a in argv])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
    assert "cannot run git" in err and "needs git on PATH" in err
    assert code == expected


def test_git_runner_raises_a_user_error_without_git(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(git.GitMissingError, match="cannot run git"):
        git.Git(repo).run("status")
