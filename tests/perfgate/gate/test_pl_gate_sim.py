"""`perfgate gate` with the sim instrument, end to end on a throwaway repository: the fake
sim runner "counts" each side's ``sim.json`` (see `gate_fakes.FakeSim`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from gate_fakes import CONFIG, FakeSides, FakeSim, git, hooks, make_repo

from perfgate.calibration.stored import append_noise
from perfgate.commands import calibrate as calibrate_cmd
from perfgate.gate import run as gate
from perfgate.settings import GateOptions

pytestmark = pytest.mark.subprocess

BLOCKING = "blocking = ['^suite\\.']"
assert BLOCKING in CONFIG
SIM_CONFIG = (
    CONFIG.replace(BLOCKING, BLOCKING[:-1] + ', \'^sim_suite\\.\']\ninstruments = ["wall", "sim"]')
    + """
[tool.perfgate.sim]
bench = ['^sim_suite\\.']
wall = "suite.Kernel.time_run"
"""
)
SAME = {"numpy": {"cycles": 9e6, "instructions": 8e6, "l1": 1e4, "ll": 100.0}}


def _commit_sim(repo: Path, counts: dict[str, dict[str, object]], message: str) -> str:
    (repo / "sim.json").write_text(json.dumps(counts))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


def _gate(repo: Path, base: str, head: str, sim: FakeSim, valgrind: str | None = "3.19.0") -> int:
    out: list[str] = []
    opts = GateOptions(base=base, head=head, repo=repo, report_dir=repo / "out")
    return gate.run(opts, hooks(FakeSides(), out, sim=sim, valgrind=valgrind))


def _verdict(repo: Path) -> dict:
    return json.loads((repo / "out" / "verdict.json").read_text())


def _sim_cases(repo: Path) -> list[dict]:
    return [c for c in _verdict(repo)["cases"] if c["benchmark"].startswith("sim_suite.")]


def test_aa_counts_the_base_twice_and_passes(tmp_path: Path) -> None:
    """Identical counts: exit 0; the base ran twice and the head once, in one batch, into
    folders whose names have one length; the wall case the sim case covers is no blind spot."""
    repo = make_repo(tmp_path, SIM_CONFIG)
    base = _commit_sim(repo, SAME, "counts")
    sim = FakeSim()
    assert _gate(repo, base, base, sim) == 0
    assert sim.runs == [[("base", "sim-base-1"), ("head", "sim-head-1"), ("base", "sim-base-2")]]
    assert sim.prepared == [("base", "sim-prep-base"), ("head", "sim-prep-head")]  # first
    (case,) = _sim_cases(repo)
    assert case["verdict"] == "unchanged" and case["ratio"] == 1.0
    seen = {v["case"]: v for v in _verdict(repo)["visibility"]}
    numpy_wall = next(k for k in seen if k.startswith("suite.Kernel.time_run(path=numpy"))
    assert seen[numpy_wall]["covered_by"].startswith("sim_suite.SimKernel.track_cycles")
    assert not seen[numpy_wall]["blind_spot"]


def test_the_timeline_records_the_sim_phase_apart_from_set_up(tmp_path: Path) -> None:
    """The run's timeline.json holds the sim phase (its family: one counted case, three
    counting runs) for a later --plan; set-up no longer includes it."""
    from perfgate.formats.timeline import read_timeline

    repo = make_repo(tmp_path, SIM_CONFIG)
    base = _commit_sim(repo, SAME, "counts")
    assert _gate(repo, base, base, FakeSim()) == 0
    (run_dir,) = (repo / ".perfgate" / "runs").iterdir()
    times = read_timeline(run_dir)
    assert times is not None
    phase = times.phase("sim")
    assert phase is not None and phase.seconds >= 0
    assert [(f.family, f.cases, f.runs) for f in phase.families] == [("sim_suite", 1, 3)]
    report = (repo / "out" / "report.md").read_text()
    assert "| sim | sim\\_suite 1 case(s) x 3 count(s) | – |" in report  # no earlier run
    assert "| wall: main rounds | 6 round(s) | – |" in report


def test_one_percent_more_work_blocks_from_one_count_per_side(tmp_path: Path) -> None:
    """1.5% more cycles at head (threshold 1%): exit 1 naming that case and what moved."""
    repo = make_repo(tmp_path, SIM_CONFIG)
    base = _commit_sim(repo, SAME, "counts")
    slower = {"numpy": {"cycles": 9.135e6, "instructions": 8.13e6, "l1": 1e4, "ll": 100.0}}
    head = _commit_sim(repo, slower, "more work")
    assert _gate(repo, base, head, FakeSim()) == 1
    reasons = _verdict(repo)["reasons"]
    assert any(
        "sim_suite.SimKernel.track_cycles(path=numpy, n=8)" in r and "1.0150" in r for r in reasons
    )
    assert any("instructions +1.63%" in r for r in reasons)


def test_a_machine_that_does_not_count_the_same_twice_is_refused(tmp_path: Path) -> None:
    """The base's two counts 1% apart in cycles and instructions (more than half the 1%
    threshold): exit 3 naming the case."""
    repo = make_repo(tmp_path, SIM_CONFIG)
    jitter = {"numpy": {**SAME["numpy"], "jitter": 90_000.0, "ijitter": 80_000.0}}
    base = _commit_sim(repo, jitter, "counts")
    assert _gate(repo, base, base, FakeSim()) == 3
    reasons = " ".join(_verdict(repo)["reasons"])
    assert "sim_suite.SimKernel.track_cycles(path=numpy, n=8)" in reasons
    assert "differ by 1.000% or more" in reasons and "not deterministic enough" in reasons


def test_a_case_whose_cycles_follow_the_layout_is_decided_on_its_instructions(
    tmp_path: Path,
) -> None:
    """The base's second count (its layout shifted) moves the cycles 3% and not the
    instructions: the case is decided on instructions; an A/A passes, and 1.5% more
    instructions at head blocks though its cycles moved less than the layout's 3%."""
    repo = make_repo(tmp_path, SIM_CONFIG)
    layout = {"numpy": {**SAME["numpy"], "jitter": 270_000.0}}
    base = _commit_sim(repo, layout, "counts")
    assert _gate(repo, base, base, FakeSim()) == 0
    (case,) = _sim_cases(repo)
    assert case["verdict"] == "unchanged" and case["figure"] == "instructions"
    assert "decided on instructions (+0.00%)" in case["note"] and "3.00%" in case["note"]
    more = {"numpy": {**layout["numpy"], "instructions": 8.12e6, "cycles": 9.1e6}}
    head = _commit_sim(repo, more, "more instructions")
    assert _gate(repo, base, head, FakeSim()) == 1
    reasons = " ".join(_verdict(repo)["reasons"])
    assert "simulated instructions ratio 1.0150" in reasons
    assert "memory layout alone" in reasons


