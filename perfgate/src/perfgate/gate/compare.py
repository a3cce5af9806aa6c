"""The compare stage (pure): each instrument's measurements compared by the instrument
itself (`perfgate.instrument.Instrument.compare`), in the registry's order, into the tables
of one run: head vs base, variant vs baseline, thread scaling, compile times and where the
simulator's cases beyond their thresholds moved; then an instrument that offers
``attribute_others`` says where the other instruments' cases moved (the simulator: a
wall-clock regression from its sim twin's counts)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from perfgate.config import GateConfig
from perfgate.gate import instruments
from perfgate.instrument import Calibration
from perfgate.model import CaseComparison, VariantComparison
from perfgate.sim.attribution.findings import ATTRIBUTION, CaseAttribution
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
    #: where each sim case beyond its threshold moved (`perfgate.sim.attribution.findings`)
    attribution: list[CaseAttribution] = field(default_factory=list)


def analyse(measured: Mapping[str, Any], config: GateConfig, calibration: Calibration) -> Analysis:
    """``measured`` (instrument name -> what its ``measure`` produced) compared by each
    instrument in the registry's order (the wall clock's rows, then the simulator's)."""
    rows: list[CaseComparison] = []
    variants: list[VariantComparison] = []
    tables: dict[str, list[Any]] = {"scaling": [], "variant_scaling": [], "compile_rows": []}
    envs: dict[str, frozenset[str]] = {}
    notes: tuple[str, ...] = ()
    for instrument in instruments.REGISTRY:
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
    attributed = tables.setdefault(ATTRIBUTION, [])
    for instrument in instruments.REGISTRY:
        # optional on the face: an instrument that can say where another's case moved
        others = getattr(instrument, "attribute_others", None)
        if others is not None and instrument.name in measured:
            attributed += others(measured[instrument.name], rows, config)
    return Analysis(
        rows,
        variants,
        tables["scaling"],
        tables["variant_scaling"],
        tables["compile_rows"],
        envs,
        notes,
        tables.get(ATTRIBUTION, []),
    )
