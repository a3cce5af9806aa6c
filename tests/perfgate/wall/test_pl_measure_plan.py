"""The measure stage with the planner: rounds go to what can block, within the budget."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from gate_fakes import CASES, FakeSides, hooks, make_repo

from perfgate.asv import side_run
from perfgate.config import GateConfig
from perfgate.formats.benchmarks_json import parse_benchmarks
from perfgate.gate import run as gate
from perfgate.instrument import Bench, Calibration
from perfgate.model import CaseKey, Round
from perfgate.progress import Progress
from perfgate.settings import GateOptions, GateSettings
from perfgate.wall import measure, plan, sampling
from perfgate.wall.face import budget_start

HOT = CaseKey("hot.T.time_run")
COMPILE = CaseKey("compile_time.T.track_s")
SUITE = {
    "version": 2,
    HOT.benchmark: {"params": [], "param_names": [], "unit": "seconds", "version": "1"},
    COMPILE.benchmark: {"params": [], "param_names": [], "unit": "seconds", "version": "1"},
}


class Sides:
    """A side runner for two cases, one of a family that cannot block; records selections."""

    def __init__(self, hot_s: float = 1.0, spread: float = 0.01) -> None:
        self.benches: list[tuple[str, ...]] = []
        self.attributes: list[dict[str, str]] = []
        self.hot_s = hot_s
        self.spread = spread

    def __call__(
        self, _s: GateSettings, _side: str, _dir: Path, bench: Sequence[str]
    ) -> side_run.SideRun:
        self.benches.append(tuple(bench))
        self.attributes.append(dict(_s.attributes))
        keys = [k for k in (HOT, COMPILE) if any(re.search(b, k.benchmark) for b in bench)]
        out = {k: (1e-3, 1e-3 * (1 + self.spread), 1e-3 * (1 - self.spread)) for k in keys}
        durations = {k.benchmark: self.hot_s if k == HOT else 50.0 for k in keys}
        return side_run.SideRun(out, parse_benchmarks(SUITE), durations)


def _measurer(tmp_path: Path, sides: Sides, budget_s: float = 3600.0) -> measure.Measurer:
    config = GateConfig(blocking=(r"^hot\.",), min_samples=3, max_rounds=3, confirm=False)
    settings = GateSettings(
        repo=tmp_path, base="a" * 40, head="a" * 40, base_source=tmp_path,
        head_source=tmp_path, config=config, asv_conf={}, benchmark_dir=tmp_path,
        machine="m", bench=(".",), run_dir=tmp_path / "run", budget_s=budget_s, env={},
    )  # fmt: skip
    (tmp_path / "run").mkdir()
    return measure.Measurer(settings, {}, sides)


def _ran(rounds: Sequence[Round]) -> list[set[CaseKey]]:
    return [set(r.base) | set(r.head) for r in rounds]


def test_cases_that_cannot_block_are_measured_once(tmp_path: Path) -> None:
    """Compile time runs in the first round only; the blocking case gets min_samples."""
    main, extra, exhausted = measure.run_main_phase(_measurer(tmp_path, Sides()), {}, print)
    assert _ran(main.rounds) == [{HOT, COMPILE}, {HOT}, {HOT}]
    assert not exhausted and extra == 0


def test_costs_come_from_asv_durations(tmp_path: Path) -> None:
    """Each case costs its benchmark's duration on both sides."""
    m = _measurer(tmp_path, Sides(hot_s=2.0))
    measure.run_main_phase(m, {}, print)
    assert m.costs == {HOT: 4.0, COMPILE: 100.0}


def test_the_budget_bounds_the_min_samples_rounds(tmp_path: Path) -> None:
    """A round of the blocking case that does not fit is not run: the budget is exhausted."""
    m = _measurer(tmp_path, Sides(hot_s=600.0), budget_s=900.0)
    main, _, exhausted = measure.run_main_phase(m, {}, print)
    assert len(main.rounds) == 1 and exhausted


def test_no_confirmation_round_starts_that_the_budget_cannot_hold(tmp_path: Path) -> None:
    """A flagged case whose round costs 2000 s (known from the main phase), a re-run budget
    of 300 s: the confirmation used to run its min_samples rounds whatever the budget; now
    none starts, the log says so, and the logs carry no confirmation (its case undecided)."""
    m = _measurer(tmp_path, Sides(), budget_s=600.0)
    m.settings = replace(m.settings, config=replace(m.settings.config, confirm=True))
    m.costs = {HOT: 2000.0}
    said: list[str] = []
    targets = sampling.ConfirmTargets({}, {}, (HOT,))
    confirm = measure.run_confirmation(m, targets, {}, said.append)
    assert confirm.rounds == []
    assert any("does not fit; not started" in line for line in said)
    (tmp_path / "roomy").mkdir()
    roomy = _measurer(tmp_path / "roomy", Sides(), budget_s=600.0)
    roomy.costs, roomy.names = {HOT: 2.0}, {HOT: HOT.benchmark}
    assert len(measure.run_confirmation(roomy, targets, {}, print).rounds) == 3


