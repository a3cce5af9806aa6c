"""Geometry of the report's ratio chart (pure): SVG coordinates for the HTML report and a
fixed-width text chart for the markdown comment, both from one `ChartData`.

The x axis is the ratio on a log scale (worse to the right), shared by every row; each row
draws the case's threshold band (1/(1+t) .. 1+t, "no change" within it), its CI when it has
one, and its ratio, coloured by verdict. An axis end clips what lies beyond it (an arrow
marks a clipped CI). Labels are never cut: the label column is as wide as the longest label
(the SVG uses a monospace font, so its width is known here).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from perfgate.report.chart import WALL, ChartData, ChartPoint
from perfgate.verdict import CaseVerdict

#: The axis never spans more than this far from 1 (a 0.25x or 4x ratio is off the chart).
AXIS_LIMIT = 4.0
#: Candidate tick values; those inside the axis and far enough apart are drawn.
TICKS = (0.25, 0.5, 0.67, 0.8, 0.9, 0.95, 1.0, 1.05, 1.1, 1.2, 1.25, 1.5, 2.0, 3.0, 4.0)
#: SVG metrics: monospace glyph width at the label font size (12px), row and header heights.
CHAR_W = 7.3
ROW_H = 20.0
HEADER_H = 24.0
TOP = 30.0
PLOT_W = 440.0
VALUE_W = 250.0
GAP = 12.0


@dataclass(frozen=True)
class Axis:
    """A log-ratio axis from ``lo`` to ``hi`` mapped onto ``x0 .. x1``."""

    lo: float
    hi: float
    x0: float
    x1: float

    def x(self, ratio: float) -> float:
        """The position of ``ratio``, clipped to the axis."""
        f = (math.log(min(max(ratio, self.lo), self.hi)) - math.log(self.lo)) / math.log(
            self.hi / self.lo
        )
        return round(self.x0 + f * (self.x1 - self.x0), 1)

    def ticks(self, min_gap: float) -> tuple[tuple[float, str], ...]:
        """Tick positions and texts at least ``min_gap`` apart (1.0 always drawn)."""
        chosen: list[tuple[float, str]] = [(self.x(1.0), "1")]
        for value in sorted(TICKS, key=lambda v: abs(math.log(v))):
            at = self.x(value)
            inside = self.lo <= value <= self.hi
            if inside and all(abs(at - x) >= min_gap for x, _ in chosen):
                chosen.append((at, f"{value:g}"))
        return tuple(sorted(chosen))


def axis_range(points: Sequence[ChartPoint]) -> tuple[float, float]:
    """(lo, hi) of the log axis: every ratio, CI and threshold band with a margin, 1 in the
    middle of at least 1/1.1 .. 1.1, within 1/`AXIS_LIMIT` .. `AXIS_LIMIT`."""
    logs = [math.log(1.1)]
    for p in points:
        logs.append(math.log1p(p.threshold))
        logs += [abs(math.log(v)) for v in (p.ratio, p.ci_low, p.ci_high) if v and v > 0]
    half = min(max(logs) * 1.15, math.log(AXIS_LIMIT))
    return math.exp(-half), math.exp(half)


def _value_text(p: ChartPoint) -> str:
    mark = p.mark or p.verdict.symbol
    if p.ratio is None:
        return mark
    ci = f" ({p.ci_low:.3f}–{p.ci_high:.3f})" if p.has_ci else ""
    return f"{p.ratio:.3f}{ci} {mark}"


@dataclass(frozen=True)
class SvgRow:
    """One case's row: label, band, CI, ratio marker and value text."""

    y: float
    label: str
    title: str
    instrument: str
    css: str
    band: tuple[float, float]
    ci: tuple[float, float] | None
    clipped: tuple[bool, bool]
    x_ratio: float | None
    marker: str  # "circle" (wall clock) or "diamond" (another instrument)
    value: str


@dataclass(frozen=True)
class SvgChart:
    """The whole chart in SVG coordinates."""

    width: float
    height: float
    label_x: float
    tag_x: float | None
    value_x: float
    axis: Axis
    ticks: tuple[tuple[float, str], ...]
    headers: tuple[tuple[float, str], ...]
    rows: tuple[SvgRow, ...]


