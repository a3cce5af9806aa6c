"""The runner's git, export, asv command and parity edges, on a throwaway repository."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from perfgate.runner import (
    AsvInvocation,
    RunnerError,
    asv_command,
    asv_environment,
    export_commit,
    git_changed_files,
    git_merge_base,
    git_resolve,
    parse_failing_tests,
    run_parity,
    run_process,
    write_round_config,
)

pytestmark = pytest.mark.subprocess


def _git(repo: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "__init__.py").write_text("VALUE = 1\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_ok.py").write_text(
        "from pkg import VALUE\n\ndef test_one():\n    assert VALUE == 1\n"
    )
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "one")
    return root


def test_resolve_and_unknown(repo: Path) -> None:
    """HEAD resolves to a 40-hex SHA; a missing revision is a named error."""
    sha = git_resolve(repo, "HEAD")
    assert len(sha) == 40
    with pytest.raises(RunnerError, match="unknown revision 'nope'"):
        git_resolve(repo, "nope")


def test_changed_files_are_named_as_they_are(repo: Path) -> None:
    """Committed, uncommitted and untracked changes under one folder, names unquoted."""
    base = git_resolve(repo, "HEAD")
    (repo / "src" / "pkg" / "b\u00e9nch.py").write_text("")
    (repo / "src" / "pkg" / 'with space "q".py').write_text("")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "two")
    (repo / "src" / "pkg" / "__init__.py").write_text("VALUE = 2\n")
    (repo / "src" / "pkg" / "new.py").write_text("")
    (repo / "tests" / "test_two.py").write_text("")
    assert git_changed_files(repo, base, repo / "src") == [
        "src/pkg/__init__.py",
        "src/pkg/b\u00e9nch.py",
        "src/pkg/new.py",
        'src/pkg/with space "q".py',
    ]
    assert git_changed_files(repo, "HEAD", repo / "src" / "pkg") == [
        "src/pkg/__init__.py",
        "src/pkg/new.py",
    ]
    with pytest.raises(RunnerError, match="git diff"):
        git_changed_files(repo, "0" * 40, repo / "src")


def test_merge_base_in_a_shallow_clone_says_so(repo: Path, tmp_path: Path) -> None:
    """A cut-off history is not "no common history": the error says to fetch it."""
    fork = git_resolve(repo, "HEAD")
    _git(repo, "checkout", "-qb", "feature")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "feature")
    _git(repo, "checkout", "-q", "main")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "main moves on")
    assert git_merge_base(repo, "main", "feature") == fork
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", "--no-single-branch", repo.as_uri(), str(shallow)],
        check=True,
    )
    main, feature = git_resolve(shallow, "origin/main"), git_resolve(shallow, "origin/feature")
    with pytest.raises(RunnerError, match="shallow clone"):
        git_merge_base(shallow, main, feature)


def test_export_is_complete_and_reused(repo: Path, tmp_path: Path) -> None:
    """The export holds the tree, keeps commit mtimes and is reused on the next call."""
    sha = git_resolve(repo, "HEAD")
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
    sha = git_resolve(repo, "HEAD")
    broken = tmp_path / "exports" / sha
    broken.mkdir(parents=True)
    (broken / "junk").write_text("x")
    out = export_commit(repo, sha, tmp_path / "exports")
    assert not (out / "junk").exists()
    assert (out / "src" / "pkg" / "__init__.py").exists()


def test_asv_command_and_env(tmp_path: Path) -> None:
    """The asv command pins the prefix first, records samples and sets the commit hash."""
    inv = AsvInvocation(
        config=tmp_path / "asv.conf.json",
        sha="a" * 40,
        source=tmp_path / "src-export",
        machine="m1",
        bench=("time_hot",),
        attributes={"repeat": "5"},
        prefix=("taskset", "-c", "1"),
        env={"NUMBA_NUM_THREADS": "2"},
    )
    cmd = asv_command(inv)
    assert cmd[:3] == ["taskset", "-c", "1"]
    for token in ("--python=same", "--record-samples", "a" * 40, "time_hot", "repeat=5"):
        assert token in cmd
    env = asv_environment(inv, {"PYTHONPATH": "/x"})
    assert env["PYTHONPATH"].split(":") == [str(tmp_path / "src-export" / "src"), "/x"]
    assert env["NUMBA_NUM_THREADS"] == "2"


def test_round_config(tmp_path: Path) -> None:
    """Per-round configs keep the template and redirect results, env and benchmarks."""
    template = tmp_path / "asv.conf.json"
    template.write_text('// comment\n{"version": 1, "project": "p", "results_dir": "x"}\n')
    path = write_round_config(template, tmp_path / "r0", tmp_path / "bench", tmp_path)
    conf = json.loads(path.read_text())
    assert conf["project"] == "p"
    assert conf["results_dir"] == str((tmp_path / "r0").resolve())
    assert conf["benchmark_dir"] == str((tmp_path / "bench").resolve())


def test_parse_failing_tests() -> None:
    """pytest's short summary lines give the failing ids, once each."""
    out = "x\nFAILED tests/a.py::test_b - assert 1\nERROR tests/c.py::test_d\n"
    out += "FAILED tests/a.py::test_b\n"
    assert parse_failing_tests(out) == ("tests/a.py::test_b", "tests/c.py::test_d")


def test_parity_pass_and_fail(repo: Path, tmp_path: Path) -> None:
    """A passing suite passes; a broken commit's parity fails and names the test."""
    cmd = [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", "tests"]
    sha = git_resolve(repo, "HEAD")
    ok = run_parity(cmd, export_commit(repo, sha, tmp_path / "ex"), {}, 120)
    assert ok.passed and ok.failing == ()
    (repo / "src" / "pkg" / "__init__.py").write_text("VALUE = 2\n")
    _git(repo, "commit", "-qam", "break")
    bad_sha = git_resolve(repo, "HEAD")
    bad = run_parity(cmd, export_commit(repo, bad_sha, tmp_path / "ex"), {}, 120)
    assert not bad.passed
    assert bad.failing == ("tests/test_ok.py::test_one",)


def test_child_processes_get_no_secrets_and_their_output_is_redacted(tmp_path: Path) -> None:
    """The parity command and asv run third-party code: no token in their environment, and
    a secret value they print (e.g. read from a file) is starred out of the returned tail."""
    token = "ghp_" + "y" * 36
    env = {"PATH": "/usr/bin:/bin", "GITHUB_TOKEN": token, "MY_API_KEY": "k" * 12, "FLAG": "1"}
    script = "import os; print(sorted(os.environ)); print('leak: " + token + "')"
    outcome = run_process([sys.executable, "-c", script], tmp_path, env, 60.0)
    assert outcome.returncode == 0
    assert "GITHUB_TOKEN" not in outcome.tail and "MY_API_KEY" not in outcome.tail
    assert "FLAG" in outcome.tail and token not in outcome.tail and "leak: ***" in outcome.tail
