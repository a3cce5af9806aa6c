"""E(T) against thread count for the simulated thread-scaling cases (pure).

The simulated scaling family (`perfgate.sim.scaling.compare`) decides one E(T) row per case
(task, path, N, T); a reader judges scaling across T, not one T at a time, so the report
groups the rows by case without T and draws each group's projected parallel efficiency at
every T it decided, base vs head: a line chart in the HTML report (x = log2(T), y = E(T) on a
linear 0..1 axis, higher is better) and one line in the markdown comment. The values drawn are
those the rows were decided on, in the weighting that decided them (estimated cycles or
instructions), and the chart says which. Nothing is decided here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from perfgate.config import GateConfig
from perfgate.model import CaseComparison, CaseKey, natural_key
from perfgate.report.thread_axis import HEIGHT, PAD, WIDTH, thread_x
from perfgate.sim.scaling.compare import is_scaling_case
from perfgate.verdict import CaseVerdict

#: Case verdicts, worst first: what blocks or refuses, then what could not be compared, then
#: the changes and no change.
WORST_FIRST = (
    CaseVerdict.REGRESSED,
    CaseVerdict.FAILED,
    CaseVerdict.INVALID,
    CaseVerdict.BROKEN,
    CaseVerdict.INCONCLUSIVE,
    CaseVerdict.REMOVED,
    CaseVerdict.NEW,
    CaseVerdict.IMPROVED,
    CaseVerdict.UNCHANGED,
)
#: The thread-count parameter of a scaling case (the one the groups leave out).
THREADS = "threads"


@dataclass(frozen=True)
class EfficiencyPoint:
    """E(T) of one decided row at ``threads``, base and head, in ``weighting``."""

    threads: int
    base: float
    head: float
    weighting: str


@dataclass(frozen=True)
class ScalingGroup:
    """One case without T (the family and every parameter but the thread count), its
    decided points in thread order, and the worst verdict of its E(T) rows."""

    case: CaseKey
    points: tuple[EfficiencyPoint, ...]
    verdict: CaseVerdict
    #: whether a row with the worst verdict blocks (a regression may be reported only)
    blocking: bool

    @property
    def weighting(self) -> str:
        """The weighting the points were decided on: ``instructions``, ``cycles``, or each
        with its thread counts when the rows differ (``cycles at 8; instructions at 32, 64``)."""
        names = list(dict.fromkeys(p.weighting for p in self.points))
        if len(names) <= 1:
            return names[0] if names else ""
        at = {n: ", ".join(str(p.threads) for p in self.points if p.weighting == n) for n in names}
        return "; ".join(f"{n} at {at[n]}" for n in names)

    @property
    def verdict_text(self) -> str:
        """The worst verdict, marked when it does not block (a drop the projected time at T
        explains, or a family outside ``blocking``)."""
        quiet = self.verdict is CaseVerdict.REGRESSED and not self.blocking
        return f"{self.verdict.value}, reported only" if quiet else self.verdict.value

    @property
    def line(self) -> str:
        """One line of the markdown comment: ``E(T) at 8/32/64 threads: base .../..., head
        .../...``; says so when no row of the group was decided."""
        if not self.points:
            return "E(T) not decided at any thread count"
        threads = "/".join(str(p.threads) for p in self.points)
        base = "/".join(f"{p.base:.3f}" for p in self.points)
        head = "/".join(f"{p.head:.3f}" for p in self.points)
        return f"E(T) at {threads} threads: base {base}, head {head}"


def worst_verdict(verdicts: Iterable[CaseVerdict]) -> CaseVerdict:
    """The worst of ``verdicts`` in `WORST_FIRST` order (UNCHANGED when there is none)."""
    return min(verdicts, key=WORST_FIRST.index, default=CaseVerdict.UNCHANGED)


def _point(row: CaseComparison) -> EfficiencyPoint | None:
    """The row's point when it was decided on a weighting (its medians are then that
    weighting's E(T)); None for a row refused, new, removed or failed."""
    threads = row.key.param(THREADS) or ""
    a, b = row.base_median, row.head_median
    if not (row.figure and threads.isdigit() and a is not None and b is not None):
        return None
    return EfficiencyPoint(int(threads), a, b, row.figure)


