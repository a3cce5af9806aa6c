"""`perfgate gate --plan`: the planned rounds and minutes, measuring nothing."""

from __future__ import annotations

import json
from math import nan
from pathlib import Path

import pytest
from gate_fakes import make_repo
from pg_results_factory import Bench, write_benchmarks_json, write_machine_json, write_result

from perfgate import cli
from perfgate.formats.benchmarks_json import case_names, read_benchmarks
from perfgate.formats.timeline import RoundTime, Timeline, write_timeline
from perfgate.gate import preview

pytestmark = pytest.mark.subprocess

HOT = Bench("hot_slice.H.time_x", ("n",), ((1, 2),))
COMPILE = Bench("compile_time.C.track_s")
CONFIG = """
[tool.perfgate]
min_samples = 6
blocking = ['^hot_slice\\.']
parity_command = ["{python}", "-c", "pass"]
"""


def _round(folder: Path, durations: dict[str, float], hot: tuple = ([1.0], [1.0])) -> None:
    write_benchmarks_json(folder, [HOT, COMPILE])
    write_machine_json(folder)
    path = write_result(folder, "a" * 40, [HOT, COMPILE], {HOT.name: hot, COMPILE.name: [[1.0]]})
    data = json.loads(path.read_text())
    data["durations"] = durations
    path.write_text(json.dumps(data))


@pytest.fixture
def discovered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """asv's discovery of the run's suites replaced: the cases of the benchmarks.json written
    into the returned folder (by default HOT and COMPILE)."""
    folder = tmp_path / "discovered"
    write_benchmarks_json(folder, [HOT, COMPILE])
    monkeypatch.setattr(
        preview, "discover_cases", lambda *_args: case_names(read_benchmarks(folder))
    )
    return folder


def _plan(repo: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    argv = ["gate", "--base", "HEAD", "--head", "HEAD", "--repo", str(repo), "--plan", *extra]
    assert cli.main(argv) == 0
    return json.loads(capsys.readouterr().out) if "--json" in extra else {}


def test_plan_from_the_costs_of_the_last_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], discovered: Path
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
    # no timeline says how long the extra rounds last: expected up to max_rounds (30) of
    # the blocking cases, within the budget: 24 x 8 s after the main phase's 60 + 6 x 8 s
    assert roomy["expected_minutes"] == round((60 + 6 * 8 + 24 * 8) / 60, 2)
    assert roomy["short"] == []
    tight = _plan(repo, capsys, "--json", "--budget-minutes", "1")
    assert tight["rounds"] == 1 and len(tight["short"]) == 2
    _plan(repo, capsys, "--budget-minutes", "1")
    text = capsys.readouterr().out
    assert "short: 2 blocking case(s)" in text and "exit 3" in text
    assert not list(run.parent.glob("2026*Z-*-*/exports"))  # nothing exported or measured


def test_plan_without_an_earlier_run_uses_documented_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], discovered: Path
) -> None:
    """No run yet: the discovered cases, costs from the defaults per family."""
    repo = make_repo(tmp_path, CONFIG)
    doc = _plan(repo, capsys, "--json")
    assert doc["basis"].startswith("documented defaults per family")
    assert {c["cost_s"] for c in doc["cases"]} == {2.5, 40.0}


def test_plan_lists_the_cases_this_run_would_measure_not_the_last_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], discovered: Path
) -> None:
    """The last run measured another grid (n=1, 2 and a compile case); this run's suites
    (as discovered under its grid) hold n=1, 2, 3: n=3 is costed by its family's default and
    the compile case, not in this run, is not planned."""
    repo = make_repo(tmp_path, CONFIG)
    run = repo / ".perfgate" / "runs" / "20260101T000000000000Z-aaaaaaaa-aaaaaaaa"
    for side in ("base", "head"):
        _round(run / f"main-r000-{side}", {HOT.name: 4.0, COMPILE.name: 30.0})
    write_benchmarks_json(discovered, [Bench("hot_slice.H.time_x", ("n",), ((1, 2, 3),))])
    doc = _plan(repo, capsys, "--json")
    cases = {c["case"]: c["cost_s"] for c in doc["cases"]}
    assert cases == {
        "hot_slice.H.time_x(n=1)": 4.0,
        "hot_slice.H.time_x(n=2)": 4.0,
        "hot_slice.H.time_x(n=3)": 2.5,
    }
    assert "defaults per family for 1 case(s) it lacks" in doc["basis"]