def test_a_report_only_selection_keeps_every_case_in_every_round(tmp_path: Path) -> None:
    """No case can block: nothing else to spend rounds on, so all cases get min_samples."""
    m = _measurer(tmp_path, Sides())
    m.settings = GateSettings(**{**m.settings.__dict__, "config": GateConfig(
        blocking=(r"^nothing",), min_samples=3, max_rounds=3, confirm=False)})  # fmt: skip
    main, _, _ = measure.run_main_phase(m, {}, print)
    assert _ran(main.rounds) == [{HOT, COMPILE}] * 3


@pytest.mark.subprocess
def test_blocking_cases_left_short_by_the_budget_are_exit_3_and_named(tmp_path: Path) -> None:
    """A budget too small for min_samples rounds: never a pass; the short cases are named."""
    repo = make_repo(tmp_path)
    out: list[str] = []
    opts = GateOptions(
        base="HEAD", head="HEAD", repo=repo, report_dir=repo / "out", budget_minutes=1e-6
    )
    assert gate.run(opts, hooks(FakeSides(), out)) == 3
    verdict = json.loads((repo / "out" / "verdict.json").read_text())
    assert verdict["verdict"] == "error"
    for key in CASES.values():
        assert key.label() in "\n".join(verdict["reasons"])


def test_the_planner_sets_asv_repeat_for_noisy_cases(tmp_path: Path) -> None:
    """A case noisy in the first round runs later rounds with more samples (asv -a repeat)."""
    sides = Sides(spread=0.1)
    measure.run_main_phase(_measurer(tmp_path, sides), {}, print)
    assert sides.attributes[:2] == [{"rounds": "1"}] * 2  # first round: the suite's own
    assert sides.attributes[2:] == [{"rounds": "1", "repeat": "(20, 20, 10)"}] * 4
    assert all(len(b) == 1 for b in sides.benches[2:])  # only the blocking case


def test_no_more_samples_when_the_budget_cannot_pay_for_them(tmp_path: Path) -> None:
    """The same noisy case with a budget that only just fits min_samples rounds: its later
    rounds keep the suite's samples (the raise would have left the run short)."""
    sides = Sides(hot_s=100.0, spread=0.1)  # the blocking case: 200 s a round, both sides
    m = _measurer(tmp_path, sides, budget_s=500.0)  # 3/4 of 500 s for 2 rounds < 2 x 200 s
    main, _, exhausted = measure.run_main_phase(m, {}, print)
    assert len(main.rounds) == 3 and not exhausted
    assert sides.attributes[2:] == [{"rounds": "1"}] * 4
    assert m.round_slack([HOT], main) == 0.0  # min_samples reached: nothing left to plan


def test_cases_with_different_attributes_run_in_separate_asv_runs(tmp_path: Path) -> None:
    """Two attribute sets: two asv runs per side, results merged into one round."""
    sides = Sides()
    m = _measurer(tmp_path, sides)
    log = measure.RoundLog("main")
    m.run_round(log, None)  # names the cases
    m.case_attributes = {HOT: {"repeat": "(10, 10, 10)"}, COMPILE: {}}
    m.run_round(log, [HOT, COMPILE])
    assert _ran(log.rounds) == [{HOT, COMPILE}] * 2
    assert len(sides.benches) == 2 + 4
    assert {"rounds": "1", "repeat": "(10, 10, 10)"} in sides.attributes[2:]
    assert {"rounds": "1"} in sides.attributes[2:]


OTHER = CaseKey("hot.T.time_other")


def _extra_measurer(tmp_path: Path, left_s: float) -> tuple[measure.Measurer, measure.RoundLog]:
    """A measurer after one (instant) round with ``left_s`` of budget left; HOT costs 10 s a
    round, OTHER 100 s."""
    m = _measurer(tmp_path, Sides())
    log = measure.RoundLog("main")
    log.rounds.append(Round(0, "main", ("base", "head"), {}, {}, 0.0))
    m.costs = {HOT: 10.0, OTHER: 100.0}
    m.deadline = measure.time.monotonic() + left_s
    return m, log


def test_an_extra_round_runs_every_undecided_case_while_the_suspects_keep_their_rounds(
    tmp_path: Path,
) -> None:
    """The whole round fits and leaves SUSPECT_ROUNDS rounds of the suspect: all of it."""
    m, log = _extra_measurer(tmp_path, 110.0 + 10.0 * measure.SUSPECT_ROUNDS + 5.0)
    todo = sampling.ExtraRound((HOT, OTHER), (HOT,))
    assert m.extra_round(log, todo) == (HOT, OTHER)


