"""The history job's own path, end to end: perf-history.yml's asv run (ci/history-run.sh, the
very script the workflow runs) in the environment asv builds from asv.conf.json (virtualenv:
termplan built at each commit, perfgate from the checkout), over two real commits of a
throwaway copy of this repository; then its append (ci/append-results.sh --measured, as the
workflow calls it) and `history export`. Before asv.conf.json installed perfgate, asv stopped
at discovery on every commit ("Failed to build the project and import the benchmark suite":
benchmarks/sim_hot_slice.py imports perfgate.sim.suite) and the append pushed machine.json
alone. The second commit adds ~1.3% of work to the hand-written path (ci/sim-trials.py's
patch), and its sim count must show it: each commit is measured with its own termplan. One
hot-slice case and one sim case (valgrind) keep it to minutes; `make history-smoke`
runs it in CI (.ci/run).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from perfgate.formats.asv_results import CaseState, iter_result_files, read_result_file
from perfgate.formats.benchmarks_json import read_benchmarks
from perfgate.watch.changes.load import load_series

pytestmark = [pytest.mark.slow, pytest.mark.subprocess, pytest.mark.timeout(50 * 60)]

REPO = Path(__file__).resolve().parents[3]
MACHINE = "history-smoke"
HOT = "hot_slice.HotSlice.time_compute"
SIM = "sim_hot_slice.SimHotSlice.track_cycles"
#: --bench regexes of the run (the workflow's shards pass theirs the same way)
BENCH = (
    r"^hot_slice\.HotSlice\.time_compute\('g1_walk', 'sac_default', 'handwritten', 2048, 1\)$",
    r"^sim_hot_slice\.SimHotSlice\.track_cycles\('g1_walk', 'sac_default', 'handwritten', "
    r"2048\)$",
)
TIMEOUT_S = 45 * 60


def _load_sim_trials() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sim_trials", REPO / "ci" / "sim-trials.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: ci/sim-trials.py: its patch of the hand-written path (extra arithmetic, ~1.3% at N=2048)
SIM_TRIALS = _load_sim_trials()


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo), *args],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def _throwaway(root: Path) -> tuple[Path, list[str]]:
    """A copy of this checkout's files (what git sees) as a new repository of two commits,
    with a bare ``origin``; the commits newest first."""
    repo = root / "repo"
    listed = _git(REPO, "ls-files", "-co", "--exclude-standard", "-z").split("\0")
    for rel in filter(None, listed):
        source = REPO / rel
        if rel.startswith((".perfgate/", ".asv/")) or not source.is_file():
            continue
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, repo / rel)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "first")
    slow_file = repo / SIM_TRIALS.HANDWRITTEN  # the second commit: ~1.3% more work
    slow_file.write_text(SIM_TRIALS.work_patch(slow_file.read_text(), 1.0, "True"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "second")
    subprocess.run(["git", "init", "-q", "--bare", str(root / "remote.git")], check=True)
    _git(repo, "remote", "add", "origin", str(root / "remote.git"))
    return repo, _git(repo, "rev-list", "main").split()


def _run(repo: Path, argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        argv, cwd=repo, env=env, capture_output=True, text=True, check=False, timeout=TIMEOUT_S
    )
    sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
    return done


def test_the_workflow_command_stores_two_commits_from_an_asv_built_environment(
    tmp_path: Path,
) -> None:
    assert shutil.which("valgrind"), "the sim family needs valgrind: make valgrind"
    repo, commits = _throwaway(tmp_path)
    hashes = tmp_path / "hashes.txt"
    hashes.write_text("".join(f"{c}\n" for c in commits))
    bindir = Path(sys.executable).parent
    env = {**os.environ, "ASV": str(bindir / "asv"), "PYTHON": sys.executable}
    env.pop("PERFGATE_BENCH", None)
    ran = _run(repo, ["ci/history-run.sh", MACHINE, str(hashes), *BENCH], env)
    assert ran.returncode == 0, "asv run of ci/history-run.sh failed (output above)"
    assert "virtualenv-py" in ran.stdout  # asv's own environment, not --python=same
    results = repo / ".asv" / "results"
    files = list(iter_result_files(results, MACHINE))
    assert sorted(f.hash_prefix for f in files) == sorted(c[:8] for c in commits)
    benchmarks = read_benchmarks(results)
    for item in files:
        result = read_result_file(item.path, benchmarks)
        assert result.env_name.startswith("virtualenv-py3.11")
        states = {k.benchmark: c.state for k, c in result.cases.items() if c.state is CaseState.OK}
        assert states == {HOT: CaseState.OK, SIM: CaseState.OK}, item.path
    append = ["ci/append-results.sh", "--suite-ref", commits[0], "--measured", str(hashes)]
    appended = _run(repo, append, env)
    assert appended.returncode == 0 and "pushed" in appended.stdout
    dest = tmp_path / "exported"
    export = [sys.executable, "-m", "perfgate.cli", "history", "export", "--dest", str(dest)]
    assert _run(repo, [*export, "--ref", "main"], env).returncode == 0
    loaded = load_series(dest, commits[::-1], lambda _: False)
    assert loaded.warnings == () and loaded.skipped == ()
    assert {s.benchmark for s in loaded.series} == {HOT, SIM}
    assert all([p.commit for p in s.points] == commits[::-1] for s in loaded.series)
    # each commit measured with its own termplan: asv installs every commit's wheel (all of
    # one version); pip once kept the first and the second commit's extra work never counted
    (sim,) = [s for s in loaded.series if s.benchmark == SIM]
    first, second = (p.value for p in sim.points)
    assert second > 1.005 * first, f"sim counts {first} then {second}: one commit's code"