def test_plan_whose_suites_cannot_be_discovered_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No asv project to discover the suites with: exit 3 naming what is missing."""
    repo = make_repo(tmp_path, CONFIG)
    (repo / "asv.conf.json").unlink(missing_ok=True)
    argv = ["gate", "--base", "HEAD", "--head", "HEAD", "--repo", str(repo), "--plan"]
    assert cli.main(argv) == 3
    assert "asv.conf.json" in capsys.readouterr().err


def test_plan_leaves_out_cases_the_suites_skipped_in_the_last_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], discovered: Path
) -> None:
    """n=2 was skipped (asv's NaN: e.g. the NumPy path at 2 threads) on both sides of the
    last run's first round: it is not planned, and n=1 carries the benchmark's duration."""
    repo = make_repo(tmp_path, CONFIG)
    run = repo / ".perfgate" / "runs" / "20260101T000000000000Z-aaaaaaaa-aaaaaaaa"
    for side in ("base", "head"):
        _round(run / f"main-r000-{side}", {HOT.name: 4.0, COMPILE.name: 30.0}, ([1.0], [nan]))
    doc = _plan(repo, capsys, "--json")
    cases = {c["case"]: c["cost_s"] for c in doc["cases"]}
    assert cases == {"hot_slice.H.time_x(n=1)": 8.0, "compile_time.C.track_s": 60.0}
    assert "1 case(s) the suites skipped in that run left out" in doc["basis"]


def test_plan_counts_set_up_parity_and_asv_overhead_from_the_last_timeline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], discovered: Path
) -> None:
    """The newest run's timeline adds its set-up, its parity (same command) and asv's
    overhead per round to the cases' seconds."""
    repo = make_repo(tmp_path, CONFIG)
    run = repo / ".perfgate" / "runs" / "20260101T000000000000Z-aaaaaaaa-aaaaaaaa"
    for side in ("base", "head"):
        _round(run / f"main-r000-{side}", {HOT.name: 4.0, COMPILE.name: 30.0})
    rounds = tuple(RoundTime("main", i, 80.0 if i == 0 else 20.0, 68.0 if i == 0 else 8.0, 2)
                   for i in range(6))  # fmt: skip
    write_timeline(run, Timeline("{python} -c pass", 90.0, 6.0, rounds))
    doc = _plan(repo, capsys, "--json", "--budget-minutes", "10")
    cases_s = 60 + 6 * 8
    measure_s = cases_s + 12 + 5 * 12
    assert doc["expected_minutes"] == round((6 + 90 + measure_s) / 60, 2)
    assert "parity ({python} -c pass) as the earlier run's" in doc["basis"]
    assert doc["expected_parts_minutes"]["setup"] == 0.1


def test_plan_before_any_run_uses_the_costs_init_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], discovered: Path
) -> None:
    """Issue 38: the first quick gate's plan said 10 s a case (family defaults) where init
    had run the suite. The policy's [tool.perfgate.costs] costs the cases it names (a
    benchmark's seconds shared between its cases, asv's overhead per round counted); the
    others keep the defaults; the basis says so."""
    costs = f"""
[tool.perfgate.costs]
machine = "box"
asv_overhead_s = 3.0
[tool.perfgate.costs.benchmarks]
'{HOT.name}' = 1.0
"""
    repo = make_repo(tmp_path, CONFIG + costs)
    doc = _plan(repo, capsys, "--json", "--budget-minutes", "10")
    assert doc["basis"].startswith("costs perfgate init measured on box for 2 case(s)")
    assert "documented defaults for 1 case(s)" in doc["basis"]
    cases = {c["case"]: c["cost_s"] for c in doc["cases"]}
    assert cases == {
        "hot_slice.H.time_x(n=1)": 0.5,
        "hot_slice.H.time_x(n=2)": 0.5,
        "compile_time.C.track_s": 40.0,
    }
    # 6 rounds: the cases (40 once, 1.0 a round), asv's 3 s in every round; then, no run
    # saying how long they last, extra rounds up to max_rounds (24 more of 1.0 + 3 s)
    assert doc["expected_minutes"] == round((40 + 6 * 1.0 + 6 * 3.0 + 24 * 4.0) / 60, 2)


