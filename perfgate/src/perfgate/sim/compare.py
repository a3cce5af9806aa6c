"""Rows of the simulated instrument (pure): head vs base, one count per side.

A sim case is decided on one figure per call, with no statistics, the count being
deterministic, under these rules (docs/sim.md, "In the gate", has the measured cases):

* determinism is checked, not assumed: the base was counted twice in separate processes,
  the second time with its memory layout shifted, or a calibration did so
  (`perfgate.formats.noise.SimCheck`); a base counted once is INVALID;
* the estimated cycles (`perfgate.sim.figures.DECISIVE`) decide where the base's two
  counts agree within ``[tool.perfgate.sim] tolerance``; where only the cycles differ, the
  misses follow where the data lie and the instructions decide; where both differ, the one
  that moved less decides if it moved by at most half the threshold (its interval widened
  by that much), else the case is INVALID (exit 3);
* work that moved is never "same" on one layout's misses: instructions beyond the
  threshold with cycles that give another verdict decide the case (`_work_moved`);
* a change of the cycles must be corroborated by the instructions: cycles beyond the
  threshold with instructions within what two base counts may differ by are misses that
  follow the data's addresses; the instructions decide (memory traffic alone is left to the
  wall clock);
* ratio above 1 + threshold: REGRESSED; below 1 / (1 + threshold): IMPROVED; otherwise
  UNCHANGED; the row's interval is the ratio widened by the base's own spread, and the
  other figures say what moved (`perfgate.sim.cost.shifts`).

Missing, failed and version-mismatched sides are decided as for the wall clock
(`perfgate.case_pairs.untestable`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from perfgate.case_pairs import CasePair, explained, untestable
from perfgate.config import GateConfig
from perfgate.formats.noise import SimCheck
from perfgate.model import CaseComparison, CaseKey, Measurement, Reason, Shift, natural_key
from perfgate.sim.cost import shifts
from perfgate.sim.figures import DECISIVE, FIGURES, LAYOUT_PROOF
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


def moved(
    ratio: float,
    changes: tuple[Shift, ...],
    figure: str = "cycles",
    why: str | None = None,
    cycles_ratio: float | None = None,
) -> str:
    """What moved, for a report: ``cycles +1.40%: instructions +1.52% (the largest share of
    the change), L1 misses +0.20%, LL misses +0.00%``; identical counts say so. A case
    decided on another figure (``why``: why not on its cycles; ``cycles_ratio``: head/base
    of its cycles) says that first."""
    if ratio == 1.0 and all(s.head == s.base for s in changes):
        text = "identical counts on both sides"
    else:
        parts = [f"{EVENT_NAMES.get(s.event, s.event)} {_change(s.ratio)}" for s in changes]
        text = f"cycles {_change(ratio if figure == 'cycles' else cycles_ratio)}"
        if parts:
            text += f": {parts[0]} (the largest share of the change)"
            text += "".join(f", {p}" for p in parts[1:])
    if figure == "cycles" or why is None:
        return text
    return f"decided on {figure} ({_change(ratio)}): {why}; {text}"


def layout_moved(spread: float) -> str:
    """Why a case whose base's cycles moved with the layout shift is decided on another
    figure."""
    return (
        f"the estimated cycles of two counts of the base moved {spread:.2%} with the memory "
        "layout alone"
    )


def uncorroborated(band: float) -> str:
    """Why a case whose cycles moved without its instructions is decided on instructions."""
    return (
        f"its estimated cycles moved beyond the threshold with its instructions within "
        f"{band:.2%} (misses that follow where the data lie; memory traffic alone is left to "
        f"the wall clock)"
    )


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


@dataclass(frozen=True)
class Spread:
    """How far apart two counts of the base are: in estimated cycles, and in instructions
    (None: not known, a calibration that predates it)."""

    cycles: float
    instructions: float | None


def _relative(first: Measurement | None, again: Measurement | None) -> float | None:
    """How far ``again`` is from ``first``; None unless both are counted, under one
    benchmark version (a count of other code says nothing of this code's determinism)."""
    if first is None or again is None or not first.median or again.median is None:
        return None
    if first.version != again.version:
        return None
    return abs(again.median / first.median - 1.0)


def base_spread(
    key: CaseKey,
    first: Side,
    base_again: Side,
    checks: Mapping[CaseKey, SimCheck],
) -> Spread | None:
    """How far apart the base's counts of ``key`` are: its second count in this run (of the
    same benchmark version), else the machine's calibrated check of the same benchmark
    version; None: not checked."""
    cycles = _relative(first.get(key), base_again.get(key))
    if cycles is not None:
        proof = _figure_key(key, LAYOUT_PROOF)
        return Spread(cycles, _relative(first.get(proof), base_again.get(proof)))
    check = checks.get(key.canonical())
    m = first.get(key)
    if check is not None and m is not None and check.version == m.version:
        return Spread(check.spread, check.instructions_spread)
    return None


def _decisive(
    key: CaseKey, spread: Spread, tolerance: float, bound: float
) -> tuple[str, CaseKey, float] | None:
    """The figure that decides the case, its key and its spread (see the module); None:
    every figure moved by more than ``bound`` between the base's two counts."""
    proof = (FIGURES[LAYOUT_PROOF][0], _figure_key(key, LAYOUT_PROOF), spread.instructions)
    if spread.cycles <= tolerance:
        return "cycles", key, spread.cycles
    if proof[2] is not None and proof[2] <= tolerance:
        return proof[0], proof[1], proof[2]
    least = min(
        [("cycles", key, spread.cycles), *([proof] if proof[2] is not None else [])],
        key=lambda c: (c[2], c[0] == "cycles"),
    )
    if least[2] is not None and least[2] <= bound:
        return least[0], least[1], least[2]
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
    spread = base_spread(key, base, base_again, checks or {})
    if spread is None:
        return explained(row, CaseVerdict.INVALID, Reason.SIM_UNCHECKED)
    bound = row.threshold / 2.0
    chosen = _decisive(key, spread, config.sim.tolerance, bound)
    if chosen is None:
        least = min(s for s in (spread.cycles, spread.instructions) if s is not None)
        return explained(row, CaseVerdict.INVALID, Reason.SIM_UNSTABLE, spread=least, bound=bound)
    figure, decisive, own = chosen
    if figure != "cycles":
        return _decided(row, base, head, figure, decisive, own, layout_moved(spread.cycles))
    why = _cycles_unfit(key, base, head, spread, config.sim.tolerance, row.threshold)
    if why is None or spread.instructions is None:
        return _decided(row, base, head, figure, decisive, own, None)
    proof = _figure_key(key, LAYOUT_PROOF)
    figure = FIGURES[LAYOUT_PROOF][0]
    return _decided(row, base, head, figure, proof, spread.instructions, why)


def _cycles_unfit(
    key: CaseKey, base: Side, head: Side, spread: Spread, tolerance: float, threshold: float
) -> str | None:
    """Why a case whose base's cycles agree is decided on its instructions all the same
    (None: its cycles decide): its cycles moved without its instructions
    (`_layout_alone`), or its instructions moved beyond the threshold while its cycles say
    otherwise (`_work_moved`)."""
    band = _layout_alone(key, base, head, spread, tolerance, threshold)
    if band is not None:
        return uncorroborated(band)
    return _work_moved(key, base, head, spread, threshold)


def _side(ratio: float, threshold: float) -> int:
    """+1 beyond 1 + threshold, -1 below 1 / (1 + threshold), else 0."""
    return 1 if ratio > 1.0 + threshold else -1 if ratio < 1.0 / (1.0 + threshold) else 0


def _work_moved(
    key: CaseKey, base: Side, head: Side, spread: Spread, threshold: float
) -> str | None:
    """Why a case whose instructions moved beyond ``threshold`` is decided on them when its
    cycles give another verdict: one count a side lands in one memory layout, and its
    simulated misses may offset the work that grew (or shrank); None: they agree, or the
    instructions are unchecked or beyond half the threshold between the base's counts."""
    if spread.instructions is None or spread.instructions > threshold / 2.0:
        return None
    cycles = _ratio(base, head, key)
    instructions = _ratio(base, head, _figure_key(key, LAYOUT_PROOF))
    if cycles is None or instructions is None:
        return None
    work = _side(instructions, threshold)
    if work == 0 or work == _side(cycles, threshold):
        return None
    return work_moved(threshold)


def work_moved(threshold: float) -> str:
    """Why a case whose instructions moved beyond the threshold is decided on them."""
    return (
        f"its instructions moved beyond the {threshold:.1%} threshold while its estimated "
        "cycles did not follow (one count a side: the simulated misses of one memory layout "
        "can offset the work; the work decides)"
    )


def _ratio(base: Side, head: Side, key: CaseKey) -> float | None:
    """Head/base of one figure's counts; None where a side lacks it (or the base is 0)."""
    a, b = base.get(key), head.get(key)
    if a is None or b is None or not a.median or b.median is None:
        return None
    return b.median / a.median


def _layout_alone(
    key: CaseKey, base: Side, head: Side, spread: Spread, tolerance: float, threshold: float
) -> float | None:
    """The band the instructions stayed within when the cycles moved beyond ``threshold``
    and the instructions did not move beyond what two counts of the base may differ by
    (``tolerance``, or their measured spread, if that is checked and at most half the
    threshold, as `_decisive` requires of a deciding figure); None: the cycles decide."""
    if spread.instructions is None:  # an unchecked figure never decides
        return None
    cycles = _ratio(base, head, key)
    instructions = _ratio(base, head, _figure_key(key, LAYOUT_PROOF))
    if cycles is None or instructions is None:
        return None
    band = max(tolerance, spread.instructions)
    if band > threshold / 2.0 or 1.0 / (1.0 + threshold) <= cycles <= 1.0 + threshold:
        return None
    return band if abs(instructions - 1.0) <= band else None


def _decided(
    row: CaseComparison,
    base: Side,
    head: Side,
    figure: str,
    key: CaseKey,
    own: float,
    why: str | None,
) -> CaseComparison:
    """The row decided on ``figure`` (the measurements of ``key``, ``own`` apart between the
    base's two counts) head vs base; ``why``: why not on the cycles."""
    a, b = base.get(key), head.get(key)
    if a is None or b is None or not a.median or b.median is None:
        return explained(row, CaseVerdict.INVALID, Reason.SIM_UNCHECKED)
    ratio = b.median / a.median
    cycles = base.get(row.key)
    assert cycles is not None and cycles.median
    changes = shifts(_figures(base, row.key), _figures(head, row.key), cycles.median)
    row = replace(
        row,
        ratio=ratio,
        ci_low=ratio / (1.0 + own),
        ci_high=ratio * (1.0 + own),
        shifts=changes,
        base_median=a.median,
        head_median=b.median,
        unit=a.unit or figure,
        figure=figure,
    )
    text = moved(ratio, changes, figure, why, _ratio(base, head, row.key))
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
    the same benchmark version): the largest relative difference from the first count of its
    estimated cycles and of its instructions."""
    out = []
    first = counts[0] if counts else {}
    for key in sorted(first, key=natural_key):
        if not key.benchmark.endswith(f".{DECISIVE}"):
            continue
        cycles = _largest([side.get(key) for side in counts])
        if cycles is None:
            continue
        version, spread, n = cycles
        proof = _figure_key(key, LAYOUT_PROOF)
        instructions = _largest([side.get(proof) for side in counts])
        out.append(SimCheck(key, version, spread, n, instructions[1] if instructions else None))
    return out


def _largest(runs: Sequence[Measurement | None]) -> tuple[str, float, int] | None:
    """(version, largest relative difference from the first, counts) of one figure's counts;
    None unless every count is there, under one version."""
    values = [m.median for m in runs if m is not None and m.median is not None]
    versions = {m.version for m in runs if m is not None}
    if not runs or len(values) != len(runs) or len(versions) != 1 or not values[0]:
        return None
    return str(versions.pop()), max(abs(v / values[0] - 1.0) for v in values), len(values)