def test_counts_under_another_valgrind_or_caches_are_never_compared(tmp_path: Path) -> None:
    """The head's figures carry another benchmark version (another valgrind or simulated
    caches): not comparable, exit 3."""
    repo = make_repo(tmp_path, SIM_CONFIG)
    base = _commit_sim(repo, SAME, "counts")
    assert _gate(repo, base, base, FakeSim(versions=("sim-1", "sim-2", "sim-1"))) == 3
    (case,) = _sim_cases(repo)
    assert case["verdict"] == "inconclusive" and "version differs" in case["note"]


def test_a_named_sim_instrument_without_valgrind_is_an_error_before_any_work(
    tmp_path: Path,
) -> None:
    """instruments names sim and valgrind is not installed: exit 3 with the install command,
    before parity runs and before anything is measured."""
    repo = make_repo(tmp_path, SIM_CONFIG.replace('["{python}", "-c", "pass"]', '["false"]'))
    base = _commit_sim(repo, SAME, "counts")
    sim = FakeSim()
    assert _gate(repo, base, base, sim, valgrind=None) == 3
    assert sim.runs == []
    reasons = " ".join(_verdict(repo)["reasons"])
    assert "valgrind is not installed" in reasons and "apt-get install -y valgrind" in reasons


def test_unset_instruments_without_valgrind_run_the_wall_clock_and_say_so(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path)
    base = _commit_sim(repo, SAME, "counts")
    sim = FakeSim()
    out: list[str] = []
    opts = GateOptions(base=base, head=base, repo=repo, report_dir=repo / "out")
    assert gate.run(opts, hooks(FakeSides(), out, sim=sim, valgrind=None)) == 0
    assert sim.runs == [] and _sim_cases(repo) == []
    assert "sim instrument: off, valgrind is not installed" in out[0]


