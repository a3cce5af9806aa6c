"""perfgate.adopt.probe: one run of the suite at HEAD, before any gate (issue 38: nothing
ran a benchmark before the first gate, so a broken one was found by a 6-minute gate)."""

from __future__ import annotations

from pathlib import Path

import pytest
from adopt_project import git, make_project

from perfgate.adopt.init import InitOptions, init
from perfgate.adopt.probe import run_probe, summarize
from perfgate.asv.side_run import SideRun
from perfgate.config import parse_config
from perfgate.config_files import config_on_disk
from perfgate.formats.benchmarks_json import parse_benchmarks
from perfgate.model import CaseKey


def test_a_benchmark_with_a_failed_case_is_broken_with_its_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MY_API_TOKEN", "tok-123456789")
    ran = SideRun(
        {
            CaseKey("b.time_ok", ()): (1.0,),
            CaseKey("b.time_bad", (("n", "1"),)): (1.0,),
            CaseKey("b.time_bad", (("n", "2"),)): None,
        },
        parse_benchmarks({}),
        {"b.time_ok": 2.0, "b.time_bad": 1.0, "<setup_cache b:3>": 0.5, "<build>": 0.0},
    )
    texts = {"b.time_bad": "KeyError: 'tok-123456789'"}
    probe = summarize(ran, texts, 10.0, "box", "a" * 40)
    assert probe.broken == {"b.time_bad": "KeyError: '***'"}
    assert probe.seconds == {"b.time_ok": 2.0, "<setup_cache b:3>": 0.5}
    assert probe.overhead_s == 10.0 - 3.5 and probe.count == 3


BROKEN = """

    def time_broken(self):
        raise ValueError("x and y coordinate lengths do not match")
"""


@pytest.mark.subprocess
def test_init_runs_the_suite_and_names_the_broken_benchmark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real thing: asv runs HEAD's suite once; the broken benchmark is named with asv's
    error and left out of quick_bench; the costs are written; .perfgate/ is ignored."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    repo = make_project(tmp_path)
    suite = repo / "benchmarks" / "benchmarks" / "bench_core.py"
    suite.write_text(suite.read_text() + BROKEN)
    git(repo, "commit", "-qam", "a broken benchmark")
    lines: list[str] = []
    probe = run_probe(
        repo, parse_config({"asv_config": "benchmarks/asv.conf.json"}), 2, lines.append
    )
    assert set(probe.broken) == {"bench_core.Core.time_broken"}
    assert probe.broken["bench_core.Core.time_broken"].startswith(
        "ValueError: x and y coordinate lengths do not match (bench_core.py, line "
    )
    assert set(probe.seconds) == {"bench_core.Core.time_add"}
    assert any("[2/2]" in line for line in lines)
    result = init(InitOptions(repo=repo, workflows=False), prober=lambda *_: probe)
    config = config_on_disk(repo)
    assert config.quick_bench == (r"^bench_core\.Core\.time_add(\(|$)",)
    assert config.costs is not None and "bench_core.Core.time_add" in config.costs.by_benchmark()
    assert "bench_core.Core.time_broken: ValueError" in (repo / "pyproject.toml").read_text()
    assert result.proposal.broken[0][0] == "bench_core.Core.time_broken"
    assert (repo / ".gitignore").read_text().endswith("/.perfgate/\n")