def _svg_row(p: ChartPoint, y: float, axis: Axis) -> SvgRow:
    ci = (axis.x(p.ci_low), axis.x(p.ci_high)) if p.has_ci else None  # type: ignore[arg-type]
    clipped = (
        bool(p.has_ci and p.ci_low < axis.lo),  # type: ignore[operator]
        bool(p.has_ci and p.ci_high > axis.hi),  # type: ignore[operator]
    )
    band = (axis.x(1.0 / (1.0 + p.threshold)), axis.x(1.0 + p.threshold))
    return SvgRow(
        y=y,
        label=p.label,
        title=f"{p.group}: {p.key.label()} [{p.instrument}]",
        instrument=p.instrument,
        css=p.verdict.value,
        band=band,
        ci=ci,
        clipped=clipped,
        x_ratio=axis.x(p.ratio) if p.ratio is not None else None,
        marker="circle" if p.instrument == WALL else "diamond",
        value=_value_text(p),
    )


def svg_chart(data: ChartData) -> SvgChart | None:
    """SVG geometry of ``data`` (None when there is no point)."""
    if not data.points:
        return None
    label_w = max(len(p.label) for p in data.points) * CHAR_W
    tags = len(data.instruments) > 1
    tag_w = max(len(i) for i in data.instruments) * CHAR_W + GAP if tags else 0.0
    x0 = GAP + label_w + GAP + tag_w
    axis = Axis(*axis_range(data.points), x0=x0, x1=x0 + PLOT_W)
    rows: list[SvgRow] = []
    headers: list[tuple[float, str]] = []
    y = TOP
    for group in data.groups:
        headers.append((y + HEADER_H - 8, group))
        y += HEADER_H
        for p in (q for q in data.points if q.group == group):
            rows.append(_svg_row(p, y + ROW_H / 2, axis))
            y += ROW_H
    return SvgChart(
        width=round(axis.x1 + GAP + VALUE_W, 1),
        height=round(y + 8, 1),
        label_x=round(GAP + label_w, 1),
        tag_x=round(x0 - GAP, 1) if tags else None,
        value_x=round(axis.x1 + GAP, 1),
        axis=axis,
        ticks=axis.ticks(min_gap=36.0),
        headers=tuple(headers),
        rows=tuple(rows),
    )


#: Characters of the text chart's axis.
TEXT_AXIS = 41
#: Leading character of a text chart line: GitHub's ``diff`` highlighting draws lines that
#: start with ``-`` in red and ``+`` in green.
_DIFF_MARK = {
    CaseVerdict.REGRESSED: "-",
    CaseVerdict.FAILED: "-",
    CaseVerdict.BROKEN: "-",
    CaseVerdict.INVALID: "-",
    CaseVerdict.IMPROVED: "+",
}


def _text_axis(p: ChartPoint, axis: Axis) -> str:
    cells = [" "] * TEXT_AXIS
    lo, hi = round(axis.x(1.0 / (1.0 + p.threshold))), round(axis.x(1.0 + p.threshold))
    for i in range(lo, hi + 1):
        cells[i] = "."
    cells[round(axis.x(1.0))] = "|"
    if p.has_ci:
        a, b = round(axis.x(p.ci_low)), round(axis.x(p.ci_high))  # type: ignore[arg-type]
        for i in range(a, b + 1):
            cells[i] = "-"
        cells[a] = "<" if p.ci_low < axis.lo else "["  # type: ignore[operator]
        cells[b] = ">" if p.ci_high > axis.hi else "]"  # type: ignore[operator]
    if p.ratio is not None:
        cells[round(axis.x(p.ratio))] = "o" if p.instrument == WALL else "x"
    return "".join(cells)


def text_chart(data: ChartData) -> list[str]:
    """The chart as fixed-width lines (a ``diff`` code block colours them by verdict)."""
    if not data.points:
        return []
    axis = Axis(*axis_range(data.points), x0=0.0, x1=float(TEXT_AXIS - 1))
    tags = len(data.instruments) > 1
    width = max(len(p.label) + (len(p.instrument) + 3 if tags else 0) for p in data.points)
    scale = [" "] * TEXT_AXIS
    for at, text in axis.ticks(min_gap=len("0.95") + 2):
        start = min(max(0, round(at) - len(text) // 2), TEXT_AXIS - len(text))
        scale[start : start + len(text)] = list(text)
    lines = [" " * (width + 6) + "".join(scale).rstrip()]
    for group in data.groups:
        lines.append(f"  {group}")
        for p in (q for q in data.points if q.group == group):
            name = f"{p.label} [{p.instrument}]" if tags else p.label
            mark = _DIFF_MARK.get(p.verdict, " ")
            lines.append(f"{mark}   {name:<{width}}  {_text_axis(p, axis)}  {_value_text(p)}")
    return lines
