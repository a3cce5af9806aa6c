"""The report's one ratio chart, as data (pure): a `ChartPoint` per compared case.

Every comparison the gate decides becomes one point: head vs base, parallel efficiency head
vs base, variant vs baseline at head and its change from base. A point carries what the
chart draws (ratio, optional CI, threshold, verdict) and the instrument that measured it, so
another instrument's rows (``CaseComparison.instrument``, e.g. the CPU simulator's,
decided from one measurement per side) become points beside the wall clock's point of the
same case, without a change to the templates. Labels are derived from the cases'
parameters, not from any project's names: only the parameters whose values differ between
the charted cases are shown, values only, in parameter order (the legend names them).

`perfgate.report.chart_layout` turns points into SVG geometry and a text chart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from perfgate.model import CaseComparison, CaseKey, VariantComparison, natural_key
from perfgate.report import labels
from perfgate.verdict import CaseVerdict
from perfgate.wall.compare.efficiency import EFFICIENCY_SUFFIX

#: The instrument of asv's wall-clock rows (every row the gate measures today).
WALL = "wall"
#: Group names of the comparisons, in chart order.
HEAD_VS_BASE = "head vs base"
EFFICIENCY = "parallel efficiency, head vs base"


@dataclass(frozen=True)
class ChartPoint:
    """One compared case in the chart. A ratio above 1 is always worse (head/base time,
    variant/baseline time, base/head throughput or efficiency); ``threshold`` is relative
    (0.03: the band is 1/1.03 .. 1.03); no CI for an instrument decided without one."""

    group: str
    key: CaseKey
    instrument: str
    ratio: float | None
    threshold: float
    verdict: CaseVerdict
    ci_low: float | None = None
    ci_high: float | None = None
    blocking: bool = True
    label: str = ""
    #: what the row decided, as its table says it (`perfgate.report.labels`)
    mark: str = ""

    @property
    def has_ci(self) -> bool:
        """True when both CI bounds are positive numbers."""
        return bool(self.ci_low and self.ci_high and self.ci_low > 0 and self.ci_high > 0)


def row_point(
    row: CaseComparison, group: str, instrument: str | None = None, mark: str = ""
) -> ChartPoint:
    """The point of one compared row (its own instrument unless ``instrument`` is given;
    ``mark``: its label, by default that of a head vs base row)."""
    return ChartPoint(
        group=group,
        key=row.key,
        instrument=instrument or row.instrument,
        ratio=row.ratio if row.ratio and row.ratio > 0 else None,
        threshold=row.threshold,
        verdict=row.verdict,
        ci_low=row.ci_low,
        ci_high=row.ci_high,
        blocking=row.blocking,
        mark=mark or labels.case_label(row),
    )


def rows_points(
    rows: Iterable[CaseComparison], group: str, instrument: str | None = None
) -> list[ChartPoint]:
    """Points of head-vs-base ``rows``: time cases in ``group``, parallel efficiency cases in
    `EFFICIENCY` (their benchmark name ends in the efficiency suffix)."""
    out = []
    for row in rows:
        efficiency = row.key.benchmark.endswith(EFFICIENCY_SUFFIX)
        key = row.key
        if efficiency:
            key = CaseKey(row.key.benchmark.removesuffix(EFFICIENCY_SUFFIX), row.key.params)
        point = row_point(row, EFFICIENCY if efficiency else group, instrument)
        out.append(replace(point, key=key))
    return out


def variant_points(
    variants: Iterable[VariantComparison], instrument: str | None = None
) -> list[ChartPoint]:
    """Variant vs baseline at head (group ``variant vs baseline``) and, where the variant ran
    at base, the change of that ratio from base (group ``... , change from base``)."""
    out = []
    for v in variants:
        pair = f"{v.pair.variant} vs {v.pair.baseline}"
        mark = labels.variant_label(v.row, v.pair.baseline)
        out.append(row_point(v.row, pair, instrument, mark))
        if v.relative is not None:
            group = f"{pair}, change from base"
            out.append(row_point(v.relative, group, instrument, labels.relative_label(v.relative)))
    return out


def label_fields(keys: Sequence[CaseKey]) -> tuple[bool, tuple[str, ...]]:
    """(whether benchmark names differ, the parameter names whose values differ) over
    ``keys``, parameters in order of first appearance."""
    names: list[str] = []
    values: dict[str, set[str | None]] = {}
    for key in keys:
        for name, _ in key.params:
            if name not in values:
                names.append(name)
                values[name] = set()
    for key in keys:
        for name in names:
            values[name].add(key.param(name))
    varying = tuple(n for n in names if len(values[n]) > 1)
    return len({k.benchmark for k in keys}) > 1, varying


def short_benchmark(benchmark: str) -> str:
    """The last dotted part of an asv benchmark name (``mod.Class.time_x`` -> ``time_x``)."""
    return benchmark.rsplit(".", 1)[-1]


def case_label(key: CaseKey, with_benchmark: bool, fields: Sequence[str]) -> str:
    """``value / value / ...`` of ``fields`` (those the case has), after the benchmark's
    short name when ``with_benchmark``; the full name when nothing else is left."""
    parts = [short_benchmark(key.benchmark)] if with_benchmark else []
    parts += [v for v in (key.param(f) for f in fields) if v is not None]
    return one_line(" / ".join(parts) or short_benchmark(key.benchmark))


def one_line(text: str) -> str:
    """``text`` with every run of whitespace or control characters as one space (a label is
    one line of a fixed-width chart)."""
    return re.sub(r"[\s\x00-\x1f\x7f]+", " ", text).strip()


def constant_params(keys: Sequence[CaseKey], varying: Sequence[str]) -> tuple[str, ...]:
    """``name=value`` of the parameters every case shares (the chart says them once)."""
    if not keys:
        return ()
    shared = [(n, v) for n, v in keys[0].params if n not in varying]
    return tuple(f"{n}={v}" for n, v in shared if all(k.param(n) == v for k in keys))


@dataclass(frozen=True)
class ChartData:
    """The labelled points of one chart, in drawing order, and the legend of their labels."""

    points: tuple[ChartPoint, ...]
    fields: tuple[str, ...]
    shared: tuple[str, ...]
    benchmarks: tuple[str, ...]

    @property
    def instruments(self) -> tuple[str, ...]:
        """The instruments of the points, wall clock first."""
        found = {p.instrument for p in self.points}
        return tuple(sorted(found, key=lambda i: (i != WALL, i)))

    @property
    def groups(self) -> tuple[str, ...]:
        """Group names in drawing order."""
        return tuple(dict.fromkeys(p.group for p in self.points))

    @property
    def legend(self) -> str:
        """What a label is made of, e.g. ``task / path / num_envs / threads``."""
        parts = (["benchmark"] if len(self.benchmarks) > 1 else []) + list(self.fields)
        return " / ".join(parts)


def chart_data(points: Sequence[ChartPoint]) -> ChartData:
    """Label ``points`` and order them: groups in order of first appearance, cases in natural
    order within a group, the instruments of one case next to each other (wall first)."""
    keys = [p.key for p in points]
    with_benchmark, fields = label_fields(keys)
    groups = list(dict.fromkeys(p.group for p in points))
    ordered = sorted(
        points,
        key=lambda p: (groups.index(p.group), natural_key(p.key), p.instrument != WALL),
    )
    labelled = tuple(replace(p, label=case_label(p.key, with_benchmark, fields)) for p in ordered)
    benchmarks = tuple(dict.fromkeys(k.benchmark for k in keys))
    return ChartData(labelled, fields, constant_params(keys, fields), benchmarks)
