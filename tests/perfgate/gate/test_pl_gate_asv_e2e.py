"""`perfgate gate` for real: git exports + asv 0.6 rounds on a throwaway repo with a tiny suite.

A few asv invocations (3 rounds x 2 sides) of a trivial parameterized benchmark; no timing is
asserted (calls of about 0.1-1 ms against a 50% threshold: a call of a few microseconds
scattered past it on a loaded CI worker), only that the whole chain (export, per-round asv
config, --set-commit-hash, --record-samples, result reading, pairing, report files) yields
exit 0 for A/A and exit 3 for an unknown revision.
"""

from __future__ import annotations

import getpass
import json
import logging
import subprocess
from pathlib import Path

import pytest
from gate_fakes import git

from perfgate import cli

pytestmark = pytest.mark.subprocess

CONFIG = """
[tool.perfgate]
default_threshold = 0.5
min_samples = 3
max_rounds = 3
confirm = false
parity_command = ["{python}", "-c", "import tinypkg"]
"""
SUITE = """
import tinypkg


class Tiny:
    params = [[20000, 40000]]
    param_names = ["n"]
    number = 5
    repeat = 3
    warmup_time = 0.0

    def time_work(self, n):
        tinypkg.work(n)
"""


@pytest.fixture
def tiny_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # private ~/.asv-machine.json
    (tmp_path / "home").mkdir()
    repo = tmp_path / "repo"
    (repo / "src" / "tinypkg").mkdir(parents=True)
    (repo / "src" / "tinypkg" / "__init__.py").write_text(
        "def work(n):\n    return sum(range(n))\n"
    )
    (repo / "benchmarks").mkdir()
    (repo / "benchmarks" / "__init__.py").write_text("")
    (repo / "benchmarks" / "bench_tiny.py").write_text(SUITE)
    conf = {"version": 1, "project": "tiny", "repo": ".", "benchmark_dir": "benchmarks"}
    conf |= {"environment_type": "virtualenv", "branches": ["main"]}
    (repo / "asv.conf.json").write_text(json.dumps(conf))
    (repo / "pyproject.toml").write_text(CONFIG)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "tiny")
    return repo