def test_plan_of_a_policy_naming_the_sim_instrument_needs_no_valgrind_to_select(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], discovered: Path
) -> None:
    """``instruments = ["wall", "sim"]``: the wall clock's selection depends on the policy
    alone; `--plan` used to resolve it as if valgrind were not installed and exit 3
    ("instruments names sim, but valgrind is not installed") where it is (issue 37, 13)."""
    repo = make_repo(tmp_path, CONFIG + 'instruments = ["wall", "sim"]\n')
    doc = _plan(repo, capsys, "--json")
    assert {c["case"] for c in doc["cases"]} == {
        "hot_slice.H.time_x(n=1)",
        "hot_slice.H.time_x(n=2)",
        "compile_time.C.track_s",
    }


def _timeline(main_rounds: int) -> Timeline:
    """A quick A/A's timeline (issue 53's shape): set-up 6 s, parity 11 s, a first round of
    60 s (56 s of cases), then rounds of the two blocking cases, 10 s each (8 s of cases);
    ``main_rounds`` past min_samples (6) are extra rounds for undecided cases."""
    rounds = [RoundTime("main", 0, 60.0, 56.0, 2)]
    rounds += [RoundTime("main", i, 10.0, 8.0, 2) for i in range(1, main_rounds)]
    return Timeline("{python} -c pass", 11.0, 6.0, tuple(rounds))


def _measured_s(t: Timeline) -> float:
    return t.setup_s + (t.parity_s or 0.0) + sum(r.seconds for r in t.rounds)


@pytest.mark.parametrize("earlier", ["decided", "undecided", "none"])
def test_the_upper_bound_is_never_below_a_run_with_undecided_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], discovered: Path, earlier: str
) -> None:
    """Issue 53: a quick A/A ran 28 main rounds, 22 of them extra for undecided cases, in
    343 s of a 6-minute budget where the plan had said 2.7 min and counted 6 rounds. On the
    recorded shape of that run (347 s here), the plan's upper bound holds it whatever the
    earlier run it reads (one whose cases all decided in 6 rounds, the undecided run itself,
    no timeline), and the expected figure counts the undecided run's extra rounds."""
    repo = make_repo(tmp_path, CONFIG)
    run = repo / ".perfgate" / "runs" / "20260101T000000000000Z-aaaaaaaa-aaaaaaaa"
    for side in ("base", "head"):
        _round(run / f"main-r000-{side}", {HOT.name: 4.0, COMPILE.name: 24.0})
    undecided = _timeline(28)
    if earlier != "none":
        write_timeline(run, _timeline(6) if earlier == "decided" else undecided)
    doc = _plan(repo, capsys, "--json", "--budget-minutes", "6")
    measured = _measured_s(undecided)
    assert measured == pytest.approx(347.0)
    assert doc["upper_minutes"] * 60 >= measured
    assert doc["extra_rounds"]["most"] >= 22
    if earlier == "undecided":
        assert doc["expected_minutes"] * 60 == pytest.approx(measured, abs=1.0)
        assert doc["extra_rounds"]["expected"] == 22
    if earlier == "decided":
        assert doc["extra_rounds"]["expected"] == 0


SIM_HOT = Bench(
    "sim_hot_slice.SimHotSlice.track_cycles", ("num_envs",), ((2048,),), "cycles", "track"
)
SIM_INS = Bench(
    "sim_hot_slice.SimHotSlice.track_instructions", ("num_envs",), ((2048,),), "i", "track"
)
SCALING = Bench(
    "sim_scaling.SimScaling.track_efficiency", ("path", "threads"),
    (("'handwritten'",), (8, 32, 64)), "ratio", "track",
)  # fmt: skip
SERIAL = Bench(
    "sim_scaling.SimScaling.track_serial_share", ("path", "threads"),
    (("'handwritten'",), (8, 32, 64)), "ratio", "track",
)  # fmt: skip
SIM_CONFIG = (
    CONFIG
    + """instruments = ["wall", "sim"]
[tool.perfgate.sim]
bench = ['^sim_hot_slice\\.', '^sim_scaling\\.']
"""
)


