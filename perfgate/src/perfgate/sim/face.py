"""The simulator's face (`perfgate.instrument.Instrument`): the sim family counted under
callgrind, base, head and (unless a calibrated check covers it) the base again, all at once
(`phase`), one count a side compared against the base's determinism (`compare`), and each
case beyond its threshold attributed to the functions and kernels that moved
(`perfgate.sim.attribution.findings`, the findings' `ATTRIBUTION` table)."""

from __future__ import annotations

from collections.abc import Sequence

from perfgate import twins
from perfgate.config import GateConfig
from perfgate.instrument import Bench, Calibration, Findings
from perfgate.model import CaseComparison
from perfgate.settings import GateSettings
from perfgate.sim.attribution.findings import (
    ATTRIBUTION,
    CaseAttribution,
    attribute_rows,
    attribute_twins,
)
from perfgate.sim.attribution.sides import KeptSide
from perfgate.sim.compare import compare_sim
from perfgate.sim.phase import SimMeasured, run_sim_phase
from perfgate.sim.scaling.compare import compare_sim_scaling

#: One line for the report: what the simulator cannot see.
SIM_BLIND = (
    "the sim instrument counts one thread's instructions and simulated cache misses: it "
    "cannot see threads, memory bandwidth, NUMA placement or clock frequency, which only the "
    "wall clock measures, and leaves it a change of misses alone (the same instructions): "
    "such misses follow where the data lie"
)


class Simulator:
    """The sim instrument."""

    name = "sim"
    needs_machine_alone = False
    blind_spot = SIM_BLIND

    def selected(self, settings: GateSettings) -> bool:
        """On where valgrind is installed and the selection holds sim cases."""
        return bool(settings.sim_bench)

    def measure(self, bench: Bench) -> SimMeasured:
        """The three counts of the sim family (see `perfgate.sim.phase`)."""
        s = bench.settings
        checks = bench.calibration.checks
        return run_sim_phase(s, s.sim_bench, bench.log, bench.seams.sim_runner, checks)

    def compare(
        self, measured: SimMeasured, config: GateConfig, calibration: Calibration
    ) -> Findings:
        """One count a side, refused where the base's counts disagree; the scaling family's
        cases (`perfgate.sim.scaling.compare`) give their E(T) and serial-share rows."""
        m = measured
        rows = compare_sim(m.base, m.head, m.base_again, config, calibration.checks)
        rows += compare_sim_scaling(m.base, m.head, m.base_again, config)
        environments = {side: frozenset(names) for side, names in m.environments.items()}
        base, head = m.kept.get("base", KeptSide()), m.kept.get("head", KeptSide())
        found = attribute_rows(rows, base, head, config.sim.tolerance)
        return Findings(rows, tables={ATTRIBUTION: found}, environments=environments)

    def attribute_others(
        self, measured: SimMeasured, rows: Sequence[CaseComparison], config: GateConfig
    ) -> list[CaseAttribution]:
        """The run's wall-clock regressions with a sim twin this run counted: where the
        twin's counts moved (`perfgate.sim.attribution.findings.attribute_twins`)."""
        base, head = measured.kept.get("base", KeptSide()), measured.kept.get("head", KeptSide())
        pairs = [(p.wall, p.sim) for p in twins.side_by_side(rows, config)]
        return attribute_twins(pairs, base, head, config.sim.tolerance)
