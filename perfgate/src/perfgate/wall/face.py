"""The wall clock's face (`perfgate.instrument.Instrument`): asv's timings of both sides in
paired, interleaved rounds on the pinned machine (`measure`), compared with bootstrap CIs,
rank tests and Benjamini-Hochberg (`compare`), with the tables only timings can draw:
variant vs baseline, thread scaling, parallel efficiency and compile times."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfgate.asv.side_run import SideRun, SideRunner
from perfgate.config import GateConfig
from perfgate.formats import timeline
from perfgate.formats.jsonfile import utc_stamp
from perfgate.instrument import Bench, Calibration, Findings
from perfgate.model import Measured
from perfgate.progress import Progress
from perfgate.settings import GateSettings
from perfgate.wall import measure
from perfgate.wall.compare.compile_times import compile_times
from perfgate.wall.compare.efficiency import compare_efficiency
from perfgate.wall.compare.runs import compare_runs, compare_variants
from perfgate.wall.compare.scaling import scaling_rows

#: One line for the report: what the wall clock cannot see.
WALL_BLIND = (
    "the wall clock sees everything a call costs, threads and memory included, but only "
    "beyond the scatter of this machine's rounds: a smaller change is undecided, never a pass"
)


@dataclass(frozen=True)
class WallMeasured:
    """The rounds' measurements and the measurer that made them (its round times and the
    asv environments each side ran in)."""

    measured: Measured
    measurer: measure.Measurer | None
    #: the rounds' budget in seconds (for the report's note when it ran out)
    budget_s: float = 0.0


class WallClock:
    """The wall-clock instrument."""

    name = "wall"
    needs_machine_alone = True
    blind_spot = WALL_BLIND

    def selected(self, settings: GateSettings) -> bool:
        """On unless the policy or the selection leaves it nothing to time."""
        return settings.wall

    def measure(self, bench: Bench) -> WallMeasured:
        """Main rounds, extra rounds for undecided cases, then confirmation."""
        runner = _announced(bench.seams.side_runner, bench.ticker)
        measurer = measure.Measurer(bench.settings, bench.fingerprint, runner)
        measurer.run_started = budget_start(bench)
        floors = bench.calibration.floors
        measured = measure.measure(measurer, floors, bench.log)
        _write_timeline(bench, measurer)
        return WallMeasured(measured, measurer, bench.settings.budget_s)

    def compare(
        self, measured: WallMeasured, config: GateConfig, calibration: Calibration
    ) -> Findings:
        """Head vs base (time cases, then parallel efficiency), variants, scaling, compiles."""
        m, floors = measured.measured, calibration.floors
        rows = compare_runs(m.base, m.head, config, noise_floors=floors, confirmation=m.confirm)
        rows += compare_efficiency(m.base, m.head, config, rows, confirmation=m.confirm)
        confirm_sides = None
        if m.confirm_base_variants is not None and m.confirm_head_variants is not None:
            confirm_sides = (m.confirm_base_variants, m.confirm_head_variants)
        variants = compare_variants(
            m.head_variants,
            config,
            noise_floors=floors,
            confirmation_head=m.confirm_head_variants,
            sides=(m.base_variants, m.head_variants),
            confirmation_sides=confirm_sides,
        )
        scaling, variant_scaling = scaling_rows(m.base, m.head, config)
        tables: dict[str, list[Any]] = {
            "scaling": scaling,
            "variant_scaling": variant_scaling,
            "compile_rows": compile_times(m.base, m.head, config),
        }
        envs = measured.measurer.environments if measured.measurer is not None else {}
        environments = {side: frozenset(names) for side, names in envs.items()}
        return Findings(rows, variants, tables, environments, _notes(m, measured.budget_s))


def _notes(m: Measured, budget_s: float) -> tuple[str, ...]:
    """The rounds the wall clock ran and the sample files it wrote, for the report."""
    rounds = (
        f"rounds: {m.main_rounds} main ({m.extra_rounds} extra for undecided "
        f"cases), {m.confirm_rounds} confirmation; order alternates B,H / H,B; "
        "cases of families that never block ran in the first round only (when any case can)"
    )
    if m.budget_exhausted:
        rounds += f"; the {budget_s / 60:.1f}-minute budget ran out with cases undecided"
    if m.confirm_short:
        rounds += (
            "; the budget could not hold the confirmation re-run's rounds: no round was "
            "started past it, and the flagged cases stay undecided"
        )
    return rounds, "samples: " + ", ".join(str(p) for p in m.sample_files)


def budget_start(bench: Bench) -> float | None:
    """When the wall clock's budget began (monotonic): the run's start, moved on by the
    seconds the instruments measured before it took (None: the run's start is not known)."""
    return bench.started + bench.others_s if bench.started else None


def _write_timeline(bench: Bench, measurer: measure.Measurer) -> None:
    """Record where the run's minutes went (``--plan`` of a later run reads it): set-up
    without parity and the instruments that measured before (their phases, recorded apart)."""
    command, parity_s = bench.parity
    setup_s = measurer.started - bench.started - (parity_s or 0.0) - bench.others_s
    record = timeline.Timeline(
        command,
        parity_s,
        max(0.0, setup_s),
        tuple(measurer.round_times),
        utc_stamp(),
        bench.phases,
    )
    timeline.write_timeline(bench.settings.run_dir, record)


def _announced(runner: SideRunner, ticker: Progress) -> SideRunner:
    """``runner``, saying in the progress status which side of which round asv measures."""

    def run(settings: GateSettings, side: str, folder: Path, bench: Sequence[str]) -> SideRun:
        ticker.status(f"asv measuring the {side} side ({folder.name})")
        return runner(settings, side, folder, bench)

    return run