@pytest.mark.parametrize("valgrind", ["3.19.0", None])
def test_the_plan_lists_the_sim_cases_at_their_thread_counts_and_the_sim_phase(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    discovered: Path,
    monkeypatch: pytest.MonkeyPatch,
    valgrind: str | None,
) -> None:
    """Issue 48: the full gate's plan listed no simulated case though the gate counts both
    sim families. The sim cases are listed once per count (by the decisive figure), the
    scaling family's at 8, 32 and 64 threads, the base counted twice and the head once, at
    the documented seconds of a count without an earlier run; the totals count the phase
    on top of the budgeted part. A policy naming sim where valgrind is missing is planned
    too (its run refuses to start: the note says so)."""
    monkeypatch.setattr(preview, "installed_valgrind", lambda: valgrind)
    write_benchmarks_json(discovered, [HOT, COMPILE, SIM_HOT, SIM_INS, SCALING, SERIAL])
    repo = make_repo(tmp_path, SIM_CONFIG)
    doc = _plan(repo, capsys, "--json")
    sim = doc["sim"]
    scaling = [c for c in sim["cases"] if c["family"] == "sim_scaling"]
    assert [c["threads"] for c in scaling] == [8, 32, 64]
    assert all(c["counts"] == {"base": 2, "head": 1} for c in sim["cases"])
    assert {c["case"] for c in sim["cases"]} == {
        "sim_hot_slice.SimHotSlice.track_cycles(num_envs=2048)",
        *(f"sim_scaling.SimScaling.track_efficiency(path='handwritten', threads={t})"
          for t in (8, 32, 64)),
    }  # fmt: skip
    assert sim["families"]["sim_scaling"]["threads"] == [8, 32, 64]
    sim_s = 3 * 3.0 + 3 * 3 * 5.6  # documented defaults per count, three counts a case
    assert doc["expected_parts_minutes"]["sim"] == round(sim_s / 60, 2)
    assert doc["expected_minutes"] == round(doc["budgeted_minutes"]["expected"] + sim_s / 60, 2)
    assert doc["upper_minutes"] == pytest.approx(
        doc["budgeted_minutes"]["upper"] + sim_s / 60, abs=0.011
    )
    assert "documented defaults for sim_hot_slice, sim_scaling" in sim["basis"]
    assert ("valgrind is not installed" in doc["sim_note"]) is (valgrind is None)
    assert not any(c["case"].startswith("sim_") for c in doc["cases"])  # not timed
    _plan(repo, capsys)
    text = capsys.readouterr().out
    assert "sim sim_scaling: 3 case(s), threads 8/32/64" in text and "comes on top" in text


def test_the_sim_phase_is_costed_from_the_last_timeline_that_recorded_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], discovered: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """An earlier run's sim phase: 390 s for its 6 scaling cases counted three times (21.7 s
    a count); the single-thread family, which it did not count, keeps its default."""
    from perfgate.formats.timeline import FamilyTime, PhaseTime

    monkeypatch.setattr(preview, "installed_valgrind", lambda: "3.19.0")
    write_benchmarks_json(discovered, [HOT, COMPILE, SIM_HOT, SCALING])
    repo = make_repo(tmp_path, SIM_CONFIG)
    run = repo / ".perfgate" / "runs" / "20260101T000000000000Z-aaaaaaaa-aaaaaaaa"
    phase = PhaseTime("sim", 400.0, (FamilyTime("sim_scaling", 6, 3, 390.0),))
    rounds = (RoundTime("main", 0, 60.0, 56.0, 2),)
    write_timeline(run, Timeline("{python} -c pass", 11.0, 6.0, rounds, phases=(phase,)))
    doc = _plan(repo, capsys, "--json")
    sim = doc["sim"]
    costs = {c["family"]: c["count_s"] for c in sim["cases"]}
    assert costs == {"sim_hot_slice": 3.0, "sim_scaling": round(390.0 / 18, 3)}
    assert sim["families"]["sim_scaling"]["minutes"] == round(3 * 390.0 / 6 / 60, 2)
    assert "the sim phase of the earlier run for sim_scaling" in sim["basis"]


def test_plan_before_any_run_counts_the_parity_time_init_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], discovered: Path
) -> None:
    """Issue 53: the first quick gate's plan said parity 0 "not counted"; init now times
    each parity command it saw pass ([tool.perfgate.costs] parity_s, quick_parity_s), and
    the plan counts the one its run will use."""
    costs = """
[tool.perfgate.costs]
machine = "box"
parity_s = 120.0
quick_parity_s = 30.0
"""
    repo = make_repo(tmp_path, CONFIG + costs)
    full = _plan(repo, capsys, "--json", "--budget-minutes", "10")
    assert full["expected_parts_minutes"]["parity"] == 2.0
    assert "as perfgate init measured it" in full["basis"]
    quick = _plan(repo, capsys, "--json", "--budget-minutes", "10", "--quick")
    assert quick["expected_parts_minutes"]["parity"] == 0.5
    ci = _plan(repo, capsys, "--json", "--budget-minutes", "10", "--parity-result", "x.json")
    assert ci["expected_parts_minutes"]["parity"] == 0.0