def test_a_sim_case_failing_at_head_blocks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, SIM_CONFIG)
    base = _commit_sim(repo, SAME, "counts")
    head = _commit_sim(repo, {"numpy": {**SAME["numpy"], "fail": True}}, "breaks")
    assert _gate(repo, base, head, FakeSim()) == 1
    (case,) = _sim_cases(repo)
    assert case["verdict"] == "failed"
    subprocess.run(["git", "status"], cwd=repo, check=True, capture_output=True)


def _calibrated(repo: Path, sim: FakeSim) -> str:
    """`perfgate calibrate` of HEAD with the sim instrument, stored on perf-results."""
    out: list[str] = []
    opts = GateOptions(base="HEAD", head="HEAD", repo=repo)
    assert calibrate_cmd.run(opts, 6, hooks(FakeSides(), out, sim=sim, valgrind="3.19.0")) == 0
    assert "| sim case | counts | largest difference |" in out[0]
    folder = next((repo / ".perfgate" / "noise").iterdir())
    (path,) = folder.glob("*.json")
    append_noise(repo, path, str(repo), "perf-results")
    return "perf-results"


def test_a_calibrated_machine_counts_the_base_once(tmp_path: Path) -> None:
    """calibrate counts every sim case three times and stores how far apart they were; a
    gate on that machine, with figures of the same version, counts base and head once."""
    repo = make_repo(tmp_path, SIM_CONFIG)
    base = _commit_sim(repo, SAME, "counts")
    calibration = FakeSim()
    ref = _calibrated(repo, calibration)
    assert len(calibration.runs[0]) == 3
    doc = json.loads(next((repo / ".perfgate" / "noise").rglob("*.json")).read_text())
    assert [(c["benchmark"], c["spread"], c["counts"]) for c in doc["sim"]] == [
        ("sim_suite.SimKernel.track_cycles", 0.0, 3)
    ]
    sim = FakeSim()
    opts = GateOptions(base=base, head=base, repo=repo, report_dir=repo / "out", floors_ref=ref)
    assert gate.run(opts, hooks(FakeSides(), [], sim=sim, valgrind="3.19.0")) == 0
    assert sim.runs == [[("base", "sim-base-1"), ("head", "sim-head-1")]]
    (case,) = _sim_cases(repo)
    assert case["verdict"] == "unchanged"


def test_a_check_of_another_version_does_not_count(tmp_path: Path) -> None:
    """Figures of another version (valgrind upgraded since the calibration): the gate
    counts the base again, and decides from that."""
    repo = make_repo(tmp_path, SIM_CONFIG)
    base = _commit_sim(repo, SAME, "counts")
    ref = _calibrated(repo, FakeSim())
    sim = FakeSim(versions=("sim-2", "sim-2", "sim-2"))
    opts = GateOptions(base=base, head=base, repo=repo, report_dir=repo / "out", floors_ref=ref)
    assert gate.run(opts, hooks(FakeSides(), [], sim=sim, valgrind="3.19.0")) == 0
    assert sim.runs == [[("base", "sim-base-1"), ("head", "sim-head-1")], [("base", "sim-base-2")]]


def test_a_bench_of_the_sim_family_alone_runs_no_wall_round(tmp_path: Path) -> None:
    """--bench naming sim cases only: the wall clock has nothing to measure and is skipped
    (no asv round), the sim instrument decides."""
    import dataclasses

    from gate_fakes import BENCHMARKS_JSON, sim_benchmarks_json

    from perfgate.formats.benchmarks_json import parse_benchmarks

    repo = make_repo(tmp_path, SIM_CONFIG)
    base = _commit_sim(repo, SAME, "counts")
    sides, sim = FakeSides(), FakeSim()
    both = {**BENCHMARKS_JSON, **sim_benchmarks_json()}

    def discover(_settings: object, _side: str, folder: Path) -> object:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "benchmarks.json").write_text(json.dumps(both))
        return parse_benchmarks(both)

    found = dataclasses.replace(hooks(sides, [], sim=sim, valgrind="3.19.0"), discover=discover)
    opts = GateOptions(
        base=base, head=base, repo=repo, report_dir=repo / "out", bench=("^sim_suite",)
    )
    assert gate.run(opts, found) == 0
    assert sides.calls == [] and len(sim.runs) == 1
    (case,) = _sim_cases(repo)
    assert case["verdict"] == "unchanged"


