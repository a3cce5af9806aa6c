"""``perfgate history export`` names every file of the branch that asv and ``perfgate watch``
cannot read (a corrupt result file, a ``machine.json`` of another version) instead of copying
it without a word (issue 30 item 5)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pg_results_factory as f
import pytest
from history_fakes import git
from test_history_race import BRANCH, FAST, make_writer

from perfgate.cli import main
from perfgate.history.append import append
from perfgate.history.export import export

pytestmark = pytest.mark.subprocess

GOOD = f"perf-runner/{f.BASE_SHA[:8]}-existing-py_3.11.json"
TRUNCATED = f"perf-runner/{f.HEAD_SHA[:8]}-existing-py_3.11.json"
OTHER_VERSION = "other/machine.json"


def _plant(tmp_path: Path, remote: Path, files: dict[str, str]) -> None:
    """Commit ``files`` to the branch by hand, as no perfgate command would."""
    clone = tmp_path / "planter"
    subprocess.run(["git", "clone", "-q", "-b", BRANCH, str(remote), str(clone)], check=True)
    for path, text in files.items():
        (clone / path).parent.mkdir(parents=True, exist_ok=True)
        (clone / path).write_text(text)
    git(clone, "add", "-A")
    git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "planted")
    git(clone, "push", "-q", "origin", BRANCH)


@pytest.fixture
def branch(tmp_path: Path) -> tuple[Path, Path]:
    """(a checkout, its remote) whose branch holds one good result and two broken files."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    repo = make_writer(tmp_path, "a", remote)
    results = tmp_path / "res"
    bench = f.Bench("hot.K.time_k", ("n",), ((8,),))
    f.write_benchmarks_json(results, [bench])
    f.write_machine_json(results)
    f.write_result(results, f.BASE_SHA, [bench], {bench.name: [[1e-3] * 5]})
    append(repo, results, "origin", BRANCH, FAST)
    _plant(
        tmp_path, remote, {TRUNCATED: '{"version": 2, "commit_', OTHER_VERSION: '{"version": 7}'}
    )
    return repo, remote


def test_export_warns_naming_each_unreadable_file(
    tmp_path: Path, branch: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _remote = branch
    dest = tmp_path / "out"
    argv = ["history", "export", "--repo", str(repo), "--dest", str(dest)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    warnings = [line for line in captured.err.splitlines() if "warning" in line]
    assert len(warnings) == 2, captured.err
    (truncated,) = [w for w in warnings if TRUNCATED in w]
    assert "corrupt or truncated JSON" in truncated
    (machine,) = [w for w in warnings if OTHER_VERSION in w]
    assert "unsupported version 7; expected 1" in machine
    assert GOOD not in captured.err
    # exported as they are (the branch is the record), each with its warning
    assert f"written    {TRUNCATED}" in captured.out and (dest / TRUNCATED).is_file()


def test_export_hands_its_warnings_to_the_caller(
    tmp_path: Path, branch: tuple[Path, Path]
) -> None:
    repo, _remote = branch
    warned: list[str] = []
    status = export(repo, "origin", BRANCH, tmp_path / "out", warn=warned.append)
    assert status[GOOD] == "written"
    assert sorted(w.split(":")[0] for w in warned) == sorted([OTHER_VERSION, TRUNCATED])