def _group(case: CaseKey, rows: Sequence[CaseComparison]) -> ScalingGroup:
    """One group from its E(T) rows (any order)."""
    found = (_point(r) for r in rows)
    points = sorted((p for p in found if p is not None), key=lambda p: p.threads)
    verdict = worst_verdict(r.verdict for r in rows)
    blocking = any(r.blocking for r in rows if r.verdict is verdict)
    return ScalingGroup(case, tuple(points), verdict, blocking)


def sim_scaling_groups(rows: Iterable[CaseComparison], config: GateConfig) -> list[ScalingGroup]:
    """The E(T) rows of the simulated scaling family among ``rows``, grouped by case
    without T (family, task, path, N, ...), groups in natural order."""
    by_case: dict[CaseKey, list[CaseComparison]] = {}
    for row in rows:
        if row.instrument != "sim" or not is_scaling_case(row.key, config):
            continue
        family = row.key.benchmark.rsplit(".", 1)[0]
        case = CaseKey(family, row.key.without(THREADS).params)
        by_case.setdefault(case, []).append(row)
    return [_group(case, by_case[case]) for case in sorted(by_case, key=natural_key)]


# --------------------------------------------------------------------------------------------
# Chart geometry (pure): like `perfgate.report.render.scaling_chart`, E(T) on a linear axis
# --------------------------------------------------------------------------------------------

#: E(T) values given a tick and a grid line on the y axis.
Y_TICKS = (0.0, 0.5, 1.0)


@dataclass(frozen=True)
class EfficiencySeries:
    """One side's polyline and its point markers."""

    label: str
    points: str
    dots: tuple[tuple[float, float], ...]
    css: str


@dataclass(frozen=True)
class EfficiencyChart:
    """E(T) vs thread count, base and head, of one group (x = log2(T), y = E(T), 1 on top)."""

    title: str
    width: int
    height: int
    #: the plot's left and right ends (the y grid lines span them)
    x0: float
    x1: float
    series: tuple[EfficiencySeries, ...]
    xticks: tuple[tuple[float, str], ...]
    yticks: tuple[tuple[float, str], ...]
    weighting: str
    verdict: str
    css: str


def _x(threads: int, lo: float, hi: float) -> float:
    """x of ``threads`` on the charts' shared thread axis (`thread_axis.thread_x`)."""
    return round(thread_x(threads, lo, hi), 1)


def _y(efficiency: float) -> float:
    """y of ``efficiency`` (clipped to 0..1): 1 at the top, 0 at the bottom."""
    return round(PAD + (1.0 - min(max(efficiency, 0.0), 1.0)) * (HEIGHT - 2 * PAD), 1)


def efficiency_chart(group: ScalingGroup) -> EfficiencyChart | None:
    """Geometry of ``group``'s chart (None when no row of it was decided)."""
    if not group.points:
        return None
    lo, hi = math.log2(group.points[0].threads), math.log2(group.points[-1].threads)
    series = []
    for label, css, side in (("base", "side-a", 0), ("head", "side-b", 1)):
        dots = tuple((_x(p.threads, lo, hi), _y((p.base, p.head)[side])) for p in group.points)
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in dots)
        series.append(EfficiencySeries(label, line, dots, css))
    return EfficiencyChart(
        title=group.case.label(),
        width=int(WIDTH),
        height=int(HEIGHT),
        x0=PAD,
        x1=WIDTH - PAD,
        series=tuple(series),
        xticks=tuple((_x(p.threads, lo, hi), str(p.threads)) for p in group.points),
        yticks=tuple((_y(v), f"{v:g}") for v in Y_TICKS),
        weighting=group.weighting,
        verdict=group.verdict_text,
        css=group.verdict.value,
    )


@dataclass(frozen=True)
class SimScalingView:
    """What the report shows of one group: the group (its markdown line) and its chart."""

    group: ScalingGroup
    chart: EfficiencyChart | None


def views(rows: Sequence[CaseComparison], config: GateConfig) -> list[SimScalingView]:
    """Every simulated scaling group among ``rows`` with its chart, in natural order."""
    return [SimScalingView(g, efficiency_chart(g)) for g in sim_scaling_groups(rows, config)]