VECTOR_ASM = "\t.type\tk,@function\nk:\n\tvaddpd\t%ymm0, %ymm1, %ymm1\n\tjne\t.L1\n\tretq\n"
ALLOC_ASM = "\t.type\tk,@function\nk:\n\tcallq\t*%rcx\n\tvaddsd\t%xmm0, %xmm1, %xmm1\n\tretq\n"
KEPT = {
    "cycles": 9e6, "instructions": 8e6, "l1": 1e4, "ll": 100.0, "kernels": ["motion_kernel"],
    "functions": {"motion_kernel": 7.9e6, "main": 1e5}, "code": {"motion_kernel": VECTOR_ASM},
}  # fmt: skip


def _attribution(repo: Path) -> str:
    """The report's "where it moved" section ("" when there is none)."""
    text = (repo / "out" / "report.md").read_text()
    start = text.find("#### Where it moved")
    return text[start : text.index("#### Improvements", start)] if start >= 0 else ""


def test_an_a_a_run_keeps_profiles_and_attributes_nothing(tmp_path: Path) -> None:
    """Both sides kept their functions tables and code: nothing beyond the threshold, so
    no attribution section."""
    repo = make_repo(tmp_path, SIM_CONFIG)
    base = _commit_sim(repo, {"numpy": KEPT}, "counts")
    sim = FakeSim()
    assert _gate(repo, base, base, sim) == 0
    assert _attribution(repo) == ""
    kept = {name: Path(folder).name for name, folder in sim.keeping.items()}
    assert kept == {  # a side prepares and counts into one folder; the layout check keeps none
        "sim-prep-base": "sim-kept-base", "sim-base-1": "sim-kept-base",
        "sim-prep-head": "sim-kept-head", "sim-head-1": "sim-kept-head",
    }  # fmt: skip
    table = Path(sim.keeping["sim-head-1"]) / "sim_suite.SimKernel" / "cases" / "numpy-8"
    assert (table / "functions.json").is_file()


def test_work_added_around_the_kernel_is_named_first(tmp_path: Path) -> None:
    """+1.5% cycles, a NumPy reduction after an unchanged kernel: exit 1, the
    reduction named first, the kernel unchanged and its machine code too."""
    repo = make_repo(tmp_path, SIM_CONFIG)
    base = _commit_sim(repo, {"numpy": KEPT}, "counts")
    functions = {**KEPT["functions"], "FLOAT_pairwise_sum": 1.2e5}  # type: ignore[dict-item]
    slower = {**KEPT, "cycles": 9.135e6, "instructions": 8.12e6, "functions": functions}
    head = _commit_sim(repo, {"numpy": slower}, "a reduction after the kernel")
    assert _gate(repo, base, head, FakeSim()) == 1
    section = _attribution(repo)
    assert "**FLOAT\\_pairwise\\_sum** moved most, +120k cycles" in section
    assert "unchanged kernels: motion\\_kernel" in section
    assert "- **motion\\_kernel**: machine code unchanged" in section


def test_work_added_inside_the_kernel_names_it_with_its_code_difference(tmp_path: Path) -> None:
    """The kernel itself grew and went scalar and allocating: exit 1, the kernel named
    first (as a Numba kernel), its code summary showing the difference."""
    repo = make_repo(tmp_path, SIM_CONFIG)
    base = _commit_sim(repo, {"numpy": KEPT}, "counts")
    functions = {"motion_kernel": 8.03e6, "main": 1e5}
    slower = {**KEPT, "cycles": 9.135e6, "instructions": 8.13e6, "functions": functions,
              "code": {"motion_kernel": ALLOC_ASM}}  # fmt: skip
    head = _commit_sim(repo, {"numpy": slower}, "more work in the kernel")
    assert _gate(repo, base, head, FakeSim()) == 1
    section = _attribution(repo)
    assert "**motion\\_kernel** (Numba kernel) moved most, +130k cycles" in section
    assert "- **motion\\_kernel**: branches 1 -&gt; 0, calls 0 -&gt; 1" in section
    html = (repo / "out" / "report.html").read_text()
    assert "<strong>motion_kernel</strong> (Numba kernel) moved most" in html