def test_the_budgets_last_rounds_go_to_the_suspected_regressions(tmp_path: Path) -> None:
    """Not enough left for everything and the suspect's reserve: the suspect alone; of
    several, the most evident ones that fit; nothing when not even one fits; without
    suspects the whole round (no reserve to keep)."""
    m, log = _extra_measurer(tmp_path, 110.0 + 10.0 * measure.SUSPECT_ROUNDS - 5.0)
    assert m.extra_round(log, sampling.ExtraRound((HOT, OTHER), (HOT,))) == (HOT,)
    assert m.extra_round(log, sampling.ExtraRound((HOT, OTHER), ())) == (HOT, OTHER)
    m.deadline = measure.time.monotonic() + 105.0
    assert m.extra_round(log, sampling.ExtraRound((HOT, OTHER), (OTHER, HOT))) == (OTHER,)
    m.deadline = measure.time.monotonic() + 5.0
    assert m.extra_round(log, sampling.ExtraRound((HOT, OTHER), (HOT,))) == ()


def test_extra_rounds_end_where_the_whole_runs_budget_ends(tmp_path: Path) -> None:
    """The measurer's own deadline would pay for another round, but the gate run began
    earlier (set-up, parity, the sim phase): the optional extra rounds stop where the run's
    budget ends, less the seconds the report needs; without a run start, the measurer's."""
    m, log = _extra_measurer(tmp_path, 1000.0)
    todo = sampling.ExtraRound((HOT,), ())
    assert m.extra_round(log, todo) == (HOT,)
    budget = m.settings.budget_s
    m.run_started = measure.time.monotonic() - budget + measure.FINISH_S + 15.0
    assert m.extra_round(log, todo) == (HOT,)  # 15 s left: a 10 s round fits
    m.run_started = measure.time.monotonic() - budget + measure.FINISH_S + 5.0
    assert m.extra_round(log, todo) == ()  # 5 s left: it does not


def test_the_wall_clocks_budget_starts_with_the_run_less_the_other_instruments(
    tmp_path: Path,
) -> None:
    """Set-up and parity count against the budget; the sim phase measured before the wall
    clock does not (it comes on top): the budget's start moves on by its seconds."""
    m = _measurer(tmp_path, Sides())
    bench = Bench(m.settings, Calibration(), None, print, Progress(print), started=100.0)
    assert budget_start(bench) == 100.0
    assert budget_start(replace(bench, others_s=204.0)) == 304.0
    assert budget_start(replace(bench, started=0.0)) is None


class _Clock:
    """A monotonic clock the fake asv runs move on (no real timing)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class _ScatteredSides:
    """Each side's asv run takes its cases' durations and 1 s of asv's own on ``clock``;
    the head is 5% slower (the threshold) and samples scatter by 10% (seeded): the blocking
    case's CI keeps straddling the threshold, undecided round after round."""

    def __init__(self, clock: _Clock, seed: int) -> None:
        self.clock, self.rng = clock, np.random.default_rng(seed)

    def __call__(
        self, _s: GateSettings, side: str, _dir: Path, bench: Sequence[str]
    ) -> side_run.SideRun:
        keys = [k for k in (HOT, COMPILE) if any(re.search(b, k.benchmark) for b in bench)]
        slow = 1.05 if side == "head" else 1.0
        out = {k: tuple(slow * 1e-3 * (1 + 0.1 * self.rng.standard_normal(5))) for k in keys}
        durations = {k.benchmark: 4.0 if k == HOT else 25.0 for k in keys}
        self.clock.now += sum(durations.values()) + 1.0
        return side_run.SideRun(out, parse_benchmarks(SUITE), durations)


@pytest.mark.parametrize(("seed", "budget_s"), [(1, 360.0), (2, 360.0), (3, 150.0), (4, 900.0)])
def test_the_plans_upper_bound_holds_a_run_whose_cases_stay_undecided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, budget_s: float
) -> None:
    """The gate's own scheduling (main rounds, extra rounds for the undecided case, the
    confirmation of any it flags) on a clock its fake asv runs move: the run never outlasts
    the plan's upper bound for the same costs and asv overhead, and the plan's expected
    figure, with no earlier run, is not below the rounds it ran before confirming. The four
    seeds and budgets give: extra rounds until the case decided (150 s of 360), to
    max_rounds (350 s), to the budget (140 s of 150) and a confirmation (260 s of 900)."""
    clock = _Clock()
    monkeypatch.setattr(measure.time, "monotonic", clock)
    config = GateConfig(blocking=(r"^hot\.",), min_samples=6, max_rounds=30, confirm=True)
    m = _measurer(tmp_path, _ScatteredSides(clock, seed), budget_s=budget_s)
    m.settings = replace(m.settings, config=config)
    m = measure.Measurer(m.settings, {}, m.side_runner, started=clock.now, run_started=clock.now)
    said: list[str] = []
    logs = measure.measure_logs(m, {}, said.append)
    elapsed = clock.now - m.started
    overheads = plan.Overheads(first_round_s=2.0, later_round_s=2.0, extra_s=None)
    planned = plan.plan_rounds({HOT: 8.0, COMPILE: 50.0}, config, budget_s, "t", overheads)
    assert len(logs.main.rounds) > config.min_samples  # extra rounds for the undecided case
    assert elapsed <= planned.upper_s
    main_s = sum(r.seconds for r in logs.main.rounds)
    assert planned.measure_s >= main_s - planned.extra_round_s
