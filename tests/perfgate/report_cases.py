"""Gate reports as a quick gate writes them (fixed numbers, no randomness): a PASS with blind
spots, a REGRESSION, a PARITY failure and a benchmark broken on both sides, and with the sim
instrument beside the wall clock a PASS and a regression only the simulator saw, for the
golden files and the screenshot tests of the report's first screen."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from perfgate.config import BaselinePair, SimConfig
from perfgate.config_files import load_config
from perfgate.gate.decide import decide, parity_failure_decision
from perfgate.model import (
    CaseComparison,
    CaseKey,
    EnvironmentCheck,
    ParityResult,
    ParityStatus,
    Reason,
    VariantComparison,
)
from perfgate.report.render import Report
from perfgate.verdict import CaseVerdict

CONFIG = dataclasses.replace(
    load_config(Path(__file__).parent / "data" / "pyproject-perfgate.toml"),
    confirm=True,
    source="pyproject.toml at base",
)
PAIR = BaselinePair("path", "assembled", "handwritten", "numpy", threshold=0.05)
BENCH = "hot_slice.HotSlice.time_compute"
BASE, HEAD = "1111111122222222333333334444444455555555", "aaaaaaaabbbbbbbbccccccccdddddddde0e0e0e0"
ENV = {"machine": "vm-2core", "cpu": "AMD EPYC", "threading_layer": "omp"}
COMMAND = "perfgate gate --base HEAD --head HEAD --quick"


def key(task: str, path: str | None, n: int = 2048, threads: int = 1) -> CaseKey:
    """A hot-slice case of the quick grid (``path`` None: a variant pair's key)."""
    params = [("task", task), ("profile", "sac_default")]
    params += [("path", path)] if path else []
    params += [("num_envs", str(n)), ("threads", str(threads))]
    return CaseKey(BENCH, tuple(params))


def row(
    k: CaseKey,
    ratio: float,
    ci: tuple[float, float],
    verdict: CaseVerdict = CaseVerdict.UNCHANGED,
    threshold: float = 0.05,
    rounds: int = 9,
) -> CaseComparison:
    """A paired head-vs-base row with its ratio and CI."""
    base = 3e-4
    return CaseComparison(
        k, verdict, threshold, True, n_base=rounds, n_head=rounds, base_median=base,
        head_median=base * ratio, ratio=ratio, ci_low=ci[0], ci_high=ci[1],
        p=0.4 if verdict is CaseVerdict.UNCHANGED else 0.002,
        q=0.6 if verdict is CaseVerdict.UNCHANGED else 0.01, paired=True,
    )  # fmt: skip


def _rows(slow: float) -> list[CaseComparison]:
    """Six quick-grid cases; ``slow`` is the ratio of the hand-written G1 case."""
    straddle = CaseVerdict.INCONCLUSIVE
    g1_hand = (
        row(key("g1_walk", "handwritten"), slow, (1.21, 1.27), CaseVerdict.REGRESSED)
        if slow > 1.1
        else row(key("g1_walk", "handwritten"), 1.004, (0.990, 1.018))
    )
    return [
        row(key("g1_walk", "assembled"), 1.012, (0.940, 1.101), straddle),
        g1_hand,
        row(key("g1_walk", "numpy"), 0.991, (0.980, 1.003)),
        row(key("motion_tracking", "assembled"), 0.975, (0.902, 1.064), straddle),
        row(key("motion_tracking", "handwritten"), 1.020, (0.935, 1.143), straddle),
        row(key("motion_tracking", "numpy"), 0.905, (0.890, 0.921), CaseVerdict.IMPROVED),
    ]


def _variants() -> list[VariantComparison]:
    out = []
    for task, ratio in (("g1_walk", 0.871), ("motion_tracking", 1.012)):
        k = key(task, None)
        verdict = CaseVerdict.IMPROVED if ratio < 0.95 else CaseVerdict.UNCHANGED
        absolute = row(k, ratio, (ratio - 0.02, ratio + 0.02), verdict)
        relative = row(k, 1.003, (0.981, 1.028))
        out.append(VariantComparison(PAIR, absolute, 3e-3, relative=relative))
    return out


def _report(rows: list[CaseComparison], notes: tuple[str, ...] = ()) -> Report:
    parity = ParityResult(ParityStatus.PASSED, "python -m pytest -q tests/termplan/tasks")
    env = EnvironmentCheck(ENV, ENV)
    variants = _variants()
    decision = decide(rows, variants, CONFIG, parity=parity, environment=env)
    return Report(
        decision, CONFIG, BASE, HEAD, "vm-2core", COMMAND, rows=rows, variants=variants,
        parity=parity, environment=env, notes=notes,
    )  # fmt: skip


def pass_with_blind_spots() -> Report:
    """Nothing blocked; three cases whose CI straddles the threshold (blind spots)."""
    return _report(_rows(slow=1.0))


def regression() -> Report:
    """The hand-written G1 case is stably 24% slower."""
    return _report(_rows(slow=1.24))


def parity_failure() -> Report:
    """Parity failed at head: nothing was measured."""
    parity = ParityResult(
        ParityStatus.FAILED,
        "python -m pytest -q tests/termplan/tasks",
        "failing: tests/termplan/tasks/g1_walk/test_g1_parity.py::test_paths_agree[sac_default]",
    )
    return Report(
        parity_failure_decision(parity), CONFIG, BASE, HEAD, "vm-2core", COMMAND, parity=parity
    )


#: asv's account of the broken case (`perfgate.formats.asv_output.failure_texts`).
BROKEN_ERROR = (
    "ValueError: x and y coordinate lengths do not match (bench_grid.py, line 41, in time_grid)"
)


def broken_on_both() -> Report:
    """An A/A run whose one benchmark fails at base and head with a bug of its own (issue
    38): named as broken on both sides with asv's error, exit 3 by the default policy; and
    a case whose wide CI reaches below the threshold band, labelled undecided."""
    broken = CaseComparison(
        CaseKey("bench_grid.Grid.time_grid", (("n", "64"),)), CaseVerdict.BROKEN, 0.05, True,
        failed_side="both", reason=Reason.BROKEN_ON_BOTH,
        note=f"{Reason.BROKEN_ON_BOTH.value}: {BROKEN_ERROR}",
    )  # fmt: skip
    # issue 38's pair: not slower, but whether it got faster is undecided (not "= same")
    wide = row(key("g1_walk", "numpy", n=512), 0.619, (0.582, 0.970))
    return _report([*_rows(slow=1.0), wide, broken])


REPORTS = {
    "pass_blind": pass_with_blind_spots,
    "regression": regression,
    "parity_failure": parity_failure,
    "broken": broken_on_both,
}


SIM_CONFIG = dataclasses.replace(
    CONFIG,
    blocking=(*CONFIG.blocking, r"^sim_hot_slice\."),
    sim=SimConfig(bench=(r"^sim_hot_slice\.",), wall=BENCH),
)
SIM_BENCH = "sim_hot_slice.SimHotSlice.track_cycles"


def sim_row(
    task: str, path: str, ratio: float, moved: str = "", figure: str = "cycles"
) -> CaseComparison:
    """A sim case of the quick grid counted once per side (base twice), decided on
    ``figure``."""
    params = (("task", task), ("profile", "sac_default"), ("path", path), ("num_envs", "2048"))
    verdict = CaseVerdict.REGRESSED if ratio > 1.01 else CaseVerdict.UNCHANGED
    reason = Reason.SIM_CHANGED if ratio > 1.01 else Reason.SIM_WITHIN
    note = moved or "identical counts on both sides"
    text = reason.text(direction="slower", moved=note, threshold=0.01)
    return CaseComparison(
        CaseKey(SIM_BENCH, params), verdict, 0.01, True, n_base=2, n_head=1,
        base_median=2e6, head_median=2e6 * ratio, ratio=ratio, ci_low=ratio, ci_high=ratio,
        note=text, unit=figure, reason=reason, instrument="sim", figure=figure,
    )  # fmt: skip


#: what a motion_tracking case whose cycles follow the layout says in the reports
LAYOUT_MOVED = (
    "decided on instructions (+0.00%): the estimated cycles of two counts of the base moved "
    "3.05% with the memory layout alone; identical counts on both sides"
)


def _sim_case(task: str, path: str) -> CaseComparison:
    """An unchanged quick-grid case: motion_tracking's decided on instructions."""
    if task == "motion_tracking" and path != "numpy":
        return sim_row(task, path, 1.0, LAYOUT_MOVED, figure="instructions")
    return sim_row(task, path, 1.0)


def _sim_report(sim_rows: list[CaseComparison]) -> Report:
    rows = [*_rows(slow=1.0), *sim_rows]
    parity = ParityResult(ParityStatus.PASSED, "python -m pytest -q tests/termplan/tasks")
    env = EnvironmentCheck(ENV, ENV)
    variants = _variants()
    decision = decide(rows, variants, SIM_CONFIG, parity=parity, environment=env)
    note = "sim instrument: callgrind of valgrind 3.19.0"
    return Report(
        decision, SIM_CONFIG, BASE, HEAD, "vm-2core", COMMAND, rows=rows, variants=variants,
        parity=parity, environment=env, notes=(note,),
    )  # fmt: skip


def sim_pass() -> Report:
    """Both instruments: the wall clock's straddling cases are counted by the simulator."""
    cases = [(t, p) for t in ("g1_walk", "motion_tracking") for p in PATHS]
    return _sim_report([_sim_case(t, p) for t, p in cases])


def sim_regression() -> Report:
    """1.4% more simulated cycles in the hand-written G1 case, unseen by the wall clock."""
    moved = "cycles +1.40%: instructions +1.52% (the largest share of the change)"
    cases = [(t, p) for t in ("g1_walk", "motion_tracking") for p in PATHS]
    rows = [
        sim_row(t, p, 1.014, moved) if (t, p) == ("g1_walk", "handwritten") else _sim_case(t, p)
        for t, p in cases
    ]
    return _sim_report(rows)


PATHS = ("numpy", "handwritten", "assembled")
REPORTS["sim_pass"] = sim_pass
REPORTS["sim_regression"] = sim_regression
