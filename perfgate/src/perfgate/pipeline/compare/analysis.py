"""Every table of one measured gate run: head vs base (with confirmation, parallel
efficiency cases included), variant vs baseline at head and relative to base, thread scaling
and compile times."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from perfgate.config import GateConfig
from perfgate.formats.noise import SimCheck
from perfgate.model import CaseComparison, CaseKey, Measured, Measurement, VariantComparison
from perfgate.pipeline.compare.compile_times import CompileRow, compile_times
from perfgate.pipeline.compare.efficiency import compare_efficiency
from perfgate.pipeline.compare.runs import compare_runs, compare_variants
from perfgate.pipeline.compare.scaling import ScalingRow, scaling_rows
from perfgate.pipeline.compare.sim import compare_sim
from perfgate.pipeline.compare.sim_scaling import compare_sim_scaling

#: The sim instrument's (base, head, base counted again) measurements.
SimSides = tuple[
    Mapping[CaseKey, Measurement], Mapping[CaseKey, Measurement], Mapping[CaseKey, Measurement]
]


@dataclass(frozen=True)
class Analysis:
    """Rows, variant rows, scaling and compile rows of a measured gate run."""

    rows: list[CaseComparison]
    variants: list[VariantComparison]
    scaling: list[ScalingRow]
    variant_scaling: list[ScalingRow]
    compile_rows: list[CompileRow]


def analyse(
    measured: Measured,
    config: GateConfig,
    floors: Mapping[CaseKey, float],
    sim: SimSides | None = None,
    sim_checks: Mapping[CaseKey, SimCheck] | None = None,
) -> Analysis:
    """Head vs base (with confirmation; time cases, then parallel efficiency cases, then
    the sim instrument's cases from ``sim``: base, head, the base's second count, with the
    machine's calibrated determinism ``sim_checks``), variant vs baseline at head, thread
    scaling."""
    rows = compare_runs(
        measured.base, measured.head, config, noise_floors=floors, confirmation=measured.confirm
    )
    rows += compare_efficiency(
        measured.base, measured.head, config, rows, confirmation=measured.confirm
    )
    if sim is not None:
        rows += compare_sim(*sim, config, sim_checks)
        rows += compare_sim_scaling(*sim, config)
    confirm_sides = None
    if measured.confirm_base_variants is not None and measured.confirm_head_variants is not None:
        confirm_sides = (measured.confirm_base_variants, measured.confirm_head_variants)
    variants = compare_variants(
        measured.head_variants,
        config,
        noise_floors=floors,
        confirmation_head=measured.confirm_head_variants,
        sides=(measured.base_variants, measured.head_variants),
        confirmation_sides=confirm_sides,
    )
    scaling, variant_scaling = scaling_rows(measured.base, measured.head, config)
    compile_rows = compile_times(measured.base, measured.head, config)
    return Analysis(rows, variants, scaling, variant_scaling, compile_rows)
