"""The compare stage (pure): each instrument's measurements compared by the instrument
itself (`perfgate.instrument.Instrument.compare`), in the registry's order, into the tables
of one run: head vs base, variant vs baseline, thread scaling and compile times."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from perfgate.config import GateConfig
from perfgate.gate.instruments import REGISTRY
from perfgate.instrument import Calibration
from perfgate.model import CaseComparison, VariantComparison
from perfgate.wall.compare.compile_times import CompileRow
from perfgate.wall.compare.scaling import ScalingRow


@dataclass(frozen=True)
class Analysis:
    """Rows, variant rows, scaling and compile rows of a measured gate run, and the asv
    environments each side's instruments measured in."""

    rows: list[CaseComparison]
    variants: list[VariantComparison]
    scaling: list[ScalingRow]
    variant_scaling: list[ScalingRow]
    compile_rows: list[CompileRow]
    environments: Mapping[str, frozenset[str]] = field(default_factory=dict)
    #: what the instruments say of their measurements, for the report's notes
    notes: tuple[str, ...] = ()


def analyse(measured: Mapping[str, Any], config: GateConfig, calibration: Calibration) -> Analysis:
    """``measured`` (instrument name -> what its ``measure`` produced) compared by each
    instrument in the registry's order (the wall clock's rows, then the simulator's)."""
    rows: list[CaseComparison] = []
    variants: list[VariantComparison] = []
    tables: dict[str, list[Any]] = {"scaling": [], "variant_scaling": [], "compile_rows": []}
    envs: dict[str, frozenset[str]] = {}
    notes: tuple[str, ...] = ()
    for instrument in REGISTRY:
        if instrument.name not in measured:
            continue
        found = instrument.compare(measured[instrument.name], config, calibration)
        rows += found.rows
        notes += found.notes
        variants += found.variants
        for name, table in found.tables.items():
            tables.setdefault(name, []).extend(table)
        for side, names in found.environments.items():
            envs[side] = envs.get(side, frozenset()) | names
    return Analysis(
        rows,
        variants,
        tables["scaling"],
        tables["variant_scaling"],
        tables["compile_rows"],
        envs,
        notes,
    )
