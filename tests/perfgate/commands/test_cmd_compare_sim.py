"""`perfgate compare` of stored sim results: a count per side decides when the base's
determinism was checked (a re-run's second count, or the machine's calibration in the
``--noise`` file), and never from a single unchecked count."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pg_results_factory as f
import pytest

from perfgate import cli

SIM = f.Bench(
    "sim_hot.SimHot.track_cycles", ("path",), (("assembled",),), "cycles", "track", "sim-1"
)
CONFIG = """
[tool.perfgate]
blocking = ['^sim_hot\\.']

[tool.perfgate.sim]
bench = ['^sim_hot\\.']
"""


def _store(root: Path, base: float, head: float, bench: f.Bench = SIM) -> None:
    f.write_benchmarks_json(root, [bench])
    f.write_machine_json(root)
    f.write_result(root, f.BASE_SHA, [bench], {bench.name: [[base]]})
    f.write_result(root, f.HEAD_SHA, [bench], {bench.name: [[head]]})


def _compare(tmp_path: Path, root: Path, *extra: str) -> int:
    cfg = tmp_path / "pyproject.toml"
    cfg.write_text(CONFIG)
    argv = ["compare", str(root), "--base", f.BASE_SHA, "--head", f.HEAD_SHA, "--config", str(cfg)]
    return cli.main([*argv, *extra])


def _noise(tmp_path: Path, spread: float, version: str = "sim-1") -> str:
    doc = {
        "api_version": 1,
        "kind": "perfgate-noise",
        "machine": "perf-runner",
        "cases": [],
        "sim": [
            {"benchmark": SIM.name, "params": {"path": "assembled"}, "version": version,
             "spread": spread, "counts": 3}
        ],
    }  # fmt: skip
    path = tmp_path / "noise.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_an_unchecked_count_decides_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "res"
    _store(root, 1e6, 1.02e6)
    assert _compare(tmp_path, root) == 3
    assert "determinism not checked" in capsys.readouterr().out


def test_a_calibrated_machine_or_a_rerun_lets_one_count_decide(tmp_path: Path) -> None:
    """2% more cycles: exit 1 with the calibration's check, or with a re-run of the results
    that counted the base again; a check of another version does not count."""
    root, again = tmp_path / "res", tmp_path / "again"
    _store(root, 1e6, 1.02e6)
    assert _compare(tmp_path, root, "--noise", _noise(tmp_path, 0.0)) == 1
    assert _compare(tmp_path, root, "--noise", _noise(tmp_path, 0.0, "sim-0")) == 3
    _store(again, 1e6, 1.02e6)
    assert _compare(tmp_path, root, "--confirm-results", str(again)) == 1
    _store(again, 1.002e6, 1.0e6)  # 0.2% apart: within half the 1% threshold, widened
    assert _compare(tmp_path, root, "--confirm-results", str(again)) == 1
    _store(again, 1.006e6, 1.0e6)  # 0.6% apart: more than half the threshold
    assert _compare(tmp_path, root, "--confirm-results", str(again)) == 3


def test_a_rerun_under_another_benchmark_version_checks_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A re-run whose base was counted under another sim benchmark version (other code) is no
    second count of this base: refused (exit 3) as an unchecked count, as a same-version
    re-run that disagrees is; it used to pass (issue 37, 7)."""
    root, again = tmp_path / "res", tmp_path / "again"
    _store(root, 1e6, 1.0e6)
    _store(again, 1.009e6, 1.0e6)  # same version, 0.9% apart: refused
    assert _compare(tmp_path, root, "--confirm-results", str(again)) == 3
    capsys.readouterr()
    _store(again, 1e6, 1.0e6, dataclasses.replace(SIM, version="sim-0"))
    assert _compare(tmp_path, root, "--confirm-results", str(again)) == 3
    assert "no second count of the base under this benchmark version" in capsys.readouterr().out
    assert (
        _compare(tmp_path, root, "--confirm-results", str(again), "--noise", _noise(tmp_path, 0.0))
        == 0
    )