def test_gate_with_real_asv(tiny_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A/A through real asv: exit 0, both cases compared with 3 paired rounds."""
    out = tiny_repo / "out"
    argv = ["gate", "--base", "HEAD", "--head", "HEAD", "--repo", str(tiny_repo)]
    code = cli.main([*argv, "--report-dir", str(out), "--machine", "tinybox"])
    printed = capsys.readouterr()
    assert code == 0, printed.err[-3000:]
    verdict = json.loads((out / "verdict.json").read_text())
    assert verdict["verdict"] == "pass"
    assert sorted(c["params"]["n"] for c in verdict["cases"]) == ["20000", "40000"]
    assert all(c["paired"] and c["n_head"] == 3 for c in verdict["cases"])
    assert "perfgate PASS" in printed.out


def test_a_checkout_without_asvs_branches(
    tiny_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pull request's CI checkout is a detached commit with no local branch of the name
    asv.conf.json's ``branches`` gives (``main``); asv resolves those names whenever it runs
    without a range, and refused every round ("Unknown branch main in configuration"), so
    the gate could not measure there. Each round names the commit it measures instead."""
    git(tiny_repo, "checkout", "-q", "--detach")
    git(tiny_repo, "branch", "-q", "-D", "main")
    out = tiny_repo / "out"
    argv = ["gate", "--base", "HEAD", "--head", "HEAD", "--repo", str(tiny_repo)]
    code = cli.main([*argv, "--report-dir", str(out), "--machine", "tinybox"])
    assert code == 0, capsys.readouterr().err[-3000:]


def test_unknown_revision_with_real_repo(tiny_repo: Path) -> None:
    """An unknown revision exits 3 before anything runs."""
    argv = ["gate", "--base", "nope", "--head", "HEAD", "--repo", str(tiny_repo)]
    assert cli.main([*argv, "--report-dir", str(tiny_repo / "out")]) == 3


def test_sharded_gate_with_real_asv(tiny_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A/A in two shards through real asv: asv's discovery lists both cases, each shard
    measures one, and the merge compares both with 3 paired rounds (exit 0)."""
    argv = ["gate", "--base", "HEAD", "--head", "HEAD", "--repo", str(tiny_repo)]
    folders = [tiny_repo / "shards" / str(k) for k in (1, 2)]
    for k, folder in enumerate(folders, start=1):
        shard = ["--shard", f"{k}/2", "--report-dir", str(folder), "--machine", "tinybox"]
        assert cli.main([*argv, *shard]) == 0, capsys.readouterr().err[-3000:]
    measured = [json.loads((f / "shard.json").read_text())["cases"] for f in folders]
    assert sorted(c["params"]["n"] for cases in measured for c in cases) == ["20000", "40000"]
    out = tiny_repo / "merged"
    merge = ["merge", *map(str, folders), "--repo", str(tiny_repo), "--report-dir", str(out)]
    code = cli.main(merge)
    assert code == 0, capsys.readouterr().err[-3000:]
    verdict = json.loads((out / "verdict.json").read_text())
    assert verdict["verdict"] == "pass"
    assert all(c["paired"] and c["n_head"] == 3 for c in verdict["cases"])


BROKEN = """

    def time_broken(self, n):
        raise ValueError("x and y coordinate lengths do not match")
"""


def test_a_benchmark_broken_on_both_sides_is_named_with_its_error(
    tiny_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 38: an A/A gate whose benchmark has a bug of its own exited 1, "REGRESSION: ...
    failed or timed out on both", the error only in a run folder's asv-output.txt. Through
    real asv it is BROKEN ON BOTH SIDES with asv's error, exit 3 (the default policy)."""
    suite = tiny_repo / "benchmarks" / "bench_tiny.py"
    suite.write_text(suite.read_text() + BROKEN)
    git(tiny_repo, "commit", "-qam", "a broken benchmark")
    out = tiny_repo / "out"
    argv = ["gate", "--base", "HEAD", "--head", "HEAD", "--repo", str(tiny_repo)]
    code = cli.main([*argv, "--report-dir", str(out), "--machine", "tinybox"])
    printed = capsys.readouterr()
    assert code == 3, printed.err[-3000:]
    assert "perfgate BROKEN ON BOTH SIDES" in printed.out and "REGRESSION" not in printed.out
    verdict = json.loads((out / "verdict.json").read_text())
    broken = [c for c in verdict["cases"] if c["verdict"] == "broken"]
    assert len(broken) == 2
    error = "ValueError: x and y coordinate lengths do not match (bench_tiny.py, line "
    assert all(error in c["note"] for c in broken)
    assert any(r.startswith("BROKEN ON BOTH SIDES: head vs base") for r in verdict["reasons"])


#: A benchmark that detaches a sleeper holding asv's pipes to its benchmark process
#: (issue 37, 5: asv reads them to their end, so the gate waited as long as the sleeper).
DETACHING = SUITE.replace(
    "    def time_work(self, n):",
    "    def setup(self, n):\n"
    "        import subprocess\n"
    "        subprocess.run(['setsid', 'sh', '-c', 'sleep 417 &'], check=True)\n\n"
    "    def time_work(self, n):",
)


def test_gate_with_real_asv_kills_a_detached_sleeper_and_names_it(
    tiny_repo: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """A head whose benchmark detaches ``setsid sh -c 'sleep 417 &'``: the gate neither
    waits for the sleepers (asv would read its pipes until they end) nor leaves them
    running; the report names them with their command line."""
    (tiny_repo / "benchmarks" / "bench_tiny.py").write_text(DETACHING)
    git(tiny_repo, "commit", "-qam", "detach")
    out = tiny_repo / "out"
    argv = ["gate", "--base", "HEAD~1", "--head", "HEAD", "--repo", str(tiny_repo)]
    with caplog.at_level(logging.WARNING):
        code = cli.main([*argv, "--report-dir", str(out), "--machine", "tinybox"])
    printed = capsys.readouterr()
    assert code in (0, 1), printed.err[-3000:]
    report = (out / "report.md").read_text()
    assert "contained:" in report and "(sleep 417)" in report
    assert "suspicious" in caplog.text and "(sleep 417)" in caplog.text
    left = subprocess.run(["pgrep", "-f", "^sleep 417$"], capture_output=True, text=True)
    mine = [p for p in left.stdout.split() if Path(f"/proc/{p}").owner() == getpass.getuser()]
    assert mine == []
