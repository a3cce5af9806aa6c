"""The costs ``perfgate init`` measured, as a plan uses them (pure).

Before any gate ran in a work folder, a plan had only the documented defaults per family
(10 s a case for a project's own families), which made the first quick gate of a project
plan 10.6 minutes against its 3. ``[tool.perfgate.costs]`` (written by init from one run of
the suite) gives each benchmark's seconds per round on both sides: shared between its cases
here as asv's durations are (`perfgate.wall.plan.case_costs`), and asv's own seconds
per round as the overhead of every round.
"""

from __future__ import annotations

from collections.abc import Iterable

from perfgate.config import GateConfig
from perfgate.model import CaseKey
from perfgate.wall import plan


def case_costs(config: GateConfig, keys: Iterable[CaseKey]) -> dict[CaseKey, float]:
    """Seconds of one round of each of ``keys`` (both sides) from the policy's measured
    costs; cases of benchmarks it does not name are left out."""
    if config.costs is None:
        return {}
    return plan.case_costs(config.costs.by_benchmark(), keys)


def overheads(config: GateConfig) -> plan.Overheads | None:
    """asv's own seconds per round as init measured them (None: not measured); no run says
    how long its extra rounds last, so they are expected to last to the budget."""
    if config.costs is None or config.costs.asv_overhead_s <= 0:
        return None
    o = config.costs.asv_overhead_s
    return plan.Overheads(first_round_s=o, later_round_s=o, extra_s=None)


def basis(config: GateConfig, count: int) -> str:
    """What a plan says of ``count`` cases costed from the policy's measured costs."""
    where = f" on {config.costs.machine}" if config.costs and config.costs.machine else ""
    return f"costs perfgate init measured{where} for {count} case(s)"
