"""The real prober: the gate's own paired, interleaved A/B machinery, run in-process.

One probe is one gate measurement restricted to one case (``--bench`` the case's anchored
asv name) with A as the base and B as the head: the context stage (revisions, pinning,
grid), both commits exported (`perfgate.gate.sides`), the measure stage (interleaved B,H /
H,B rounds, extra rounds while undecided, the confirmation re-run of a flagged case), and
the compare stage. Parity is not run (both commits are on main already) and no report is
written: the probe's answer is the case's row. The environment is checked as the gate
checks it: a fingerprint that changed while measuring makes the probe UNKNOWN, as does
every failure to measure. A case of the sim
family is probed with the sim instrument instead (`perfgate.sim.phase`): A counted
twice and B once, seconds, decided from the counts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from perfgate.config import GateConfig
from perfgate.errors import RunnerError, UserError
from perfgate.gate import context, sides
from perfgate.gate.compare import analyse
from perfgate.gate.hooks import Hooks
from perfgate.instrument import Bench, Calibration
from perfgate.model import CaseComparison, EnvironmentCheck, Reason
from perfgate.progress import Progress
from perfgate.secrets import redact_url
from perfgate.settings import GateOptions, GateSettings
from perfgate.sim.face import Simulator
from perfgate.verdict import CaseVerdict
from perfgate.wall.face import WallClock
from perfgate.watch.probes.prober import Probe, ProbeCase, ProbeVerdict

#: The shortest measurement a probe is given, whatever is left of the run's budget.
MIN_PROBE_MINUTES = 1.0
_VERDICTS = {
    CaseVerdict.REGRESSED: ProbeVerdict.WORSE,
    CaseVerdict.UNCHANGED: ProbeVerdict.NOT_WORSE,
    CaseVerdict.IMPROVED: ProbeVerdict.NOT_WORSE,
}
#: Rows that measured but could not decide: such a probe is measured once more.
_UNDECIDED = frozenset({CaseVerdict.INCONCLUSIVE})


def local_machine(config: GateConfig, hooks: Hooks) -> str:
    """The gate's name for this machine when none is given: its fingerprint's id."""
    plan = context.pin_plan(config.pin_threads)
    return context.machine_id(hooks.fingerprint(plan))


@dataclass
class GateProber:
    """`perfgate.watch.probes.prober.Prober` over the gate's pipeline in ``repo``."""

    repo: Path
    config: GateConfig
    machine_name: str
    work_dir: Path | None = None
    hooks: Hooks = field(default_factory=Hooks)
    clock: Callable[[], float] = time.monotonic

    @property
    def machine(self) -> str:
        """The asv machine name the probes are measured (and registered) as."""
        return self.machine_name

    def measure(
        self, case: ProbeCase, machine: str, sha_a: str, sha_b: str, budget_s: float
    ) -> Probe:
        """B against A for ``case``; UNKNOWN (with the reason) when it cannot be measured.

        A measurement that ran but could not decide (the case inconclusive, or flagged and
        its confirmation re-run disagreeing; not a version mismatch, which never decides) is
        measured once more, from scratch, while the budget leaves a probe's minimum. The
        second answer counts (it has its own flag and confirmation) except a WORSE after a
        first measurement that leaned the other way (ratio <= 1): that stays UNKNOWN, so a
        second look cannot turn noise into a culprit (`measured_twice`)."""
        if machine != self.machine_name:
            note = f"the change is on machine {machine!r}, this runner is {self.machine_name!r}"
            return Probe(sha_a, sha_b, ProbeVerdict.UNKNOWN, note=note)
        first, undecided = self._attempt(case, sha_a, sha_b, budget_s)
        left = budget_s - first.seconds
        if not undecided or left < MIN_PROBE_MINUTES * 60:
            return first
        second, _ = self._attempt(case, sha_a, sha_b, left)
        return measured_twice(first, second)

    def _attempt(
        self, case: ProbeCase, sha_a: str, sha_b: str, budget_s: float
    ) -> tuple[Probe, bool]:
        """One A/B measurement; (its probe, whether it measured but could not decide)."""
        started = self.clock()
        try:
            row, environment = self._measure(case, sha_a, sha_b, budget_s)
        except (UserError, RunnerError, OSError) as exc:
            text = redact_url(str(exc)).strip().splitlines()
            note = f"not measured: {text[0][:300] if text else type(exc).__name__}"
            return Probe(
                sha_a, sha_b, ProbeVerdict.UNKNOWN, seconds=self.clock() - started, note=note
            ), False
        probe = probe_from_row(row, environment, sha_a, sha_b, self.clock() - started)
        undecided = (
            row is not None
            and row.verdict in _UNDECIDED
            and row.reason is not Reason.VERSION_DIFFERS
            and not environment.differing_keys
        )
        return probe, undecided

    def _measure(
        self, case: ProbeCase, sha_a: str, sha_b: str, budget_s: float
    ) -> tuple[CaseComparison | None, EnvironmentCheck]:
        minutes = max(MIN_PROBE_MINUTES, budget_s / 60.0)
        opts = GateOptions(
            base=sha_a,
            head=sha_b,
            bench=(case.selection,),
            budget_minutes=minutes,
            repo=self.repo,
            work_dir=self.work_dir,
            machine=self.machine_name,
        )
        revs = context.resolve_revisions(opts)
        # opts.machine is this prober's machine: the settings are made under that name
        plan, fp_start, settings = context.settings_on_this_machine(
            opts, revs, self.config, self.hooks.fingerprint, self.hooks.valgrind
        )
        with sides.prepared(settings) as settings:
            self.hooks.register_machine(self.machine_name)
            rows = self._rows(case, settings, fp_start.to_dict())
            fp_end = self.hooks.fingerprint(plan)
        environment = EnvironmentCheck(
            context.comparable_fingerprint(fp_start),
            context.comparable_fingerprint(fp_end),
            self.config.fingerprint_ignore,
        )
        return _row_of(rows, case), environment

    def _rows(
        self, case: ProbeCase, settings: GateSettings, fingerprint: dict[str, object]
    ) -> list[CaseComparison]:
        """The case measured with its instrument: counted (sim family) or timed."""
        is_sim = self.config.is_sim(case.benchmark)
        if is_sim and not settings.sim_bench:
            raise UserError(f"cannot count {case.benchmark}: {settings.instruments_note}")
        instrument = Simulator() if is_sim else WallClock()
        log = self.hooks.log
        bench = Bench(settings, Calibration(), self.hooks, log, Progress(log), fingerprint)
        measured = {instrument.name: instrument.measure(bench)}
        return analyse(measured, self.config, Calibration()).rows


