"""The measure stage: interleaved asv rounds of base and head, checkpoints, extra rounds for
undecided cases while the budget lasts, and the confirmation re-run of flagged cases.

Each side of each round is its own asv process (`perfgate.asv.side_run`), results
in a round-private folder. After every round a checkpoint sample file is written; what to
run next is asked of the pure sampling stage. Nothing here decides a verdict. Every failure
to gather data raises `GateError` (a `UserError`: exit 3, fail closed).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from perfgate.asv.side_run import GateError, SideRun, SideRunner, asv_side
from perfgate.config import GateConfig
from perfgate.formats import samples
from perfgate.formats.benchmarks_json import benchmark_units, case_names
from perfgate.formats.jsonfile import utc_stamp
from perfgate.formats.timeline import RoundTime
from perfgate.model import CaseKey, Measured, Measurement, Round, Samples
from perfgate.settings import GateSettings
from perfgate.wall import plan, rounds, sampling
from perfgate.wall.rounds import RoundLog

#: Share of the budget left after the first round that the rounds up to ``min_samples``
#: may fill with extra samples (a full gate here filled all of it and ran out of budget).
RAISE_SHARE = 0.75
#: Rounds of the suspected regressions that an extra round of every undecided case must
#: leave room for (`Measurer.extra_round`). The full grid's 84 blocking cases need a p near
#: 1e-3 under Benjamini-Hochberg, which 6-7 paired rounds cannot give (signed-rank p >=
#: 2/2^n); in the full-gate trials here the 8% steps were called after 5 and 8 such rounds.
SUSPECT_ROUNDS = 6
#: Seconds a run needs after its last extra round to compare, render and write the report.
FINISH_S = plan.FINISH_S


@dataclass
class Measurer:
    """Runs rounds and writes a new sample checkpoint after each one (atomically).

    Checkpoints are ``<phase>-progress-NNN.json`` with ``"complete": false``; only the final
    ``<phase>-samples.json`` carries ``"complete": true``, so a run killed half-way leaves no
    file that reads as complete.
    """

    settings: GateSettings
    fingerprint: Mapping[str, Any]
    side_runner: SideRunner = asv_side
    names: dict[CaseKey, str] = field(default_factory=dict)
    #: benchmark -> its unit from benchmarks.json ("seconds", "env-steps/s", ...)
    units: dict[str, str] = field(default_factory=dict)
    #: case -> seconds one round of it took (both sides), from the last round it ran in
    costs: dict[CaseKey, float] = field(default_factory=dict)
    #: case -> asv ``-a`` overrides the planner chose for it (`plan.asv_attributes`)
    case_attributes: dict[CaseKey, dict[str, str]] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    deadline: float | None = None
    #: when the gate run began (monotonic; None: this measurer's start), less the seconds
    #: other instruments measured: the optional extra rounds stop where the run's budget
    #: ends, so set-up and parity count against ``budget_s`` too (the sim phase does not)
    run_started: float | None = None
    #: every round's wall time, the seconds asv recorded for its cases and its asv runs
    round_times: list[RoundTime] = field(default_factory=list)
    #: side -> the asv environments its runs measured in (`SideRun.env_name`)
    environments: dict[str, set[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.deadline is None:
            self.deadline = self.started + self.settings.budget_s

    def extend_deadline(self, seconds: float) -> None:
        """Allow at least ``seconds`` more from now (the confirmation's own budget)."""
        assert self.deadline is not None
        self.deadline = max(self.deadline, time.monotonic() + seconds)

    def run_round(self, log: RoundLog, keys: Sequence[CaseKey] | None) -> Round:
        """One round of ``keys`` (None: the configured selection) on both sides."""
        index = len(log.rounds)
        order = rounds.round_order(index)
        groups = self._groups(keys)
        sides: dict[str, dict[CaseKey, Samples]] = {}
        runs: list[SideRun] = []
        t0 = time.monotonic()
        for side in order:
            sides[side] = {}
            for g, (attrs, bench) in enumerate(groups):
                suffix = f"-g{g}" if g else ""
                folder = self.settings.run_dir / f"{log.phase}-r{index:03d}-{side}{suffix}"
                settings = replace(self.settings, attributes={**self.settings.attributes, **attrs})
                run = self.side_runner(settings, side, folder, bench)
                sides[side].update(run.samples)
                runs.append(run)
                self.environments.setdefault(side, set()).add(run.env_name)
                self.names.update(case_names(run.suite))
                self.units.update(benchmark_units(run.suite))
        wanted = set(keys) if keys is not None else None
        picked = {s: _pick(v, wanted) for s, v in sides.items()}
        rnd = Round(index, log.phase, order, picked["base"], picked["head"], time.monotonic() - t0)
        log.rounds.append(rnd)
        costs = round_costs(rnd, runs)
        self.costs.update(costs)
        case_s = sum(costs.values())
        self.round_times.append(RoundTime(log.phase, index, rnd.seconds, case_s, len(runs)))
        self._checkpoint(log, complete=False)
        return rnd

    def _groups(self, keys: Sequence[CaseKey] | None) -> list[tuple[dict[str, str], list[str]]]:
        """(asv attribute overrides, --bench regexes) per asv run of one side: the cases
        grouped by the attributes the planner chose for them (one group without any)."""
        if keys is None:
            return [({}, self._bench(None))]
        by_attrs: dict[tuple[tuple[str, str], ...], list[CaseKey]] = {}
        for key in keys:
            by_attrs.setdefault(self._attribute_group(key), []).append(key)
        return [(dict(a), self._bench(ks)) for a, ks in sorted(by_attrs.items())]

    def _attribute_group(self, key: CaseKey) -> tuple[tuple[str, str], ...]:
        """The asv run ``key`` goes into: the attribute overrides chosen for it, sorted."""
        return tuple(sorted(self.case_attributes.get(key, {}).items()))

    def _asv_run_seconds(self) -> float:
        """asv's own seconds per asv run (outside its cases), as in the last round."""
        if not self.round_times:
            return 0.0
        last = self.round_times[-1]
        return last.overhead_s / max(1, last.asv_runs)

    def plan_attributes(self, log: RoundLog, keys: Sequence[CaseKey]) -> None:
        """Choose asv attributes for ``keys`` from their samples in the first round of ``log``
        (head side, else base): repeat from their noise and cost, warm-up from their cost;
        more samples only where the budget left for the rounds up to ``min_samples`` pays
        for them (`plan.budgeted_attributes`)."""
        first_round = log.rounds[0]
        config = self.settings.config
        first: dict[CaseKey, Sequence[float]] = {}
        for key in keys:
            samples = first_round.head.get(key) or first_round.base.get(key)
            if samples:
                first[key] = samples
        thresholds = {k: config.threshold_for(k.benchmark) for k in first}
        chosen = plan.budgeted_attributes(first, thresholds, self.round_slack(keys, log))
        self.case_attributes.update(chosen)

    def round_slack(self, keys: Sequence[CaseKey], log: RoundLog) -> float:
        """Seconds each round up to ``min_samples`` may take beyond what ``keys`` cost now
        and asv's own seconds (the first round's per asv run, for two sides and up to three
        attribute groups), for :data:`RAISE_SHARE` of the budget left to last: the rest is
        margin, as a round left short of ``min_samples`` makes the run exit 3."""
        assert self.deadline is not None
        left = self.settings.config.min_samples - len(log.rounds)
        if left <= 0:
            return 0.0
        per_round = sum(self.costs.get(k, 0.0) for k in keys) + self._asv_run_seconds() * 6
        return RAISE_SHARE * (self.deadline - time.monotonic()) / left - per_round

    def _bench(self, keys: Sequence[CaseKey] | None) -> list[str]:
        if keys is None:
            return list(self.settings.bench)
        try:
            return sampling.selection_regexes(keys, self.names)
        except KeyError as exc:
            raise GateError(f"cannot select the cases to re-run: {exc}") from None

    def _checkpoint(self, log: RoundLog, complete: bool) -> Path:
        s = self.settings
        doc = samples.samples_document(
            log.rounds, s.base, s.head, self.fingerprint, utc_stamp(), complete
        )
        name = (
            f"{log.phase}-samples.json"
            if complete
            else f"{log.phase}-progress-{len(log.rounds):03d}.json"
        )
        return samples.write_samples_atomic(s.run_dir / name, doc)

    def finish(self, log: RoundLog) -> Path:
        """Write the complete sample file of ``log``."""
        return self._checkpoint(log, complete=True)

    def elapsed(self) -> float:
        """Seconds since measurement started."""
        return time.monotonic() - self.started

    def round_seconds(self, keys: Sequence[CaseKey]) -> float:
        """Expected seconds of a round of ``keys``: each case at the cost it took last time
        (a case never measured at the mean cost), plus asv's own seconds per asv run (the
        last round's) for each side of each attribute group."""
        known = list(self.costs.values())
        mean = sum(known) / len(known) if known else 0.0
        seconds = sum(self.costs.get(k, mean) for k in keys)
        groups = {self._attribute_group(k) for k in keys}
        return seconds + self._asv_run_seconds() * 2 * len(groups)

    def can_afford(
        self,
        log: RoundLog,
        keys: Sequence[CaseKey],
        reserve: float = 0.0,
        deadline: float | None = None,
    ) -> bool:
        """True when another round of ``keys`` should fit in the remaining budget (before
        ``deadline``, default the measurer's) and still leave ``reserve`` seconds of it (see
        :meth:`round_seconds`)."""
        if not log.rounds:
            return True
        return self.fits(keys, reserve, deadline)

    def fits(
        self, keys: Sequence[CaseKey], reserve: float = 0.0, deadline: float | None = None
    ) -> bool:
        """True when a round of ``keys`` at their known costs ends before ``deadline``
        (default the measurer's) with ``reserve`` seconds to spare."""
        end = self.deadline if deadline is None else deadline
        assert end is not None
        return time.monotonic() + self.round_seconds(keys) + reserve <= end

    def extras_deadline(self) -> float:
        """When the optional extra rounds must end: the measurer's deadline, or earlier where
        the whole run's budget ends first (less :data:`FINISH_S` to compare and report)."""
        assert self.deadline is not None
        run_end = (self.run_started or self.started) + self.settings.budget_s - FINISH_S
        return min(self.deadline, run_end)

    def extra_round(self, log: RoundLog, todo: sampling.ExtraRound) -> tuple[CaseKey, ...]:
        """The cases the next extra round runs (empty: the budget cannot pay for one).

        Every case more rounds could settle while that leaves :data:`SUSPECT_ROUNDS` rounds
        of the suspected regressions; then only the suspects, as many of them (most evident
        first) as the budget can pay for. A stable regression is the one outcome that
        blocks, so the budget's last rounds go where one is taking shape, not to the cases
        whose estimate is no slowdown.
        """
        reserve = SUSPECT_ROUNDS * self.round_seconds(todo.suspects) if todo.suspects else 0.0
        end = self.extras_deadline()
        if self.can_afford(log, todo.cases, reserve, end):
            return todo.cases
        for size in range(len(todo.suspects), 0, -1):
            if self.can_afford(log, todo.suspects[:size], deadline=end):
                return todo.suspects[:size]
        return ()


def round_costs(rnd: Round, runs: Sequence[SideRun]) -> dict[CaseKey, float]:
    """Seconds each case of ``rnd`` took (both sides): asv's per-benchmark durations of each
    asv run (shared between that run's cases) when every run recorded them, else the round's
    wall time shared evenly between its cases."""
    keys = sorted(set(rnd.base) | set(rnd.head))
    per_run = [plan.case_costs(r.durations, r.samples) for r in runs]
    if per_run and all(set(c) == set(r.samples) for c, r in zip(per_run, runs, strict=True)):
        totals: dict[CaseKey, float] = {}
        for costs in per_run:
            for key, seconds in costs.items():
                totals[key] = totals.get(key, 0.0) + seconds
        return {k: totals[k] for k in keys if k in totals}
    return {k: rnd.seconds / max(1, len(keys)) for k in keys}


def _pick(
    samples: Mapping[CaseKey, Samples], wanted: set[CaseKey] | None
) -> dict[CaseKey, Samples]:
    return {k: v for k, v in samples.items() if wanted is None or k in wanted}


Floors = Mapping[CaseKey, float]
Log = Callable[[str], None]


def run_main_phase(m: Measurer, floors: Floors, log: Log) -> tuple[RoundLog, int, bool]:
    """A first round of everything, min_samples rounds of what can block while the budget
    lasts, then extra rounds of undecided cases (budget)."""
    cfg = m.settings.config
    main = RoundLog("main")
    m.run_round(main, None)
    log(f"round 1/{cfg.min_samples} done ({m.elapsed():.0f}s)")
    ran = sorted({k for r in main.rounds for k in (*r.base, *r.head)})
    if not ran:
        raise GateError(f"no benchmark case ran for the selection {list(m.settings.bench)}")
    keys, once = rounds_cases(ran, cfg)
    m.plan_attributes(main, keys)
    if once:
        log(f"{len(once)} case(s) that cannot block measured once per side")
    exhausted = False
    while len(main.rounds) < cfg.min_samples:
        if not m.can_afford(main, keys):
            exhausted = True
            log(f"budget reached after {len(main.rounds)} round(s); short cases are undecided")
            return main, 0, exhausted
        m.run_round(main, keys)
        log(f"round {len(main.rounds)}/{cfg.min_samples} done ({m.elapsed():.0f}s)")
    extra = 0
    while len(main.rounds) < cfg.max_rounds:
        todo = sampling.next_extra_cases(main, cfg, floors)
        if not todo.cases:
            break
        chosen = m.extra_round(main, todo)
        if not chosen:
            exhausted = True
            log(f"budget reached with {len(todo.cases)} undecided case(s)")
            break
        m.run_round(main, chosen)
        extra += 1
        which = "undecided" if chosen == todo.cases else "suspected slower"
        log(f"extra round for {len(chosen)} {which} case(s) ({m.elapsed():.0f}s)")
    return main, extra, exhausted


def rounds_cases(
    ran: Sequence[CaseKey], config: GateConfig
) -> tuple[list[CaseKey], list[CaseKey]]:
    """(cases for the rounds after the first, cases measured once): families that never
    block run once; a selection with no blocking case at all is report-only and keeps
    every case in every round (there is nothing else to spend the rounds on)."""
    block = [k for k in ran if config.can_block(k.benchmark)]
    if not block:
        return list(ran), []
    return block, [k for k in ran if not config.can_block(k.benchmark)]


def run_confirmation(
    m: Measurer, targets: sampling.ConfirmTargets, floors: Floors, log: Log
) -> RoundLog:
    """An independent re-run of just the target cases: min_samples rounds, more while pending.

    The re-run gets at least half the budget of its own, so a main phase that used the
    whole budget on other undecided cases does not starve the confirmation. No round
    starts that the budget cannot hold (its cases' costs are known from the main phase):
    a re-run left short of min_samples rounds is said so, and its cases stay undecided
    (`measure_logs`).
    """
    cfg = m.settings.config
    m.extend_deadline(m.settings.budget_s / 2)
    confirm = RoundLog("confirm")
    n = len(targets.cases)
    for i in range(cfg.min_samples):
        if not m.fits(targets.cases):
            log(
                f"budget: confirmation round {i + 1}/{cfg.min_samples} of {n} case(s) "
                f"(~{m.round_seconds(targets.cases):.0f}s) does not fit; not started, the "
                "flagged case(s) stay undecided"
            )
            return confirm
        m.run_round(confirm, targets.cases)
    log(f"confirmation: {len(confirm.rounds)} rounds of {n} case(s)")
    while len(confirm.rounds) < cfg.max_rounds:
        todo = sampling.confirm_pending(confirm, cfg, floors, targets)
        if not todo:
            break
        if not m.can_afford(confirm, todo):
            log(f"budget: no room for another confirmation round of {len(todo)} case(s)")
            break
        m.run_round(confirm, todo)
        log(f"confirmation: extra round for {len(todo)} case(s) ({m.elapsed():.0f}s)")
    return confirm


@dataclass(frozen=True)
class Logs:
    """The rounds a measurement made: the main phase, the confirmation (None: no case was
    flagged, or confirmation is off), and what the report says about them."""

    main: RoundLog
    confirm: RoundLog | None
    extra_rounds: int
    budget_exhausted: bool
    sample_files: tuple[Path, ...]
    #: the budget stopped the confirmation before min_samples rounds (its cases undecided)
    confirm_short: bool = False


def measure_logs(m: Measurer, floors: Floors, log: Log) -> Logs:
    """Main phase, then confirmation of flagged cases when the config asks for it; the
    complete sample file of each phase is written."""
    s = m.settings
    main, extra, exhausted = run_main_phase(m, floors, log)
    files = [m.finish(main)]
    confirm_log: RoundLog | None = None
    short = False
    targets = sampling.confirm_targets(main, s.config, floors) if s.config.confirm else None
    if targets is not None and targets.cases:
        confirm_log = run_confirmation(m, targets, floors, log)
        if confirm_log.rounds:
            files.append(m.finish(confirm_log))
        if len(confirm_log.rounds) < s.config.min_samples:  # no confirmation: undecided
            confirm_log, short = None, True
    return Logs(main, confirm_log, extra, exhausted, tuple(files), short)


def measured_from(logs: Logs, units: Mapping[str, str], config: GateConfig) -> Measured:
    """The `Measured` of ``logs`` (each case in its unit), ready to compare."""

    def measured(log: RoundLog) -> tuple[dict[CaseKey, Measurement], dict[CaseKey, Measurement]]:
        return rounds.with_units(rounds.measurements(log), units)

    def variants(log: RoundLog) -> tuple[dict[CaseKey, Measurement], ...]:
        sides = rounds.variant_sides(log, config.baselines)
        return tuple(rounds.with_unit(side, units) for side in sides)

    main, confirm_log = logs.main, logs.confirm
    base_m, head_m = measured(main)
    confirm = measured(confirm_log) if confirm_log is not None else None
    base_variants, head_variants = variants(main)
    confirm_variants = variants(confirm_log) if confirm_log is not None else (None, None)
    return Measured(
        base=base_m,
        head=head_m,
        head_variants=head_variants,
        base_variants=base_variants,
        confirm=confirm,
        confirm_head_variants=confirm_variants[1],
        confirm_base_variants=confirm_variants[0],
        main_rounds=len(main.rounds),
        confirm_rounds=len(confirm_log.rounds) if confirm_log else 0,
        extra_rounds=logs.extra_rounds,
        sample_files=logs.sample_files,
        budget_exhausted=logs.budget_exhausted,
        confirm_short=logs.confirm_short,
    )


def measure(m: Measurer, floors: Floors, log: Log) -> Measured:
    """Main phase, then confirmation of flagged cases when the config asks for it."""
    return measured_from(measure_logs(m, floors, log), m.units, m.settings.config)
