"""`perfgate watch --bisect` on a stored sim history: commits 1, 4, 8 and 12 counted once
each, 1.5% more simulated cycles from commit 7; found from those single runs (counts are
deterministic), confirmed and bisected to 7 with sim probes (a fake prober)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_prober import FakeProber
from gh_env import MakeServer
from gh_watch_run import run_watch
from pg_results_factory import Bench, write_benchmarks_json, write_result
from watch_history import MACHINE, scripted_history

from perfgate.config import GateConfig

pytestmark = pytest.mark.subprocess

SIM = Bench(
    "sim_hot_slice.SimHotSlice.track_cycles",
    ("path",),
    (("assembled",),),
    unit="cycles",
    kind="track",
    version="sim-1",
)
CONFIG = """
[tool.perfgate]
blocking = ['^sim_hot_slice\\.']

[tool.perfgate.sim]
bench = ['^sim_hot_slice\\.']
threshold = 0.01
"""


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def _store(results: Path, commits: list[str], counts: dict[int, float], bench: Bench) -> None:
    write_benchmarks_json(results, [bench])
    for k, cycles in counts.items():
        write_result(results, commits[k - 1], [bench], {bench.name: [[cycles]]})


def test_a_one_and_a_half_percent_sim_step_is_bisected_to_its_commit(
    tmp_path: Path, make_server: MakeServer
) -> None:
    server, history = make_server(), scripted_history(tmp_path)
    (history.repo / "pyproject.toml").write_text(CONFIG)
    _store(history.results, history.commits, {1: 1e6, 4: 1e6, 8: 1.015e6, 12: 1.015e6}, SIM)
    c = history.commits
    prober = FakeProber(c, c[6], machine_name=MACHINE, factor=1.015, minutes=0.5)

    def make(config: GateConfig) -> FakeProber:
        assert config.is_sim(SIM.name) and config.sim_threshold_for(SIM.name) == 0.01
        return prober

    (record,) = json.loads(run_watch(history, server, make, bisect=True, as_json=True))
    assert (record["last_good_commit"], record["commit"]) == (c[3], c[7])
    assert record["evidence"] == "counts" and record["ratio"] == pytest.approx(1.015)
    assert (record["status"], record["culprit"]) == ("bisected", c[6])
    assert prober.cases[0].selection.startswith(r"^sim_hot_slice\.SimHotSlice\.track_cycles")


def test_half_a_percent_is_no_change_and_figures_of_another_version_are_not_compared(
    tmp_path: Path, make_server: MakeServer
) -> None:
    """0.5% (below the 1% threshold) is nothing; a 20% jump that comes with another
    benchmark version (valgrind upgraded) is no change either: only the newest version's
    figures are read."""
    server, history = make_server(), scripted_history(tmp_path)
    (history.repo / "pyproject.toml").write_text(CONFIG)
    _store(history.results, history.commits, {1: 1e6, 4: 1e6, 8: 1.005e6}, SIM)
    newer = Bench(SIM.name, SIM.param_names, SIM.params, "cycles", "track", "sim-2")
    _store(history.results, history.commits, {12: 1.2e6}, newer)
    prober = FakeProber(history.commits, None, machine_name=MACHINE)
    assert (
        json.loads(run_watch(history, server, lambda _c: prober, bisect=True, as_json=True)) == []
    )
    assert prober.calls == []
