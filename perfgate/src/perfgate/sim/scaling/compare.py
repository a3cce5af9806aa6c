"""Rows of the simulated scaling family (pure): projected E(T) and serial share, head vs base.

A case of a `perfgate.sim.scaling.suite.SimScalingBenchmark` family (T threads, counted per
thread; `perfgate.sim.scaling.model`) gives two rows, each from one count per side:
**E(T)** (higher is better: the ratio is base/head) and **the serial share** (head/base).
An E(T) row also says whether the serial share or the imbalance moved it
(`perfgate.sim.scaling.why`).

Each is decided on the instruction-weighted figures, where the base's two counts (the
second with its memory layout shifted) agree within ``[tool.perfgate.sim] tolerance``, or
moved by at most half the threshold (the interval widened by that much); beyond, the case
is INVALID (exit 3). The cycle-weighted figures are stored and never decide: valgrind runs
the threads one at a time through one simulated cache, in the host scheduler's order, so
the workers' misses belong to the run, not to the code (docs/sim.md has the A/A figures).

Ratio beyond 1 + threshold (the family's rule of ``[tool.perfgate.thresholds]``, e.g.
``'^sim_scaling\\.' = 0.05``): REGRESSED, blocking when the family is in ``blocking``, unless
the projected time at T (the critical path) got faster beyond the threshold: then the
parallel work shrank, nothing runs slower at T, and the row is reported only. Below
1 / (1 + threshold): IMPROVED. A base with no second count is INVALID (not checked).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from perfgate.case_pairs import CasePair, explained, untestable
from perfgate.config import GateConfig
from perfgate.model import CaseComparison, CaseKey, Measurement, Reason, natural_key
from perfgate.sim.scaling import why
from perfgate.verdict import CaseVerdict

Side = Mapping[CaseKey, Measurement]


@dataclass(frozen=True)
class Figure:
    """One decided figure of the family: its benchmark per weighting, and its direction."""

    name: str
    by_cycles: str
    by_instructions: str
    higher_is_better: bool


EFFICIENCY = Figure("E(T)", "track_efficiency", "track_efficiency_instructions", True)
SERIAL_SHARE = Figure(
    "serial share", "track_serial_share", "track_serial_share_instructions", False
)
#: the weighting that decides (see the module docstring)
DECIDING = "instructions"
#: the projected time at T per weighting (a drop it explains does not block)
CRITICAL_PATH = {
    "cycles": "track_critical_path",
    "instructions": "track_critical_path_instructions",
}
#: a row's note when the projected time at T got faster
SPEEDUP_NOTE = "reported only: the projected time at {threads} threads got faster ({change})"


def _key(key: CaseKey, benchmark: str) -> CaseKey:
    owner = key.benchmark.rsplit(".", 1)[0]
    return CaseKey(f"{owner}.{benchmark}", key.params)


def _value(side: Side, key: CaseKey) -> float | None:
    m = side.get(key)
    return None if m is None or m.failed or not m.median else m.median


def _spread(base: Side, again: Side, key: CaseKey) -> float | None:
    first, second = _value(base, key), _value(again, key)
    if first is None or second is None:
        return None
    return abs(second / first - 1.0)


def _choose(
    key: CaseKey, figure: Figure, base: Side, again: Side, tolerance: float, bound: float
) -> tuple[str, CaseKey, float] | float | None:
    """(weighting, its key, its spread) of the deciding figure, the instruction-weighted
    one; its spread alone when beyond ``bound`` (refused); None when the base has no second
    count."""
    decisive = _key(key, figure.by_instructions)
    spread = _spread(base, again, decisive)
    if spread is None:
        return None
    if spread <= max(tolerance, bound):
        return DECIDING, decisive, spread
    return spread


def _ratio(figure: Figure, base: float, head: float) -> float:
    """Above 1: worse (base/head of a higher-is-better figure)."""
    return base / head if figure.higher_is_better else head / base


def scaling_row(
    key: CaseKey, figure: Figure, base: Side, head: Side, again: Side, config: GateConfig
) -> CaseComparison:
    """One case's row for ``figure`` (``key``: the case's ``figure.by_cycles`` benchmark)."""
    threshold = config.sim_threshold_for(key.benchmark)
    a, b = base.get(key), head.get(key)
    row = CaseComparison(
        key=key,
        verdict=CaseVerdict.INCONCLUSIVE,
        threshold=threshold,
        blocking=config.can_block(key.benchmark),
        n_base=2 if a is not None else 0,
        n_head=1 if b is not None else 0,
        base_median=a.median if a else None,
        head_median=b.median if b else None,
        unit=next((m.unit for m in (b, a) if m is not None), "efficiency"),
        instrument="sim",
    )
    decided = untestable(CasePair(key, a, b), row, min_samples=1)
    if decided is not None:
        return decided
    chosen = _choose(key, figure, base, again, config.sim.tolerance, threshold / 2.0)
    if chosen is None:
        return explained(row, CaseVerdict.INVALID, Reason.SIM_UNCHECKED)
    if isinstance(chosen, float):
        return explained(
            row, CaseVerdict.INVALID, Reason.SIM_UNSTABLE, spread=chosen, bound=threshold / 2
        )
    weighting, decisive, own = chosen
    return _decided(row, figure, weighting, decisive, own, base, head)


def _decided(
    row: CaseComparison,
    figure: Figure,
    weighting: str,
    decisive: CaseKey,
    own: float,
    base: Side,
    head: Side,
) -> CaseComparison:
    a, b = _value(base, decisive), _value(head, decisive)
    if a is None or b is None:
        return explained(row, CaseVerdict.INVALID, Reason.SIM_UNCHECKED)
    ratio = _ratio(figure, a, b)
    threads = row.key.param("threads") or "T"
    text = (
        f"projected at {threads} threads, {figure.name} {_show(figure, a)} -> "
        f"{_show(figure, b)} ({b / a - 1.0:+.1%}; {weighting})"
    )
    if figure is EFFICIENCY:
        text += _why(row.key, weighting, base, head, threads)
    row = replace(
        row,
        ratio=ratio,
        ci_low=ratio / (1.0 + own),
        ci_high=ratio * (1.0 + own),
        base_median=a,
        head_median=b,
        figure=weighting,
    )
    if ratio > 1.0 + row.threshold:
        row = explained(
            row, CaseVerdict.REGRESSED, Reason.SIM_CHANGED, direction="worse", moved=text
        )
        return _explained_by_speedup(row, weighting, base, head, threads)
    if ratio < 1.0 / (1.0 + row.threshold):
        return explained(
            row, CaseVerdict.IMPROVED, Reason.SIM_CHANGED, direction="better", moved=text
        )
    return explained(
        row, CaseVerdict.UNCHANGED, Reason.SIM_WITHIN, threshold=row.threshold, moved=text
    )


#: per weighting, the stored figures a projection is rebuilt from (`why.breakdown`)
_PROJECTION = {
    "instructions": (
        EFFICIENCY.by_instructions,
        SERIAL_SHARE.by_instructions,
        CRITICAL_PATH["instructions"],
    ),
    "cycles": (EFFICIENCY.by_cycles, SERIAL_SHARE.by_cycles, CRITICAL_PATH["cycles"]),
}


def _why(key: CaseKey, weighting: str, base: Side, head: Side, threads: str) -> str:
    """``: serial share ... -> ..., imbalance ... -> ..., work ...: the ... moved it`` for an
    E(T) row (`perfgate.sim.scaling.why`); empty where a side lacks a figure."""
    if not threads.isdigit():
        return ""
    sides = []
    for side in (base, head):
        values = [_value(side, _key(key, name)) for name in _PROJECTION[weighting]]
        if any(v is None for v in values):
            return ""
        e, s, c = (float(v) for v in values if v is not None)
        sides.append(why.breakdown(e, s, c, int(threads)))
    if sides[0] is None or sides[1] is None:
        return ""
    return ": " + why.why_text(sides[0], sides[1], weighting)


def _show(figure: Figure, value: float) -> str:
    return f"{value:.3f}" if figure.higher_is_better else f"{value:.2%}"


def _explained_by_speedup(
    row: CaseComparison, weighting: str, base: Side, head: Side, threads: str
) -> CaseComparison:
    """``row`` made non-blocking when the projected time at T got faster beyond the
    threshold (the drop comes from less parallel work, not from more serial work)."""
    path = _key(row.key, CRITICAL_PATH[weighting])
    a, b = _value(base, path), _value(head, path)
    if a is None or b is None or b >= a / (1.0 + row.threshold):
        return row
    note = SPEEDUP_NOTE.format(threads=threads, change=f"{b / a - 1.0:+.1%}")
    return replace(row, blocking=False, note=f"{row.note}; {note}")


def is_scaling_case(key: CaseKey, config: GateConfig) -> bool:
    """True for the E(T) benchmark of a case of a sim scaling family."""
    return key.benchmark.endswith(f".{EFFICIENCY.by_cycles}") and config.is_sim(key.benchmark)


def compare_sim_scaling(
    base: Side, head: Side, base_again: Side, config: GateConfig
) -> list[CaseComparison]:
    """E(T) and serial-share rows of every scaling case measured on either side."""
    keys = sorted({k for k in (*base, *head) if is_scaling_case(k, config)}, key=natural_key)
    rows = []
    for key in keys:
        for figure in (EFFICIENCY, SERIAL_SHARE):
            own = _key(key, figure.by_cycles)
            rows.append(scaling_row(own, figure, base, head, base_again, config))
    return rows