def _row_of(rows: list[CaseComparison], case: ProbeCase) -> CaseComparison | None:
    for row in rows:
        params = tuple(value for _, value in row.key.params)
        if row.key.benchmark == case.benchmark and params == case.params:
            return row
    return None


def probe_from_row(
    row: CaseComparison | None,
    environment: EnvironmentCheck,
    sha_a: str,
    sha_b: str,
    seconds: float,
) -> Probe:
    """The probe a compared row (head = B vs base = A) amounts to (pure)."""
    if row is None:
        note = "the case was not measured (not in the suites at both commits?)"
        return Probe(sha_a, sha_b, ProbeVerdict.UNKNOWN, seconds=seconds, note=note)
    verdict = _VERDICTS.get(row.verdict, ProbeVerdict.UNKNOWN)
    note = "" if verdict is not ProbeVerdict.UNKNOWN else f"{row.verdict.value}: {row.note}"
    if environment.differing_keys:
        verdict = ProbeVerdict.UNKNOWN
        note = "machine fingerprint changed while measuring: " + "; ".join(
            environment.differences()
        )
    return Probe(
        sha_a, sha_b, verdict, row.ratio, row.ci_low, row.ci_high, seconds, note.strip(": ")
    )


def measured_twice(first: Probe, second: Probe) -> Probe:
    """The probe of a comparison measured twice because ``first`` could not decide (pure):
    ``second``'s answer and figures, both measurements' seconds, the first's figures noted;
    a WORSE whose first measurement leaned better (ratio <= 1) is UNKNOWN instead."""
    note = f"measured twice; the first was undecided: {first.describe()}"
    if second.note:
        note += f"; {second.note}"
    verdict = second.verdict
    leaned_better = first.ratio is not None and first.ratio <= 1.0
    if verdict is ProbeVerdict.WORSE and leaned_better:
        verdict = ProbeVerdict.UNKNOWN
        note += "; the second says worse, the first leaned the other way: undecided"
    return Probe(
        second.base, second.head, verdict, second.ratio, second.ci_low,
        second.ci_high, first.seconds + second.seconds, note,
    )  # fmt: skip
