"""`perfgate gate --plan`: the planned rounds and minutes, measuring nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_fakes import make_repo
from pg_results_factory import Bench, write_benchmarks_json, write_machine_json, write_result

from perfgate import cli

pytestmark = pytest.mark.subprocess

HOT = Bench("hot_slice.H.time_x", ("n",), ((1, 2),))
COMPILE = Bench("compile_time.C.track_s")
CONFIG = """
[tool.perfgate]
min_samples = 6
blocking = ['^hot_slice\\.']
parity_command = ["{python}", "-c", "pass"]
"""


def _round(folder: Path, durations: dict[str, float]) -> None:
    write_benchmarks_json(folder, [HOT, COMPILE])
    write_machine_json(folder)
    path = write_result(
        folder, "a" * 40, [HOT, COMPILE], {HOT.name: [[1.0], [1.0]], COMPILE.name: [[1.0]]}
    )
    data = json.loads(path.read_text())
    data["durations"] = durations
    path.write_text(json.dumps(data))


def _plan(repo: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    argv = ["gate", "--base", "HEAD", "--head", "HEAD", "--repo", str(repo), "--plan", *extra]
    assert cli.main(argv) == 0
    return json.loads(capsys.readouterr().out) if "--json" in extra else {}


def test_plan_from_the_costs_of_the_last_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Stored asv durations give the costs; a tight budget names the short cases."""
    repo = make_repo(tmp_path, CONFIG)
    run = repo / ".perfgate" / "runs" / "20260101T000000000000Z-aaaaaaaa-aaaaaaaa"
    for side in ("base", "head"):
        _round(run / f"main-r000-{side}", {HOT.name: 4.0, COMPILE.name: 30.0})
    roomy = _plan(repo, capsys, "--json", "--budget-minutes", "10")
    assert roomy["basis"].startswith(f"costs measured by the run {run.name}")
    cases = {c["case"]: (c["blocking"], c["cost_s"], c["rounds"]) for c in roomy["cases"]}
    assert cases == {
        "hot_slice.H.time_x(n=1)": (True, 4.0, 6),
        "hot_slice.H.time_x(n=2)": (True, 4.0, 6),
        "compile_time.C.track_s": (False, 60.0, 1),
    }
    assert roomy["expected_minutes"] == round((60 + 6 * 8) / 60, 2) and roomy["short"] == []
    tight = _plan(repo, capsys, "--json", "--budget-minutes", "1")
    assert tight["rounds"] == 1 and len(tight["short"]) == 2
    _plan(repo, capsys, "--budget-minutes", "1")
    text = capsys.readouterr().out
    assert "short: 2 blocking case(s)" in text and "exit 3" in text
    assert not list(run.parent.glob("2026*Z-*-*/exports"))  # nothing exported or measured


def test_plan_without_an_earlier_run_uses_documented_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No run yet: cases from asv's benchmarks.json, costs from the defaults per family."""
    repo = make_repo(tmp_path, CONFIG)
    write_benchmarks_json(repo / ".asv" / "results", [HOT, COMPILE])
    doc = _plan(repo, capsys, "--json")
    assert doc["basis"].startswith("documented defaults per family")
    assert {c["cost_s"] for c in doc["cases"]} == {8.0, 20.0}


def test_plan_with_nothing_to_list_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No run and no benchmarks.json: exit 3 naming what is missing."""
    repo = make_repo(tmp_path, CONFIG)
    argv = ["gate", "--base", "HEAD", "--head", "HEAD", "--repo", str(repo), "--plan"]
    assert cli.main(argv) == 3
    assert "run the gate (or asv) once" in capsys.readouterr().err
