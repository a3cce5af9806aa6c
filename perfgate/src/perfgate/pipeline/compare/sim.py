"""Rows of the simulated instrument (pure): head vs base, one count per side.

A sim case is decided on its estimated cycles per call (`perfgate.sim.suite.DECISIVE`) with
no statistics, the count being deterministic, under three rules:

* determinism is checked, not assumed: the base was counted twice in separate processes and
  a case whose two counts differ by more than ``[tool.perfgate.sim] tolerance`` is INVALID
  (the gate refuses it, exit 3); a base counted once is INVALID too;
* ratio head/base above 1 + threshold: REGRESSED; below 1 / (1 + threshold): IMPROVED;
  otherwise UNCHANGED. The row's interval is the ratio widened by the base's own spread;
* the case's other figures (instructions, L1 and last-level misses) say what moved, weighted
  as in the cost model (`perfgate.sim.cost.shifts`).

Missing, failed and version-mismatched sides are decided as for the wall clock
(`perfgate.pipeline.compare.pairs.untestable`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from perfgate.config import GateConfig
from perfgate.formats.noise import SimCheck
from perfgate.model import CaseComparison, CaseKey, Measurement, Reason, natural_key
from perfgate.pipeline.compare.pairs import CasePair, explained, untestable
from perfgate.sim.cost import Shift, shifts
from perfgate.sim.figures import DECISIVE, FIGURES
from perfgate.verdict import CaseVerdict

Side = Mapping[CaseKey, Measurement]


def _figure_key(key: CaseKey, benchmark: str) -> CaseKey:
    """The key of ``key``'s case in another figure's benchmark (same class, same params)."""
    owner = key.benchmark.rsplit(".", 1)[0]
    return CaseKey(f"{owner}.{benchmark}", key.params)


def _figures(side: Side, key: CaseKey) -> dict[str, float]:
    """The case's figures on one side (name -> value per call), where measured."""
    out = {}
    for benchmark, (name, _unit) in FIGURES.items():
        m = side.get(_figure_key(key, benchmark))
        if m is not None and m.median is not None:
            out[name] = m.median
    return out


#: how a report names each figure
EVENT_NAMES = {"instructions": "instructions", "l1_misses": "L1 misses", "ll_misses": "LL misses"}


def moved(ratio: float, changes: tuple[Shift, ...]) -> str:
    """What moved, for a report: ``cycles +1.40%: instructions +1.52% (the largest share of
    the change), L1 misses +0.20%, LL misses +0.00%``; identical counts say so."""
    if ratio == 1.0 and all(s.head == s.base for s in changes):
        return "identical counts on both sides"
    parts = [f"{EVENT_NAMES.get(s.event, s.event)} {_change(s.ratio)}" for s in changes]
    text = f"cycles {_change(ratio)}"
    if parts:
        text += f": {parts[0]} (the largest share of the change)"
        text += "".join(f", {p}" for p in parts[1:])
    return text


def _change(ratio: float | None) -> str:
    return "n/a" if ratio is None else f"{ratio - 1.0:+.2%}"


def _row(
    key: CaseKey, base: Measurement | None, head: Measurement | None, config: GateConfig
) -> CaseComparison:
    return CaseComparison(
        key=key,
        verdict=CaseVerdict.INCONCLUSIVE,
        threshold=config.sim_threshold_for(key.benchmark),
        blocking=config.can_block(key.benchmark),
        n_base=2 if base is not None else 0,
        n_head=1 if head is not None else 0,
        base_median=base.median if base else None,
        head_median=head.median if head else None,
        unit=next((m.unit for m in (head, base) if m is not None), "cycles"),
        instrument="sim",
    )


def base_spread(
    key: CaseKey, first: Measurement, base_again: Side, checks: Mapping[CaseKey, SimCheck]
) -> float | None:
    """How far apart the base's counts of ``key`` are: its second count in this run, else
    the machine's calibrated check of the same benchmark version; None: not checked."""
    again = base_again.get(key)
    if again is not None and again.median is not None and first.median:
        return abs(again.median / first.median - 1.0)
    check = checks.get(key.canonical())
    if check is not None and check.version == first.version:
        return check.spread
    return None


def sim_row(
    key: CaseKey,
    base: Side,
    head: Side,
    base_again: Side,
    config: GateConfig,
    checks: Mapping[CaseKey, SimCheck] | None = None,
) -> CaseComparison:
    """One sim case's row (see the module)."""
    a, b = base.get(key), head.get(key)
    row = _row(key, a, b, config)
    decided = untestable(CasePair(key, a, b), row, min_samples=1)
    if decided is not None:
        return decided
    assert a is not None and b is not None and a.median and b.median
    spread = base_spread(key, a, base_again, checks or {})
    if spread is None:
        return explained(row, CaseVerdict.INVALID, Reason.SIM_UNCHECKED)
    tolerance = config.sim.tolerance
    if spread > tolerance:
        return explained(
            row, CaseVerdict.INVALID, Reason.SIM_UNSTABLE, spread=spread, tolerance=tolerance
        )
    ratio = b.median / a.median
    changes = shifts(_figures(base, key), _figures(head, key), a.median)
    row = replace(
        row,
        ratio=ratio,
        ci_low=ratio / (1.0 + spread),
        ci_high=ratio * (1.0 + spread),
        shifts=changes,
    )
    text = moved(ratio, changes)
    if ratio > 1.0 + row.threshold:
        return explained(
            row, CaseVerdict.REGRESSED, Reason.SIM_CHANGED, direction="slower", moved=text
        )
    if ratio < 1.0 / (1.0 + row.threshold):
        return explained(
            row, CaseVerdict.IMPROVED, Reason.SIM_CHANGED, direction="faster", moved=text
        )
    return explained(
        row, CaseVerdict.UNCHANGED, Reason.SIM_WITHIN, threshold=row.threshold, moved=text
    )


def compare_sim(
    base: Side,
    head: Side,
    base_again: Side,
    config: GateConfig,
    checks: Mapping[CaseKey, SimCheck] | None = None,
) -> list[CaseComparison]:
    """A row per sim case (its decisive figure) measured on either side, in natural order;
    ``checks``: the machine's calibrated determinism checks (`base_spread`)."""
    keys = {
        k
        for k in (*base, *head)
        if k.benchmark.endswith(f".{DECISIVE}") and config.is_sim(k.benchmark)
    }
    ordered = sorted(keys, key=natural_key)
    return [sim_row(k, base, head, base_again, config, checks) for k in ordered]


def determinism_checks(counts: Sequence[Side]) -> list[SimCheck]:
    """Each sim case counted in every one of ``counts`` (separate processes of one commit,
    the same benchmark version): its largest relative difference from the first count."""
    out = []
    first = counts[0] if counts else {}
    for key in sorted(first, key=natural_key):
        runs = [side.get(key) for side in counts]
        if not key.benchmark.endswith(f".{DECISIVE}") or any(
            m is None or m.median is None for m in runs
        ):
            continue
        values = [m.median for m in runs if m is not None and m.median is not None]
        versions = {m.version for m in runs if m is not None}
        if len(versions) != 1 or not values[0]:
            continue
        spread = max(abs(v / values[0] - 1.0) for v in values)
        out.append(SimCheck(key, str(versions.pop()), spread, len(values)))
    return out
